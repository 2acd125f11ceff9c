"""boardcert.speed.allure_listener (issue 16): allure-pytest's listener with cheaper bookkeeping
shows in Allure what allure-pytest's own shows: the same results, statuses, labels, steps,
attachments, and the same set-ups and tear-downs for each test.

A small module of tests that use fixtures every way the listener must follow (session,
module and function scopes, an overridden fixture, parametrization, fixtures asked for
during set-up and during the call, failing set-ups and tear-downs, steps and attachments,
failed, broken and skipped tests) runs twice, with allure-pytest's listener and with
the speed plugin's, and the two allure-results are compared
(tests/allure_shown.py). And the writer that saves the files through a process of its own
(boardcert.speed.allure_writer.AllureWriter).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from allure_shown import differences, shown

CONFTEST = '''
import pytest

@pytest.fixture(scope="session")
def server():
    yield "server"

@pytest.fixture
def board(server):
    return {"server": server}

@pytest.fixture
def overridden():
    return "conftest"

def pytest_sessionfinish(session):
    listener = session.config.pluginmanager.get_plugin("allure_listener")
    (session.config.rootpath / "listener.txt").write_text(type(listener).__name__)
'''

TESTS = '''
import allure
import pytest

@pytest.fixture(scope="module")
def shared(server):
    yield "shared"

@pytest.fixture
def overridden(overridden):
    return overridden + "+module"

@pytest.fixture
def later():
    yield "later"

@pytest.fixture
def broken_setup():
    raise RuntimeError("no board")

@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("not cleaned up")

@pytest.fixture
def with_step():
    with allure.step("prepare"):
        allure.attach("made", name="made")
    return 1

@pytest.mark.parametrize("number", [1, 2, 3])
def test_parametrized(number, board, shared):
    allure.dynamic.label("operation", str(number))
    with allure.step(f"call {number}"):
        allure.attach(f"body {number}", name="body")

def test_overridden(overridden, shared):
    assert overridden == "conftest+module"

def test_asks_during_the_call(request, board):
    assert request.getfixturevalue("later") == "later"
    request.getfixturevalue("with_step")

def test_asks_nothing():
    pass

def test_fails(board):
    with allure.step("check"):
        assert board == {}, "wrong board"

def test_breaks(board):
    raise KeyError("boom")

def test_set_up_fails(broken_setup):
    pass

def test_tear_down_fails(broken_teardown, board):
    pass

@pytest.mark.skip(reason="not today")
def test_skipped(board):
    pass

class TestClass:
    def test_in_a_class(self, board, shared, with_step):
        allure.dynamic.parameter("extra", 1)
'''


# The speed plugin's listener alone (its check passed: tests/speed/test_speed.py), no writer.
LEAN = '''
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    from boardcert.speed import allure_listener
    allure_listener.use(config)
'''


def run(directory: Path, lean: bool) -> dict:
    """The module's allure-results, made with boardcert's listener or allure-pytest's."""
    directory.mkdir()
    (directory / "conftest.py").write_text(CONFTEST)
    (directory / "test_module.py").write_text(TESTS)
    (directory / "lean_listener.py").write_text(LEAN)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "--rootdir", str(directory), "--alluredir", str(directory / "results"),
               *(["-p", "lean_listener"] if lean else [])]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "BOARDCERT_"))}
    done = subprocess.run(command, cwd=directory, env=env, capture_output=True, text=True,
                          timeout=60, check=False)
    assert "2 failed, 8 passed, 1 skipped, 2 errors" in done.stdout, done.stdout + done.stderr
    made_by = (directory / "listener.txt").read_text()
    assert made_by == ("LeanListener" if lean else "AllureListener")
    return shown(directory / "results")


def test_the_lean_listener_shows_what_allure_pytests_own_shows(tmp_path):
    """Same results, names, statuses, status details, labels, parameters, historyIds, steps
    and attachments; each test shown with the same set-ups and tear-downs (also of a fixture
    asked for during its call, and those that failed); the run's fixtures are shown."""
    theirs, ours = run(tmp_path / "allure", lean=False), run(tmp_path / "lean", lean=True)
    assert differences(theirs, ours) == []
    tests = {t["name"]: t for t in ours["tests"].values()}
    assert len(tests) == 12
    asks = tests["test_asks_during_the_call"]
    assert {f[0] for f in asks["befores"]} == {"server", "board", "later", "with_step"}
    assert {f[0] for f in tests["test_parametrized[2]"]["befores"]} >= {"server", "shared",
                                                                       "board"}
    assert tests["test_fails"]["status"] == "failed"
    assert "wrong board" in tests["test_fails"]["statusDetails"]["message"]
    assert tests["test_fails"]["steps"][0]["status"] == "failed"
    assert tests["test_breaks"]["status"] == "broken"
    assert tests["test_set_up_fails"]["befores"][0][:2] == ("broken_setup", "broken")
    assert any(f[1] == "broken" for f in tests["test_tear_down_fails"]["afters"])
    assert tests["test_parametrized[3]"]["steps"][0]["attachments"][0]["content"] == "body 3"
    assert ("operation", "3") in tests["test_parametrized[3]"]["labels"]


def test_the_writer_saves_every_file_through_its_process_and_says_what_it_could_not(tmp_path):
    """boardcert.speed.allure_writer.AllureWriter: once closed, every result is on disk with the
    containers of its test merged into one and no directory of the machine; none left half
    written; a file it could not save is said (an error of the run), not raised."""
    from allure_commons.model2 import TestBeforeResult, TestResult, TestResultContainer

    from boardcert.paths import ROOT
    from boardcert.speed.allure_writer import AllureWriter

    writer = AllureWriter(tmp_path, ROOT)
    for uuid, name in (("c1", "api"), ("c2", "board")):
        writer.write(TestResultContainer(uuid=uuid, children=["t1"],
                                         befores=[TestBeforeResult(name=name)]))
    writer.write(TestResult(uuid="t1", name="test", description=f"see {ROOT}/suites/x.py"))
    writer.close()
    results = [json.loads(p.read_text()) for p in tmp_path.glob("*-result.json")]
    containers = [json.loads(p.read_text()) for p in tmp_path.glob("*-container.json")]
    assert [r["description"] for r in results] == ["see suites/x.py"]
    assert [[b["name"] for b in c["befores"]] for c in containers] == [["api", "board"]]
    assert len(list(tmp_path.iterdir())) == 2 and writer.errors == []
    gone = AllureWriter(tmp_path / "gone")
    gone.write(TestResult(uuid="t2", name="test"))
    gone.close()
    assert len(gone.errors) == 1 and "No such file" in gone.errors[0], gone.errors
