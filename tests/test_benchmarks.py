"""The benchmarks measure the code they name: a run "against REV" runs that revision's
boardcert, not this checkout's (benchmarks/parallel.py, which jitter.py and critical_path.py
share)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

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


def test_the_test_command_benchmark_times_what_the_readme_gives_and_sums_by_module():
    """benchmarks/test_command.py splits the README's block into its install and its pytest
    command (the one CI runs), sums --durations by module and tells the census's processes
    apart."""
    import test_command

    install, test = test_command.commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert install.startswith("python3 -m venv .venv") and "pip install" in install
    assert test.startswith(".venv/bin/pytest ") and "pytest" not in install
    durations = ("3.50s call     tests/a/test_x.py::test_one[p]\n"
                 "1.25s setup    tests/a/test_x.py::test_two@group\n"
                 "4.00s teardown tests/test_y.py::test_three\n")
    assert test_command.slowest(durations) == [("tests/a/test_x.py", 4.8),
                                               ("tests/test_y.py", 4.0)]
    kinds = [test_command.kind(argv) for argv in (
        ["-m", "/c/suites", "-q"], ["-m", "/c/suites/test_cards.py", "-q"],
        ["/c/tests/faults/launcher.py"], ["-c"], ["/v/bin/boardcert", "run", "--base-url"])]
    assert kinds == ["certifications, the whole suite", "certifications, some modules",
                     "the certifications' zygote (tests/faults/launcher.py)",
                     "pytest-xdist workers (python -c)", "boardcert run, its workers and forks"]


def test_the_census_charges_each_process_to_the_test_that_started_it(tmp_path):
    """The census (benchmarks/test_command.py), as a plugin of a pytest run: a process a test
    starts is charged to that test, the process of a pytest run within a test to the outer
    test too (not to the inner run's tests), and each test's own CPU in the run's process is
    the test's; by_module sums them by module; tail says when each worker ended, and
    the last tests of the one that ended last."""
    import test_command

    (tmp_path / "boardcert_census.py").write_text(test_command.CENSUS, encoding="utf-8")
    (tmp_path / "boardcert_census_plugin.py").write_text(test_command.CENSUS_PLUGIN,
                                                         encoding="utf-8")
    (tmp_path / "test_outer.py").write_text(textwrap.dedent("""
        import os, subprocess, sys

        def test_starts_one():
            subprocess.run([sys.executable, "-c", "import boardcert_census"], check=True)

        def test_starts_a_run():
            subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "inner"], check=True)

        def test_starts_none():
            pass
        """), encoding="utf-8")
    (tmp_path / "inner").mkdir()
    (tmp_path / "inner" / "test_inner.py").write_text("def test_inner():\n    pass\n")
    counted = tmp_path / "census.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "CENSUS_"))}
    env |= {"CENSUS_OF_PROCESSES": str(counted), "PYTEST_PLUGINS": "boardcert_census_plugin",
            "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "test_outer.py"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = test_command.rows(counted)
    started = [(r["test"] or "").split("::")[-1] for r in rows if not r.get("own")]
    assert sorted(started) == ["", "test_starts_a_run", "test_starts_one"]  # "": the run's own
    own = sorted(r["test"].split("::")[-1] for r in rows if r.get("own"))
    assert own == ["test_starts_a_run", "test_starts_none", "test_starts_one"]
    (module, _, children), = test_command.by_module(counted)
    assert module == "test_outer.py" and children > 0
    ends, last = test_command.tail(counted)
    assert list(ends) == [""] and ends[""] > 0  # one process, no pytest-xdist worker
    assert [test.split("::")[-1] for test, _ in last] == ["test_starts_one", "test_starts_a_run",
                                                          "test_starts_none"]


def test_the_certification_cost_benchmark_prints_each_phase_of_a_fork():
    """benchmarks/certification_cost.py certifies a fault as test_faults does, with its CPU
    plugin in the run, and prints the CPU at the end of each phase, each no less than the
    one before; an unknown variant is a usage error, not a traceback."""
    script = str(ROOT / "benchmarks" / "certification_cost.py")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "BOARDCERT_"))}
    done = subprocess.run([sys.executable, script, "--repeat", "1", "auth-any-key"],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    row = next(line.split() for line in done.stdout.splitlines() if "auth-any-key" in line)
    cells = [float(cell) for cell in row[1:]]
    assert len(cells) == 6 and cells == sorted(cells) and cells[0] > 0, done.stdout
    wrong = subprocess.run([sys.executable, script, "no-such-fault"], capture_output=True,
                           text=True, timeout=120, env=env)
    assert wrong.returncode == 2 and "no such variant: no-such-fault" in wrong.stderr
    assert "Traceback" not in wrong.stderr
