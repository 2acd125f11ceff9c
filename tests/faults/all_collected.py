"""A pytest plugin for boardcert's own tests (`-p faults.all_collected`, tests/ on sys.path,
ALL_COLLECTED=<folder>:<workers>): each worker of pytest-xdist ends its collection only once
every worker has reached the end of its own.

boardcert's scheduler starts work with the first worker to collect (boardcert.speed.scheduler):
on a busy machine a late worker may find little or nothing left, which is right for a run and
wrong for a test that means to see several workers share the items. Each worker leaves a file
in <folder> and waits (at most WAIT seconds) until there is one per worker.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

WAIT = 120.0  # seconds, then collection ends anyway (and the test that asked may see one worker)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    value, worker = os.environ.get("ALL_COLLECTED"), os.environ.get("PYTEST_XDIST_WORKER")
    if not value or not worker:
        return
    folder, workers = value.rsplit(":", 1)
    (Path(folder) / worker).touch()
    deadline = time.monotonic() + WAIT
    while len(list(Path(folder).iterdir())) < int(workers) and time.monotonic() < deadline:
        time.sleep(0.05)
