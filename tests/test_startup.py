"""boardcert.speed.startup: pytest-xdist's workers take turns, as many at a time as there are slots
(cores), to import and collect; without slots they start at once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# A worker: takes its turn as the plugin is imported, "collects" for a while, gives it back.
WORKER = """
import sys, time
started = time.monotonic()
from boardcert.speed import startup
began = time.monotonic()
time.sleep(0.3)
startup.pytest_collection_finish(None)
print(started, began, time.monotonic())
"""


def _workers(count: int, slots: Path | None) -> list[tuple[float, float, float]]:
    env = {k: v for k, v in os.environ.items() if k != "BOARDCERT_STARTUP_SLOTS"}
    if slots is not None:
        env["BOARDCERT_STARTUP_SLOTS"] = str(slots)
    children = [subprocess.Popen([sys.executable, "-c", WORKER], cwd=ROOT, text=True,
                                 stdout=subprocess.PIPE,
                                 env={**env, "PYTEST_XDIST_WORKER": f"gw{n}"})
                for n in range(count)]
    return [tuple(map(float, child.communicate(timeout=30)[0].split())) for child in children]


def _most_at_once(spans: list[tuple[float, float, float]]) -> int:
    return max(sum(began <= moment < ended for _, began, ended in spans)
               for _, moment, _ in spans)


def test_workers_take_turns_one_per_slot(tmp_path):
    """Four workers, two slots: never more than two collect at once; with no slots, all four."""
    for name in ("slot0", "slot1"):
        (tmp_path / name).touch()
    assert _most_at_once(_workers(4, tmp_path)) == 2
    assert _most_at_once(_workers(4, None)) == 4


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
