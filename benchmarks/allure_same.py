"""Whether a change to boardcert's Allure side changes what Allure shows (issue 16): the same
certifications made with an old checkout (a git ref, exported with `git archive`) and with this
one, and their allure-results compared after normalizing what differs from run to run.

Two certifications at the quick budget: the bundled reference server (`pytest suites`, every
test passes) and a server with the four faults of tests/outputs/test_outputs.py (failed and broken
tests, their steps and attachments), a fresh server for each run. Compared per test (by
fullName, name and parameters): name, status, statusDetails, labels (as a set; the thread
label's process id left out), parameters, historyId, testCaseId, steps and attachments (by
content), and the set-ups and tear-downs Allure shows for it (the befores and afters of the
containers that name it as a child); also those of containers that name no test (Allure shows
them nowhere). Uuids, times, file names, ports and object addresses are normalized.

`--old-twice` runs the old checkout twice too: what differs between two runs of the same code
(the noise floor). A measurement, not a test.

    python benchmarks/allure_same.py [--old main] [--old-twice] [--only bundled|faults]
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # run from a checkout; the faults harness

from allure_shown import differences, shown  # noqa: E402

FOUR = ("card-id-integer", "malformed-json-500", "auth-open-op1", "project-rename-wrong-type-500")
FAULT_SUITES = ("test_properties.py", "test_errors.py", "test_auth.py")
TIMEOUT = 600
def exported(ref: str, into: Path) -> Path:
    """The files of a git ref of this repository (its tracked files, as committed)."""
    archive = subprocess.run(["git", "archive", "--format=tar", ref], cwd=ROOT, check=True,
                             capture_output=True).stdout
    into.mkdir(parents=True)
    archive_path = into.with_suffix(".tar")
    archive_path.write_bytes(archive)
    with tarfile.open(archive_path) as tar:
        tar.extractall(into, filter="data")
    return into


def certify(checkout: Path, results: Path, faults: bool) -> str:
    """A quick certification made with `checkout`'s boardcert, its allure-results in `results`;
    its pytest summary line."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "BOARDCERT_"))}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir",
               str(checkout), "--budget", "quick", f"--alluredir={results}",
               f"--report-dir={results.parent / (results.name + '-report')}"]
    if not faults:
        done = subprocess.run([*command, "suites"], cwd=checkout, env=env, capture_output=True,
                              text=True, timeout=TIMEOUT, check=False)
    else:
        from faults import FAULTS, combined
        from faults.harness import serving

        variant = combined("four-faults", *(f for f in FAULTS if f.name in FOUR))
        key = "variant-" + secrets.token_urlsafe(12)
        with serving(variant, key) as base_url:
            done = subprocess.run(
                [*command, "--tb=native", "--no-preflight", "--base-url", base_url, "--profile",
                 str(checkout / "spec/profiles/reference.yaml"),
                 *(f"suites/{s}" for s in FAULT_SUITES)],
                cwd=checkout, env={**env, "BOARDCERT_API_KEY": key}, capture_output=True,
                text=True, timeout=TIMEOUT, check=False)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return lines[-1] if lines else f"exit {done.returncode}: {done.stderr[-2000:]}"


def differences_shown(old: dict[str, Any], new: dict[str, Any], at_most: int = 8) -> list[str]:
    found = differences(old, new)
    for line in found[:at_most]:
        print("  " + line)
    if len(found) > at_most:
        print(f"  ... and {len(found) - at_most} more")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", default="main", help="the git ref to compare with (main)")
    parser.add_argument("--old-twice", action="store_true", help="the old code twice too")
    parser.add_argument("--only", choices=("bundled", "faults"))
    args = parser.parse_args()
    same = True
    with tempfile.TemporaryDirectory() as scratch:
        old_checkout = exported(args.old, Path(scratch) / "old")
        runs = [("old", old_checkout)] * (2 if args.old_twice else 1) + [("new", ROOT)]
        for kind in ("bundled", "faults"):
            if args.only not in (None, kind):
                continue
            made = []
            for n, (label, checkout) in enumerate(runs):
                directory = Path(scratch) / f"{kind}-{n}-{label}"
                said = certify(checkout, directory, faults=kind == "faults")
                made.append((label, shown(directory)))
                print(f"{kind} {label}: {said}; {made[-1][1]['results']} results, "
                      f"{made[-1][1]['containers']} containers, {made[-1][1]['files']} files",
                      flush=True)
            if args.old_twice:
                print(f"{kind}: old against old (the noise floor):")
                floor = differences_shown(made[0][1], made[1][1])
                print(f"  {len(floor)} differences")
            print(f"{kind}: old against new:")
            found = differences_shown(made[0][1], made[-1][1])
            print(f"  {len(found)} differences")
            same = same and not found
    print("same" if same else "different")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
