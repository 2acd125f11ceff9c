"""Manners toward the server: everything a run creates is deleted at the end, after failures
and after Ctrl-C too, and everything that existed before the run reads back unchanged.

The reference app runs in this process (uvicorn in a thread), so its store is read directly:
what existed before is snapshotted, and each project the run created (recorded from op 2's
answers) must answer 404 afterwards.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from hostile import apps
from hostile.servers import Servers

from boardcert.http.api import find_named
from boardcert.paths import ROOT, SUITES
from boardcert.reference.app import create_app
from boardcert.reference.store import PLUGIN_IDS, Store

pytest_plugins = ["pytester"]

KEY = "cleanup-key-93b1"
# Modules that create every kind of resource, change things, and try the removed paths.
MODULES = [str(SUITES / name) for name in (
    "test_cards.py", "test_card_metadata.py", "test_plugins.py", "test_removed_paths.py")]


@dataclass
class Reference:
    """The reference app in this process: its URL, its store and a recorder in front."""

    url: str
    store: Store
    recorder: apps.Recorder
    before: dict[str, Any]

    def state(self) -> dict[str, Any]:
        """Every project as op 3 shows it, and all plugin data (the whole store but `me`)."""
        return {"projects": {pid: self.store.get_project(pid)
                             for pid in list(self.store._projects)},
                "plugin_data": dict(self.store._plugin_data)}

    def leftovers(self) -> list[str]:
        """Projects the run created that still answer anything but 404 (read over HTTP)."""
        with httpx.Client(base_url=self.url, headers={"X-API-Key": KEY}) as http:
            return [pid for pid in self.recorder.created_projects()
                    if http.get(f"/projects/{pid}").status_code != 404]

    def assert_as_before(self) -> None:
        assert self.recorder.created_projects(), "the run created nothing: nothing was proven"
        assert self.leftovers() == []
        assert self.state() == self.before


def existing_projects(store: Store) -> None:
    """Two projects that were there before the run: rows, columns, cards, metadata, a plugin
    attached, and plugin data."""
    organization = store.me()["currentOrganization"]["id"]
    for n in (1, 2):
        project = store.create_project(organization, f"existing {n}")["id"]
        row = find_named(store.create_row(project, f"row {n}")["rows"], f"row {n}")
        column = find_named(store.create_column(project, row, f"column {n}")["rows"],
                            f"column {n}")
        card = store.create_card(project, column, f"card {n}")["id"]
        store.set_card_metadata(project, card, "colour", "blue")
        store.attach_plugin(project, PLUGIN_IDS[0])
        store.put_plugin_data(PLUGIN_IDS[0], card, "note", {"n": n})


@pytest.fixture
def reference() -> Iterator[Reference]:
    app = create_app(KEY)
    store = app.state.store
    existing_projects(store)
    recorder = apps.Recorder(apps.Failing(app, "PATCH", r"/projects/[^/]+/cards/[^/]+"))  # op 16
    with Servers() as servers:
        reference = Reference(servers.asgi(recorder), store, recorder, {})
        reference.before = reference.state()
        yield reference


def test_everything_created_is_deleted_after_failures(pytester, reference):
    """A run with failing tests (op 16 answers 500) deletes all it created, and what existed
    before reads back unchanged."""
    result = pytester.runpytest_inprocess(
        "-p", "boardcert.pytest.plugin", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
        "--base-url", reference.url, "--api-key", KEY, *MODULES)
    assert result.ret == 1
    assert result.parseoutcomes().get("failed", 0) >= 1
    assert "clean-up could not delete" not in result.stdout.str()
    reference.assert_as_before()


def interrupt(reference: Reference, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest on the suites in a child process; Ctrl-C (SIGINT to its process group, as a
    terminal sends it) once the run has created a few projects."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOARDCERT_")}
    env["BOARDCERT_API_KEY"] = KEY
    child = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
         "--base-url", reference.url, *args, *MODULES],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    deadline = time.monotonic() + 60
    while len(reference.recorder.created_projects()) < 4:
        assert child.poll() is None, child.stdout.read() if child.stdout else ""
        assert time.monotonic() < deadline, "the run created nothing within 60 s"
        time.sleep(0.02)
    os.killpg(child.pid, signal.SIGINT)
    output, _ = child.communicate(timeout=60)
    return subprocess.CompletedProcess(child.args, child.returncode, output, "")


def test_everything_created_is_deleted_after_ctrl_c(reference):
    """Ctrl-C in the middle of a run: it stops, deletes all it created, and what existed
    before reads back unchanged."""
    result = interrupt(reference)
    assert result.returncode == 2, result.stdout  # pytest: interrupted
    assert "KeyboardInterrupt" in result.stdout
    reference.assert_as_before()


def test_everything_created_is_deleted_after_ctrl_c_under_xdist(reference):
    """The same with -n 2: each worker deletes what it created."""
    result = interrupt(reference, "-n", "2")
    assert result.returncode != 0, result.stdout
    reference.assert_as_before()


# --- --plan: what a run would do, doing none of it ----------------------------------------------

def test_plan_contacts_nothing_and_starts_nothing(tmp_path):
    """`boardcert run --plan` (even with -n 2) lists operations, creations and clean-up, and
    neither connects to the target nor starts a worker or a server."""
    with Servers() as servers:
        url, connections = servers.listener()
        env = {k: v for k, v in os.environ.items() if not k.startswith("BOARDCERT_")}
        env["BOARDCERT_API_KEY"] = KEY
        result = subprocess.run(
            [sys.executable, "-m", "boardcert.cli", "run", "--plan", "--base-url", url,
             "--", "-n", "2"], cwd=tmp_path, env=env, capture_output=True, text=True,
            timeout=120)
        time.sleep(0.2)  # a connection, if any, would have been accepted by now
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert f"target: {url} (not contacted)" in out
    assert "op  2  POST   /organizations/{organizationId}/projects" in out
    assert "suites/test_cards.py: " in out and "a board of its own in each of" in out
    assert "projects             op  4  DELETE /projects/{projectId}" in out
    assert connections == []
    assert "bringing up nodes" not in out and "created: " not in out and " workers [" not in out
    assert "as given to pytest after --" in out  # it states the workers -n asks for, starts none
    assert KEY not in out + result.stderr
    assert not (tmp_path / "reports").exists()


def test_plan_without_base_url_starts_no_reference_server(pytester, monkeypatch):
    """--plan with no base URL: the bundled reference server is not started, no request is
    sent by any client."""
    import httpx

    import boardcert.reference.server
    from boardcert.speed.lean_http import LeanTransport

    def tripped(*args, **kwargs):
        raise AssertionError("--plan must not start a server or send a request")

    monkeypatch.setattr(boardcert.reference.server, "start", tripped)
    monkeypatch.setattr(httpx.Client, "send", tripped)
    monkeypatch.setattr(httpx.HTTPTransport, "handle_request", tripped)  # boardcert.http.client's
    monkeypatch.setattr(LeanTransport, "handle_request", tripped)  # and the speed plugin's
    result = pytester.runpytest_inprocess(
        "-p", "boardcert.pytest.plugin", "-p", "no:cacheprovider", "--rootdir", str(ROOT), "--plan",
        *MODULES)
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["target: the bundled reference server (not started)",
                                 "clean-up, at the end of the run*"])


# --- --read-only: nothing is created, nothing changes --------------------------------------------

def test_read_only_run_only_reads(pytester, reference, tmp_path):
    """--read-only: only GET reaches the server, nothing is created or changed, and the run
    names the requirements it leaves not assessed, in the summary and in the report."""
    report = tmp_path / "report"
    result = pytester.runpytest_inprocess(
        "-p", "boardcert.pytest.plugin", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
        "--base-url", reference.url, "--api-key", KEY, "--read-only",
        f"--report-dir={report}", str(SUITES / "test_users.py"), *MODULES)
    assert result.ret in (0, 1), result.stdout.str()
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= 2 and outcomes.get("failed", 0) == 0
    assert {hit.method for hit in reference.recorder.hits} == {"GET"}
    assert reference.state() == reference.before
    result.stdout.fnmatch_lines(["boardcert --read-only: * requirements not assessed (they "
                                 "need the run to change the server): *CARD-RENAME*"])
    tests = json.loads((report / "compliance.json").read_text())["tests"]
    assert any("--read-only" in (t.get("message") or "") for t in tests)


READABLE = """
import pytest

