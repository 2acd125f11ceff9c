"""What a run's tests found, and where it goes: the compliance report (compliance.json, .md,
.html, written at session end when `--report-dir` is given).

A pytest plugin module, loaded with boardcert.pytest.plugin. Results are collected from
`pytest_runtest_logreport`, which pytest-xdist replays on the controller with each report's
user properties (requirements, operations, observations, and what boardcert.pytest.failures records:
failed requirements, evidence, boardcert errors), so the controller alone writes the report.
A run stopped before any test (the preflight, nothing listening) writes no report; a run cut
short later (the target stopped answering: exit 3, which reaches the controller under xdist
too; Ctrl-C; --maxfail) writes one whose verdict is incomplete, with the reason.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from boardcert.http.redact import for_key
from boardcert.interface import requirements
from boardcert.outputs import report as compliance
from boardcert.outputs.record import Record
from boardcert.outputs.record import of as record_of
from boardcert.outputs.report import partly
from boardcert.outputs.report.build import FAILED
from boardcert.paths import without_machine_paths
from boardcert.pytest.stash import SPEED, TARGET
from boardcert.pytest.target import users_server
from boardcert.settings import roles, run_facts
from boardcert.settings.run import in_session

UNREACHABLE = 3  # the exit status of a run whose target cannot be reached
REPORT = pytest.StashKey[dict[str, Any]]()  # the written report, for the terminal summary
ERRORS_SHOWN = 3  # kinds of error the console lists
_RANK = {"passed": 0, "skipped": 1, "error": 2, "failed": 3}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("boardcert", "boardcert: the server under test")
    group.addoption("--report-dir", default=None, metavar="DIR",
                    help="write compliance.json, compliance.md and compliance.html to DIR at "
                    "the end of the run")


def pytest_configure(config: pytest.Config) -> None:
    watch = ExitWatch(config)
    config.pluginmanager.register(watch, "boardcert-exit-watch")
    runs_tests = not (config.option.collectonly or in_session(config).plan)
    if config.option.report_dir and runs_tests and roles.reporting(config):
        config.pluginmanager.register(Collector(config, Path(config.option.report_dir), watch),
                                      "boardcert-results")


# --- exit status 3 across processes ------------------------------------------------------

class ExitWatch:
    """Remembers a `pytest.exit`. Under xdist a worker's exit stops the controller (as
    xdist's `shouldstop`, which prints the message once), and the status travels in the
    worker's output so the controller ends with it too."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.session: pytest.Session | None = None
        self.returncode: int | None = None
        self.message = ""
        self.interrupted: str | None = None  # why pytest was interrupted, if it was

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        if not isinstance(excinfo.value, pytest.exit.Exception):
            # Ctrl-C, or pytest-xdist stopping the controller (its --maxfail, a worker's exit)
            self.interrupted = str(excinfo.value) or "KeyboardInterrupt"
        elif self.returncode is None:
            self.returncode = excinfo.value.returncode
            self.message = excinfo.value.msg
            if self.session is not None and roles.is_worker(self.config):
                self.session.shouldstop = self.message

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", None) or {}
        if output.get("boardcert_exit") is not None and self.returncode is None:
            self.returncode, self.message = output["boardcert_exit"], output["boardcert_why"]

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if roles.is_worker(self.config):
            self.config.workeroutput["boardcert_exit"] = self.returncode
            self.config.workeroutput["boardcert_why"] = self.message
        elif self.returncode is not None:
            session.exitstatus = self.returncode

    @property
    def unreachable(self) -> bool:
        return self.returncode == UNREACHABLE

    @pytest.hookimpl(tryfirst=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if roles.reporting(config):
            config.hook.pytest_boardcert_run_ended(
                config=config, unreachable=self.unreachable, message=self.message,
                interrupted=self.cancelled)

    @property
    def cancelled(self) -> bool:
        """Interrupted by the user (Ctrl-C), not by pytest-xdist stopping at --maxfail."""
        return self.interrupted is not None and not (
            self.session is not None and max_failures(self.session))


# --- collecting results ------------------------------------------------------------------

class Collector:
    """Gathers every test's outcome on the controller; writes the report at session end."""

    def __init__(self, config: pytest.Config, directory: Path, watch: ExitWatch) -> None:
        self.config = config
        self.directory = directory
        self.watch = watch
        self.started = datetime.now(UTC)
        self.tests: dict[str, dict[str, Any]] = {}
        self.collection_errors: list[dict[str, str]] = []

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            text = report.longreprtext.strip().splitlines()
            self.collection_errors.append({"nodeid": report.nodeid or "(session)",
                                           "message": "\n".join(text[-6:])})

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        test = self.tests.setdefault(report.nodeid, {
            "outcome": "passed", "message": "", "duration": 0.0, "record": Record()})
        test["duration"] += report.duration
        found = record_of(report)
        test["record"] = test["record"].then(found)
        outcome = phase_outcome(report)
        if _RANK[outcome] > _RANK[test["outcome"]]:
            test["outcome"] = outcome
            test["message"] = found.message or phase_message(report)

    def pytest_boardcert_files(self) -> list[Path]:
        return [self.directory]

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.watch.returncode and not self.tests:
            return  # stopped before any test: the preflight, or nothing listening
        facts = self.run_facts(stopped(session, self.watch, len(self.tests)))
        report = compliance.build(self.results(), facts)
        shown = without_machine_paths(json.dumps(report, ensure_ascii=False),
                                      self.config.rootpath)  # no directory of this machine
        report = self.masked(json.loads(shown))
        compliance.write(report, self.directory)
        self.config.stash[REPORT] = report
        self.config.hook.pytest_boardcert_report_written(config=self.config, report=report,
                                                         directory=self.directory)

    def masked(self, report: dict[str, Any]) -> dict[str, Any]:
        """The report with the key masked as boardcert.pytest.masked masks compliance.json at
        the end (which then finds it so): the report handed on is the file's content."""
        target = self.config.stash.get(TARGET, None)
        redactor = for_key(target.api_key if target is not None else None)
        return redactor.document(report, compliance.schema()) if redactor else report

    def results(self) -> list[compliance.TestResult]:
        return [compliance.TestResult(
            nodeid=nodeid, outcome=t["outcome"], requirements=r.requirements,
            operations=r.operations, message=t["message"], evidence=r.evidence,
            duration=t["duration"],
            observations=tuple((i, text) for i, text, security in r.observations
                               if not security),
            security_observations=tuple((i, text) for i, text, security in r.observations
                                        if security),
            blamed=r.failed_requirements,
            boardcert_error=r.boardcert_error, unassessed=r.unassessed,
            reproduction=r.reproduction, kept=r.kept,
            lacks=r.lacks, misfit=r.misfit, held=r.held,
        ) for nodeid, t in self.tests.items() for r in [t["record"]]]

    def run_facts(self, stopped: str | None = None) -> compliance.ReportedRun:
        target = self.config.stash.get(TARGET, None)
        configured = users_server(self.config)
        profile = target.profile if target else None
        return compliance.ReportedRun(
            started=self.started,
            finished=datetime.now(UTC),
            base_url=(target.base_url or None) if target else None,
            reference_server=not configured,
            profile_name=profile.name if profile else "unknown",
            profile_path=profile.path.name if profile and profile.path else None,
            profile_sha256=profile.sha256 if profile else None,
            facts=self.facts(),
            profile_content=profile.data if profile else {},
            collection_errors=self.collection_errors,
            read_only=bool(target and target.read_only),
            stopped=stopped,
        )

    def facts(self) -> dict[str, Any]:
        """Budget, seed, versions and the options: `boardcert run`'s when it ran us, else
        pytest's own command line."""
        run = in_session(self.config)
        options = run.options if run.options is not None else run_facts.recorded_options(
            self.config.invocation_params.args)
        return run_facts.record(run.budget.name, run.seed, options, run.docs_url,
                            self.config.stash.get(SPEED, run_facts.NO_SPEED))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        report = self.config.stash.get(REPORT, None)
        if report is None:
            return
        reqs = report["counts"]["requirements"]
        terminalreporter.section("boardcert compliance")
        for line in console_summary(report):
            terminalreporter.line(line)
        for level in requirements.LEVELS:
            k = reqs[level]
            some = k.get(partly.LABEL) or 0
            terminalreporter.line(f"{level:6} {k['passed']:3} passed  {k['failed']:3} failed  "
                                  f"{k['not assessed']:3} not assessed  (of {k['total']})"
                                  + (f"; {some} of the passed {partly.LABEL}" if some else ""))
        for line in after_the_run(report, self.directory):
            terminalreporter.line(line)
        terminalreporter.line(f"verdict: {report['verdict']}; report: "
                              f"{self.directory / compliance.HTML_NAME}")


def after_the_run(report: dict[str, Any], directory: Path) -> list[str]:
    """How to send a failure's requests again once the run is over, and what --keep-failed
    left on the server."""
    lines = []
    if any(t.get("reproduction") for t in report["tests"]):
        lines.append(f"each failure can be reproduced after the run: boardcert reproduce "
                     f"{directory} TEST (its script: {directory / 'reproduce'}/<test>.py)")
    kinds = Counter(k["kind"] for k in report.get("kept") or [])
    if kinds:
        what = ", ".join(f"{n} {kind.replace('_', ' ')}{'s' * (n != 1 and kind == 'project')}"
                         for kind, n in sorted(kinds.items()))
        lines.append(f"left on the server for the failed tests (--keep-failed): {what}; "
                     f"boardcert cleanup {directory} deletes it")
    return lines


def console_summary(report: dict[str, Any]) -> list[str]:
    """What failed, by requirement, two lines each (the evidence is in the reports), and the
    tests that errored, grouped by message: a server that fails everything gets a screenful,
    not pages of tracebacks."""
    failed = sorted((r for r in report["requirements"] if r["status"] == FAILED),
                    key=lambda r: requirements.LEVELS.index(r["level"]))
    lines = [f"{len(failed)} requirement{'s' * (len(failed) != 1)} failed (the evidence is "
             f"in the reports):"] if failed else []
    for req in failed:
        count = len(req["failures"])
        lines.append(f"  {req['level']:6} {req['id']}: {count} failing "
                     f"test{'s' * (count != 1)} ({req['title']})")
        first = (req["failures"][0]["message"] if req["failures"] else req["message"] or "")
        if first.strip():  # whole, wrapped: what was expected and what came back
            lines += _wrapped(_first_line(first, MESSAGE_MAX))
    some = [r for r in report["requirements"] if r["id"] in partly.of(report["requirements"])]
    if some:  # one line: which cases, and why, is the reports' to say
        lines.append(f"{len(some)} requirement{'s' * (len(some) != 1)} passed but "
                     f"{partly.LABEL} (some of their cases were not; the reports list them)")
    errors = Counter(_first_line(t["message"]) for t in report["tests"]
                     if t["outcome"] == "error")
    if errors:
        lines.append(f"{errors.total()} test{'s' * (errors.total() != 1)} errored (what they "
                     f"check is not assessed):")
        lines += [f"  {n:4} x {message}" for message, n in errors.most_common(ERRORS_SHOWN)]
        if len(errors) > ERRORS_SHOWN:
            lines.append(f"  and {len(errors) - ERRORS_SHOWN} other errors")
    return lines


WIDTH = 100  # the console's lines of a failure's message, wrapped
MESSAGE_MAX = 2000  # characters of a failure's first line on the console (the reports: all)


QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")  # a value as repr shows it


def _wrapped(text: str, indent: int = 9) -> list[str]:
    """Text in lines of at most WIDTH characters, broken after a space outside a quoted
    value where there is one late enough, else anywhere; nothing dropped or changed (the
    lines, their indent taken off, join to the text again)."""
    room, lines = WIDTH - indent, []
    while text:
        inside = {i for m in QUOTED.finditer(text) for i in range(m.start(), m.end())}
        spaces = [i for i in range(min(room, len(text))) if text[i] == " " and i not in inside]
        cut = len(text) if len(text) <= room else \
            spaces[-1] + 1 if spaces and spaces[-1] > room // 2 else room
        lines.append(" " * indent + text[:cut])
        text = text[cut:]
    return lines


def _first_line(text: str, width: int = 110) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else "(no message)"
    return line if len(line) <= width else f"{line[:width - 1]}…"


def stopped(session: pytest.Session, watch: ExitWatch | None, done: int) -> str | None:
    """Why the run ended before its last test, as the verdict's reason says it (None when it
    ran to the end)."""
    total = session.testscollected
    if watch is not None and watch.unreachable:
        return f"the target stopped answering after {done} of {total} tests"
    if watch is not None and watch.returncode:  # pytest.exit: a library that does not fit, ...
        why = watch.message.removeprefix("boardcert: ").splitlines()[0] if watch.message else ""
        return f"stopped after {done} of {total} tests: {why or 'pytest.exit'}"
    limit = max_failures(session)
    if limit:
        n = session.testsfailed
        return f"stopped after {n} failure{'s' if n != 1 else ''} (--max-failures {limit})"
    if watch is not None and watch.cancelled:
        return f"interrupted after {done} of {total} tests"
    return None


def max_failures(session: pytest.Session) -> int:
    """--maxfail when the run stopped at it (pytest counts the failures on the xdist
    controller too), else 0."""
    limit = session.config.option.maxfail
    return limit if limit and session.shouldfail and session.testsfailed >= limit else 0


def phase_outcome(report: pytest.TestReport) -> str:
    if report.passed:
        return "passed"
    if report.skipped:
        return "skipped"
    if report.when != "call" or record_of(report).error:
        return "error"
    return "failed"


def phase_message(report: pytest.TestReport) -> str:
    """The failure message (the exception's text) or the skip reason."""
    longrepr = report.longrepr
    if report.skipped:
        if hasattr(report, "wasxfail"):
            return f"expected failure: {report.wasxfail}".strip()
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        return reason.removeprefix("Skipped: ")
    if report.passed:
        return ""
    crash = getattr(longrepr, "reprcrash", None)
    return crash.message if crash is not None else report.longreprtext


