"""boardcert.pytest.results: a test's outcome and message from pytest's reports, why a run stopped,
and the console's short summary."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from boardcert.outputs.record import RECORD, Record
from boardcert.pytest.results import (
    ExitWatch,
    console_summary,
    phase_message,
    phase_outcome,
    stopped,
)


def report(outcome: str, when: str = "call", longrepr: object = None,
           properties: tuple = ()) -> pytest.TestReport:
    return pytest.TestReport("suites/t.py::test_x", ("suites/t.py", 1, "test_x"), {}, outcome,
                             longrepr, when, user_properties=list(properties))


def test_phase_outcome_tells_failures_from_errors():
    """A failed call is a failure; a failed set-up, or one marked error, is an error."""
    assert phase_outcome(report("passed")) == "passed"
    assert phase_outcome(report("skipped", longrepr=("f", 1, "Skipped: x"))) == "skipped"
    assert phase_outcome(report("failed")) == "failed"
    assert phase_outcome(report("failed", when="setup")) == "error"
    broke = [(RECORD, Record(error=True).to_json())]
    assert phase_outcome(report("failed", properties=broke)) == "error"


def test_phase_message_is_the_skip_reason_or_pytests_message():
    """A skip gives its reason; a failure pytest's message (a check's own message, without
    the exception's name, is its record's: boardcert.pytest.failures)."""
    skipped = report("skipped", longrepr=("f", 1, "Skipped: not assessed: plugin_id"))
    assert phase_message(skipped) == "not assessed: plugin_id"
    failed = report("failed", longrepr="KeyError: 'id'")
    assert phase_message(failed) == "KeyError: 'id'"
    assert phase_message(report("passed")) == ""


def session(collected: int = 10, shouldfail: object = False, maxfail: int = 0,
            failed: int = 0) -> SimpleNamespace:
    return SimpleNamespace(testscollected=collected, shouldfail=shouldfail, testsfailed=failed,
                           config=SimpleNamespace(option=SimpleNamespace(maxfail=maxfail)))


def test_stopped_says_why_a_run_ended_early():
    """The target gone, --max-failures and Ctrl-C each give the verdict's reason; else None."""
    watch = ExitWatch(None)  # type: ignore[arg-type]
    assert stopped(session(), watch, 10) is None
    watch.returncode = 3
    assert stopped(session(), watch, 4) == "the target stopped answering after 4 of 10 tests"
    assert stopped(session(shouldfail="stopping after 2 failures", maxfail=2, failed=2), None,
                   5) == "stopped after 2 failures (--max-failures 2)"
    assert stopped(session(maxfail=2, failed=1), None, 10) is None
    cancelled = ExitWatch(None)  # type: ignore[arg-type]
    cancelled.interrupted = "KeyboardInterrupt"
    assert stopped(session(), cancelled, 6) == "interrupted after 6 of 10 tests"


def test_console_summary_lists_failures_by_level_and_groups_errors():
    """Failed requirements MUST first, one message each; errors counted by their message."""
    summary = {
        "requirements": [
            {"id": "S-1", "level": "SHOULD", "status": "failed", "title": "should",
             "message": "", "failures": [{"message": "[S-1] expected a\nmore"}]},
            {"id": "M-1", "level": "MUST", "status": "failed", "title": "must",
             "message": "", "failures": [{"message": "[M-1] expected b"}] * 2},
            {"id": "M-2", "level": "MUST", "status": "passed", "title": "ok", "failures": []}],
        "tests": [{"outcome": "error", "message": f"KeyError: {k}"} for k in "aabcde"]}
    lines = console_summary(summary)
    assert lines[:5] == [
        "2 requirements failed (the evidence is in the reports):",
        "  MUST   M-1: 2 failing tests (must)", "         [M-1] expected b",
        "  SHOULD S-1: 1 failing test (should)", "         [S-1] expected a"]
    assert lines[5] == "6 tests errored (what they check is not assessed):"
    assert lines[6] == "     2 x KeyError: a"
    assert lines[-1] == "  and 2 other errors"
    assert console_summary({"requirements": [], "tests": []}) == []


def test_console_keeps_expected_and_got_whole():
    """A failure's first line is wrapped, never cut: what was expected and what came back
    stay whole, quoted (a whitespace difference shows)."""
    got = "bc-card-8015f" + "0" * 120
    message = (f"[CARD-NAME-AS-SENT] expected the stored name (fresh operation 3) to be "
               f"'  {got}  '; got '{got}' (first difference at character 0)")
    lines = console_summary({"requirements": [
        {"id": "CARD-NAME-AS-SENT", "level": "SHOULD", "status": "failed", "title": "t",
         "message": "", "failures": [{"message": message}]}], "tests": []})
    shown = lines[2:]
    assert len(shown) > 1 and all(len(line) <= 100 for line in shown)
    assert all(line.startswith(" " * 9) for line in shown)
    assert "".join(line[9:] for line in shown) == message  # nothing cut, nothing dropped
    assert "…" not in "".join(shown)
