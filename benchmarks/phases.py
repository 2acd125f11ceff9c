"""A pytest plugin for `run_time.py --phases` (not a test): when each phase of a
`boardcert run` ended, in seconds since the process started, and the time the garbage
collector took; printed on stderr at the end. Load it with `-- -p phases` and this directory
on PYTHONPATH."""

from __future__ import annotations

import gc
import os
import sys
import time

import pytest


def _process_start() -> float:
    """When this process started (Linux: /proc; elsewhere: now, when this plugin loads)."""
    try:
        with open(f"/proc/{os.getpid()}/stat") as fh:
            ticks = int(fh.read().rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return time.time()
    booted = time.time() - time.clock_gettime(time.CLOCK_BOOTTIME)
    return booted + ticks / os.sysconf("SC_CLK_TCK")


_STARTED = _process_start()
_MARKS: list[tuple[str, float]] = [("plugins imported", time.time())]
_GC = {"seconds": 0.0, "since": 0.0}


def _collector(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _GC["since"] = time.perf_counter()
    else:
        _GC["seconds"] += time.perf_counter() - _GC["since"]


gc.callbacks.append(_collector)


def _mark(what: str) -> None:
    _MARKS.append((what, time.time()))


def _marking(what: str, first: bool) -> object:
    """A session hook that notes the time, called first or last of its kind."""

    @pytest.hookimpl(tryfirst=first, trylast=not first)
    def hook(session: pytest.Session) -> None:
        _mark(what)

    return hook


pytest_collection = _marking("configured", first=True)
pytest_collection_finish = _marking("collected", first=False)
pytest_sessionfinish = _marking("tests run", first=True)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    _mark("reports written")
    shown = "; ".join(f"{what} {at - _STARTED:.2f}" for what, at in _MARKS)
    print(f"phases (s since the process started): {shown}; "
          f"garbage collector {_GC['seconds']:.2f} s", file=sys.stderr)
