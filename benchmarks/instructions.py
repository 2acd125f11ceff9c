"""Instructions a quick certification of the bundled server costs boardcert's own process,
counted by valgrind's callgrind: the same figure run after run (0.1%), whatever else the machine
is doing, where wall times drift by a fifth. For cuts too small to see in seconds (issue 16).

Each run is `boardcert run --budget quick --workers 0 --in-flight 1` (serial, as against the
bundled server, whatever the slower process measures) under callgrind, the bundled server and
Allure's writer as children it does not count. With `--against REV` the same run from a
checkout of that revision (a temporary git worktree) goes beside it, both at once, and the
ratio is printed. About two minutes a run; valgrind from the distribution's packages.

    python benchmarks/instructions.py [--against main~3] [--budget quick]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
from parallel import worktree  # noqa: E402 (benchmarks/, beside this file)


def counted(checkout: Path, budget: str, scratch: Path, name: str) -> tuple[int, str]:
    """Instructions of one run from `checkout`, and its verdict line (after a run that is not
    counted: the first from a new directory compiles its modules)."""
    out = scratch / f"{name}.callgrind"
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOARDCERT_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(checkout), env.get("PYTHONPATH")]))
    run = [sys.executable, "-m", "boardcert.cli", "run", "--budget", budget, "--workers", "0",
           "--in-flight", "1", "--output"]
    subprocess.run([*run, str(scratch / f"{name}-warm-up")], cwd=scratch, env=env,
                   capture_output=True, check=False)
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *run,
               str(scratch / f"{name}-reports")]
    done = subprocess.run(command, cwd=scratch, env=env, capture_output=True, text=True,
                          check=False)
    found = re.search(r"^summary: (\d+)", out.read_text() if out.exists() else "", re.M)
    said = (done.stdout + done.stderr).splitlines()
    verdict = next((line for line in said[::-1]
                    if line.startswith("boardcert: ") and "(exit" in line), "no verdict")
    return (int(found.group(1)) if found else 0), verdict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", help="a git revision to count beside this checkout")
    parser.add_argument("--budget", default="quick")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (Debian: apt-get install valgrind)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch_name, worktree(args.against) as other:
        scratch = Path(scratch_name)
        runs = {"this checkout": ROOT, **({args.against: other} if args.against else {})}
        with concurrent.futures.ThreadPoolExecutor(len(runs)) as pool:
            results = dict(zip(runs, pool.map(
                lambda item: counted(item[1], args.budget, scratch, str(hash(item[0]))),
                runs.items()), strict=True))
    for name, (count, verdict) in results.items():
        print(f"{name:24} {count / 1e9:8.3f} G instructions   {verdict}")
    if args.against and all(count for count, _ in results.values()):
        mine, theirs = (results[name][0] for name in runs)
        print(f"ratio {mine / theirs:.3f} (this checkout / {args.against})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
