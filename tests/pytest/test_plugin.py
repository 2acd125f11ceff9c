"""The boardcert pytest plugin, black-box through `pytester`; and the suites as a whole: they
pass against the reference server and fail against a server that wraps its Projects."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import uvicorn

import boardcert.reference.server
from boardcert.paths import ROOT
from boardcert.reference.app import create_app
from boardcert.reference.server import free_port
from boardcert.workbench.checks import PROJECT_FIELDS

pytest_plugins = ["pytester", "hostile.fixtures"]
pytestmark = pytest.mark.usefixtures("no_target_from_the_environment")

PLUGIN = ("-p", "boardcert.pytest.plugin", "-p", "no:cacheprovider")



# --- servers in this process ---------------------------------------------------------------

class WrapProjects:
    """ASGI middleware: answers every Project inside {"project": ...}, the removed shape."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def capture(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            body = _wrapped(b"".join(chunks))
            headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
            await send({**start, "headers": [*headers, (b"content-length", b"%d" % len(body))]})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, capture)


def _wrapped(body: bytes) -> bytes:
    try:
        value = json.loads(body)
    except ValueError:
        return body
    if isinstance(value, dict) and all(field in value for field in PROJECT_FIELDS):
        return json.dumps({"project": value}).encode()
    return body


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Serve an ASGI app with uvicorn on a free loopback port, in a thread; yields its URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=5)


def run_suites(*args: str, key: str | None = None) -> subprocess.CompletedProcess[str]:
    """`pytest suites ...` from the checkout, in a child process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOARDCERT_")}
    if key:
        env["BOARDCERT_API_KEY"] = key
    return subprocess.run([sys.executable, "-m", "pytest", *args, "-q", "-p", "no:cacheprovider"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


# --- the plugin ----------------------------------------------------------------------------

def test_not_assessed_is_reported_skipped(pytester):
    """A test that raises NotAssessed is skipped with "not assessed: <key>"."""
    pytester.makepyfile("""
        import pytest
        from boardcert.settings.config import NotAssessed

        @pytest.mark.requirement("CARD-ALIAS")
        def test_needs_a_body():
            raise NotAssessed("bodies.alias_card")
    """)
    result = pytester.runpytest(*PLUGIN, "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*not assessed: bodies.alias_card*"])


def test_hypothesis_s_large_repr_warning_stays_off_the_console(pytester):
    """Hypothesis's warning that a failing example's repr is large (a 25,000-character name)
    says nothing of the server: it is filtered; other warnings still show."""
    pytester.makepyfile("""
        import warnings
        from hypothesis.errors import HypothesisWarning

        def test_it():
            warnings.warn(HypothesisWarning("Generating overly large repr. This is an "
                                            "expensive operation, and with a length of 144 kB"))
            warnings.warn(UserWarning("another warning"))
    """)
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(passed=1)
    out = result.stdout.str()
    assert "another warning" in out and "overly large repr" not in out


def test_unknown_requirement_id_is_a_usage_error(pytester):
    """Naming a requirement the catalogue lacks stops the run as a usage error."""
    pytester.makepyfile("""
        import pytest

        @pytest.mark.requirement("NO-SUCH-REQUIREMENT")
        def test_it():
            pass
    """)
    result = pytester.runpytest(*PLUGIN)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "NO-SUCH-REQUIREMENT" in result.stdout.str() + result.stderr.str()


def test_markers_select_by_operation_and_requirement(pytester):
    """`-m op16` and `-m <REQUIREMENT-ID>` select the tests that touch or check them."""
    pytester.makepyfile("""
        import pytest

        @pytest.mark.requirement("CARD-NAME-MAX-REJECTED")
        def test_limit():
            pass

        @pytest.mark.requirement("USERS-ME-PROPERTIES")
        def test_me():
            pass

        @pytest.mark.requirement("SUCCESS-STATUS-200", op=16)
        def test_status_of_op16():
            pass
    """)
    by_op = pytester.runpytest(*PLUGIN, "-m", "op16", "-v")
    by_op.assert_outcomes(passed=2, deselected=1)
    by_op.stdout.fnmatch_lines(["*test_limit PASSED*", "*test_status_of_op16 PASSED*"])
    by_id = pytester.runpytest(*PLUGIN, "-m", "USERS-ME-PROPERTIES", "-v")
    by_id.assert_outcomes(passed=1, deselected=2)
    by_id.stdout.fnmatch_lines(["*test_me PASSED*"])


def test_bad_profile_key_is_a_usage_error_naming_it(pytester):
    """A profile with an unknown key stops the run as a usage error that names the key."""
    profile = pytester.makefile(".yaml", profile="name: x\nbodies:\n  rename_wizard: {}\n")
    pytester.makepyfile("def test_it():\n    pass\n")
    result = pytester.runpytest(*PLUGIN, "--profile", str(profile))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "rename_wizard" in result.stderr.str()


def test_failure_shows_evidence_with_the_key_redacted(pytester):
    """A failing test's report has the last exchanges, with the key shown as ***."""
    key = "secret-" + secrets.token_hex(8)
    pytester.makepyfile("""
        import pytest

        @pytest.mark.requirement("USERS-ME-PROPERTIES")
        def test_fails(api):
            api.call(1)
            assert False, "deliberately"
    """)
    with serving(create_app(key)) as url:
        result = pytester.runpytest(*PLUGIN, "--base-url", url, "--api-key", key)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*boardcert: evidence*", "*request: GET */users/me*",
                                 "*api-key: [*][*][*]*"])
    assert key not in result.stdout.str() + result.stderr.str()


def test_tests_without_the_board_start_no_server(pytester, monkeypatch):
    """Tests that use no target fixture run without starting the reference server."""
    started = []

    def launch(api_key: str, **kwargs: Any) -> None:
        started.append(api_key)
        raise RuntimeError("the reference server was started")

    monkeypatch.setattr(boardcert.reference.server, "launch", launch)
    pytester.makepyfile("""
        import pytest

        @pytest.mark.requirement("ID-FORMAT")
        def test_observes(observe):
            observe("ID-FORMAT", "nothing to see")

        def test_plain():
            pass
    """)
    pytester.runpytest(*PLUGIN).assert_outcomes(passed=2)
    assert started == []
    # Not test_board.py: in one process that name is tests/workbench/test_board.py's module.
    pytester.makepyfile(test_uses_board="def test_board(board):\n    pass\n")
    pytester.runpytest(*PLUGIN, "test_uses_board.py").assert_outcomes(errors=1)
    assert len(started) == 1  # the control: a test that needs the board does start it


# --- the suites as a whole -----------------------------------------------------------------

def test_suites_pass_against_the_reference_server():
    """`pytest suites` with no target certifies the bundled reference server: exit 0."""
    result = run_suites("suites")
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]


def test_suites_fail_against_a_server_that_wraps_projects():
    """A server answering {"project": {...}} fails, naming PROJECT-TOP-LEVEL."""
    key = secrets.token_urlsafe(16)
    with serving(WrapProjects(create_app(key))) as url:
        result = run_suites("suites/test_projects.py", "--base-url", url, key=key)
    assert result.returncode == 1, result.stdout[-5000:] + result.stderr[-2000:]
    assert "[PROJECT-TOP-LEVEL]" in result.stdout
    assert "[PROJECT-NOT-WRAPPED]" in result.stdout
    assert key not in result.stdout + result.stderr
