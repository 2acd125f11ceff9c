"""Wall time of whole certifications against the bundled reference server (issue 16).

Side by side, in rounds (so that every ratio compares runs made on the same, possibly busy,
machine), each a separate process as a user starts it:
  - `boardcert run`                    the default: standard budget, bundled reference server;
  - `boardcert run --budget quick`     the quick budget;
  - `schemathesis run spec/openapi.yaml --max-examples 25`, plain, against a reference server
    started once beforehand (its start-up is not timed; boardcert's own start of the bundled
    server is).
Prints each run, the medians, and the ratios of the targets: standard <= 5 s and quick <= 3 s
on an idle 2-core machine (issue 16); standard at most 0.8 of the plain schemathesis run and
quick at most 0.5 of it (issue 33, target 2; issue 16 had 1.0 and 0.6), both ratios being
medians of per-round ratios.

`--per-budget` times `pytest suites` per budget instead, with and without the property tests
(the targets of issue 5). `--phases` runs each budget once with benchmarks/phases.py and says
when start-up, collection, the tests and the reports ended, and the garbage collector's time.
`--no-speed-too` also runs each budget with `--no-speed` in every round (what the speed
plugin buys: the plain run's time over the default's); `--against REV` also runs each budget
from a checkout of that git revision (a temporary worktree; before and after a change, side by
side: its time over this checkout's).
A measurement, not a test: quote it with the load average it prints.

    python benchmarks/run_time.py [--repeat 3] [--no-speed-too] [--against REV]
    python benchmarks/run_time.py [--budgets quick standard] --per-budget
    python benchmarks/run_time.py --phases
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout

from parallel import worktree  # noqa: E402 (benchmarks/, beside this file)

from boardcert.reference.server import start  # noqa: E402

BIN = Path(sys.executable).parent
PROPERTIES = "suites/test_properties.py"
# budget -> (whole run, what the property tests add), in seconds (issue 5, --per-budget)
TARGETS = {"quick": (8.0, 4.0), "standard": (30.0, 18.0)}
# issue 16: seconds on an idle 2-core machine, and ratios to the plain schemathesis run
WALL_TARGETS = {"standard": 5.0, "quick": 3.0}
RATIO_TARGETS = {"standard": 0.8, "quick": 0.5}  # issue 33, target 2
PLAIN = "schemathesis --max-examples 25"

ENV = dict(os.environ)


def timed(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, int]:
    """Seconds one process takes, and its exit status."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env or ENV, capture_output=True, check=False)
    return time.perf_counter() - started, done.returncode


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def side_by_side(repeat: int, no_speed: bool = False, against: str | None = None) -> int:
    """The issue-16 comparison: boardcert standard and quick against plain schemathesis; with
    `no_speed` or `against`, those runs beside them (issue 25)."""
    with worktree(against) as other:
        return _side_by_side(repeat, no_speed, against, other)


def _side_by_side(repeat: int, no_speed: bool, against: str | None, other: Path) -> int:
    key = "bench-" + secrets.token_urlsafe(12)
    boardcert = [sys.executable, "-m", "boardcert.cli", "run"]
    env = {k: v for k, v in ENV.items() if not k.startswith("BOARDCERT_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    theirs = {**env, "PYTHONPATH": os.pathsep.join(filter(None, [str(other),
                                                                 ENV.get("PYTHONPATH")]))}
    besides = [*(["--no-speed"] if no_speed else []), *([against] if against else [])]
    print(f"{load()} at the start; {repeat} rounds, each: boardcert standard, boardcert quick, "
          f"{PLAIN}{''.join(f', standard and quick {b}' for b in besides)}\n")
    times: dict[str, list[float]] = {"standard": [], "quick": [], PLAIN: []}
    ratios: dict[str, list[float]] = {"standard": [], "quick": []}
    beside: dict[str, list[float]] = {f"{budget} {b}": [] for b in besides
                                      for budget in ("standard", "quick")}
    with start(api_key=key) as server, tempfile.TemporaryDirectory() as scratch:
        plain = [str(BIN / "schemathesis"), "run", str(ROOT / "spec" / "openapi.yaml"),
                 "--url", server.base_url, "-H", f"X-API-Key: {key}", "--max-examples", "25"]
        for n in range(repeat):
            place = Path(scratch) / str(n)
            place.mkdir()
            runs = {"standard": boardcert + ["--output", str(place / "standard")],
                    "quick": boardcert + ["--budget", "quick", "--output", str(place / "quick")],
                    PLAIN: plain}
            for name in beside:
                budget, what = name.split(" ", 1)
                runs[name] = [*boardcert, "--budget", budget, "--output",
                              str(place / name.replace(" ", "-")),
                              *(["--no-speed"] if what == "--no-speed" else [])]
            seconds = {}
            for name, command in runs.items():
                seconds[name], code = timed(command, place, theirs if name.endswith(
                    f" {against}") else env)
                times.setdefault(name, []).append(seconds[name])
                print(f"  round {n + 1}  {name:32} {seconds[name]:6.1f} s  (exit {code})",
                      flush=True)
            for name in ratios:
                ratios[name].append(seconds[name] / seconds[PLAIN])
            for name in beside:
                beside[name].append(seconds[name] / seconds[name.split(" ", 1)[0]])
    print(f"\n{'run':34}{'median s':>9}{'target s':>9}{'ratio':>8}{'target':>8}")
    for name in ("standard", "quick"):
        print(f"{'boardcert ' + name:34}{statistics.median(times[name]):9.1f}"
              f"{WALL_TARGETS[name]:9.1f}{statistics.median(ratios[name]):8.2f}"
              f"{RATIO_TARGETS[name]:8.2f}")
    print(f"{PLAIN:34}{statistics.median(times[PLAIN]):9.1f}{'':9}{1:8.2f}")
    for name, found in beside.items():
        print(f"boardcert {name:24}{statistics.median(times[name]):9.1f}{'':9}"
              f"{statistics.median(found):8.2f}  (over boardcert {name.split()[0]})")
    print(f"\n{load()} at the end (the wall targets hold for an idle machine; the ratios "
          "compare runs side by side)")
    return 0


