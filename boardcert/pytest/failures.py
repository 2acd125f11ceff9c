"""How a test's end becomes data: boardcert's one `pytest_runtest_makereport` hook.

A failed check raises a `boardcert.errors.Violation` carrying the ids of the requirements it
breaks and its exchanges; a test that lacks what it needs raises `NotAssessed` (a skip). The
hook turns either into one `boardcert.outputs.record.Record` (failed requirements, evidence,
an error inside boardcert, what the test did not check, the reproduction recipe, the profile
keys a not-assessed test lacked, ...) carried in one user property of the phase's report,
which pytest-xdist carries to the controller as data; every output reads that record. The
item keeps the record of its phases so far (RECORDED) for the Allure listener on the worker.
Only report/render.py makes text of the exchanges (here, for the console's "boardcert:
evidence" section).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from boardcert.errors import ConfigError, NotAssessed, SetUpError, Violation, violations
from boardcert.http.evidence import evidence_text, exchange_text
from boardcert.outputs.record import RECORD, Record
from boardcert.outputs.record import of as record_of
from boardcert.outputs.report.build import BUG
from boardcert.pytest.markers import identity, requirement_ids
from boardcert.pytest.stash import CLIENT, LEDGERS, OBSERVED, READ_ONLY_SKIPPED, THROWAWAY
from boardcert.pytest.target import exchanges_of
from boardcert.reproduce import recipe
from boardcert.reproduce.script import relative_path
from boardcert.settings import roles
from boardcert.settings.run import in_session

UNASSESSED = pytest.StashKey[dict[str, dict[int, str]]]()  # requirement -> {operation: why}
RECORDED = pytest.StashKey[Record]()  # the item's phases' records so far, one after the other
EVIDENCE_SECTION = "boardcert: evidence"
EXCHANGES_SHOWN = 4  # the test's last exchanges shown with a failure that carries none


def pytest_configure(config: pytest.Config) -> None:
    if roles.reporting(config):
        config.pluginmanager.register(BugSummary(), "boardcert-bug-summary")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    record = _record(item, call, report)
    if record:
        report.user_properties.append((RECORD, record.to_json()))
        item.stash[RECORDED] = item.stash.get(RECORDED, Record()).then(record)
    return report


def _record(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
            ) -> Record:
    """What this phase found, as data (and the report's longrepr and sections as it shows)."""
    unchecked = item.stash.get(UNASSESSED, None)
    ids, ops = identity(item)
    record = Record(requirements=ids, operations=ops,
                    observations=tuple(item.stash.get(OBSERVED, ())),
                    unassessed=unchecked if call.when == "call" and unchecked else {})
    exc = call.excinfo.value if call.excinfo is not None else None
    if isinstance(exc, pytest.skip.Exception) and item.stash.get(READ_ONLY_SKIPPED, False):
        return replace(record, read_only=True)
    if isinstance(exc, pytest.skip.Exception) and hasattr(exc, "boardcert_key"):
        return replace(record, not_assessed=exc.boardcert_key, lacks=exc.boardcert_lacks)
    if exc is None or not report.failed:
        return record
    if isinstance(exc, NotAssessed):
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, str(exc))
        return replace(record, not_assessed=exc.key, lacks=exc.lacks, misfit=exc.misfit,
                       read_only=exc.read_only)
    found = violations(exc)
    exchanges = [x for v in found for x in v.exchanges] or \
        [e.as_dict() for e in exchanges_of(item)[-EXCHANGES_SHOWN:]]
    record = replace(record, evidence=tuple(exchanges), failed_requirements=tuple(
        dict.fromkeys(i for v in found for i in v.requirements)))
    if found and all(v.last for v in found):
        record = replace(record, held=tuple(i for i in requirement_ids(item)
                                            if i not in record.failed_requirements))
    if exchanges:
        report.sections.append((EVIDENCE_SECTION, evidence_text(exchanges)))
        if item.config.pluginmanager.has_plugin("allure_listener"):
            _attach(exchanges)
    if found:
        record = replace(record, message="\n\n".join(str(v) for v in found))
        if not all(v.traceback for v in found):
            # Through schemathesis and Hypothesis the traceback says nothing the message does not.
            report.longrepr = record.message
    elif is_check(exc):  # a plain assertion or pytest.fail: its message, without its name
        record = replace(record, message=str(exc))
    record = replace(record, headline=headline(
        exc, found, record.failed_requirements or tuple(requirement_ids(item)), call.when,
        said_by_pytest(report)))
    if found and is_check(exc) and call.when == "call":
        record = _reproduction(item, report, found, record)
    if not is_check(exc):
        record = replace(record, error=True)
        if is_bug(exc) and requirement_ids(item):  # a conformance test, not one of our own
            record = replace(record, boardcert_error=describe(exc))
            report.sections.append(("boardcert", f"{BUG}: {record.boardcert_error} in "
                                                 f"{item.nodeid}"))
    return record


