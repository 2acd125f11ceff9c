"""Wall time of the conformance suites per schemathesis budget, against the reference server.

For each budget it runs, as separate processes (so start-up counts, as in `boardcert run`):
  - `pytest suites -q --budget B`                      the whole certification;
  - `pytest suites/test_properties.py -q --budget B`   the property tests alone;
and once `pytest suites -q --ignore suites/test_properties.py`, so that what the property tests
add to a run is the difference. Each is repeated and the median wall time is printed, with the
targets of issue 5. A measurement, not a test: run it by hand on an otherwise idle machine.

With PYTHONDONTWRITEBYTECODE set, every pytest process compiles again the ~400 plugin modules
(schemathesis, hypothesis, ...) that pytest's assertion rewriting takes over, seconds of
start-up per run; `--pycache DIR` lets the runs keep their bytecode in DIR, as a normal
installation does (a first, unmeasured run fills it).

    python benchmarks/run_time.py [--budgets quick standard] [--repeat 3] [--pycache DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROPERTIES = "suites/test_properties.py"
# budget -> (whole run, what the property tests add), in seconds
TARGETS = {"quick": (8.0, 4.0), "standard": (30.0, 18.0)}


ENV = dict(os.environ)


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", nargs="+", default=["quick", "standard"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pycache", metavar="DIR", help="keep bytecode in DIR (see above)")
    args = parser.parse_args(argv)
    if args.pycache:
        ENV.pop("PYTHONDONTWRITEBYTECODE", None)
        ENV["PYTHONPYCACHEPREFIX"] = str(Path(args.pycache).resolve())
        wall_time(["suites", "--budget", "quick"])  # fills the cache
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} cores, load average {load:.2f}"
          + ("  (busy machine: times are inflated)" if load > (os.cpu_count() or 1) else ""))
    if ENV.get("PYTHONDONTWRITEBYTECODE"):
        print("PYTHONDONTWRITEBYTECODE is set: start-up recompiles plugins (try --pycache DIR)")
    print(f"median of {args.repeat} runs, wall seconds, reference server started by the plugin\n")
    base, summary = median_of(["suites", "--ignore", PROPERTIES], args.repeat)
    print(f"{'without properties':<28}{base:7.1f}  {summary}")
    for budget in args.budgets:
        whole, summary = median_of(["suites", "--budget", budget], args.repeat)
        alone, alone_summary = median_of([PROPERTIES, "--budget", budget], args.repeat)
        run_target, add_target = TARGETS.get(budget, (None, None))
        print(f"{'suites, ' + budget:<28}{whole:7.1f}  {summary}"
              + (f"  [target <= {run_target:g}]" if run_target else ""))
        print(f"{'  properties add':<28}{whole - base:7.1f}"
              + (f"  [target <= {add_target:g}]" if add_target else ""))
        print(f"{'  properties alone':<28}{alone:7.1f}  {alone_summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
