"""Faults of kinds nobody described (issue 31's measure): each fault of tests/faults/unlisted.py
certified by the whole suite as a user runs it (`boardcert run --base-url URL`, no profile),
one at a time; prints the verdict, whether the fault's requirement was named, and what failed.

    python benchmarks/unlisted.py [--budget standard]

A measurement, not a test (tests/certify/test_faults.py certifies each fault with the tests of
its requirement in CI): docs/detection.md quotes what it printed before and after the checks
that catch them.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from faults.harness import serving  # noqa: E402
from faults.unlisted import UNLISTED  # noqa: E402

BOARDCERT = Path(sys.executable).parent / "boardcert"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", default="standard")
    args = parser.parse_args()
    named = 0
    for variant in UNLISTED:
        key = "ul-" + secrets.token_urlsafe(10)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("BOARDCERT_", "PYTEST_"))}
        env["BOARDCERT_API_KEY"] = key  # never on a command line
        with tempfile.TemporaryDirectory() as scratch, serving(variant, key) as url:
            subprocess.run([str(BOARDCERT), "run", "--base-url", url, "--budget", args.budget,
                            "--output", scratch], env=env, cwd=ROOT, capture_output=True,
                           text=True, timeout=1800, check=False)
            found = Path(scratch) / "compliance.json"
            if not found.exists():
                print(f"{variant.name:36} no report")
                continue
            report = json.loads(found.read_text(encoding="utf-8"))
        failed = [r["id"] for r in report["requirements"] if r["status"] == "failed"]
        named += variant.requirement in failed
        print(f"{variant.name:36} {report['verdict']:24} named={variant.requirement in failed} "
              f"failed={failed}", flush=True)
    print(f"{named} of {len(UNLISTED)} named")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
