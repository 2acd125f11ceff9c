"""The speed plugin (boardcert.speed, issue 25): one plugin, off with one switch; each of its
patches of another library's internals fits the installed version (and took effect), and one
whose internal is gone stays off and says so in the console's header and the run facts.
(That the verdict is the same with and without it: tests/speed/test_speed_same.py.)"""

from __future__ import annotations

import ast
import http.client
import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from boardcert.cli import build_parser
from boardcert.cli.run import speed_on
from boardcert.cli.session import pytest_arguments
from boardcert.http.client import Client, send_plain
from boardcert.paths import ROOT, SUITES
from boardcert.settings.config import resolve
from boardcert.speed import patches

KEY = "speed-test-key-4f1e"


@pytest.mark.parametrize("patch", patches.PATCHES, ids=lambda p: p.name)
def test_every_patch_fits_the_installed_versions(patch):
    """Each internal the speed plugin leans on is where its check looks, on the versions
    installed here (tox -e newest: on the newest versions pyproject.toml allows)."""
    assert patch.check() is None


def test_the_patches_made_at_once_took_effect():
    """In this process (the speed plugin ran): pytest's `request` fixture gets no argument
    names without a signature read, Hypothesis describes a lambda without its source, and the
    client sends straight to httpx's transport."""
    from _pytest import fixtures
    from hypothesis import strategies as st

    assert getattr(fixtures.getfuncargnames, "__wrapped__", None) is not None
    assert "lambda: <unknown>" in repr(st.integers().map(lambda x: x + 1))
    assert Client.dispatch is patches.send_direct


