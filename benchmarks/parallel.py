"""Serial against parallel: `pytest suites` against a reference server that answers late.

    /work/venv/bin/python benchmarks/parallel.py [--latency 0.03] [--workers 4] [--dist-load]
                                                 [pytest args, default: suites]
    /work/venv/bin/python benchmarks/parallel.py --default-run [--latencies 0 0.03 0.1]
                                                 [--also-workers 6 8] [--trace DIR]
                                                 [--no-speed-too] [--against REV]

--default-run: a whole default `boardcert run` (which chooses its workers from the round
trip) against the server at each delay in turn, with the wall time, the workers it chose and
the ratio to the no-delay run (targets: 30 ms at most 2x, 100 ms at most 3x), the tests that
did not pass; `--also-workers N`: also with `--workers N` at each delay; `--trace DIR`: where
the requests and seconds went, per module and phase, and each process's start and end
(benchmarks/trace.py, its records kept in DIR); `--no-speed-too`: also `boardcert run
--no-speed` at each delay (what the speed plugin buys: the plain run's time over the default
run's); `--against REV`: also the default run of a checkout of that git revision (a temporary
worktree) at each delay, its time over this checkout's (before and after a change, side by
side on the same machine).

Serves the reference app behind a delay of --latency seconds per response (uvicorn in a
thread of this process; the delay is asyncio.sleep, so concurrent requests wait side by side,
as they would on a real server across a network), runs the suites against it serially and
with `-n WORKERS` (the speed plugin's scheduling, boardcert.speed.distribution; with
--dist-load also xdist's own default, --dist load, for comparison), and prints wall-clock
time, outcome and requests of each run. After each run it checks that the run deleted
everything it created.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout, uninstalled

from boardcert.reference.app import create_app  # noqa: E402
from boardcert.reference.server import free_port  # noqa: E402


class Late:
    """ASGI wrapper: every response leaves `seconds` late; counts the requests."""

    def __init__(self, app: Any, seconds: float) -> None:
        self.app, self.seconds, self.requests = app, seconds, 0

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.requests += 1
            await asyncio.sleep(self.seconds)
        await self.app(scope, receive, send)


def serve(app: Any) -> tuple[str, uvicorn.Server, threading.Thread]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    return f"http://127.0.0.1:{port}", server, thread


def run(base_url: str, key: str, args: list[str]) -> tuple[float, float, str]:
    """Wall-clock seconds, CPU seconds (of pytest and its workers) and pytest's summary."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOARDCERT_")}
    env["BOARDCERT_API_KEY"] = key
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "--base-url", base_url, *args]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    summary = re.findall(r"^=*\s*(\d+ (?:passed|failed).*?) in [\d.]+s", done.stdout, re.M)
    return elapsed, cpu, summary[-1] if summary else f"exit {done.returncode}"


