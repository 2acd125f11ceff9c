"""A pytest plugin for `run_time.py --phases` and `certification_cost.py` (not a test): when
each phase of a `boardcert run` ended, in seconds since the process started, and the time the
garbage collector took; printed on stderr at the end. Where $PHASES_FILE names a file, the CPU
seconds the process had used at the end of each phase, and at its exit, are appended to it
as a line of JSON. Load it with `-- -p phases` and this directory on PYTHONPATH."""

from __future__ import annotations

import atexit
import gc
import json
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
_MARKS: list[tuple[str, float, float]] = [("plugins imported", time.time(),
                                           time.process_time())]
_GC = {"seconds": 0.0, "since": 0.0}


def _collector(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _GC["since"] = time.perf_counter()
    else:
        _GC["seconds"] += time.perf_counter() - _GC["since"]


gc.callbacks.append(_collector)


def _mark(what: str) -> None:
    _MARKS.append((what, time.time(), time.process_time()))


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
    shown = "; ".join(f"{what} {at - _STARTED:.2f}" for what, at, _ in _MARKS)
    print(f"phases (s since the process started): {shown}; "
          f"garbage collector {_GC['seconds']:.2f} s", file=sys.stderr)


def _write_cpu(path: str) -> None:
    _mark("exit")
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps({what: cpu for what, _, cpu in _MARKS}) + "\n")


if os.environ.get("PHASES_FILE"):
    atexit.register(_write_cpu, os.environ["PHASES_FILE"])
