"""The benchmarks measure the code they name: a run "against REV" runs that revision's
boardcert, not this checkout's (benchmarks/parallel.py, which jitter.py and critical_path.py
share)."""

from __future__ import annotations

import sys

from boardcert.paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

import parallel  # noqa: E402

STUB = '''import os

def main():
    here = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
    print("boardcert: STUB from " + here + ": nothing certified (exit 0)")
    return 0
'''


def test_a_run_of_another_checkout_runs_that_checkouts_boardcert(tmp_path):
    """A checkout whose boardcert only says where it lives: boardcert_run(checkout=it) runs
    that one (before the fix, run from ROOT, `python -c` imported this checkout's, which
    certified nothing at an unreachable URL and said so)."""
    other = tmp_path / "other"
    (other / "boardcert" / "cli").mkdir(parents=True)
    (other / "boardcert" / "__init__.py").write_text("")
    (other / "boardcert" / "cli" / "__init__.py").write_text(STUB)
    _, _, verdict = parallel.boardcert_run("http://127.0.0.1:9", "key", tmp_path / "out",
                                           checkout=other)
    assert verdict == f"STUB from {other}", verdict
