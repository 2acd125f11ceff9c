"""Exit codes (docs/policy.md, section 4), and the exit code of a finished run.

0 conformant (and conformant with warnings unless --strict), 1 non-conformant or incomplete,
2 usage or configuration error, 3 the target cannot be reached (or stopped answering), 130
interrupted (Ctrl-C, or SIGTERM: boardcert.interrupts).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from boardcert.errors import ConfigError, UnreachableError
from boardcert.interrupts import sigterm_as_ctrl_c

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNREACHABLE = 0, 1, 2, 3
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT), as shells report it; SIGTERM too
EXIT_CODES = {
    EXIT_OK: "conformant (conformant with warnings too, unless --strict)",
    EXIT_FAILED: "non-conformant or incomplete (with --baseline or --known-failures: a "
                 "requirement got worse)",
    EXIT_USAGE: "usage or configuration error (the message names the flag to check)",
    EXIT_UNREACHABLE: "the target cannot be reached, or stopped answering",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C, or SIGTERM: a job cancelled or timed out); the "
                      "clean-up still ran",
}
REPORT_FILES = ("compliance.html", "compliance.md", "compliance-summary.md", "compliance.json",
                "badge.svg", "junit.xml", "junit-properties.xml", "allure-results", "reproduce",
                "certificate.intoto.jsonl", "attestations")  # these two: after_run writes


BUNDLED = " (the bundled reference server, not a server of yours: no --base-url was given)"


def _bundled(report: dict[str, Any]) -> bool:
    return bool(report.get("target", {}).get("reference_server"))


@contextlib.contextmanager
def interrupting() -> Iterator[None]:
    """SIGTERM, meanwhile, is Ctrl-C in this process (boardcert.interrupts)."""
    undo = sigterm_as_ctrl_c()
    try:
        yield
    finally:
        undo()


def error(message: str) -> None:
    print(f"boardcert: error: {message}", file=sys.stderr)


def stopped(exc: ConfigError | UnreachableError) -> int:
    """Say why a command stops before it starts its work; its exit code (2 or 3)."""
    error(str(exc))
    return EXIT_UNREACHABLE if isinstance(exc, UnreachableError) else EXIT_USAGE


class RunWatch:
    """Given to pytest.main: learns the compliance report the run wrote, and whether the run
    stopped because the target is unreachable (or stopped answering) or because it was
    interrupted (Ctrl-C), from boardcert's own hooks (boardcert.pytest.hookspecs)."""

    def __init__(self) -> None:
        self.unreachable = False
        self.interrupted = False
        self.message = ""
        self.report: dict[str, Any] | None = None  # compliance.json's content, once written

    def pytest_boardcert_report_written(self, report: dict[str, Any]) -> None:
        self.report = report

    def pytest_boardcert_run_ended(self, unreachable: bool, message: str,
                                   interrupted: bool) -> None:
        self.unreachable, self.message = unreachable, message if unreachable else ""
        self.interrupted = interrupted and not unreachable


def outcome(code: int, watch: RunWatch, output: Path, strict: bool) -> int:
    """The exit code of a run, from the verdict of the compliance report it wrote (`watch`
    heard it: compliance.json's content; 3 for a target that stopped answering, 130 for an
    interrupted run, whatever the verdict)."""
    if code == 4 and not watch.unreachable:  # pytest's usage error: a bad flag, a profile key
        return EXIT_USAGE
    first = watch.message.splitlines()[0] if watch.message else "no answer"
    found = watch.report
    if found is None:
        if watch.unreachable:
            error(f"{first} (no report written)")
            return EXIT_UNREACHABLE
        error(f"no compliance report was written (pytest exit status {code})")
        return EXIT_INTERRUPTED if watch.interrupted else EXIT_FAILED
    verdict, smoke = found["verdict"], found.get("read_only")
    if smoke:  # --read-only: its own verdict, never a certification
        exit_code = EXIT_OK if smoke["passed"] else EXIT_FAILED
    else:
        exit_code = EXIT_OK if verdict == "conformant" or (
            verdict == "conformant with warnings" and not strict) else EXIT_FAILED
    if watch.unreachable:
        error(first)
        exit_code = EXIT_UNREACHABLE
    elif watch.interrupted:
        exit_code = EXIT_INTERRUPTED
    if smoke:
        print(f"\nboardcert: {smoke['summary']} (exit {exit_code})")
    else:
        print(f"\nboardcert: {verdict.upper()}{BUNDLED * _bundled(found)}: "
              f"{found['verdict_reason']} (exit {exit_code}"
              f"{', --strict' if strict and verdict == 'conformant with warnings' else ''})")
    written = [name + "/" * (output / name).is_dir() for name in REPORT_FILES
               if (output / name).exists()]
    print(f"boardcert: reports in {output}/: {', '.join(written)}")
    bugs = len(found.get("boardcert_errors", []))
    if bugs:
        print(f"boardcert: {bugs} error{'s' if bugs != 1 else ''} inside boardcert: a bug in "
              "boardcert, not something the server did (its requirements are not assessed; "
              "see \"Errors inside boardcert\" in compliance.md)")
    return exit_code
