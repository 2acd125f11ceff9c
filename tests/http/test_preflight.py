"""The preflight (issue 14): before any test, GET /users/me must answer JSON for the key. A
misconfigured run stops within seconds with one message naming what to check, exit 2 (the
configuration) or 3 (the target cannot be reached), and writes nothing; a conformant server,
and a faulty one whose op 1 still answers JSON for the key, pass it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from faults import CONFORMANT, FAULTS
from hostile import apps, raw
from hostile.servers import Servers

from boardcert import cli
from boardcert.errors import ConfigError, UnreachableError
from boardcert.http import preflight
from boardcert.http.client import Client
from boardcert.paths import ROOT, SUITES
from boardcert.pytest.handover import Handed
from boardcert.reference.app import create_app
from boardcert.settings.config import Target, load_profile
from boardcert.settings.run import resolve_run

pytest_plugins = ["pytester", "hostile.fixtures"]
pytestmark = pytest.mark.usefixtures("no_target_from_the_environment")

KEY = "preflight-key-8d2f1a"  # distinctive, so that a leak anywhere is found
USERS = str(SUITES / "test_users.py")
USERS_ME = '{"currentOrganization": {"id": "1"}, "currentProject": null, "organizations": []}'
PREFIX = "check --base-url: is there a path prefix?"


def _site(tmp: Path) -> Path:
    (tmp / "index.html").write_text("<!doctype html><title>my site</title>")
    return tmp


# name: (start the server and give the base URL, the key sent, exit code, the message's words)
Start = Callable[[Servers, Path], str]
MISCONFIGURED: dict[str, tuple[Start, str, int, str]] = {
    "wrong key": (lambda s, t: s.asgi(create_app(KEY)), "not-the-key-123", 2,
                  "the API key was refused: check --api-key (GET http://127.0.0.1:"),
    "wrong path prefix": (lambda s, t: s.asgi(create_app(KEY)) + "/api/v1", KEY, 2,
                          "/api/v1/users/me answered 404: {\"error\""),
    "never answers": (lambda s, t: s.raw(raw.hang), KEY, 3,
                      "got no answer within the 1 s request timeout (--request-timeout)"),
    "python -m http.server": (lambda s, t: s.static(_site(t)), KEY, 2,
                              f"/users/me answered 404 (an HTML page): {PREFIX}"),
    "HTML for everything": (lambda s, t: s.asgi(apps.fixed(200, "<html>hi</html>", "text/html")),
                            KEY, 2, "answered an HTML page, not JSON: check --base-url"),
    "nothing listening": (lambda s, t: s.closed_port(), KEY, 3,
                          "cannot be reached: ConnectError: [Errno 111] Connection refused"),
    "not JSON": (lambda s, t: s.asgi(apps.fixed(200, "ok", "text/plain")), KEY, 2,
                 f"answered 200 with a body that is not JSON: ok: {PREFIX}"),
    "5xx": (lambda s, t: s.asgi(apps.fixed(502, "", None)), KEY, 3,
            "/users/me with 502: the server (or a proxy in front of it) is failing"),
    "redirect": (lambda s, t: s.asgi(apps.fixed(301, "", None, {"location": "https://x/"})),
                 KEY, 2, "answered 301, a redirect to https://x/: check --base-url"),
    "not HTTP": (lambda s, t: s.raw(raw.not_http), KEY, 2,
                 "check --base-url: http or https, and the right port?"),
    "https:// to a plain-HTTP server": (
        lambda s, t: s.asgi(create_app(KEY)).replace("http://", "https://"), KEY, 2,
        "WRONG_VERSION_NUMBER] wrong version number"),
}


@pytest.mark.parametrize("name", MISCONFIGURED)
def test_misconfigured_run_stops_at_once_with_its_message(servers, tmp_path, capsys, name):
    """`boardcert run` stops before pytest starts: one error line naming what to check, its
    exit code, well within 15 s, no report directory, the key nowhere."""
    start, key, code, words = MISCONFIGURED[name]
    url = start(servers, tmp_path)
    started = time.monotonic()
    got = cli.main(["run", "--base-url", url, "--api-key", key, "--request-timeout", "1",
                    "--output", str(tmp_path / "out")])
    seconds = time.monotonic() - started
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert (got, len(lines)) == (code, 1), captured.err
    assert lines[0].startswith("boardcert: error: ") and words in lines[0], lines[0]
    assert seconds < 15 and captured.out == ""  # 1 s timeouts, not retried: never minutes
    assert not (tmp_path / "out").exists()
    assert KEY not in captured.err and "not-the-key-123" not in captured.err


def test_https_to_a_plain_http_server_asks_http_or_https_without_the_preflight_too(
        servers, tmp_path, capsys):
    """--no-preflight still checks that the target answers at all: https:// to the reference
    server (plain HTTP on loopback) stops there too, exit 2, "http or https?"."""
    url = servers.asgi(create_app(KEY)).replace("http://", "https://")
    got = cli.main(["run", "--base-url", url, "--api-key", KEY, "--no-preflight",
                    "--output", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert got == 2, err
    assert "the TLS handshake failed (ConnectError: [SSL: WRONG_VERSION_NUMBER]" in err
    assert "): check --base-url: http or https?" in err
    assert not (tmp_path / "out").exists()


def run_suites(pytester: pytest.Pytester, base_url: str, *args: str) -> pytest.RunResult:
    """pytest on the users suite, in this process, against base_url."""
    return pytester.runpytest_inprocess(
        "-p", "boardcert.pytest.plugin", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
        "--base-url", base_url, "--request-timeout", "1", USERS, *args)


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["", "xdist"])
def test_plugin_runs_the_preflight_once_when_pytest_is_run_directly(pytester, servers,
                                                                    tmp_path, workers):
    """pytest --base-url: a wrong key stops the run before collection, exit 2, the message
    once, no report; under xdist too (the controller checks, before workers start)."""
    url = servers.asgi(create_app(KEY))
    report = tmp_path / "report"
    result = run_suites(pytester, url, "--api-key", "not-the-key-123",
                        f"--report-dir={report}", *workers)
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == 2, output
    assert output.count("the API key was refused: check --api-key") == 1, output
    assert "passed" not in output and "failed" not in output
    assert not report.exists()


@pytest.mark.parametrize("args", [[], ["--no-preflight"]], ids=["preflight", "no-preflight"])
def test_plain_pytest_asks_http_or_https_too(pytester, servers, args):
    """pytest --base-url https://... against a plain-HTTP server stops with exit 2 (as for
    the preflight's other configuration errors) and the hint, with or without the preflight;
    no test runs."""
    url = servers.asgi(create_app(KEY)).replace("http://", "https://")
    result = run_suites(pytester, url, "--api-key", KEY, *args)
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == 2, output
    assert "check --base-url: http or https?" in output
    assert "no tests ran" in output


def test_preflight_passes_a_conformant_server_and_the_run_goes_on(pytester, servers):
    """The reference server with its key passes: the tests run."""
    result = run_suites(pytester, servers.asgi(create_app(KEY)), "--api-key", KEY)
    result.assert_outcomes(passed=2)


def test_no_preflight_lets_the_tests_report_a_refused_key(servers, tmp_path, capsys):
    """--no-preflight: a server that refuses the key is reported by the tests (exit 1 and a
    report), not stopped as a configuration error."""
    url = servers.asgi(create_app(KEY))
    got = cli.main(["run", "--base-url", url, "--api-key", "not-the-key-123", "--no-preflight",
                    "--output", str(tmp_path / "out"), "--", USERS])
    capsys.readouterr()
    assert got == 1
    assert (tmp_path / "out" / "compliance.json").is_file()


def test_a_target_open_without_a_key_is_a_note_not_a_stop(servers):
    """GET /users/me answering 200 without a key too is for the auth tests to report."""
    url = servers.asgi(apps.fixed(200, USERS_ME))
    notes = preflight.check(Target(url, KEY, load_profile(), timeout=2))
    assert len(notes) == 1 and "answered 200 without a key too" in notes[0]


def _by_prefix(variants: list) -> Any:
    """One ASGI app serving each variant under /<its name>/ (so one server serves them all)."""
    served = {v.name: v.app(KEY) for v in variants}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return  # no lifespan
        _, name, rest = scope["path"].split("/", 2)
        await served[name]({**scope, "path": f"/{rest}", "raw_path": f"/{rest}".encode()},
                           receive, send)
    return app


# What the preflight makes of the variants of the reference server (all others pass quietly).
STOPPED = {"auth-bearer-only": "the API key was refused"}  # X-API-Key is really refused
NOTED = {"auth-open-op1": "answered 200 without a key too"}


def test_preflight_never_stops_a_server_that_answers_op1_for_the_key(servers):
    """Every conformant variant and every fault passes with no note, but the fault that
    refuses X-API-Key (stopped: --no-preflight lets the tests report it) and the one whose
    op 1 needs no key (a note: the auth tests report it)."""
    variants = [*CONFORMANT, *FAULTS]
    url = servers.asgi(_by_prefix(variants))
    shared = httpx.HTTPTransport()  # one for all: a client's own costs ~60 ms to set up
    for variant in variants:
        target = Target(f"{url}/{variant.name}", KEY, load_profile(), timeout=5)
        try:
            notes = preflight.examine(Client(target, transport=shared))
        except (ConfigError, UnreachableError) as exc:
            assert STOPPED.get(variant.name, "(passes)") in str(exc), variant.name
            continue
        assert variant.name not in STOPPED, variant.name
        expected = NOTED.get(variant.name)
        assert len(notes) == (expected is not None), (variant.name, notes)
        assert expected is None or expected in notes[0]
    shared.close()


# --- the target is probed once a run --------------------------------------------------------

def users_me(recorder: apps.Recorder) -> int:
    return sum(hit.method == "GET" and hit.path == "/users/me" for hit in recorder.hits)


@pytest.mark.parametrize(("args", "checked", "probes"), [
    ([], False, 2),  # the preflight: with the key, then without; the client asks nothing more
    (["--no-preflight"], False, 1),  # nothing checked it: the client asks whether it answers
    (["--no-preflight"], True, 0),  # boardcert run found it answering (Run.checked)
], ids=["preflight", "no-preflight", "checked-by-boardcert-run"])
def test_the_session_probes_the_target_once(pytester, servers, monkeypatch, args, checked,
                                            probes):
    """pytest run directly: GET /users/me is sent by the preflight or by the client fixture,
    never by both, and by neither when `boardcert run` checked the target already. (Under
    xdist the controller's preflight runs before any test reaches a worker, and the workers
    follow the same rule.)"""
    recorder = apps.Recorder(create_app(KEY))
    url = servers.asgi(recorder)
    given, plugins = ["--base-url", url, "--api-key", KEY, *args], []
    if checked:  # as `boardcert run` hands it over: its preflight found the target answering
        run = resolve_run({"base_url": url, "api_key": KEY, "no_preflight": True}, {})
        given, plugins = [], [Handed(replace(run, checked=True))]
    pytester.makepyfile(test_a="def test_a(client):\n    pass\n",
                        test_b="def test_b(client):\n    pass\n")
    result = pytester.runpytest_inprocess("-p", "boardcert.pytest.plugin", "-p", "no:cacheprovider",
                                          *given, plugins=plugins)
    result.assert_outcomes(passed=2)
    assert users_me(recorder) == probes


def test_boardcert_run_probes_the_target_once(servers, tmp_path, capsys):
    """`boardcert run`: the preflight and the round trip's requests before pytest starts, none
    again in the session (its test only opens the client)."""
    recorder = apps.Recorder(create_app(KEY))
    url = servers.asgi(recorder)
    test = tmp_path / "test_client.py"
    test.write_text("def test_client(client):\n    pass\n")
    cli.main(["run", "--base-url", url, "--api-key", KEY, "--output", str(tmp_path / "out"),
              "--", str(test)])
    assert "1 passed" in capsys.readouterr().out
    assert users_me(recorder) == 2 + cli.run.TIMED
