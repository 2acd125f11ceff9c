"""Whole `boardcert run` wall time against faulty servers, as a ratio to the reference's own.

    python benchmarks/fault_time.py [--budget standard] [--repeat 1] [--all] [--no-speed-too]
                                    [NAME ...]

Serves the reference and each named fault of tests/faults/ (default: a few whose failures
used to cost minutes; --all: every fault), each on its own port, and runs a whole default
`boardcert run` against each in turn, the reference again in every round, so that each ratio
compares runs made side by side on the same (possibly busy) machine. Prints each fault's
median wall time, its ratio to the reference (target: at most 1.5) and its verdict.
`--no-speed-too`: each fault also certified with `--no-speed` in every round, and the plain
run's time over the default one's (what the speed plugin buys against a faulty server).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout

from tests.faults.catalogue import FAULTS  # noqa: E402
from tests.faults.conformant import CONFORMANT  # noqa: E402
from tests.faults.harness import serving  # noqa: E402

# Faults whose runs used to take 4-7x the reference's: every set-up fails (no usable project),
# or the property tests fail and shrink.
DEFAULT = ["project-wrapped", "project-missing-id", "project-missing-rows", "card-url-null",
           "card-create-wrong-type-500", "auth-any-key"]
REFERENCE = next(v for v in CONFORMANT if v.name == "reference")  # through the same seam
TARGET = 1.5


def certify(base_url: str, key: str, budget: str, directory: Path,
            args: tuple[str, ...] = ()) -> tuple[float, str]:
    """Seconds a whole `boardcert run` (with `args`) takes, and its verdict."""
    output = directory / secrets.token_hex(4)
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOARDCERT_")}
    env["BOARDCERT_API_KEY"] = key
    command = [sys.executable, "-c", "import sys; from boardcert.cli import main; "
               "sys.exit(main())", "run", "--base-url", base_url, "--budget", budget,
               "--output", str(output), *args]
    started = time.perf_counter()
    subprocess.run(command, cwd=directory, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    try:
        verdict = json.loads((output / "compliance.json").read_text(encoding="utf-8"))["verdict"]
    except (OSError, ValueError, KeyError):
        verdict = "no report"
    return elapsed, verdict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", default="standard")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--all", action="store_true", help="every fault of tests/faults/")
    parser.add_argument("--no-speed-too", action="store_true",
                        help="each fault also with --no-speed, in every round")
    parser.add_argument("names", nargs="*")
    options = parser.parse_args()
    by_name = {v.name: v for v in FAULTS}
    names = list(by_name) if options.all else options.names or DEFAULT
    unknown = [n for n in names if n not in by_name]
    if unknown:
        parser.error(f"unknown faults: {', '.join(unknown)}")
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start; "
          f"budget {options.budget}; median of {options.repeat}, reference run in every round")
    key = "bench-" + secrets.token_urlsafe(12)
    variants = [REFERENCE, *(by_name[n] for n in names)]
    times: dict[str, list[float]] = {v.name: [] for v in variants}
    ratios: dict[str, list[float]] = {n: [] for n in names}
    verdicts: dict[str, str] = {}
    plain: dict[str, list[float]] = {n: [] for n in names}  # --no-speed over the default
    with ExitStack() as stack, tempfile.TemporaryDirectory() as scratch:
        urls = {v.name: stack.enter_context(serving(v, key)) for v in variants}
        for _ in range(options.repeat):
            for name in names:  # the reference next to each fault: a ratio of neighbours
                reference, verdicts["reference"] = certify(urls["reference"], key,
                                                           options.budget, Path(scratch))
                elapsed, verdicts[name] = certify(urls[name], key, options.budget,
                                                  Path(scratch))
                times["reference"].append(reference)
                times[name].append(elapsed)
                ratios[name].append(elapsed / reference)
                said = ""
                if options.no_speed_too:
                    slow, verdict = certify(urls[name], key, options.budget, Path(scratch),
                                            ("--no-speed",))
                    plain[name].append(slow / elapsed)
                    said = f"  --no-speed {slow:6.1f} s ({slow / elapsed:4.2f}x, {verdict})"
                print(f"  {name:32} {elapsed:6.1f} s  reference {reference:6.1f} s  "
                      f"{elapsed / reference:5.2f}x{said}", flush=True)
    print(f"\n{'server':34}{'wall s':>8}{'ratio':>8}  verdict")
    print(f"{'reference':34}{statistics.median(times['reference']):8.1f}{1:8.2f}  "
          f"{verdicts['reference']}")
    worst = 0.0
    for name in names:
        ratio = statistics.median(ratios[name])
        worst = max(worst, ratio)
        print(f"{name:34}{statistics.median(times[name]):8.1f}{ratio:8.2f}  {verdicts[name]}"
              + (f"; --no-speed {statistics.median(plain[name]):.2f}x the default"
                 if plain[name] else ""))
    print(f"\nworst ratio {worst:.2f} (target <= {TARGET}); load average "
          f"{os.getloadavg()[0]:.1f} at the end")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
