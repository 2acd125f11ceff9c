"""A server whose answers take a random time (issue 33, item 3): default `boardcert run`s
against the reference app answering after a random 0 to 40 ms each, beside the same app with
no wait, in rounds side by side; each run's wall time, the workers and requests in flight it
chose (from the round trips it timed before the run), and the ratio of each jittered run to
the plain run of its round. Target: every ratio at most 1.5.

    python benchmarks/jitter.py [--rounds 5] [--most 0.04] [--seed 1] [--against REV]
                                [-- more boardcert run arguments]

--against REV: each round also runs the jittered server with boardcert of that revision (a
git worktree), side by side with this checkout's.

A measurement, not a test: quote it with the load average it prints.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import parallel  # noqa: E402


class Jittered:
    """ASGI wrapper: every response leaves a random 0 to `most` seconds late (drawn from a
    generator of its own, `seed`), independently of the others."""

    def __init__(self, app: Any, most: float, seed: int) -> None:
        self.app, self.most, self.random, self.requests = app, most, random.Random(seed), 0

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.requests += 1
            await asyncio.sleep(self.random.uniform(0, self.most))
        await self.app(scope, receive, send)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--most", type=float, default=0.04, help="the longest wait, seconds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--against", help="also the jittered run of this git revision")
    parser.add_argument("args", nargs="*", help="more boardcert run arguments (after --)")
    options = parser.parse_args()
    key = secrets.token_urlsafe(16)
    jittered = Jittered(parallel.create_app(key), options.most, options.seed)
    plain = parallel.Late(parallel.create_app(key), 0.0)
    servers = {"jittered": parallel.serve(jittered), "plain": parallel.serve(plain)}
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start; "
          f"answers 0 to {options.most * 1000:.0f} ms late, or not at all")
    ratios: dict[str, list[float]] = {}
    with parallel.worktree(options.against) as other:
        runs = [("jittered", "jittered", ROOT), ("plain", "plain", ROOT)]
        if options.against:
            runs.append((f"jittered {options.against}", "jittered", other))
        try:
            for number in range(1, options.rounds + 1):
                seconds = {}
                for label, name, checkout in runs:
                    with tempfile.TemporaryDirectory() as scratch:
                        elapsed, chosen, verdict = parallel.boardcert_run(
                            servers[name][0], key, Path(scratch) / "report",
                            args=tuple(options.args), checkout=checkout)
                    seconds[label] = elapsed
                    print(f"  round {number}  {label:8} {elapsed:6.1f} s  {chosen}; "
                          f"{verdict.splitlines()[0]}", flush=True)
                for label in [label for label, _, _ in runs if label != "plain"]:
                    ratios.setdefault(label, []).append(seconds[label] / seconds["plain"])
                    print(f"  round {number}  {label} / plain {ratios[label][-1]:.2f}",
                          flush=True)
        finally:
            for _, server, thread in servers.values():
                server.should_exit = True
                thread.join(timeout=5)
    for label, found in ratios.items():
        print(f"{label}: ratios {', '.join(f'{r:.2f}' for r in found)}; worst "
              f"{max(found):.2f} [target <= 1.5]")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
