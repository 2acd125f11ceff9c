"""What the console says of the run besides the tests (pytest plugin module): the header (the
target, the run's manners, whether the speed plugin ran and which of its patches stayed off,
what the run does the plain way because another library's internal does not fit),
and at the end the requirements `--read-only` left not assessed
(ReadOnlySummary) and what clean-up could not delete (LeftBehind)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from boardcert.compat_fallbacks import fallbacks
from boardcert.outputs.record import of as record_of
from boardcert.pytest.handover import run_of
from boardcert.pytest.stash import LEFT_BEHIND, PREFLIGHT_NOTES, SPEED, TARGET
from boardcert.settings import roles
from boardcert.settings.config import ENV
from boardcert.settings.run_facts import NO_SPEED


def pytest_report_header(config: pytest.Config) -> list[str]:
    target = config.stash[TARGET]
    notes = [f"boardcert: note: {note}" for note in config.stash.get(PREFLIGHT_NOTES, [])]
    manners = [f"request timeout {target.timeout:g} s", f"body cap {target.max_body} bytes"]
    rate_limit = run_of(config).target.rate_limit  # the whole run's
    if rate_limit:
        manners.append(f"at most {rate_limit:g} requests/s")
    if target.read_only:
        manners.append("read-only")
    where = target.base_url or "the bundled reference server"
    if run_of(config).bundled and os.environ.get(ENV["api_key"]):
        notes.append(f"boardcert: note: {ENV['api_key']} is ignored: no --base-url (nor "
                     f"{ENV['base_url']}) was given, so this run certifies boardcert's own "
                     "bundled reference server, not yours")
    speed = config.stash.get(SPEED, NO_SPEED)
    plain = [f"boardcert: the plain way: {what} ({why})" for what, why in fallbacks().items()]
    return [f"boardcert: target {where}; " + ", ".join(manners),
            f"boardcert: speed: {speed.describe()}", *plain, *notes]


class ReadOnlySummary:
    """Under --read-only, says at the end which requirements the run left not assessed
    (every test of theirs was skipped by --read-only). Reads the reports, so it works on the
    xdist controller too."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.assessed: set[str] = set()
        self.skipped: set[str] = set()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        found = record_of(report)
        if report.skipped and found.read_only:
            self.skipped.update(found.requirements)
        elif report.when == "call" or report.failed:
            self.assessed.update(found.requirements)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.config.stash[TARGET].read_only or run_of(self.config).plan \
                or roles.is_worker(self.config):
            return
        left = sorted(self.skipped - self.assessed)
        terminalreporter.write_line(
            f"boardcert --read-only: {len(left)} requirements not assessed (they need the "
            f"run to change the server): {', '.join(left) or 'none'}")


class LeftBehind:
    """Says at the end what clean-up could not delete; an xdist worker hands its list to the
    controller."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(trylast=True)  # after the session fixtures' teardown (the clean-up)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(self.config, "workeroutput"):
            self.config.workeroutput["boardcert_left_behind"] = self.config.stash[LEFT_BEHIND]

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", None) or {}
        self.config.stash[LEFT_BEHIND].extend(output.get("boardcert_left_behind", []))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        left = self.config.stash[LEFT_BEHIND]
        if left:
            terminalreporter.write_line(f"boardcert: clean-up could not delete {len(left)} "
                                        f"resources this run created:", yellow=True)
            for what in left:
                terminalreporter.write_line(f"  {what}")