@pytest.mark.read_only
@pytest.mark.requirement("PROJECT-TOP-LEVEL")
def test_reads_what_exists(readable_project):
    assert readable_project.entry is None
    print("read project", readable_project.id, readable_project.name)
"""


def test_read_only_reads_the_current_project_or_is_not_assessed(pytester):
    """readable_project under --read-only is the server's currentProject (op 1, then op 3);
    with no currentProject the test is not assessed, saying why."""
    pytester.makepyfile(READABLE)
    app = create_app(KEY)
    recorder = apps.Recorder(app)
    with Servers() as servers:
        url = servers.asgi(recorder)
        args = ("-p", "boardcert.pytest.plugin", "-p", "no:cacheprovider", "-s", "-rs",
                "--base-url", url, "--api-key", KEY, "--read-only")
        none_yet = pytester.runpytest_inprocess(*args)
        none_yet.assert_outcomes(skipped=1)
        none_yet.stdout.fnmatch_lines(["*not assessed: --read-only (GET /users/me reports no "
                                       "currentProject to read; name one with --project-id)*"])
        organization = app.state.store.me()["currentOrganization"]["id"]
        made = app.state.store.create_project(organization, "there before")["id"]
        found = pytester.runpytest_inprocess(*args)
        found.assert_outcomes(passed=1)
        found.stdout.fnmatch_lines([f"*read project {made} there before*"])
    assert {hit.method for hit in recorder.hits} == {"GET"}


def test_plan_under_read_only_names_what_is_left_not_assessed():
    """The plan of a --read-only run: only tests that need nothing created run, GETs only,
    and the requirements of the others are named as not assessed."""
    from boardcert.pytest.plan import PlannedTest, render

    tests = [
        PlannedTest("suites/a.py", (1,), frozenset({"api"}), True, ("USERS-ME-PROPERTIES",)),
        PlannedTest("suites/a.py", (3,), frozenset({"readable_project", "api"}), True,
                    ("PROJECT-TOP-LEVEL",)),
        PlannedTest("suites/b.py", (16,), frozenset({"fresh_board", "ledger"}), False,
                    ("CARD-RENAME",)),
        PlannedTest("suites/b.py", (3,), frozenset({"board", "ledger"}), True,
                    ("CARD-CREATE",)),
    ]
    text = render(tests, "", read_only=True)
    assert "--read-only: 2 tests would run; 2 not assessed" in text
    assert "--read-only leaves 2 requirements not assessed: CARD-CREATE, CARD-RENAME" in text
    assert "operations called (2 of 28):" in text and "op 16" not in text
    assert "suites/b.py: not assessed under --read-only" in text
    assert "clean-up: none needed" in text
    full = render(tests, "http://server", read_only=False)
    assert "shared, once per test worker (the board): 1 project, 1 row, 2 columns, 3 cards" \
        in full
    assert "a board of its own in each of 1 test (1 project" in full


def test_clean_up_deletes_newest_first_and_only_what_a_project_does_not_take_along():
    """The ledger deletes top-level resources newest first; rows, columns and cards go with
    their project; what a test deleted itself is not deleted again."""
    import httpx

    from boardcert.http.api import Api
    from boardcert.http.client import Client
    from boardcert.settings.config import Target, load_profile
    from boardcert.workbench.ledger import Ledger

    deleted: list[str] = []

    def server(request: httpx.Request) -> httpx.Response:
        deleted.append(f"{request.method} {request.url.path}")
        return httpx.Response(200, json={})

    profile = load_profile()
    api = Api(Client(Target("http://server", KEY, profile), httpx.MockTransport(server)),
              profile)
    ledger = Ledger(api)
    first = ledger.add("project", projectId="p1")
    ledger.add("row", first, projectId="p1", rowId="r1")
    ledger.add("plugin_data", pluginId="boardcert", entityId="e", key="k")
    gone = ledger.add("project", projectId="p2")
    ledger.add("project", projectId="p3")
    ledger.forget(gone)
    assert ledger.clean_up() == []
    assert deleted == ["DELETE /projects/p3", "DELETE /plugins/boardcert/entities/e/data/k",
                       "DELETE /projects/p1"]
    assert ledger.pending() == []


def test_clean_up_deletes_projects_side_by_side_once_the_server_answers():
    """Projects are independent: after the newest (alone, to see that the server answers) they
    are deleted up to CONCURRENT at a time, each once; a different kind waits its turn."""
    import threading
    import time

    import httpx

    from boardcert.http.api import Api
    from boardcert.http.client import Client
    from boardcert.settings.config import Target, load_profile
    from boardcert.workbench.ledger import CONCURRENT, Ledger

    deleted: list[str] = []
    busy, most = [0], [0]
    lock = threading.Lock()

    def server(request: httpx.Request) -> httpx.Response:
        with lock:
            busy[0] += 1
            most[0] = max(most[0], busy[0])
        time.sleep(0.05)
        with lock:
            busy[0] -= 1
            deleted.append(request.url.path.rsplit("/", 1)[-1])
        return httpx.Response(200, json={})

    profile = load_profile()
    ledger = Ledger(Api(Client(Target("http://server", KEY, profile),
                               httpx.MockTransport(server)), profile))
    ledger.add("plugin_data", pluginId="boardcert", entityId="e", key="k")
    for n in range(20):
        ledger.add("project", projectId=f"p{n}")
    assert ledger.clean_up() == [] and ledger.pending() == []
    assert deleted[0] == "p19" and deleted[-1] == "k"
    assert sorted(deleted[1:-1]) == sorted(f"p{n}" for n in range(19))
    assert 1 < most[0] <= CONCURRENT


def test_clean_up_gives_up_on_a_server_that_stopped_answering():
    """Three refused connections in a row: the rest is listed as not tried, not waited on."""
    import httpx

    from boardcert.http.api import Api
    from boardcert.http.client import Client
    from boardcert.settings.config import Target, load_profile
    from boardcert.workbench.ledger import GIVE_UP_AFTER, Ledger

    calls: list[str] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        raise httpx.ConnectError("Connection refused", request=request)

    profile = load_profile()
    ledger = Ledger(Api(Client(Target("http://server", KEY, profile),
                               httpx.MockTransport(refuse)), profile))
    for n in range(5):
        ledger.add("project", projectId=f"p{n}")
    failures = ledger.clean_up()
    assert len(calls) == GIVE_UP_AFTER
    assert [f.split(":")[0] for f in failures] == [f"project projectId=p{n}" for n in
                                                    (4, 3, 2, 1, 0)]
    assert failures[-1].endswith("not tried (the server stopped answering)")
