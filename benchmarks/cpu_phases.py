"""A pytest plugin for `certification_cost.py` (not a test): the CPU seconds this process
had used as each phase of its run ended, appended to the file $CPU_PHASES names. Load it
with `-p cpu_phases`, the last of the run's plugins, and this directory on PYTHONPATH."""

from __future__ import annotations

import atexit
import json
import os
import time

_MARKS: dict[str, float] = {}


def _mark(phase: str) -> None:
    _MARKS[phase] = time.process_time()


def _write() -> None:
    _mark("exit")
    with open(os.environ["CPU_PHASES"], "a", encoding="utf-8") as out:
        out.write(json.dumps(_MARKS) + "\n")


_mark("plugins imported")
atexit.register(_write)


def pytest_configure(config) -> None:
    _mark("configured")


def pytest_collection_finish(session) -> None:
    _mark("collected")


def pytest_sessionfinish(session) -> None:
    _mark("tests run")


def pytest_unconfigure(config) -> None:
    _mark("reports written")