def headline(exc: BaseException, found: list[Violation], ids: tuple[str, ...], when: str,
             crashed: str) -> str:
    """The failure in one line: the first line of its violations that names one of their
    requirements (`[ID] ...`), else what broke (its exception's first line, or pytest's "failed
    on setup with ..." for a set-up or teardown) after the requirements it counts against."""
    named = next((line.strip() for v in found for line in str(v).splitlines()
                  if any(line.strip().startswith(f"[{i}]") for i in v.requirements)), None)
    if named is not None:
        return named
    text = str(exc) if when == "call" else \
        f'failed on {when} with "{crashed}"'  # pytest's words
    said = next((line.strip() for line in text.splitlines() if line.strip()), type(exc).__name__)
    return f"{' '.join(f'[{i}]' for i in ids)} {said}" if ids else said


def said_by_pytest(report: pytest.TestReport) -> str:
    """What pytest says of a failed phase: its crash's message, else its whole text."""
    crash = getattr(report.longrepr, "reprcrash", None)
    return crash.message if crash is not None else str(report.longrepr)


def _reproduction(item: pytest.Item, report: pytest.TestReport, found: list[Violation],
                  record: Record) -> Record:
    """The failure's recipe in the record. A recipe that cannot be made is said, never a
    failure of the test's own."""
    client = item.config.stash.get(CLIENT, None)
    if client is None:
        return record
    try:
        made = recipe.build(found, exchanges_of(item), client, item.nodeid)
    except Exception as exc:  # noqa: BLE001 - boardcert's own bug: the failure stands as it is
        report.sections.append(("boardcert", f"no reproduction ({BUG}: {describe(exc)})"))
        return record
    if made is None:
        return record
    return replace(record, reproduction=made, reproduce=relative_path(item.nodeid),
                   kept=tuple(_keep(item.config, made["used"])))


def _keep(config: pytest.Config, used: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """With --keep-failed, what the failed test used stays on the server (not on the bundled
    server this process started: it stops with the run); what the ledgers had."""
    if not in_session(config).keep_failed or config.stash.get(THROWAWAY, False):
        return []
    ledgers = config.stash.get(LEDGERS, [])
    return [resource for resource in used  # every ledger told (a list, not any()'s shortcut)
            if any([ledger.keep(resource["kind"], resource["params"]) for ledger in ledgers])]


def unassessable(what: str, lacks: tuple[str, ...] = ()) -> pytest.skip.Exception:
    """The skip "not assessed: what" as pytest.skip raises it (Hypothesis lets it through),
    with the profile keys the test lacked as data (NotAssessed's `lacks`)."""
    skip = pytest.skip.Exception(f"not assessed: {what}")
    skip.boardcert_lacks = lacks  # type: ignore[attr-defined]
    skip.boardcert_key = what  # type: ignore[attr-defined]
    return skip


def not_checked(item: pytest.Item, unchecked: dict[str, dict[int, str]]) -> None:
    """What the test names but did not check, so far (requirement -> {operation: why}); the
    last call wins, and an empty mapping says it checked everything."""
    item.stash[UNASSESSED] = unchecked


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
        error = record_of(report).boardcert_error
        if error:
            self.errors.setdefault(report.nodeid, error)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.errors:
            return
        terminalreporter.section("boardcert errors", red=True)
        for nodeid, error in self.errors.items():
            terminalreporter.line(f"{BUG}: {error} in {nodeid}")
        terminalreporter.line(f"{len(self.errors)} error{'s' if len(self.errors) != 1 else ''} "
                              "inside boardcert: their requirements are not assessed; this is "
                              "not something the server did")
