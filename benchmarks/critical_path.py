"""The critical path of a run far away: the longest chain of round trips made one after another.

    python benchmarks/critical_path.py [--latency 0.1 | --jitter 0.04] [--workers N]
                                       [--keep DIR] [-- boardcert run arguments]

Serves the reference app behind a delay per answer (benchmarks/parallel.py's `Late`), runs a
default `boardcert run` against it with every request traced (benchmarks/trace.py,
BOARDCERT_TRACE_REQUESTS) and prints, per process, when its first request left, when its last
answer came in and how many round trips it made one after another: requests that overlap in
time (sent side by side) are one round trip, a request sent after every earlier one was
answered starts the next. A run can end no sooner than its longest chain times the delay plus
the process's start-up; the process that finished last is the critical path, and the table
after says what it is made of: per test module (or unit: a property test, a stateful part, a
part of the board model's machine), its round trips in set-up, call and teardown, how many of
them only read (a whole-board look, a reading before or after) and how many write, and the
seconds spent in them and between them (the process's own work, or waiting for a core).
`--jitter MOST`: each answer waits a random 0 to MOST seconds instead (benchmarks/jitter.py's
server; the waiting is then counted at MOST / 2 a round trip). `--keep DIR` keeps the run's
report and traces there.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import parallel  # noqa: E402


@dataclass
class Round:
    """Requests of one process that were in flight together: one round trip."""

    start: float
    end: float
    test: str
    when: str
    writes: int = 0
    requests: int = 0


@dataclass
class Chain:
    """One process's round trips, in order."""

    worker: str
    rounds: list[Round] = field(default_factory=list)

    @property
    def first(self) -> float:
        return self.rounds[0].start

    @property
    def last(self) -> float:
        return self.rounds[-1].end


def chains(records: list[dict]) -> dict[str, Chain]:
    """Each process's requests cut into round trips: a request that leaves after every earlier
    one of its process was answered starts a new one."""
    found: dict[str, Chain] = {}
    for record in sorted(records, key=lambda r: r["start"]):
        chain = found.setdefault(record["worker"], Chain(record["worker"]))
        last = chain.rounds[-1] if chain.rounds else None
        if last is None or record["start"] >= last.end:
            last = Round(record["start"], record["end"], record["test"], record["when"])
            chain.rounds.append(last)
        last.end = max(last.end, record["end"])
        last.requests += 1
        last.writes += record["method"] != "GET"
    return found


def unit(test: str) -> str:
    """What a test counts under: its module, or itself for the tests that are units of their
    own (property tests, stateful parts, the board model's parts); set-up outside any test:
    "(no test)"."""
    if not test:
        return "(no test: discovery, clean-up)"
    module, _, rest = test.partition("::")
    module = module.rsplit("/", 1)[-1]
    if module in ("test_properties.py", "test_board_model.py"):
        return f"{module}::{rest.split('::')[0]}"
    return module