def phases(budgets: list[str], repeat: int) -> int:
    """Where a whole `boardcert run` spends its time, phase by phase (benchmarks/phases.py)."""
    env = {k: v for k, v in ENV.items() if not k.startswith("BOARDCERT_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "benchmarks"),
                                                      env.get("PYTHONPATH")]))
    print(f"{load()} at the start\n")
    with tempfile.TemporaryDirectory() as scratch:
        for n in range(repeat):
            for budget in budgets:
                command = [sys.executable, "-m", "boardcert.cli", "run", "--budget", budget,
                           "--output", str(Path(scratch) / f"{budget}-{n}"), "--", "-p", "phases"]
                started = time.perf_counter()
                done = subprocess.run(command, cwd=scratch, env=env, capture_output=True,
                                      text=True, check=False)
                seconds = time.perf_counter() - started
                said = [line for line in done.stderr.splitlines() if line.startswith("phases")]
                print(f"{budget:9} {seconds:5.2f} s (exit {done.returncode}): "
                      f"{said[-1] if said else 'no phases said'}", flush=True)
    print(f"\n{load()} at the end")
    return 0


# --- --per-budget: pytest suites per budget (issue 5) -------------------------------------

def wall_time(args: list[str]) -> tuple[float, str]:
    """Seconds one pytest process takes, and its summary line."""
    command = [sys.executable, "-m", "pytest", *args, "-q", "-p", "no:cacheprovider"]
    started = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False,
                            env=ENV)
    elapsed = time.perf_counter() - started
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    return elapsed, lines[-1] if lines else f"exit {result.returncode}"


def median_of(args: list[str], repeat: int) -> tuple[float, str]:
    runs = [wall_time(args) for _ in range(repeat)]
    return statistics.median(t for t, _ in runs), runs[-1][1]


def per_budget(budgets: list[str], repeat: int) -> int:
    """`pytest suites` per budget, with and without the property tests. With
    PYTHONDONTWRITEBYTECODE set every pytest process would compile again the plugin modules
    that assertion rewriting takes over: the runs keep their bytecode in ~/.cache/boardcert
    (as `boardcert run` does)."""
    if ENV.pop("PYTHONDONTWRITEBYTECODE", None):
        cache = Path(ENV.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "boardcert"
        ENV.setdefault("PYTHONPYCACHEPREFIX", str(cache / "pycache"))
    wall_time(["suites", "--budget", "quick"])  # fills the bytecode cache
    print(f"{load()}; median of {repeat} runs, wall seconds, reference server started by "
          "the plugin\n")
    base, summary = median_of(["suites", "--ignore", PROPERTIES], repeat)
    print(f"{'without properties':<28}{base:7.1f}  {summary}")
    for budget in budgets:
        whole, summary = median_of(["suites", "--budget", budget], repeat)
        alone, alone_summary = median_of([PROPERTIES, "--budget", budget], repeat)
        run_target, add_target = TARGETS.get(budget, (None, None))
        print(f"{'suites, ' + budget:<28}{whole:7.1f}  {summary}"
              + (f"  [target <= {run_target:g}]" if run_target else ""))
        print(f"{'  properties add':<28}{whole - base:7.1f}"
              + (f"  [target <= {add_target:g}]" if add_target else ""))
        print(f"{'  properties alone':<28}{alone:7.1f}  {alone_summary}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--per-budget", action="store_true",
                        help="pytest suites per budget, with and without the property tests")
    parser.add_argument("--budgets", nargs="+", default=["quick", "standard"],
                        help="with --per-budget or --phases")
    parser.add_argument("--no-speed-too", action="store_true",
                        help="also each budget with --no-speed, in every round")
    parser.add_argument("--against", metavar="REV",
                        help="also each budget from a checkout of this git revision")
    parser.add_argument("--phases", action="store_true",
                        help="when each phase of a run ended (--repeat runs of each budget)")
    args = parser.parse_args(argv)
    if args.phases:
        return phases(args.budgets, args.repeat)
    if args.per_budget:
        return per_budget(args.budgets, args.repeat)
    return side_by_side(args.repeat, args.no_speed_too, args.against)


if __name__ == "__main__":
    sys.exit(main())
