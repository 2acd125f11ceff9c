"""`boardcert run --read-only`: a production smoke check with its own verdict. It reads what the
key can see (op 1, and ops 3 and 6 on the project --project-id names), sends nothing but GET,
passes a conformant server (exit 0, "not a certification") and fails one whose op 3 has the
wrong shape (exit 1)."""

from __future__ import annotations

import re
from typing import Any

from faults.asgi import Intercept
from faults.catalogue import SHAPES
from hostile import apps

from boardcert import cli
from boardcert.http.api import find_named
from boardcert.outputs import report
from boardcert.paths import SUITES
from boardcert.reference.app import create_app

pytest_plugins = ["pytester", "hostile.fixtures"]  # servers

KEY = "read-only-key-6c1d0e"


def existing_project(app: Any) -> str:
    """A project with a row, a column and a card, there before the run; its id."""
    store = app.state.store
    organization = store.me()["currentOrganization"]["id"]
    project = store.create_project(organization, "in production")["id"]
    row = find_named(store.create_row(project, "row")["rows"], "row")
    column = find_named(store.create_column(project, row, "column")["rows"], "column")
    store.create_card(project, column, "card")
    return project


def read_only(url: str, project: str, out: Any, *paths: str) -> int:
    return cli.main(["run", "--base-url", url, "--api-key", KEY, "--read-only",
                     "--project-id", project, "--output", str(out), "--", *paths])


def test_a_conformant_server_passes_with_gets_only(servers, tmp_path, capsys):
    """The whole suite under --read-only against the reference server: only GET reaches it,
    ops 1, 3 and 6 are read and checked, nothing changes, and the run passes (exit 0) saying
    it is not a certification, in the report too."""
    app = create_app(KEY)
    project = existing_project(app)
    before = app.state.store.get_project(project)
    recorder = apps.Recorder(app)
    code = read_only(servers.asgi(recorder), project, tmp_path / "out")
    output = capsys.readouterr().out
    assert code == 0, output[-3000:]
    assert "boardcert: read-only checks passed: not a certification (exit 0)" in output
    left = re.search(r"boardcert --read-only: (\d+) requirements not assessed .*: (.*)", output)
    assert left and int(left.group(1)) > 20 and "CARD-NAME-MAX-ACCEPTED" in left.group(2)
    assert {hit.method for hit in recorder.hits} == {"GET"}
    assert {hit.path for hit in recorder.hits} >= {
        "/users/me", f"/projects/{project}", f"/projects/{project}/rows"}
    assert app.state.store.get_project(project) == before
    built = report.load(tmp_path / "out")
    assert built["read_only"]["passed"] and built["read_only"]["checks"] >= 5
    assert built["verdict_reason"].startswith("read-only checks passed: not a certification")
    ran = {t["nodeid"].split("::")[-1]: t["outcome"] for t in built["tests"]
           if "test_read_only.py" in t["nodeid"]}
    assert set(ran.values()) == {"passed"} and len(ran) == 5, ran
    assert "not a certification" in (tmp_path / "out" / "compliance.md").read_text()
    assert 'id="read-only" data-passed="true"' in (tmp_path / "out" / "compliance.html").read_text()


def test_a_wrong_shape_of_op_3_fails(servers, tmp_path, capsys):
    """A server whose Project answers are wrapped in {"project": ...} fails the read-only
    checks (exit 1), naming the requirement."""
    wrapped = next(v for v in SHAPES if v.name == "project-wrapped")
    app = create_app(KEY)
    project = existing_project(app)
    url = servers.asgi(Intercept(app, wrapped.make(KEY)))
    code = read_only(url, project, tmp_path / "out", str(SUITES / "test_read_only.py"))
    output = capsys.readouterr().out
    assert code == 1, output[-3000:]
    assert "boardcert: read-only checks failed: " in output and "PROJECT-NOT-WRAPPED" in output
    smoke = report.load(tmp_path / "out")["read_only"]
    assert not smoke["passed"] and "PROJECT-NOT-WRAPPED" in smoke["failed"]


def test_project_id_without_read_only_is_a_usage_error(tmp_path, capsys):
    """--project-id names a project to read: without --read-only it is a usage error (exit 2)."""
    code = cli.main(["run", "--base-url", "http://127.0.0.1:9", "--api-key", KEY,
                     "--project-id", "p1", "--output", str(tmp_path / "out")])
    assert code == 2
    assert "--project-id is for --read-only runs" in capsys.readouterr().err


def test_outside_read_only_the_smoke_checks_are_deselected(pytester):
    """A full run does not run the read-only smoke checks (it checks the same on its own
    board): they are deselected, not skipped."""
    result = pytester.runpytest_inprocess(
        "-p", "boardcert.pytest.plugin", "-p", "no:cacheprovider", "--collect-only", "-q",
        str(SUITES / "test_read_only.py"))
    result.stdout.fnmatch_lines(["*5 deselected*"])
