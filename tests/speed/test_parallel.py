"""`pytest suites -n N` (pytest-xdist): each worker has its own client, ledger and board; with
no base URL the controller starts one reference server that every worker tests; the rate cap
holds for the whole run, not per worker."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hostile import apps

from boardcert.paths import ROOT, SUITES
from boardcert.reference.app import create_app

pytest_plugins = ["pytester", "hostile.fixtures"]
pytestmark = pytest.mark.usefixtures("no_target_from_the_environment")

KEY = "parallel-key-41d0"
TESTS = Path(__file__).parents[1]
PLUGIN = ("-p", "boardcert.pytest.plugin", "-p", "no:cacheprovider", "--rootdir", str(ROOT))




def test_workers_share_one_reference_server_started_by_the_controller(tmp_path):
    """-n 2 with no base URL: one reference server, started once, by the controller, and
    the suites pass in both workers, each with its own board."""
    log = tmp_path / "starts"
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOARDCERT_")}
    # a child process, so that its workers (which copy its sys.path) find the tripwire too
    env |= {"HOSTILE_TRIPWIRE": str(log), "PYTHONPATH": os.pathsep.join(
        filter(None, [str(TESTS), env.get("PYTHONPATH")]))}
    child = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "hostile.tripwire",
         "-q", "-n", "2", str(SUITES / "test_users.py"), str(SUITES / "test_rows.py")],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output, _ = child.communicate(timeout=300)
    assert child.returncode == 0, output
    assert re.search(r"^\d+ passed in ", output, re.MULTILINE), output
    starts = log.read_text().splitlines()
    assert len(starts) == 1, starts
    assert starts[0].split()[0] == str(child.pid)  # the controller, not a worker


def test_rate_limit_is_for_the_whole_run_under_xdist(pytester, servers):
    """-n 2 --rate-limit 50 against a given server: together the workers stay within 50
    requests a second; each worker's board is its own and all of it is deleted."""
    app = create_app(KEY)
    recorder = apps.Recorder(app)
    url = servers.asgi(recorder)
    result = pytester.runpytest_inprocess(
        *PLUGIN, "-n", "2", "--base-url", url, "--api-key", KEY, "--rate-limit", "50",
        str(SUITES / "test_rows.py"), str(SUITES / "test_columns.py"))  # a module each
    assert result.ret == 0, result.stdout.str()
    assert len(recorder.hits) >= 100  # seconds of traffic: the limit held throughout
    # a little more: a slot a worker, and answers delayed by a busy machine (each worker on
    # its own at 50 would make 100)
    assert recorder.busiest(1.0) <= 50 + 4
    assert len(recorder.created_projects()) >= 2  # a board per worker, at least
    assert app.state.store._projects == {}  # everything the workers created is gone
