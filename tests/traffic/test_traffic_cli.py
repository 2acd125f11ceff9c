"""The commands as a user runs them: `boardcert serve --client-report DIR [--vary SEED]` and
`boardcert proxy --upstream URL --report DIR` serve until SIGTERM or Ctrl-C, then write the
reports and exit by the verdict (0 compatible, 1 incompatible; --strict: warnings too)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import httpx
import pytest

from boardcert.reference.server import free_port
from traffic import clients
from traffic.running import KEY, reference


def start(*argv: str) -> tuple[subprocess.Popen[str], str]:
    """`boardcert ARGV` in a child process on a free port, once it answers; its base URL."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "boardcert.cli", *argv, "--port",
                                str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    base_url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            httpx.get(f"{base_url}/users/me", headers={"X-API-Key": KEY}, timeout=1)
            return process, base_url
        except httpx.TransportError:
            if process.poll() is not None:
                break
            time.sleep(0.1)
    process.kill()
    raise AssertionError(f"boardcert {' '.join(argv)} did not start: {process.communicate()}")


def stop(process: subprocess.Popen[str], how: int) -> tuple[int, str, str]:
    process.send_signal(how)
    out, err = process.communicate(timeout=30)
    return process.returncode, out, err


def test_serve_writes_the_client_report_on_sigterm_and_exits_1_for_an_incompatible_client(
        tmp_path):
    """SIGTERM: the four reports are written, the verdict printed, exit 1; the key is in no
    file."""
    process, base_url = start("serve", "--api-key", KEY, "--client-report", str(tmp_path))
    clients.former(base_url, KEY)
    code, out, err = stop(process, signal.SIGTERM)
    assert code == 1, out + err
    assert "boardcert: client: incompatible: " in out
    assert {p.name for p in tmp_path.iterdir()} == {
        "client-compatibility.json", "client-compatibility.md", "client-compatibility.html",
        "junit.xml"}
    for path in tmp_path.iterdir():
        assert KEY not in path.read_text(encoding="utf-8")


def test_serve_varied_says_its_choices_and_a_tolerant_client_passes_on_ctrl_c(tmp_path):
    """--vary 5: the choices are printed at start and in the report; Ctrl-C (SIGINT) ends it
    with the reports written and exit 0 for a compatible client."""
    process, base_url = start("serve", "--api-key", KEY, "--client-report", str(tmp_path),
                              "--vary", "5")
    clients.current(base_url, KEY)
    code, out, err = stop(process, signal.SIGINT)
    assert code == 0, out + err
    assert "varied (seed 5)" in err and "row_name " in err
    report = json.loads((tmp_path / "client-compatibility.json").read_text(encoding="utf-8"))
    assert report["vary"]["seed"] == 5 and report["verdict"] == "compatible"


def test_strict_fails_a_client_with_warnings(tmp_path):
    """A move with no anchor is a warning: exit 0, and 1 with --strict."""
    for strict, expected in (((), 0), (("--strict",), 1)):
        process, base_url = start("serve", "--api-key", KEY, "--client-report",
                                  str(tmp_path / str(expected)), *strict)
        with httpx.Client(base_url=base_url, headers={"X-API-Key": KEY}) as http:
            http.patch("/projects/1/cards/move", json={"ids": ["2"]})
        code, out, err = stop(process, signal.SIGTERM)
        assert code == expected, out + err
        assert "compatible with warnings" in out


def test_the_proxy_writes_both_reports_when_stopped(tmp_path):
    """Between a client and the bundled server: client compatible, server fails nothing
    (incomplete: traffic certifies nothing), exit 0; the reports in --report."""
    with reference() as upstream:
        process, base_url = start("proxy", "--upstream", upstream, "--report", str(tmp_path))
        clients.current(base_url, KEY)
        code, out, err = stop(process, signal.SIGINT)
    assert code == 0, out + err
    assert "boardcert: client: compatible: " in out
    assert "boardcert: server: incomplete: From " in out
    compliance = json.loads((tmp_path / "compliance.json").read_text(encoding="utf-8"))
    assert compliance["source"] == "traffic"
    for path in tmp_path.iterdir():
        if path.is_file():
            assert KEY not in path.read_text(encoding="utf-8"), path


@pytest.mark.parametrize("argv, said", [
    (["proxy", "--report", "r"], "give --upstream URL"),
    (["proxy", "--upstream", "localhost:8080", "--report", "r"], "--upstream 'localhost:8080'"),
])
def test_the_proxy_refuses_what_it_cannot_use(argv, said, capsys):
    """Exit 2 and a message naming the flag."""
    from boardcert import cli

    assert cli.main(argv) == 2
    assert said in capsys.readouterr().err

