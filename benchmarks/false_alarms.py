"""False-alarm benchmark (issue 13): the whole suite, as a user runs it (`boardcert run
--budget standard --strict`), against servers that are conformant, with several seeds.

    python benchmarks/false_alarms.py [--seeds 20] [--jobs 2] [--budget standard]
        [--only NAME ...] [--minutes M] [--output reports/false_alarms.jsonl] [--fresh]

The servers: the reference server, every conformant variant of tests/faults/conformant.py
(with its profile) and the independent server of tests/independent/ (with its profile, and
without one, as a new user runs it). The
seeds: boardcert's default seed first (what every run without --seed gets), then 1,
2, ... Each run gets a fresh server. A run is a *false alarm* when a requirement failed (the
verdict is non-conformant, or conformant with warnings, which --strict fails), a *boardcert
error* when boardcert broke (an error inside boardcert in the report, no report at all, or a
timeout), *incomplete* when something was left not assessed, else *conformant*.

Every finished run is appended to --output as one JSON line and printed as it finishes; a
second invocation with the same --output skips the (server, seed, budget) runs already there
(--fresh starts over). --minutes starts no new run after that many minutes, then prints the
table of what is done (--minutes 0: only the table).
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
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from faults import CONFORMANT, serving  # noqa: E402
from faults.harness import write_profile  # noqa: E402
from independent.server import start as start_independent  # noqa: E402

from boardcert.reference.server import start as start_reference  # noqa: E402
from boardcert.settings.budget import DEFAULT_SEED  # noqa: E402

BOARDCERT = Path(sys.executable).parent / "boardcert"
TIMEOUT = 1800
INDEPENDENT_PROFILE = ROOT / "tests" / "independent" / "profile.yaml"
CONFORMANT_RESULT, FALSE_ALARM, BOARDCERT_ERROR, INCOMPLETE = (
    "conformant", "false alarm", "boardcert error", "incomplete")


@dataclass(frozen=True)
class Server:
    """A conformant server: how to serve it with a key, and its profile (None: the default)."""

    name: str
    serve: Callable[[str], AbstractContextManager[str]]  # key -> base URL while it runs
    profile: Callable[[Path], Path | None]


@contextmanager
def _process(start: Callable[[str], object], key: str) -> Iterator[str]:
    with start(key) as running:  # type: ignore[attr-defined]
        yield running.base_url


def servers() -> list[Server]:
    found = [Server("reference", lambda key: _process(start_reference, key), lambda _d: None)]
    for variant in CONFORMANT:
        if variant.name == "reference":  # the reference through the variants' seam: above
            continue
        found.append(Server(variant.name, lambda key, v=variant: serving(v, key),
                            lambda d, v=variant: write_profile(v, d)))
    found.append(Server("independent", lambda key: _process(start_independent, key),
                        lambda _d: INDEPENDENT_PROFILE))
    # As a new user runs it: no profile (ops 23-28 need ids no probe finds: incomplete, never
    # a failed requirement).
    found.append(Server("independent-no-profile",
                        lambda key: _process(start_independent, key), lambda _d: None))
    return found


@dataclass
class Run:
    server: str
    seed: int
    budget: str
    result: str  # conformant | false alarm | boardcert error | incomplete
    verdict: str
    seconds: float
    failed: list[str] = field(default_factory=list)  # requirements failed
    not_assessed: list[str] = field(default_factory=list)  # MUSTs and SHOULDs not assessed
    boardcert_errors: list[str] = field(default_factory=list)
    note: str = ""


def run_once(server: Server, seed: int, budget: str) -> Run:
    """`boardcert run` against a fresh `server` with `seed`: what it said."""
    key = "fa-" + secrets.token_urlsafe(12)
    with tempfile.TemporaryDirectory(prefix="boardcert-fa-") as scratch:
        directory = Path(scratch)
        output = directory / "report"
        profile = server.profile(directory)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "BOARDCERT_"))}
        env["BOARDCERT_API_KEY"] = key  # never on a command line
        started = time.monotonic()
        note = ""
        try:
            with server.serve(key) as base_url:
                command = [str(BOARDCERT), "run", "--base-url", base_url, "--budget", budget,
                           "--strict", "--output", str(output), "--seed", str(seed),
                           *(["--profile", str(profile)] if profile else [])]
                done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True,
                                      text=True, timeout=TIMEOUT)
                note = (done.stdout.strip().splitlines() or [""])[-1]
        except subprocess.TimeoutExpired:
            note = f"timed out after {TIMEOUT} s"
        except Exception as exc:  # the server did not start: the benchmark's problem, shown
            note = f"{type(exc).__name__}: {exc}"
        seconds = round(time.monotonic() - started, 1)
        compliance = output / "compliance.json"
        if not compliance.exists():
            return Run(server.name, seed, budget, BOARDCERT_ERROR, "no report", seconds,
                       note=note.replace(key, "***"))
        report = json.loads(compliance.read_text(encoding="utf-8"))
    reqs = report["requirements"]
    failed = [r["id"] for r in reqs if r["status"] == "failed"]
    not_assessed = [r["id"] for r in reqs if r["status"] == "not assessed"
                    and r["level"] != "INFO"]
    errors = [f"{e.get('test')}: {e.get('error')}" for e in report.get("boardcert_errors", [])]
    verdict = report["verdict"]
    if failed or verdict in ("non-conformant", "conformant with warnings"):
        result = FALSE_ALARM
    elif errors:
        result = BOARDCERT_ERROR
    elif verdict != "conformant":
        result = INCOMPLETE
    else:
        result = CONFORMANT_RESULT
    return Run(server.name, seed, budget, result, verdict, seconds, failed, not_assessed,
               errors, note.replace(key, "***"))


def seeds(count: int) -> list[int]:
    """boardcert's default seed, then 1, 2, ...: `count` in all."""
    return [DEFAULT_SEED, *range(1, count)][:count]