def boardcert_run(base_url: str, key: str, output: Path, trace: Path | None = None,
                  workers: int | None = None, args: tuple[str, ...] = (),
                  checkout: Path = ROOT, requests: Path | None = None
                  ) -> tuple[float, str, str]:
    """Wall-clock seconds of a whole default `boardcert run` (or with `--workers N`, or more
    `args`; from `checkout`), its workers line and verdict; with `trace`, benchmarks/trace.py
    writes where the time and requests went there (with `requests`, each request, in
    `requests`.<worker>)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOARDCERT_")}
    env["BOARDCERT_API_KEY"] = key
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(checkout), env.get("PYTHONPATH")]))
    if trace is not None:
        env |= {"PYTEST_PLUGINS": "benchmarks.trace", "BOARDCERT_TRACE": str(trace),
                "PYTHONPATH": f"{checkout}{os.pathsep}{ROOT}"}
        if requests is not None:
            env["BOARDCERT_TRACE_REQUESTS"] = str(requests)
    command = [sys.executable, "-c", "import sys; from boardcert.cli import main; "
               "sys.exit(main())", "run", "--base-url", base_url, "--output", str(output)]
    command += ["--workers", str(workers)] if workers else []
    command += list(args)
    started = time.perf_counter()
    # in the checkout: `python -c` puts its directory first on sys.path, before PYTHONPATH
    # (run from ROOT, a worktree's run imported this checkout's boardcert, not its own)
    done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    chosen = next((line.removeprefix("boardcert: ").split(":")[0]
                    for line in done.stderr.splitlines()
                    if "worker" in line or line.startswith("boardcert: serial")), "?")
    verdict = [line for line in (done.stdout + done.stderr).splitlines() if "(exit " in line]
    verdict_text = (verdict[-1].removeprefix("boardcert: ").split(":")[0] if verdict
                    else f"exit {done.returncode}")
    return elapsed, chosen, verdict_text + "".join(f"\n    {line}" for line in failed(output))


def failed(output: Path) -> list[str]:
    """The tests a run did not pass, with the first line of their message."""
    try:
        tests = json.loads((output / "compliance.json").read_text())["tests"]
    except (OSError, ValueError, KeyError):
        return []
    return [f"{t['outcome']}: {t['nodeid']}: {str(t.get('message') or '').splitlines()[:1]}"
            for t in tests if t["outcome"] not in ("passed", "skipped")]


TARGETS = {0.03: 2.0, 0.1: 3.0}  # delay -> the most a default run may take, as a ratio


def summarize(trace: Path, started: float) -> None:
    """Requests and seconds per suite module and phase, and each worker's busy time."""
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    rows: dict[tuple[str, str], list[float]] = {}
    workers: dict[str, list[float]] = {}
    ends: dict[str, dict] = {}
    for r in records:
        if r["when"] == "sessionfinish":
            ends[r["worker"]] = r
            continue
        span = workers.setdefault(r["worker"], [r["start"], r["start"], 0.0, 0.0])
        span[0], span[1] = min(span[0], r["start"]), max(span[1], r["start"] + r["seconds"])
        span[2] += r["seconds"]
        span[3] += r["requests"]
        if not r["test"]:
            continue
        module = r["test"].split("::")[0].rsplit("/", 1)[-1]
        if "test_properties" in module:
            module += "::" + r["test"].split("::")[1].split("[")[0]
        row = rows.setdefault((module, r["when"]), [0, 0, 0.0, 0.0])
        row[0] += 1
        row[1] += r["requests"]
        row[2] += r["seconds"]
        row[3] += r["waited"]
    print(f"    {'module (phase)':52} {'n':>4} {'requests':>8} {'seconds':>8} {'waiting':>8}")
    for (module, when), (n, count, seconds, waited) in sorted(
            rows.items(), key=lambda kv: -kv[1][2]):
        if seconds >= 0.2:
            print(f"    {module + ' (' + when + ')':52} {n:4.0f} {count:8.0f} {seconds:8.1f} "
                  f"{waited:8.1f}")
    for name, (first, last, busy, count) in sorted(workers.items()):
        end = ends.get(name)
        ending = (f", session end {end['start'] - started:5.1f}-"
                  f"{end['start'] + end['seconds'] - started:5.1f} s" if end else "")
        if end and name == "main" and end["last_report"]:
            ending += f", last report in at {end['last_report'] - started:5.1f} s"
        print(f"    {name:6} session start at {first - started:5.1f} s, last test done at "
              f"{last - started:5.1f} s, {busy:5.1f} s in tests, {count:5.0f} requests{ending}")


@contextmanager
def worktree(revision: str | None) -> Iterator[Path]:
    """A checkout of `revision` (a temporary git worktree, removed after), for runs of another
    revision side by side with this one's; None: this checkout."""
    if not revision:
        yield ROOT
        return
    with tempfile.TemporaryDirectory() as scratch:
        other = Path(scratch) / "against"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(other),
                        revision], check=True, capture_output=True)
        try:
            yield other
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(other)], check=False, capture_output=True)


