"""Where the test command leaves the cores idle (issue 33, target 4): the tests under
pytest-xdist, as the README's test command runs them, with a plugin noting when each test
started and ended on which worker, and the machine's CPU use sampled every half second
(/proc/stat, so Linux only).

    python benchmarks/idle.py [-- more pytest arguments, e.g. tests/certify]

Runs `python -m pytest -n auto --dist loadgroup -q -p no:cacheprovider` in this checkout with
this interpreter (its venv). Prints the wall time and the share of it the cores were busy;
per module, its tests' summed durations and those durations times the share of the cores
idle meanwhile (what the module leaves unused while it holds a worker); the tests that
leave most unused; and the end of the run, from when the first worker had nothing left.
A measurement, not a test: take it on an idle machine.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = '''import json, os, time
_out = None
def _write(kind, nodeid):
    global _out
    if _out is None:
        name = os.environ.get("PYTEST_XDIST_WORKER", "main")
        _out = open(os.path.join(os.environ["IDLE_TIMELINE"], f"{name}-{os.getpid()}"), "a")
    _out.write(json.dumps([kind, nodeid, time.time()]) + "\\n")
    _out.flush()
def pytest_runtest_logstart(nodeid, location):
    _write("start", nodeid)
def pytest_runtest_logfinish(nodeid, location):
    _write("end", nodeid)
'''


def cpu_times() -> tuple[int, int]:
    """All jiffies and the idle ones (idle + iowait), from /proc/stat's first line."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(values), values[3] + values[4]


def sample(samples: list[tuple[float, float]], stop: threading.Event) -> None:
    total, idle = cpu_times()
    while not stop.wait(0.5):
        now_total, now_idle = cpu_times()
        busy = 1 - (now_idle - idle) / max(1, now_total - total)
        samples.append((time.time(), busy))
        total, idle = now_total, now_idle


def spans(directory: Path) -> list[tuple[str, float, float, str]]:
    """(nodeid, start, end, worker) of every test the workers ran (the controller logs each
    test again as its report arrives: its own file counts only where no worker ran)."""
    found = []
    paths = list(directory.iterdir())
    workers = [p for p in paths if not p.name.startswith("main-")]
    for path in workers or paths:
        started: dict[str, float] = {}
        for line in path.read_text().splitlines():
            kind, nodeid, at = json.loads(line)
            if kind == "start":
                started[nodeid] = at
            elif nodeid in started:
                found.append((nodeid, started.pop(nodeid), at, path.name.split("-")[0]))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pytest_args", nargs="*", help="after --: more pytest arguments")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        plugin, timeline = Path(scratch, "plugin"), Path(scratch, "timeline")
        plugin.mkdir()
        timeline.mkdir()
        (plugin / "idle_timeline.py").write_text(PLUGIN)
        env = {**os.environ, "IDLE_TIMELINE": str(timeline),
               "PYTHONPATH": os.pathsep.join(filter(None, [str(plugin),
                                                            os.environ.get("PYTHONPATH")]))}
        samples: list[tuple[float, float]] = []
        stop = threading.Event()
        sampler = threading.Thread(target=sample, args=(samples, stop), daemon=True)
        sampler.start()
        done = subprocess.run([sys.executable, "-m", "pytest", "-n", "auto", "--dist",
                               "loadgroup", "-q", "-p", "no:cacheprovider", "-p",
                               "idle_timeline", *args.pytest_args], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        stop.set()
        sampler.join()
        ran = spans(timeline)
    print(done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-2000:])
    if not ran or not samples:
        print("no test ran (or no sample was taken)")
        return 1
    times = [at for at, _ in samples]

    def busy(start: float, end: float) -> float:
        """The cores' busy share over [start, end] (the samples ending in it)."""
        inside = samples[bisect.bisect_left(times, start):bisect.bisect_right(times, end + 0.5)]
        return sum(b for _, b in inside) / len(inside) if inside else 0.0

    first, last = min(s for _, s, _, _ in ran), max(e for _, _, e, _ in ran)
    print(f"wall {last - first:.1f} s, the cores busy {busy(first, last):.0%} of it")
    modules: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for nodeid, start, end, _ in ran:
        totals = modules[nodeid.split("::")[0]]
        totals[0] += end - start
        totals[1] += (end - start) * (1 - busy(start, end))
    print("per module: summed durations, s; of it unused (times the idle share), s")
    for name, (seconds, unused) in sorted(modules.items(), key=lambda m: -m[1][1])[:15]:
        print(f"  {seconds:7.1f} {unused:6.1f}  {name}")
    print("tests leaving most unused: duration, s; busy; worker; start, s")
    for nodeid, start, end, worker in sorted(
            ran, key=lambda t: -(t[2] - t[1]) * (1 - busy(t[1], t[2])))[:10]:
        print(f"  {end - start:6.1f} {busy(start, end):4.0%} {worker} {start - first:6.1f}  "
              f"{nodeid[:110]}")
    done_first = min(max(e for _, _, e, w in ran if w == worker) for worker in {r[3] for r in ran})
    print(f"the end: from {done_first - first:.1f} s (a worker had nothing left) to "
          f"{last - first:.1f} s, the cores busy {busy(done_first, last):.0%}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
