"""Detection benchmark (issue 7): the fault catalogue and the conformant variants of
tests/faults/ against boardcert, a plain schemathesis run and Dredd.

    python benchmarks/detection.py [--tools boardcert,schemathesis,dredd] [--jobs 2]
        [--only NAME ...] [--dredd PATH] [--output results.json]

A fault counts as flagged when the tool fails the server (boardcert: a verdict other than
"conformant"; schemathesis and Dredd: a non-zero exit). Because schemathesis also fails the
unchanged reference server, its runs are compared with the reference's too: "new" counts the
variants where it reports an (operation, failure code) the reference run did not. A false alarm
is a conformant variant flagged (or, for "new", with failures the reference run did not have).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from faults import CONFORMANT, FAULTS, Variant, certify, serving  # noqa: E402

BIN = Path(sys.executable).parent
TIMEOUT = 1800


@dataclass
class Run:
    tool: str
    variant: str
    conformant: bool
    flagged: bool
    seconds: float
    named: bool | None = None  # boardcert: the broken requirement is reported failed
    signatures: list[str] = field(default_factory=list)  # failures, as "operation | code"
    note: str = ""
    ran: bool = True  # the tool sent requests at all


def run_boardcert(variant: Variant, directory: Path) -> Run:
    result = certify(variant, directory, full=True)  # the whole suite, as a user runs it
    named = result.statuses.get(variant.requirement) == "failed" if variant.requirement else None
    return Run("boardcert", variant.name, variant.requirement is None,
               result.verdict != "conformant", result.seconds, named,
               result.failed(), result.verdict)


def run_schemathesis(variant: Variant, directory: Path) -> Run:
    key = secrets.token_urlsafe(12)
    junit = directory / "schemathesis.xml"
    with serving(variant, key) as url:
        started = time.monotonic()
        done = subprocess.run(
            [str(BIN / "schemathesis"), "run", str(ROOT / "spec" / "openapi.yaml"), "--url", url,
             "-H", f"X-API-Key: {key}", "--checks", "all", "--seed", "1",
             "--report", "junit", "--report-junit-path", str(junit)],
            capture_output=True, text=True, timeout=TIMEOUT, cwd=directory)
        seconds = time.monotonic() - started
    signatures = sorted({f"{case.get('name')} | {failure.get('message')}"
                         for case in ET.parse(junit).getroot().iter("testcase")
                         for failure in case if failure.tag in ("failure", "error")}
                        ) if junit.exists() else []
    return Run("schemathesis", variant.name, variant.requirement is None,
               done.returncode != 0, seconds, None, signatures, f"exit {done.returncode}")


def run_dredd(variant: Variant, directory: Path, dredd: str) -> Run:
    key = secrets.token_urlsafe(12)
    with serving(variant, key) as url:
        started = time.monotonic()
        done = subprocess.run([dredd, str(ROOT / "spec" / "openapi.yaml"), url,
                               "--header", f"X-API-Key: {key}", "--loglevel", "warning"],
                              capture_output=True, text=True, timeout=TIMEOUT, cwd=directory)
        seconds = time.monotonic() - started
    output = done.stdout + done.stderr
    complete = re.search(r"complete: (.*)", output)
    note = complete.group(1) if complete else "no test ran: " + (
        "API description processing error" if "processing error" in output
        else output.strip()[-200:])
    return Run("dredd", variant.name, variant.requirement is None, done.returncode != 0,
               seconds, None, [], note, ran=complete is not None)


def run_tool(tool: str, runner: Callable[[Variant, Path], Run], variants: list[Variant],
             jobs: int, directory: Path) -> tuple[list[Run], float]:
    started = time.monotonic()

    def one(variant: Variant) -> Run:
        place = directory / tool / variant.name
        place.mkdir(parents=True)
        run = runner(variant, place)
        print(f"{tool:12} {variant.name:36} flagged={run.flagged!s:5} {run.seconds:6.1f}s "
              f"{run.note[:60]}", flush=True)
        return run

    with ThreadPoolExecutor(jobs) as pool:
        runs = list(pool.map(one, variants))
    return runs, time.monotonic() - started


def summary(tool: str, runs: list[Run], wall: float) -> dict[str, object]:
    faults = [r for r in runs if not r.conformant]
    conformant = [r for r in runs if r.conformant]
    baseline = next((set(r.signatures) for r in runs if r.variant == "reference"), set())
    new = [r for r in faults if set(r.signatures) - baseline]
    new_alarms = [r for r in conformant if set(r.signatures) - baseline]
    return {
        "tool": tool,
        "faults": len(faults),
        "flagged": sum(r.flagged for r in faults),
        "named": sum(bool(r.named) for r in faults) if tool == "boardcert" else None,
        "new_vs_reference": len(new) if tool == "schemathesis" else None,
        "conformant": len(conformant),
        "false_alarms": sum(r.flagged for r in conformant),
        "new_false_alarms": len(new_alarms) if tool == "schemathesis" else None,
        "missed": [r.variant for r in faults if not r.flagged],
        "ran": sum(r.ran for r in runs),
        "runs": len(runs),
        "note": next((r.note for r in runs if not r.ran), ""),
        "wall_seconds": round(wall, 1),
        "median_seconds_per_server": round(statistics.median(r.seconds for r in runs), 1),
    }


def table(rows: list[dict[str, object]]) -> str:
    lines = ["| tool | faults flagged | broken requirement named | false alarms (conformant "
             "variants failed) | wall time (median per server) |", "|---|---|---|---|---|"]
    for s in rows:
        flagged = f"{s['flagged']}/{s['faults']}"
        alarms = f"{s['false_alarms']}/{s['conformant']}"
        if s["new_vs_reference"] is not None:
            flagged += f" ({s['new_vs_reference']} with failures beyond the reference's own)"
            alarms += f" ({s['new_false_alarms']} beyond the reference's own)"
        named = "n/a" if s["named"] is None else f"{s['named']}/{s['faults']}"
        if not s["ran"]:
            flagged = alarms = f"does not run ({s['note']}; exit 1 on all {s['runs']} servers)"
        lines.append(f"| {s['tool']} | {flagged} | {named} | {alarms} | "
                     f"{s['wall_seconds']:.0f} s ({s['median_seconds_per_server']} s) |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tools", default="boardcert,schemathesis,dredd")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", nargs="*", help="variant names (default: all)")
    parser.add_argument("--dredd", default=shutil.which("dredd") or "node_modules/.bin/dredd")
    parser.add_argument("--output", type=Path, help="write every run and the summary as JSON")
    args = parser.parse_args(argv)

    variants = [v for v in [*CONFORMANT, *FAULTS] if not args.only or v.name in args.only]
    runners: dict[str, Callable[[Variant, Path], Run]] = {
        "boardcert": run_boardcert,
        "schemathesis": run_schemathesis,
        "dredd": lambda variant, directory: run_dredd(variant, directory, args.dredd),
    }
    directory = Path(tempfile.mkdtemp(prefix="boardcert-benchmark-"))
    results, summaries = [], []
    for tool in args.tools.split(","):
        runs, wall = run_tool(tool, runners[tool], variants, args.jobs, directory)
        results += runs
        summaries.append(summary(tool, runs, wall))
    print(table(summaries))
    for s in summaries:
        print(f"{s['tool']} missed: {', '.join(s['missed']) or 'none'}")
    if args.output:
        args.output.write_text(json.dumps({"summary": summaries,
                                           "runs": [asdict(r) for r in results]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
