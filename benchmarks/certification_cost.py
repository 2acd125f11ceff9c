"""What one certification of the tests' harness costs in CPU, phase by phase (issue 33,
target 4: the test command certifies some 330 servers, each in a fork of the harness's
zygote, tests/faults/launcher.py).

    python benchmarks/certification_cost.py [--repeat 3] [NAME ...]

Certifies each named variant of tests/faults/ (default: three faults whose requirements
select different suites) as tests/certify/test_faults.py does (its requirement's tests,
the run ending at the first that fails it), `--repeat` times, with benchmarks/phases.py as
a plugin of the run, and prints the median CPU seconds the run's process had used when
pytest had imported its plugins, had configured, had collected, had run the tests, had
written the reports, and at its exit. A fork starts at 0: what the zygote imported is not
counted. The first certification, which teaches the zygote its imports, is left out.
A measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

DEFAULT = ["op8-acts-on-all", "project-missing-id", "auth-any-key"]
PHASES = ["plugins imported", "configured", "collected", "tests run", "reports written", "exit"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("names", nargs="*", default=DEFAULT)
    args = parser.parse_args(argv)
    from faults import CONFORMANT, FAULTS, harness
    variants = {v.name: v for v in [*FAULTS, *CONFORMANT]}
    if unknown := [n for n in args.names if n not in variants]:
        parser.error(f"no such variant: {', '.join(unknown)}")
    scratch = Path(tempfile.mkdtemp(prefix="boardcert-certification-cost-"))
    marks = scratch / "phases.jsonl"
    os.environ["PHASES_FILE"] = str(marks)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT / "benchmarks"), os.environ.get("PYTHONPATH")]))
    found: dict[str, list[dict[str, float]]] = {name: [] for name in args.names}
    try:
        for round_ in range(args.repeat + 1):
            for name in args.names:
                directory = scratch / f"{name}-{round_}"
                directory.mkdir()
                before = marks.read_text().count("\n") if marks.exists() else 0
                result = harness.certify(variants[name], directory, settled=True,
                                         extra=("-p", "phases"))
                lines = marks.read_text().splitlines() if marks.exists() else []
                if len(lines) != before + 1:
                    sys.exit(f"{name}: the run wrote no phases ({result.verdict}):\n"
                             f"{result.output[-2000:]}")
                if round_:  # the first round teaches the zygote
                    found[name].append(json.loads(lines[-1]))
    finally:
        harness.LAUNCHER.close()
    print("median CPU seconds of the run's process at the end of each phase:")
    print(f"  {'':24s}" + "".join(f"{p:>17s}" for p in PHASES))
    for name, runs in found.items():
        cells = [statistics.median(r.get(p, float("nan")) for r in runs) for p in PHASES]
        print(f"  {name:24s}" + "".join(f"{c:17.3f}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