def default_runs(latencies: list[float], trace: Path | None = None,
                 workers: list[int] | None = None, no_speed: bool = False,
                 against: str | None = None) -> int:
    """A default `boardcert run` per delay, ratios to the first (no delay); with `workers`,
    also a run with each `--workers N` at each delay but the first; with `no_speed`, also
    `--no-speed` at each delay; with `against`, also the default run of that revision."""
    print(f"default `boardcert run`, whole suites; {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f} at the start")
    worst = 0.0
    besides: dict[tuple[float, str], float] = {}
    with tempfile.TemporaryDirectory() as scratch, worktree(against) as other:
        runs = [(latency, given) for latency in latencies
                for given in [None, *(workers or [] if latency != latencies[0] else []),
                              *(["--no-speed"] if no_speed else []),
                              *([f"against {against}"] if against else [])]]
        worst = _runs(runs, trace, Path(scratch), other, besides)
    for (latency, label), ratio in besides.items():
        print(f"delay {latency * 1000:4.0f} ms: {label} / default {ratio:5.2f}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0 if worst <= 1 else 1


def _runs(runs: list[tuple[float, Any]], trace: Path | None,
          scratch: Path, other: Path, besides: dict[tuple[float, str], float]) -> float:
    """The runs in turn; the worst ratio of a default run to its target; `besides` gets each
    other run's time over the default run's at the same delay."""
    first, worst, default = None, 0.0, {}
    for latency, given in runs:
        elapsed, said = _one(latency, given, trace, scratch, other)
        if given is None:
            first, default[latency] = first or elapsed, elapsed
        elif isinstance(given, str) and latency in default:
            besides[(latency, given)] = elapsed / default[latency]
        ratio = elapsed / (first or elapsed)
        target = TARGETS.get(latency) if given is None else None
        worst = max(worst, ratio / target) if target else worst
        print(f"delay {latency * 1000:4.0f} ms {elapsed:6.1f} s wall  {ratio:5.2f}x"
              + (f" [target <= {target:g}x]" if target else "") + said, flush=True)
    return worst


def _one(latency: float, given: Any, trace: Path | None, scratch: Path,
         other: Path) -> tuple[float, str]:
    """One run against a fresh server `latency` late (`given`: None, a worker count,
    "--no-speed" or "against REV"): its seconds and what to say of it."""
    key = secrets.token_urlsafe(16)
    app = create_app(key)
    late = Late(app, latency)
    url, server, thread = serve(late)
    label = str(given or 0).replace(" ", "-")
    traced = trace / f"trace-{latency:g}-{label}.jsonl" if trace else None
    if traced is not None:
        traced.unlink(missing_ok=True)
    started = time.time()
    try:
        elapsed, chosen, verdict = boardcert_run(
            url, key, scratch / f"{latency}-{label}", traced,
            given if isinstance(given, int) else None,
            ("--no-speed",) if given == "--no-speed" else (),
            other if str(given).startswith("against") else ROOT)
    finally:
        server.should_exit = True
        thread.join(timeout=5)
    if traced is not None and traced.exists():
        summarize(traced, started)
    return elapsed, (f"  {late.requests:5} requests  {given or 'default'}: {chosen}; "
                     f"{verdict}; projects left behind: {len(app.state.store._projects)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--default-run", action="store_true",
                        help="time default `boardcert run`s at each of --latencies")
    parser.add_argument("--latencies", type=float, nargs="+", default=[0.0, 0.03, 0.1])
    parser.add_argument("--also-workers", type=int, nargs="+", metavar="N",
                        help="with --default-run: also time --workers N at each delay")
    parser.add_argument("--no-speed-too", action="store_true",
                        help="with --default-run: also `boardcert run --no-speed` at each delay")
    parser.add_argument("--against", metavar="REV",
                        help="with --default-run: also the default run of this git revision")
    parser.add_argument("--trace", type=Path, metavar="DIR",
                        help="with --default-run: requests and seconds per module and worker "
                        "(benchmarks/trace.py; its records kept in DIR)")
    parser.add_argument("--latency", type=float, default=0.03)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--dist-load", action="store_true",
                        help="also run with --dist load (module fixtures made per worker)")
    parser.add_argument("pytest_args", nargs="*", default=["suites"])
    options = parser.parse_args()
    if options.default_run:
        if options.trace:
            options.trace.mkdir(parents=True, exist_ok=True)
        return default_runs(options.latencies, options.trace, options.also_workers,
                            options.no_speed_too, options.against)
    print(f"reference server answering {options.latency * 1000:.0f} ms late; "
          f"pytest {' '.join(options.pytest_args)}; {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f} at the start")
    workers = ["-n", str(options.workers)]
    modes = [("serial", []), (" ".join(workers), workers)]
    if options.dist_load:
        modes.append((" ".join(workers) + " --dist load", [*workers, "--dist", "load"]))
    rows = []
    for label, extra in modes:
        key = secrets.token_urlsafe(16)
        app = create_app(key)
        late = Late(app, options.latency)
        url, server, thread = serve(late)
        try:
            elapsed, cpu, summary = run(url, key, [*extra, *options.pytest_args])
        finally:
            server.should_exit = True
            thread.join(timeout=5)
        left = len(app.state.store._projects)
        rows.append((label, elapsed, late.requests, summary, left))
        print(f"{label:20} {elapsed:6.1f} s wall {cpu:6.1f} s CPU {late.requests:6} requests  "
              f"{summary}; projects left behind: {left}", flush=True)
    for label, elapsed, *_ in rows[1:]:
        print(f"speed-up with {label}: {rows[0][1] / elapsed:.2f}x")
    return 0 if all(row[4] == 0 for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
