"""Reproduction benchmark (issue 27): for each fault of tests/faults/catalogue.py, boardcert is
run with the tests of its requirement (`-m ID`, quick budget, as tests/test_faults.py runs it);
then every failed test's script, reproduce/<test>.py, is run against the faulty server served
anew (it must exit 1: reproduced) and against the reference server (it must exit 0).

    python benchmarks/reproduction.py [--only NAME ...] [--jobs 2] [--output results.json]

Prints one line per fault (its scripts by (exit on the fault, exit on the reference)) and the
totals; a script that exits otherwise is named with the last lines it printed.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from faults import CONFORMANT, FAULTS, Variant, certify, serving  # noqa: E402

KEY = "bench-" + secrets.token_urlsafe(12)


def scripts_of(variant: Variant, directory: Path) -> list[Path]:
    result = certify(variant, directory)
    if result.verdict == "no report":
        return []
    return sorted((directory / "report" / "reproduce").glob("*.py"))


def exits(variant: Variant, scripts: list[Path]) -> dict[str, tuple[int, str]]:
    found = {}
    with serving(variant, KEY) as base_url:
        for path in scripts:
            done = subprocess.run([sys.executable, str(path), "--base-url", base_url],
                                  env={**os.environ, "BOARDCERT_API_KEY": KEY},
                                  capture_output=True, text=True, timeout=300)
            found[path.name] = (done.returncode,
                                "\n".join((done.stdout + done.stderr).splitlines()[-4:]))
    return found


def judge(variant: Variant, root: Path) -> dict:
    directory = root / variant.name
    directory.mkdir()
    scripts = scripts_of(variant, directory)
    reference = next(v for v in CONFORMANT if v.name == "reference")
    faulty, fine = exits(variant, scripts), exits(reference, scripts)
    pairs = {name: (faulty[name][0], fine[name][0]) for name in faulty}
    odd = {name: {"fault": faulty[name], "reference": fine[name]}
           for name, pair in pairs.items() if pair != (1, 0)}
    return {"fault": variant.name, "scripts": len(scripts),
            "pairs": Counter(f"{a},{b}" for a, b in pairs.values()), "odd": odd}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--output")
    args = parser.parse_args()
    chosen = [v for v in FAULTS if not args.only or v.name in args.only]
    with tempfile.TemporaryDirectory() as root, ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda v: judge(v, Path(root)), chosen))
    for r in results:
        print(f"{r['fault']:45} {r['scripts']:3} scripts  {dict(r['pairs'])}")
        for name, seen in r["odd"].items():
            print(f"    {name}: fault {seen['fault'][0]}, reference {seen['reference'][0]}")
    with_scripts = [r for r in results if r["scripts"]]
    clean = [r for r in with_scripts if not r["odd"]]
    total = sum(r["scripts"] for r in results)
    odd = sum(len(r["odd"]) for r in results)
    print(f"{len(results)} faults, {len(with_scripts)} with failed tests' scripts ({total} "
          f"scripts); {len(clean)} faults whose every script exits 1 on the fault and 0 on the "
          f"reference; {odd} scripts otherwise")
    if args.output:
        Path(args.output).write_text(json.dumps(results, indent=2, default=dict) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
