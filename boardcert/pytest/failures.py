"""How a test's end becomes data: boardcert's one `pytest_runtest_makereport` hook.

A failed check raises a `boardcert.errors.Violation` carrying the ids of the requirements it
breaks and its exchanges. The hook turns the exception into user properties, which
pytest-xdist carries to the controller and JUnit XML keeps:

    failed_requirements  "ID ID ...": what the failure breaks (absent: the test's own ids)
    evidence             JSON list of exchanges (`Exchange.as_dict()`): the failure's own,
                         else the test's last exchanges
    outcome              "error": the test broke (not a check): its requirements are not
                         assessed
    boardcert_error      "Type: message": it broke inside boardcert, a bug in boardcert,
                         never something the server did
    failure_message      the violations' messages (the report's only, not the item's)
    unassessed_requirements  JSON {"REQ-ID": {"N": "why"}}: requirements the test names but
                         did not check on operation N (what a test put in `item.stash[UNASSESSED]`
                         with `not_checked`); the report does not count the test for them there
    reproduction         JSON: the failure's recipe (boardcert.reproduce.recipe), this report's
                         only; `reproduce` names its script in the report directory (JUnit)
    kept                 JSON: what --keep-failed left on the server for it (this report's only)

`NotAssessed` becomes a skip. The report reads these fields; only report/render.py makes text
of the exchanges (here, for the console's "boardcert: evidence" section).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from boardcert.errors import ConfigError, NotAssessed, SetUpError, Violation, violations
from boardcert.http.evidence import evidence_text, exchange_text
from boardcert.outputs.report.build import BUG
from boardcert.pytest.markers import requirement_ids
from boardcert.pytest.stash import CLIENT, LEDGERS, THROWAWAY
from boardcert.pytest.target import exchanges_of
from boardcert.reproduce import recipe
from boardcert.reproduce.script import relative_path

FAILED_REQUIREMENTS, EVIDENCE = "failed_requirements", "evidence"
REPRODUCTION, REPRODUCE, KEPT = "reproduction", "reproduce", "kept"
UNASSESSED_REQUIREMENTS = "unassessed_requirements"
UNASSESSED = pytest.StashKey[dict[str, dict[int, str]]]()  # requirement -> {operation: why}
BOARDCERT_ERROR, MESSAGE = "boardcert_error", "failure_message"
EVIDENCE_SECTION = "boardcert: evidence"
EXCHANGES_SHOWN = 4  # the test's last exchanges shown with a failure that carries none


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(BugSummary(), "boardcert-bug-summary")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    unchecked = item.stash.get(UNASSESSED, None)
    if call.when == "call" and unchecked:
        _record(item, report, UNASSESSED_REQUIREMENTS, json.dumps(unchecked, ensure_ascii=False))
    exc = call.excinfo.value if call.excinfo is not None else None
    if exc is None or not report.failed:
        return report
    if isinstance(exc, NotAssessed):
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, str(exc))
        return report
    found = violations(exc)
    ids = list(dict.fromkeys(i for v in found for i in v.requirements))
    if ids:
        _record(item, report, FAILED_REQUIREMENTS, " ".join(ids))
    exchanges = [x for v in found for x in v.exchanges] or \
        [e.as_dict() for e in exchanges_of(item)[-EXCHANGES_SHOWN:]]
    if exchanges:
        _record(item, report, EVIDENCE, json.dumps(exchanges, ensure_ascii=False))
        report.sections.append((EVIDENCE_SECTION, evidence_text(exchanges)))
        if item.config.pluginmanager.has_plugin("allure_listener"):
            _attach(exchanges)
    if found:
        message = "\n\n".join(str(v) for v in found)
        report.user_properties.append((MESSAGE, message))  # this report's only: JUnit has it
        if not all(v.traceback for v in found):
            # Through schemathesis and Hypothesis the traceback says nothing the message does not.
            report.longrepr = message
    if found and is_check(exc) and call.when == "call":
        _reproduction(item, report, found)
    if not is_check(exc):
        _record(item, report, "outcome", "error")
        if is_bug(exc) and requirement_ids(item):  # a conformance test, not one of our own
            error = describe(exc)
            _record(item, report, BOARDCERT_ERROR, error)
            report.sections.append(("boardcert", f"{BUG}: {error} in {item.nodeid}"))
    return report


def _reproduction(item: pytest.Item, report: pytest.TestReport, found: list[Violation]) -> None:
    """The failure's recipe on the report (not the item: JUnit names the script only). A
    recipe that cannot be made is said, never a failure of the test's own."""
    client = item.config.stash.get(CLIENT, None)
    if client is None:
        return
    try:
        made = recipe.build(found, exchanges_of(item), client, item.nodeid)
    except Exception as exc:  # noqa: BLE001 - boardcert's own bug: the failure stands as it is
        report.sections.append(("boardcert", f"no reproduction ({BUG}: {describe(exc)})"))
        return
    if made is not None:
        report.user_properties.append((REPRODUCTION, json.dumps(made, ensure_ascii=False)))
        _record(item, report, REPRODUCE, relative_path(item.nodeid))
        kept = _keep(item.config, made["used"])
        if kept:
            report.user_properties.append((KEPT, json.dumps(kept, ensure_ascii=False)))