def _breaks(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Takes away (or changes) the internal that the patch `name` leans on."""
    from _pytest import fixtures
    from allure_commons.logger import AllureFileLogger
    from allure_pytest import listener
    from hypothesis.internal import filtering
    from xdist.scheduler.loadscope import LoadScopeScheduling

    if name == "pytest request argnames":
        monkeypatch.delattr(fixtures, "RequestFixtureDef")
    elif name == "hypothesis lambda descriptions":
        monkeypatch.delattr(filtering, "lambda_description")
    elif name == "hypothesis shrinking time":
        from hypothesis.internal.conjecture import engine

        monkeypatch.delattr(engine, "MAX_SHRINKING_SECONDS")
    elif name == "httpx direct transport":
        monkeypatch.delattr(httpx.Client, "_transport_for_url")
    elif name == "lean http transport":
        monkeypatch.delattr(http.client.HTTPResponse, "getheaders")
    elif name == "httpx command-line client left out":
        monkeypatch.setitem(sys.modules, "httpx._main", sys.modules["httpx"])
    elif name == "allure writer":
        monkeypatch.setattr(AllureFileLogger, "report_result", lambda self, result: None)
    elif name == "allure listener":
        monkeypatch.delattr(listener.AllureListener, "_update_fixtures_children")
    elif name == "xdist scheduling":
        monkeypatch.delattr(LoadScopeScheduling, "_pending_of")
    elif name == "property tests side by side":
        from schemathesis.generation.hypothesis import reporting

        monkeypatch.delattr(reporting, "ignore_hypothesis_output")
    else:
        raise AssertionError(f"no way to break {name}")


@pytest.mark.parametrize("patch", patches.PATCHES, ids=lambda p: p.name)
def test_a_missing_internal_turns_its_patch_off_and_says_why(patch, monkeypatch):
    """A patch whose internal is gone is off, named with its library's version and why; the
    others stay on; nothing raises."""
    _breaks(patch.name, monkeypatch)
    off = patches.check_all()
    assert list(off) == [patch.name]
    library, why = off[patch.name].split(": ", 1)
    assert library.startswith(patch.library + " ") and why


def test_an_http_client_that_no_longer_reads_past_a_103_turns_the_lean_transport_off(
        monkeypatch):
    """The behaviour of http.client the lean transport leans on (a response's begin() called
    again reads the next head) is tried as the run starts: where it no longer holds, the
    transport is off and says why, instead of every answer after a 103 failing."""
    begin = http.client.HTTPResponse.begin

    def once(self):
        if not getattr(self, "begun", False):
            self.begun = True
            begin(self)

    monkeypatch.setattr(http.client.HTTPResponse, "begin", once)
    off = patches.check_all()
    assert list(off) == ["lean http transport"]
    assert "an informational answer is not passed over" in off["lean http transport"]


def test_a_check_that_raises_is_a_patch_off_never_a_stopped_run():
    """Whatever a changed library does to a check, the patch is off and the run goes on."""
    def broken() -> str | None:
        raise RuntimeError("changed")

    off = patches.check_all((patches.Patch("broken", "pytest", broken),))
    assert off["broken"].endswith("RuntimeError: changed")


def test_side_by_side_is_off_when_hypothesis_parses_out_of_its_reach(monkeypatch):
    """The property tests side by side replace `ast.parse` on the ast module (one thread at a
    time): a Hypothesis that holds a parse of its own (`from ast import parse`) would be out of
    its reach, so the patch is off, and says why."""
    from hypothesis.internal import lambda_sources

    monkeypatch.setattr(lambda_sources, "parse", ast.parse, raising=False)
    off = patches.check_all()
    assert list(off) == ["property tests side by side"]
    assert "hypothesis.internal.lambda_sources holds a parse of its own" in off[
        "property tests side by side"]


def test_the_plain_path_sends_the_same_bytes_as_the_direct_one():
    """httpx.Client.send (the plain path) and its transport directly (the speed plugin's) get
    the same request: method, URL, headers, body; no Basic auth from the URL's user, no
    cookie a server set sent back."""
    seen: list[tuple[str, str, list[tuple[str, str]], bytes]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((request.method, str(request.url), sorted(request.headers.items()),
                     request.read()))
        return httpx.Response(200, headers={"set-cookie": "session=1"}, json={"ok": True})

    target = resolve({"base_url": "http://user:secret@127.0.0.1:9/api", "api_key": KEY}, {})
    for dispatch in (send_plain, patches.send_direct):
        client = Client(target, transport=httpx.MockTransport(handler))
        client.dispatch = dispatch
        for _ in range(2):
            client.request("POST", "/projects", json={"name": "x"}, params={"q": "1"})
        client.close()
    assert len(seen) == 4 and seen[0] == seen[1] == seen[2] == seen[3], seen
    assert not any(name in ("authorization", "cookie") for name, _ in seen[1][2])


def test_no_speed_leaves_the_plugin_and_its_cuts_out_of_the_run():
    """`boardcert run --no-speed` (or -p no:boardcert.speed after --) gives pytest
    `-p no:boardcert.speed` and neither the start-up turns nor the cuts; by default the
    speed plugin loads first."""
    parser = build_parser()
    for argv, extra, on in ((["run"], [], True), (["run", "--no-speed"], [], False),
                            (["run"], ["-p", "no:boardcert.speed"], False)):
        args = parser.parse_args(argv)
        args.speed = speed_on(args, extra)
        assert args.speed is on
        pytest_args = pytest_arguments(args, extra, Path("out"))
        assert ("no:boardcert.speed" in pytest_args) is not on
        assert ("boardcert.speed.startup" in pytest_args) is on
        assert ("no:unraisableexception" in pytest_args) is on
        if on:
            assert pytest_args.index("boardcert.speed") < pytest_args.index("xdist")


def test_no_speed_with_requests_in_flight_is_a_usage_error(capsys):
    """--no-speed sends one request at a time: asking for more is refused (exit 2)."""
    from boardcert.cli import main

    assert main(["run", "--no-speed", "--in-flight", "4", "--plan"]) == 2
    assert "--in-flight 4 needs the speed plugin" in capsys.readouterr().err


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found


def test_nothing_outside_the_speed_plugin_imports_it():
    """Only `boardcert run` (its command, which composes the run) imports boardcert.speed;
    the rest gets what it provides through boardcert.pytest.stash; the suites do not know it."""
    package = ROOT / "boardcert"
    allowed = {package / "cli" / "run.py"}
    found = [str(path.relative_to(ROOT)) for path in [*package.rglob("*.py"),
                                                      *SUITES.rglob("*.py")]
             if package / "speed" not in path.parents and path not in allowed
             and any(name == "boardcert.speed" or name.startswith("boardcert.speed.")
                     for name in _imports(path))]
    assert found == []


BREAK_LAMBDAS = """
from hypothesis.internal import filtering
del filtering.lambda_description  # as if Hypothesis no longer kept its own reference
"""


def _run_users(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    """suites/test_users.py against the bundled server, with the report; the report's facts."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "BOARDCERT_"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))
    output = tmp_path / "report"
    done = subprocess.run([sys.executable, "-m", "pytest", str(SUITES / "test_users.py"),
                           "-p", "no:cacheprovider", "--rootdir", str(ROOT),
                           f"--report-dir={output}", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    report = output / "compliance.json"
    return done, json.loads(report.read_text())["run"] if report.exists() else {}


def test_a_patch_off_is_said_in_the_header_and_the_run_facts(tmp_path):
    """With Hypothesis's own reference gone, its lambda descriptions stay off: the console's
    header and compliance.json's run facts say which patch and why; the run goes on."""
    (tmp_path / "break_lambdas.py").write_text(BREAK_LAMBDAS)
    done, facts = _run_users(tmp_path, "-p", "break_lambdas")
    said = done.stdout + done.stderr
    assert "2 passed" in said, said
    header = next(line for line in said.splitlines() if line.startswith("boardcert: speed:"))
    assert header.startswith("boardcert: speed: on; off: hypothesis lambda descriptions "
                             "(hypothesis "), header
    assert facts["speed"]["on"] is True
    assert [off["patch"] for off in facts["speed"]["off"]] == ["hypothesis lambda descriptions"]


def test_without_the_plugin_the_run_says_speed_off(tmp_path):
    """-p no:boardcert.speed: the header and the run facts say speed off."""
    done, facts = _run_users(tmp_path, "-p", "no:boardcert.speed")
    said = done.stdout + done.stderr
    assert "2 passed" in said, said
    assert "boardcert: speed: off (--no-speed or -p no:boardcert.speed)" in said
    assert facts["speed"] == {"on": False, "off": []}


def test_without_the_plugin_one_request_at_a_time_whatever_in_flight_says():
    """Requests in flight only while the speed plugin runs: without it, one at a time even
    with --in-flight 8; with it, --in-flight decides."""
    from types import SimpleNamespace

    from boardcert.pytest import together
    from boardcert.settings.run import resolve_run, stash_key
    from boardcert.speed.in_flight import SideBySide

    def config(speed: bool) -> SimpleNamespace:
        made = SimpleNamespace(stash=pytest.Stash())
        made.stash[stash_key()] = resolve_run({"in_flight": 8}, {})
        if speed:  # as the speed plugin's pytest_configure does
            made.stash[together.TOGETHER] = SideBySide(made)  # type: ignore[arg-type]
        return made

    assert together.in_flight(config(False)) == 1
    assert together.in_flight(config(True)) == 8


def test_a_serial_run_checks_no_patch_it_does_not_use():
    """xdist's schedulers are checked (and imported: 15 ms) only by the controller of a run
    with workers."""
    from types import SimpleNamespace

    def run(workers: int | None) -> SimpleNamespace:
        return SimpleNamespace(option=SimpleNamespace(numprocesses=workers))

    def scheduler() -> str:
        return "checked"

    patch = patches.Patch("xdist scheduling", "pytest-xdist", scheduler, patches._distributes)
    assert patches.check_all((patch,), run(None)) == {}
    assert list(patches.check_all((patch,), run(2))) == ["xdist scheduling"]
    worker = run(2)
    worker.workerinput = {}
    assert patches.check_all((patch,), worker) == {}