def report(records: list[dict], started: float, latency: float,
           cpu: dict[str, float] | None = None) -> None:
    """The chains of every process (with `cpu`, each one's CPU seconds), then what the
    longest-running one is made of, then every unit's round trips and span."""
    found = chains(records)
    cpu = cpu or {}
    print(f"  {'process':8} {'first request':>14} {'last answer':>12} {'round trips':>12} "
          f"{'in them':>8} {'between':>8} {'CPU':>6}")
    for name, chain in sorted(found.items(), key=lambda kv: kv[0]):
        waited = sum(r.end - r.start for r in chain.rounds)
        used = f"{cpu[name]:5.1f}s" if name in cpu else "     ?"
        print(f"  {name:8} {chain.first - started:13.1f}s {chain.last - started:11.1f}s "
              f"{len(chain.rounds):12} {waited:7.1f}s {chain.last - chain.first - waited:7.1f}s"
              f" {used}")
    if cpu:
        print(f"  CPU of every process: {sum(cpu.values()):.1f} s")
    workers = [c for c in found.values() if c.worker != "main"] or list(found.values())
    critical = max(workers, key=lambda c: c.last)
    longest = max(workers, key=lambda c: len(c.rounds))
    print(f"  the longest chain: {len(longest.rounds)} round trips ({longest.worker}: "
          f"{len(longest.rounds) * latency:.1f} s of waiting at {latency * 1000:.0f} ms each)")
    print(f"  the critical path: {critical.worker}, done last at {critical.last - started:.1f} s;"
          f" its first request left at {critical.first - started:.1f} s, then "
          f"{len(critical.rounds)} round trips:")
    print(f"    {'unit':62} {'set-up':>6} {'call':>5} {'tear':>5} {'reads':>6} {'writes':>6} "
          f"{'in them':>8} {'between':>8}")
    groups: list[tuple[str, list[Round]]] = []
    for r in critical.rounds:
        name = unit(r.test)
        if groups and groups[-1][0] == name:
            groups[-1][1].append(r)
        else:
            groups.append((name, [r]))
    for name, rounds in groups:
        phases = {when: sum(r.when == when for r in rounds) for when in ("setup", "call",
                                                                            "teardown")}
        waited = sum(r.end - r.start for r in rounds)
        span = rounds[-1].end - rounds[0].start
        writes = sum(r.writes > 0 for r in rounds)
        print(f"    {name[:62]:62} {phases['setup']:6} {phases['call']:5} "
              f"{phases['teardown']:5} {len(rounds) - writes:6} {writes:6} {waited:7.1f}s "
              f"{span - waited:7.1f}s")
    print("  every unit (what distribution.ROUND_TRIPS estimates: its span x 10 at 100 ms):")
    print(f"    {'unit':62} {'process':>8} {'round trips':>12} {'span':>7}")
    spans: dict[tuple[str, str], list[Round]] = {}
    for chain in found.values():
        for r in chain.rounds:
            spans.setdefault((unit(r.test), chain.worker), []).append(r)
    for (name, worker), rounds in sorted(spans.items(),
                                         key=lambda kv: kv[1][0].start - kv[1][-1].end):
        print(f"    {name[:62]:62} {worker:>8} {len(rounds):12} "
              f"{rounds[-1].end - rounds[0].start:6.1f}s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    delay = parser.add_mutually_exclusive_group()
    delay.add_argument("--latency", type=float, default=0.1)
    delay.add_argument("--jitter", type=float, metavar="MOST",
                       help="answers 0 to MOST seconds late, at random, instead")
    parser.add_argument("--workers", type=int, help="boardcert run --workers N")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep the run's report and traces in DIR")
    parser.add_argument("args", nargs="*", help="more boardcert run arguments (after --)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        where = options.keep or Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(16)
        if options.jitter is not None:
            from jitter import Jittered

            late = Jittered(parallel.create_app(key), options.jitter, seed=1)
            latency, how = options.jitter / 2, f"0 to {options.jitter * 1000:.0f} ms"
        else:
            late = parallel.Late(parallel.create_app(key), options.latency)
            latency, how = options.latency, f"{options.latency * 1000:.0f} ms"
        url, server, thread = parallel.serve(late)
        print(f"reference server answering {how} late; "
              f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start")
        started = time.time()
        try:
            elapsed, chosen, verdict = parallel.boardcert_run(
                url, key, where / "report", where / "phases.jsonl", options.workers,
                tuple(options.args), requests=where / "requests.jsonl")
        finally:
            server.should_exit = True
            thread.join(timeout=5)
        print(f"{elapsed:.1f} s wall, {late.requests} requests, {chosen}; {verdict}")
        records = [json.loads(line) for path in where.glob("requests.jsonl.*")
                   for line in path.read_text().splitlines()]
        phases = [json.loads(line) for line in (where / "phases.jsonl").read_text().splitlines()]
        cpu = {p["worker"]: p["cpu"] for p in phases if p.get("when") == "sessionfinish"
               and "cpu" in p}
        report(records, started, latency, cpu)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
