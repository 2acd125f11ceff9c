"""The same verdict with and without the speed plugin (issue 25): every fault of tests/faults/,
every conformant variant and the independent server of tests/independent/, each certified by a
whole `boardcert run` twice at one seed, the fast way and the plain way, compared.

    python benchmarks/speed_same.py [--budget quick] [--seed N] [--workers 2] [--in-flight 8]
                                    [--selected] [--jobs 1] [NAME ...]

Both with `--no-preflight`, as tests/faults/ certifies (a fault of GET /users/me is for the
tests to report). The fast way: `--workers W --in-flight N` (default 2 and 8: the speed
plugin's scheduling, start-up turns, shared discovery, batches, set-ups built ahead and
property tests side by side all take part, as far away); the plain way: `--no-speed --workers
1` (one process, one request at a time, allure-pytest's own writer). `--selected`: each fault
with only its requirement's tests (`-m ID`, as tests/certify/test_faults.py), not the whole suite.
Prints, for each server, both verdicts and failed requirements and the time each took, then
every difference: the verdict, the failed-requirement set, each requirement's status. Exit 1
when anything differs.
A measurement, not a test: tests/speed/test_speed_same.py checks a handful in CI.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # run from a checkout

from faults import CONFORMANT, FAULTS, serving  # noqa: E402
from faults.harness import write_profile  # noqa: E402
from independent import server as independent  # noqa: E402

from boardcert.settings.budget import DEFAULT_SEED  # noqa: E402

INDEPENDENT = "independent"


@contextmanager
def served(name: str, key: str, directory: Path) -> Iterator[tuple[str, Path | None]]:
    """The server `name` (a variant of tests/faults/, or the independent one) and its profile."""
    if name == INDEPENDENT:
        with independent.start(key) as running:
            yield running.base_url, independent.HERE / "profile.yaml"
        return
    variant = next(v for v in [*FAULTS, *CONFORMANT] if v.name == name)
    with serving(variant, key) as base_url:
        yield base_url, write_profile(variant, directory)


def run(base_url: str, key: str, profile: Path | None, output: Path, args: list[str],
        pytest_args: list[str]) -> dict[str, Any]:
    """One `boardcert run`: its verdict, each requirement's status, and its seconds."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "BOARDCERT_"))}
    command = [sys.executable, "-m", "boardcert.cli", "run", "--base-url", base_url,
               "--output", str(output), *(["--profile", str(profile)] if profile else []),
               *args, "--", *pytest_args]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env={**env, "BOARDCERT_API_KEY": key},
                          capture_output=True, text=True, check=False, timeout=1800)
    seconds = time.perf_counter() - started
    try:
        report = json.loads((output / "compliance.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        said = (done.stdout + done.stderr).strip().splitlines()[-1:] or ["nothing"]
        return {"verdict": f"no report (exit {done.returncode}: {said[0][:120]})",
                "statuses": {}, "seconds": seconds}
    return {"verdict": report["verdict"], "seconds": seconds,
            "statuses": {r["id"]: r["status"] for r in report["requirements"]}}


def failed(result: dict[str, Any]) -> list[str]:
    return sorted(i for i, status in result["statuses"].items() if status == "failed")


def both_ways(name: str, options: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    """The server certified the fast way and the plain way, one after the other."""
    directory = scratch / name
    directory.mkdir()
    key = "same-" + secrets.token_urlsafe(12)
    requirement = next((v.requirement for v in FAULTS if v.name == name), None)
    selected = ["-m", requirement] if options.selected and requirement else []
    seed = ["--hypothesis-seed", str(options.seed)]
    common = ["--budget", options.budget, "--no-preflight"]  # as tests/faults: the tests judge
    fast = [*common, "--workers", str(options.workers), "--in-flight", str(options.in_flight)]
    plain = [*common, "--no-speed", "--workers", "1"]
    with served(name, key, directory) as (base_url, profile):
        found = {way: run(base_url, key, profile, directory / way, args, [*seed, *selected])
                 for way, args in (("fast", fast), ("plain", plain))}
    return found | {"name": name, "requirement": requirement}


def differences(found: dict[str, Any]) -> list[str]:
    fast, plain = found["fast"], found["plain"]
    lines = []
    if fast["verdict"] != plain["verdict"]:
        lines.append(f"verdict {fast['verdict']!r} fast, {plain['verdict']!r} plain")
    if failed(fast) != failed(plain):
        lines.append(f"failed {failed(fast)} fast, {failed(plain)} plain")
    lines += [f"{i}: {fast['statuses'].get(i)} fast, {plain['statuses'].get(i)} plain"
              for i in sorted({*fast["statuses"], *plain["statuses"]})
              if fast["statuses"].get(i) != plain["statuses"].get(i)]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", default="quick")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--workers", type=int, default=2, help="the fast way's workers")
    parser.add_argument("--in-flight", type=int, default=8, help="the fast way's in flight")
    parser.add_argument("--selected", action="store_true",
                        help="each fault with only its requirement's tests")
    parser.add_argument("--jobs", type=int, default=1, help="servers certified at once")
    parser.add_argument("names", nargs="*", help="servers (default: all)")
    options = parser.parse_args()
    everything = [v.name for v in CONFORMANT] + [INDEPENDENT] + [v.name for v in FAULTS]
    names = options.names or everything
    unknown = sorted(set(names) - set(everything))
    if unknown:
        parser.error(f"unknown servers: {', '.join(unknown)}")
    print(f"{len(names)} servers, budget {options.budget}, seed {options.seed}; fast: "
          f"--workers {options.workers} --in-flight {options.in_flight}; plain: --no-speed "
          f"--workers 1; {'selected tests' if options.selected else 'whole suite'}; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start",
          flush=True)
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch, \
            concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        futures = [pool.submit(both_ways, name, options, Path(scratch)) for name in names]
        for future in futures:
            found = future.result()
            results.append(found)
            fast, plain = found["fast"], found["plain"]
            caught = "" if found["requirement"] is None else (
                "  caught" if found["requirement"] in failed(fast)
                and found["requirement"] in failed(plain) else "  NOT CAUGHT")
            print(f"{found['name']:34} {fast['verdict']:24} {plain['verdict']:24} "
                  f"{fast['seconds']:6.1f} s {plain['seconds']:6.1f} s "
                  f"{'same' if not differences(found) else 'DIFFERENT'}{caught}", flush=True)
    different = [(found["name"], differences(found)) for found in results if differences(found)]
    fast_total = sum(found["fast"]["seconds"] for found in results)
    plain_total = sum(found["plain"]["seconds"] for found in results)
    print(f"\n{len(results) - len(different)} of {len(results)} servers: the same verdict, "
          f"failed requirements and statuses both ways; fast {fast_total:.0f} s, plain "
          f"{plain_total:.0f} s in all ({fast_total / plain_total:.2f}x)")
    for name, lines in different:
        print(f"{name}:", *(f"  {line}" for line in lines), sep="\n")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
