"""Reproduction benchmark (issues 27, 32): for each fault of tests/faults/catalogue.py, boardcert is
run (quick budget: with the tests of its requirement, `-m ID`, as tests/certify/test_faults.py
runs it; with --full, the whole suite, so that property-test and stateful-test failures are
among them); then every failed test's script, reproduce/<test>.py, is run against the faulty
server served anew (it must exit 1: reproduced) and against the reference server (it must exit
0: the condition that failed now holds there).

    python benchmarks/reproduction.py [--only NAME ...] [--full] [--budget B] [--jobs 2]
                                      [--scripts-each N] [--sample N] [--output results.json]

Prints one line per fault (its scripts by (exit on the fault, exit on the reference)), then the
scripts by the kind of test that failed (explicit, property, stateful) and by the kinds of
condition their recipes judge (boardcert.interface.conditions; "answer" alone: the failure said
no more than its answer), and the totals; a script that exits otherwise is named with the last
lines it printed. --scripts-each N runs at most N scripts of each kind of test per fault.
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
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from faults import CONFORMANT, FAULTS, Variant, certify, serving  # noqa: E402

from boardcert.reproduce import script  # noqa: E402

KEY = "bench-" + secrets.token_urlsafe(12)


STATEFUL = ("test_properties.py::TestBoardWorkflow", "test_board_model.py::")  # sequences


def kind_of(nodeid: str) -> str:
    """explicit, property (a generated request of one operation) or stateful (a sequence:
    schemathesis's along the links, or the board model's writes)."""
    if any(part in nodeid for part in STATEFUL):
        return "stateful"
    return "property" if "test_properties.py::" in nodeid else "explicit"


def condition_kinds(recipe: dict[str, Any]) -> str:
    """The kinds of condition a recipe judges, sorted and joined ("answer": no more said)."""
    return "+".join(sorted({c["kind"] for s in recipe["steps"]
                            for c in s.get("conditions", [])})) or "none"


def scripts_of(variant: Variant, directory: Path, full: bool, budget: str,
               each: int | None) -> list[dict[str, Any]]:
    """The fault's failed tests that have a script: nodeid, kind, conditions, path."""
    result = certify(variant, directory, budget=budget, full=full)
    if result.verdict == "no report":
        return []
    report = json.loads((directory / "report" / "compliance.json").read_text())
    found = [{"nodeid": t["nodeid"], "kind": kind_of(t["nodeid"]),
              "conditions": condition_kinds(t["reproduction"]),
              "path": directory / "report" / script.relative_path(t["nodeid"])}
             for t in report["tests"] if t.get("reproduction")]
    if each is None:
        return found
    return [s for kind in ("explicit", "property", "stateful")
            for s in [s for s in found if s["kind"] == kind][:each]]


def exits(variant: Variant, scripts: list[dict[str, Any]]) -> dict[str, tuple[int, str]]:
    found = {}
    with serving(variant, KEY) as base_url:
        for s in scripts:
            done = subprocess.run([sys.executable, str(s["path"]), "--base-url", base_url],
                                  env={**os.environ, "BOARDCERT_API_KEY": KEY},
                                  capture_output=True, text=True, timeout=300)
            found[s["nodeid"]] = (done.returncode,
                                  "\n".join((done.stdout + done.stderr).splitlines()[-4:]))
    return found


def judge(variant: Variant, root: Path, args: argparse.Namespace) -> dict[str, Any]:
    directory = root / variant.name
    directory.mkdir()
    scripts = scripts_of(variant, directory, args.full, args.budget, args.scripts_each)
    reference = next(v for v in CONFORMANT if v.name == "reference")
    faulty, fine = exits(variant, scripts), exits(reference, scripts)
    rows = [{"nodeid": s["nodeid"], "kind": s["kind"], "conditions": s["conditions"],
             "fault": faulty[s["nodeid"]][0], "reference": fine[s["nodeid"]][0]}
            for s in scripts]
    odd = {s["nodeid"]: {"fault": faulty[s["nodeid"]], "reference": fine[s["nodeid"]]}
           for s in scripts if (faulty[s["nodeid"]][0], fine[s["nodeid"]][0]) != (1, 0)}
    return {"fault": variant.name, "scripts": len(scripts), "rows": rows,
            "pairs": Counter(f"{r['fault']},{r['reference']}" for r in rows), "odd": odd}


def tally(results: list[dict[str, Any]], key: str) -> dict[str, Counter[str]]:
    """For each value of a row's `key`: its scripts by (exit on the fault, on the reference)."""
    found: dict[str, Counter[str]] = {}
    for r in results:
        for row in r["rows"]:
            found.setdefault(row[key], Counter())[f"{row['fault']},{row['reference']}"] += 1
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--sample", type=int, default=None,
                        help="every Nth fault of the catalogue (a spread sample)")
    parser.add_argument("--full", action="store_true", help="run the whole suite per fault")
    parser.add_argument("--budget", default="quick")
    parser.add_argument("--scripts-each", type=int, default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--output")
    args = parser.parse_args()
    chosen = [v for v in FAULTS if not args.only or v.name in args.only][::args.sample or 1]
    with tempfile.TemporaryDirectory() as root, ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda v: judge(v, Path(root), args), chosen))
    for r in results:
        print(f"{r['fault']:45} {r['scripts']:3} scripts  {dict(r['pairs'])}")
        for name, seen in r["odd"].items():
            print(f"    {name}: fault {seen['fault'][0]}, reference {seen['reference'][0]}")
            print("        " + seen["reference" if seen["fault"][0] == 1 else "fault"][1]
                  .replace("\n", "\n        "))
    for key in ("kind", "conditions"):
        print(f"by {key} (exit on the fault, on the reference):")
        for value, pairs in sorted(tally(results, key).items()):
            print(f"    {value:40} {dict(pairs)}")
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
