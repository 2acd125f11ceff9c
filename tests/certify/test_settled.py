"""faults/settled.py both ways: a fault's run ends at the first test that fails its
requirement, with the verdict and that requirement's status of the whole run; a run where
nothing fails it runs every test."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from faults import CONFORMANT, FAULTS, certify
from faults.harness import outcomes

REQUIREMENT = "SUCCESS-STATUS-200"


def _both(variant, tmp_path: Path):
    runs = {}
    for settled in (False, True):
        directory = tmp_path / str(settled)
        directory.mkdir()
        result = certify(variant, directory, settled=settled)
        runs[settled] = result, outcomes(directory / "report")
    return runs


def test_a_fault_run_ends_at_the_first_failure_of_its_requirement(tmp_path: Path):
    """alias-201 (op 20 answers 201): settled, fewer tests ran, the last of them failed the
    requirement, each had its outcome of the whole run, and the verdict and the
    requirement's status are the whole run's."""
    fault = next(f for f in FAULTS if f.name == "alias-201")
    assert fault.requirement == REQUIREMENT
    (whole, all_tests), (settled, ran) = _both(fault, tmp_path).values()
    assert (settled.verdict, settled.statuses[REQUIREMENT]) == \
        (whole.verdict, whole.statuses[REQUIREMENT]) == ("non-conformant", "failed")
    assert 0 < len(ran) < len(all_tests)
    assert {nodeid: all_tests[nodeid] for nodeid in ran} == ran
    last = list(ran.values())[-1]
    assert last[0] == "failed" and REQUIREMENT in last[1]
    assert sum(outcome == "failed" for outcome, _ in ran.values()) == 1


def test_a_run_that_never_fails_the_requirement_runs_every_test(tmp_path: Path):
    """The reference server, certified as if it were a fault of the requirement: nothing
    fails it, so the settled run runs the same tests with the same outcomes."""
    reference = next(v for v in CONFORMANT if v.name == "reference")
    posing = dataclasses.replace(reference, requirement=REQUIREMENT)
    (whole, all_tests), (settled, ran) = _both(posing, tmp_path).values()
    assert ran == all_tests and len(ran) > 1
    assert settled.statuses == whole.statuses
    assert whole.statuses[REQUIREMENT] == "passed"