def _keep(config: pytest.Config, used: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """With --keep-failed, what the failed test used stays on the server (not on the bundled
    server this process started: it stops with the run); what the ledgers had."""
    if not config.getoption("keep_failed", False) or config.stash.get(THROWAWAY, False):
        return []
    ledgers = config.stash.get(LEDGERS, [])
    return [resource for resource in used  # every ledger told (a list, not any()'s shortcut)
            if any([ledger.keep(resource["kind"], resource["params"]) for ledger in ledgers])]


def not_checked(item: pytest.Item, unchecked: dict[str, dict[int, str]]) -> None:
    """What the test names but did not check, so far (requirement -> {operation: why}); the
    last call wins, and an empty mapping says it checked everything."""
    item.stash[UNASSESSED] = unchecked


def _record(item: pytest.Item, report: pytest.TestReport, name: str, value: str) -> None:
    """A user property of this phase's report, and of the item: JUnit XML writes those of the
    test's last report (its teardown)."""
    report.user_properties.append((name, value))
    item.user_properties.append((name, value))


def _attach(exchanges: list[dict[str, Any]]) -> None:
    """Each exchange of a failed test (request, response, curl) on its allure result."""
    import allure

    for n, exchange in enumerate(exchanges, start=1):
        allure.attach(exchange_text(exchange), name=f"exchange {n}: {exchange['method']} "
                      f"{exchange['url']}", attachment_type=allure.attachment_type.TEXT)


def is_check(exc: BaseException) -> bool:
    """A failed check about the server (an assertion), not a test that broke or could not be
    set up (SetUpError: the server would not make what it needs)."""
    if isinstance(exc, BaseExceptionGroup):
        return all(is_check(e) for e in exc.exceptions)
    return isinstance(exc, AssertionError | pytest.fail.Exception) \
        and not isinstance(exc, SetUpError)


def is_bug(exc: BaseException) -> bool:
    """A test that broke inside boardcert's own code (or Hypothesis's, as boardcert drives it):
    not a misconfiguration (ConfigError names the key) nor a connection that failed."""
    if isinstance(exc, BaseExceptionGroup):
        return any(is_bug(e) for e in exc.exceptions)
    return not isinstance(exc, AssertionError | ConfigError | NotAssessed | OSError
                          | pytest.fail.Exception | pytest.skip.Exception)


def describe(exc: BaseException) -> str:
    """"Type: message", on one line."""
    text = " ".join(str(exc).split())
    if len(text) > 300:
        text = text[:300] + "…"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class BugSummary:
    """Names every error inside boardcert at the end of the run (on the xdist controller too)."""

    def __init__(self) -> None:
        self.errors: dict[str, str] = {}  # nodeid -> "Type: message"

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name == BOARDCERT_ERROR:
                self.errors.setdefault(report.nodeid, str(value))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.errors:
            return
        terminalreporter.section("boardcert errors", red=True)
        for nodeid, error in self.errors.items():
            terminalreporter.line(f"{BUG}: {error} in {nodeid}")
        terminalreporter.line(f"{len(self.errors)} error{'s' if len(self.errors) != 1 else ''} "
                              "inside boardcert: their requirements are not assessed; this is "
                              "not something the server did")
