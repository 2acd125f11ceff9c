"""A pytest plugin for boardcert's own tests (`-p faults.settled --settled-by ID`, tests/ on
sys.path): once a test has failed requirement ID, the tests after it are not run.

For test_faults.py, whose question about a fault is settled by then: the fault is flagged
(its requirement failed, and a failed MUST makes the verdict non-conformant whatever follows).
A test not run leaves no outcome behind, as if it had not been selected: the report is the one
a run of the tests up to that one would write, not one cut short (no "stopped after"). What
counts as failing ID is what the compliance report counts (build.TestResult
.failed_requirements): the requirements the failure names, else all those the test names.
"""

from __future__ import annotations

import pytest

from boardcert.interface import requirements
from boardcert.outputs.record import of as record_of


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("boardcert").addoption(
        "--settled-by", metavar="ID", default=None,
        help="run no test after the first that fails requirement ID (boardcert's own tests)")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("settled_by"):
        config.pluginmanager.register(Settled(config.getoption("settled_by")), "faults-settled")


class Settled:
    def __init__(self, requirement: str) -> None:
        self.requirement = requirement
        self.settled = False

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None
                                ) -> bool | None:
        return True if self.settled else None  # True: done with the item, nothing run

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" and report.failed and \
                self.requirement in failed_requirements(report):
            self.settled = True


def failed_requirements(report: pytest.TestReport) -> tuple[str, ...]:
    """What a failed test counts against, as the compliance report counts it (an error, in
    set-up or inside the test, counts against none)."""
    record = record_of(report)
    if record.error:  # not a check that failed: the test errored
        return ()
    named = [i for i in record.failed_requirements if i in requirements.catalogue()]
    return tuple(named) or record.requirements
