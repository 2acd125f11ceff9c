"""pytest-xdist's workers start a few at a time, one per core (a part of the speed plugin, the
first pytest plugin `boardcert run` loads, with -p; issue 16).

pytest-xdist starts every worker at once, and each imports pytest's plugins (schemathesis and
Hypothesis among them) and collects the suites: about a second of CPU each. Eight workers on
two cores shared that for five seconds, and none ran a test before all had nearly done (at
100 ms per answer, the first test began six seconds into the run). Here a worker waits for one
of as many slots as there are cores before it imports its plugins, and gives it back once it
has collected: the first start their tests within two seconds, and every worker is ready as
soon as before. The slots are locks (fcntl) on files of a directory the controller makes for
its run; a worker that cannot take one (no directory, no fcntl) starts at once, as before.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from typing import Any

SLOTS = "BOARDCERT_STARTUP_SLOTS"  # the directory of the slots' lock files
WAIT = 60.0  # seconds a worker waits for its turn at most
_HELD: list[Any] = []  # the worker's slot, until it has collected


def _take(directory: str, worker: str, patience: float = WAIT) -> None:
    """Wait for the slot this worker shares with every `count`-th worker (gw0, gw2, ...), at
    most `patience` seconds (a worker that never gives its slot back holds up no other)."""
    try:
        import fcntl

        slots = sorted(os.listdir(directory))
        number = int(worker.removeprefix("gw")) if worker.startswith("gw") else 0
        handle = open(os.path.join(directory, slots[number % len(slots)]), "w")  # noqa: SIM115
    except (OSError, ValueError, ImportError, ZeroDivisionError):
        return  # no slot: start at once
    deadline = time.monotonic() + patience
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if time.monotonic() < deadline:
                time.sleep(0.02)
                continue
        except OSError:
            pass
        else:
            _HELD.append(handle)
            return
        handle.close()  # waited long enough, or no lock to take: start now
        return


def _give_back() -> None:
    while _HELD:
        with contextlib.suppress(OSError):
            _HELD.pop().close()  # closing the file releases its lock


def _make_slots() -> str | None:
    """On the controller (or a run without workers): the slots' directory, for its workers."""
    try:
        directory = tempfile.mkdtemp(prefix="boardcert-startup-")
        for number in range(max(1, os.cpu_count() or 1)):
            open(os.path.join(directory, f"slot{number}"), "w").close()  # noqa: SIM115
    except OSError:
        return None
    return directory


_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _worker and os.environ.get(SLOTS):
    _take(os.environ[SLOTS], _worker)
elif not _worker:
    made = _make_slots()
    if made is not None:
        os.environ[SLOTS] = made  # the workers, started after this, inherit it


def pytest_collection_finish(session: Any) -> None:
    _give_back()


def pytest_unconfigure(config: Any) -> None:
    _give_back()
    if not _worker and os.environ.get(SLOTS):
        shutil.rmtree(os.environ.pop(SLOTS), ignore_errors=True)
