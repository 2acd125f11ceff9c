"""Runs cut short (issue 14): a target that stops answering mid-run ends it with exit 3 and a
report that says so; Ctrl-C (or SIGTERM) ends `boardcert run` with exit 130, an "interrupted"
verdict and nothing left on the server; --max-failures stops early. Each writes a report
whose verdict is incomplete, with the reason."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from hostile import apps

from boardcert import cli
from boardcert.paths import ROOT, SUITES
from boardcert.reference.app import create_app

pytest_plugins = ["pytester", "hostile.fixtures"]
pytestmark = pytest.mark.usefixtures("no_target_from_the_environment")

KEY = "cut-short-key-4b7e90"
CARDS = str(SUITES / "test_cards.py")
USERS_ME = '{"currentOrganization": {"id": "1"}, "currentProject": null, "organizations": []}'


def verdict(directory: Path) -> tuple[str, str]:
    found = json.loads((directory / "compliance.json").read_text(encoding="utf-8"))
    return found["verdict"], found["verdict_reason"]


# --- the target stops answering -------------------------------------------------------------

def test_target_gone_mid_run_exits_3_with_a_report(servers, tmp_path, capsys):
    """`boardcert run`, the server stops listening after 40 requests: exit 3, the message once,
    and a report whose verdict is incomplete: the target stopped answering after N of M."""
    dying = apps.Dying(create_app(KEY), after=40, die=lambda: servers.stop(url))
    url = servers.asgi(dying)
    out = tmp_path / "out"
    code = cli.main(["run", "--base-url", url, "--api-key", KEY, "--request-timeout", "1",
                     "--output", str(out), "--", CARDS])
    captured = capsys.readouterr()
    assert code == 3, captured.out + captured.err
    assert captured.err.count(f"target {url} stopped answering during the run") == 1
    found, reason = verdict(out)
    done = re.fullmatch(r"the target stopped answering after (\d+) of (\d+) tests", reason)
    assert found == "incomplete" and done and 0 < int(done[1]) < int(done[2]), reason
    assert f"INCOMPLETE: {reason} (exit 3)" in captured.out


def run_suites(pytester: pytest.Pytester, base_url: str, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess(
        "-p", "boardcert.pytest.plugin", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
        "--base-url", base_url, "--api-key", KEY, "--request-timeout", "0.5", *args)


def test_target_that_hangs_mid_run_exits_3_with_a_report(pytester, servers, tmp_path):
    """From its 30th request on the server never answers: three timeouts in a row and an
    unanswered GET /users/me end the run with exit 3 in seconds, with the report."""
    url = servers.asgi(apps.Hanging(create_app(KEY), after=30))
    started = time.monotonic()
    result = run_suites(pytester, url, CARDS, f"--report-dir={tmp_path}")
    assert result.ret == 3
    assert time.monotonic() - started < 15
    output = result.stdout.str() + result.stderr.str()
    assert output.count("stopped answering during the run: no response within") == 1, output
    found, reason = verdict(tmp_path)
    assert (found, reason.split(" after ")[0]) == ("incomplete", "the target stopped answering")


def test_one_operation_that_hangs_does_not_end_the_run(pytester, servers):
    """Three timeouts in a row on one path, while GET /users/me still answers: the tests
    fail, the run goes on to the end."""
    pytester.makepyfile("""
        import pytest

        def test_slow(client):
            for _ in range(4):
                with pytest.raises(AssertionError, match="no response within"):
                    client.request("GET", "/slow")

        def test_after(api):
            assert api.call(1).status == 200
    """)
    url = servers.asgi(apps.Hanging(create_app(KEY), after=0, method="GET", path="/slow"))
    result = run_suites(pytester, url)
    result.assert_outcomes(passed=2)
    assert result.ret == 0


# --- Ctrl-C -----------------------------------------------------------------------------------

@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupted_run_exits_130_cleans_up_and_says_so(servers, tmp_path, stop):
    """SIGINT (Ctrl-C) or SIGTERM (a CI job cancelled or timed out) to `boardcert run` while
    tests create projects: exit 130, the verdict "incomplete" because "interrupted after N of
    M tests", and every project it created is deleted from the server."""
    recorder = apps.Recorder(create_app(KEY))
    url = servers.asgi(recorder)
    out = tmp_path / "out"
    env = {**os.environ, "BOARDCERT_API_KEY": KEY}
    run = subprocess.Popen([sys.executable, "-m", "boardcert.cli", "run", "--base-url", url,
                            "--output", str(out), "--", CARDS],
                           cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(recorder.created_projects()) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    run.send_signal(stop)
    stdout, stderr = run.communicate(timeout=60)
    assert run.returncode == 130, stdout + stderr
    found, reason = verdict(out)
    assert found == "incomplete" and reason.startswith("interrupted after "), reason
    assert f"INCOMPLETE: {reason} (exit 130)" in stdout
    created = recorder.created_projects()
    assert len(created) >= 3
    with httpx.Client(base_url=url, headers={"X-API-Key": KEY}) as http:
        assert [http.get(f"/projects/{p}").status_code for p in created] == [404] * len(created)
    assert "Traceback" not in stderr


def test_sigterm_to_the_whole_process_group_with_workers_leaves_nothing(servers, tmp_path):
    """SIGTERM to the process group of a run with workers (what `timeout` and a CI runner
    send): each pytest-xdist worker gets it too, twice (itself, and through the process
    pytest-xdist started for it); each stops as after a Ctrl-C and deletes what it created:
    exit 130, "interrupted after", nothing left on the server."""
    recorder = apps.Recorder(create_app(KEY))
    url = servers.asgi(recorder)
    out = tmp_path / "out"
    env = {**os.environ, "BOARDCERT_API_KEY": KEY}
    run = subprocess.Popen([sys.executable, "-m", "boardcert.cli", "run", "--base-url", url,
                            "--output", str(out), "--workers", "2"],
                           cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while len(recorder.created_projects()) < 10 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGTERM)
    stdout, stderr = run.communicate(timeout=60)
    assert run.returncode == 130, stdout + stderr
    assert verdict(out)[1].startswith("interrupted after ")
    created = recorder.created_projects()
    assert len(created) >= 10
    with httpx.Client(base_url=url, headers={"X-API-Key": KEY}) as http:
        assert [p for p in created if http.get(f"/projects/{p}").status_code != 404] == []
    assert "Traceback" not in stderr


# --- --max-failures ---------------------------------------------------------------------------

def test_max_failures_stops_early_and_says_so(servers, tmp_path, capsys):
    """A server that fails everything: --max-failures 3 stops after the third failure, the
    report says incomplete: stopped after 3 failures."""
    url = servers.asgi(apps.fixed(200, USERS_ME))
    out = tmp_path / "out"
    code = cli.main(["run", "--base-url", url, "--api-key", KEY, "--max-failures", "3",
                     "--output", str(out), "--", CARDS])
    captured = capsys.readouterr()
    assert code == 1, captured.out + captured.err
    found, reason = verdict(out)
    assert (found, reason) == ("incomplete", "stopped after 3 failures (--max-failures 3)")
    tests = json.loads((out / "compliance.json").read_text())["tests"]
    assert sum(t["outcome"] in ("failed", "error") for t in tests) == 3


# --- a server that fails everything: a screenful, not pages ---------------------------------

def test_a_server_failing_everything_gets_a_bounded_console(servers, tmp_path, capsys):
    """JSON 200 for every request, with or without a key: well over a hundred failing tests,
    yet the console is the header, the progress, two lines a failed requirement, the errors
    grouped, the verdict; no traceback, no line per failed test; the evidence in the report."""
    url = servers.asgi(apps.fixed(200, USERS_ME))
    out = tmp_path / "out"
    code = cli.main(["run", "--base-url", url, "--api-key", KEY, "--output", str(out), "--",
                     str(SUITES / "test_auth.py"), str(SUITES / "test_columns.py")])
    console = capsys.readouterr()
    lines = (console.out + console.err).splitlines()
    tests = json.loads((out / "compliance.json").read_text())["tests"]
    failing = [t for t in tests if t["outcome"] in ("failed", "error")]
    assert code == 1 and len(failing) > 100
    assert all(t["evidence"] for t in failing if t["outcome"] == "failed")
    assert len(lines) < 50, "\n".join(lines)
    assert not [line for line in lines if line.startswith(("FAILED", "ERROR", "E   ", "____"))]
    assert any(re.fullmatch(r"  MUST   AUTH-KEY-REQUIRED: \d+ failing tests \(.*\)", line)
               for line in lines), "\n".join(lines)
    assert any(re.fullmatch(r" +\d+ x .*", line) for line in lines)  # the errors, grouped