def load(path: Path) -> list[Run]:
    if not path.exists():
        return []
    runs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            runs.append(Run(**json.loads(line)))
    return runs


def table(runs: list[Run], order: list[str]) -> str:
    rows = ["| server | runs | conformant | false alarms | boardcert errors | incomplete "
            "| median seconds |", "|---|---|---|---|---|---|---|"]
    totals = {k: 0 for k in (CONFORMANT_RESULT, FALSE_ALARM, BOARDCERT_ERROR, INCOMPLETE)}
    for name in order:
        mine = [r for r in runs if r.server == name]
        if not mine:
            continue
        counts = {k: sum(r.result == k for r in mine) for k in totals}
        for k, v in counts.items():
            totals[k] += v
        median = statistics.median(r.seconds for r in mine)
        rows.append(f"| {name} | {len(mine)} | {counts[CONFORMANT_RESULT]} | "
                    f"{counts[FALSE_ALARM]} | {counts[BOARDCERT_ERROR]} | "
                    f"{counts[INCOMPLETE]} | {median:.0f} |")
    rows.append(f"| **all** | {len(runs)} | {totals[CONFORMANT_RESULT]} | {totals[FALSE_ALARM]} "
                f"| {totals[BOARDCERT_ERROR]} | {totals[INCOMPLETE]} | "
                f"{statistics.median(r.seconds for r in runs) if runs else 0:.0f} |")
    return "\n".join(rows)


def describe(run: Run) -> str:
    text = f"{run.server} seed {run.seed}: {run.result} ({run.verdict}, {run.seconds:.0f} s)"
    if run.failed:
        text += f"; failed {', '.join(run.failed)}"
    if run.boardcert_errors:
        text += f"; boardcert errors: {'; '.join(e[:200] for e in run.boardcert_errors[:3])}"
    if run.result != CONFORMANT_RESULT and run.not_assessed:
        text += f"; not assessed {', '.join(run.not_assessed[:8])}"
    if run.result != CONFORMANT_RESULT and run.note:
        text += f"; last line: {run.note[:300]}"
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20, help="seeds per server (default 20)")
    parser.add_argument("--jobs", type=int, default=2, help="runs at once (default 2)")
    parser.add_argument("--budget", default="standard")
    parser.add_argument("--only", nargs="*", help="server names (default: all)")
    parser.add_argument("--minutes", type=float,
                        help="start no new run after this many (0: only print the table)")
    parser.add_argument("--output", type=Path, default=ROOT / "reports" / "false_alarms.jsonl")
    parser.add_argument("--fresh", action="store_true", help="ignore the runs in --output")
    args = parser.parse_args(argv)

    every = servers()
    chosen = [s for s in every if not args.only or s.name in args.only]
    unknown = set(args.only or []) - {s.name for s in every}
    if unknown:
        parser.error(f"unknown servers {sorted(unknown)}; known: {[s.name for s in every]}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    if args.fresh and args.output.exists():
        args.output.unlink()
    names, wanted = {s.name for s in chosen}, set(seeds(args.seeds))
    done = [r for r in load(args.output)
            if r.budget == args.budget and r.server in names and r.seed in wanted]
    finished = {(r.server, r.seed) for r in done}
    todo = [(s, seed) for seed in seeds(args.seeds) for s in chosen  # seed-major: even rows
            if (s.name, seed) not in finished]
    print(f"false alarms: {len(chosen)} servers x {args.seeds} seeds at {args.budget}, "
          f"{len(finished)} runs already in {args.output}, {len(todo)} to go, "
          f"{args.jobs} at a time", flush=True)

    started, lock = time.monotonic(), threading.Lock()
    runs = list(done)

    def record(run: Run) -> None:
        with lock, args.output.open("a", encoding="utf-8") as out:
            out.write(json.dumps(asdict(run)) + "\n")
        runs.append(run)
        print(f"[{len(runs)}] {describe(run)}", flush=True)

    pending: set[Future[Run]] = set()
    queue = iter(todo)
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        try:
            while True:
                while len(pending) < max(1, args.jobs):
                    if args.minutes is not None and \
                            time.monotonic() - started >= args.minutes * 60:
                        break
                    nxt = next(queue, None)
                    if nxt is None:
                        break
                    pending.add(pool.submit(run_once, nxt[0], nxt[1], args.budget))
                if not pending:
                    break
                finished_now, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished_now:
                    record(future.result())
        except KeyboardInterrupt:
            print("interrupted: the runs in progress are lost, the others are kept", flush=True)
            for future in pending:
                future.cancel()
    print()
    print(table(runs, [s.name for s in chosen]))
    bad = [r for r in runs if r.result != CONFORMANT_RESULT]
    if bad:
        print("\nnot conformant:")
        for run in bad:
            print(f"- {describe(run)}")
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
