"""boardcert.speed.startup: pytest-xdist's workers take turns, as many at a time as there are slots
(cores), to import and collect; without slots they start at once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A worker: takes its turn as the plugin is imported, "collects" until every worker has
# begun (each leaves a mark) or for HOLD seconds, gives it back. Waiting for the others rather
# than for a fixed time, workers that may all be in at once are, however slowly each starts.
WORKER = """
import os, sys, time
started = time.monotonic()
from boardcert.speed import startup
began = time.monotonic()
marks, count, hold = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
open(os.path.join(marks, os.environ["PYTEST_XDIST_WORKER"]), "w").close()
while len(os.listdir(marks)) < count and time.monotonic() < began + hold:
    time.sleep(0.01)
startup.pytest_collection_finish(None)
print(started, began, time.monotonic())
"""
HOLD = 1.0  # seconds a worker holds its slot when not every worker could begin


def _workers(count: int, slots: Path | None, marks: Path) -> list[tuple[float, float, float]]:
    env = {k: v for k, v in os.environ.items() if k != "BOARDCERT_STARTUP_SLOTS"}
    if slots is not None:
        env["BOARDCERT_STARTUP_SLOTS"] = str(slots)
    marks.mkdir()
    children = [subprocess.Popen([sys.executable, "-c", WORKER, str(marks), str(count),
                                  str(HOLD if slots else 60)], cwd=ROOT, text=True,
                                 stdout=subprocess.PIPE,
                                 env={**env, "PYTEST_XDIST_WORKER": f"gw{n}"})
                for n in range(count)]
    return [tuple(map(float, child.communicate(timeout=90)[0].split())) for child in children]


def _most_at_once(spans: list[tuple[float, float, float]]) -> int:
    return max(sum(began <= moment < ended for _, began, ended in spans)
               for _, moment, _ in spans)


def test_workers_take_turns_one_per_slot(tmp_path):
    """Four workers, two slots: never more than two collect at once; with no slots, all four."""
    slots = tmp_path / "slots"
    slots.mkdir()
    for name in ("slot0", "slot1"):
        (slots / name).touch()
    assert _most_at_once(_workers(4, slots, tmp_path / "slotted")) == 2
    assert _most_at_once(_workers(4, None, tmp_path / "free")) == 4


def test_the_controller_makes_the_slots_for_its_workers_and_removes_them():
    """Imported on the controller (no PYTEST_XDIST_WORKER), the plugin makes one slot per core
    and names their directory in the environment its workers inherit; gone at the end."""
    code = ("import os; from boardcert.speed import startup; d = os.environ[startup.SLOTS]; "
            "print(len(os.listdir(d))); startup.pytest_unconfigure(None); "
            "print(os.path.exists(d), startup.SLOTS in os.environ)")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTEST_XDIST_WORKER", "BOARDCERT_STARTUP_SLOTS")}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=30)
    assert done.stdout.split() == [str(os.cpu_count() or 1), "False", "False"], done.stderr


def test_a_worker_waits_for_its_turn_no_longer_than_its_patience(tmp_path):
    """A slot held and never given back holds a worker up for its patience, then it starts."""
    import fcntl

    (tmp_path / "slot0").touch()
    with open(tmp_path / "slot0", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        code = ("import time; from boardcert.speed import startup; s = time.monotonic(); "
                f"startup._take({str(tmp_path)!r}, 'gw2', patience=0.3); "
                "print(round(time.monotonic() - s, 1), len(startup._HELD))")
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTEST_XDIST_WORKER", "BOARDCERT_STARTUP_SLOTS")}
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, text=True,
                              capture_output=True, timeout=30)
    assert done.stdout.split() == ["0.3", "0"], done.stdout + done.stderr
