"""compliance.json from the traffic (`source: traffic`): each requirement judged on each
operation is one test of the report (boardcert.outputs.report builds and writes it, as for
`boardcert run`), failed when an answer broke it, passed when answers kept it, and the
requirements and operations the traffic did not show are not assessed. Traffic certifies
nothing: what it did not exercise stays not assessed, so the verdict is `non-conformant` when
a MUST failed and at best `incomplete`."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from boardcert.http.redact import Redactor
from boardcert.interface import requirements
from boardcert.outputs import report
from boardcert.outputs.report import ReportedRun, TestResult
from boardcert.traffic.book import Book, Judged

SOURCE = "traffic"
PROFILE = "none (traffic: boardcert sent no request)"
NOT_SHOWN = "not assessed: the traffic showed nothing that checks it"


def tests(book: Book, base_url: str, redactor: Redactor) -> list[TestResult]:
    """The report's tests: one per requirement judged on an operation, and one not assessed
    per requirement for the operations the traffic did not show it on."""
    found = [_test(judged, book, base_url, redactor)
             for _, judged in sorted(book.judged.items())]
    for req in requirements.catalogue().values():
        unseen = tuple(op for op in req.operations if (op, req.id) not in book.judged)
        if unseen:
            found.append(TestResult(f"traffic::{req.id}", "skipped", (req.id,), unseen,
                                    NOT_SHOWN))
    return found


def _test(judged: Judged, book: Book, base_url: str, redactor: Redactor) -> TestResult:
    op, req = judged.operation, judged.requirement
    nodeid = f"traffic::op{op}::{req}"
    passed = judged.passed + (judged.waiting if op in book.working else 0)
    if judged.failed:
        total = judged.failed + passed
        message = "\n".join([f"[{req}] {redactor.text(judged.problems[0])} ({judged.failed} of "
                             f"{total} answer{'s' * (total != 1)} of operation {op})",
                             *(redactor.text(p) for p in judged.problems[1:])])
        return TestResult(nodeid, "failed", (req,), (op,), message, tuple(
            seen.exchange(base_url, redactor).as_dict() for seen in judged.evidence),
            blamed=(req,))
    if passed:
        return TestResult(nodeid, "passed", (req,), (op,))
    return TestResult(nodeid, "skipped", (req,), (op,),
                      f"not assessed: operation {op} refused what the interface rules out, "
                      "but the traffic never showed it succeed, so the refusal proves nothing")


def build(book: Book, base_url: str, redactor: Redactor,
          finished: datetime | None = None) -> tuple[dict, list[TestResult]]:
    """The compliance report of the traffic, and its tests (for junit.xml)."""
    found = tests(book, base_url, redactor)
    run = ReportedRun(book.started, finished or datetime.now(UTC), base_url, False, PROFILE,
                      None, {})
    built = report.build(found, run)
    built["source"] = SOURCE
    built["boardcert_errors"] = [*built.get("boardcert_errors", []), *(
        {"test": "traffic::judging", "error": error, "requirements": []}
        for error in book.errors)]
    built["verdict_reason"] = f"From {book.requests} exchange{'s' * (book.requests != 1)} of " \
        f"traffic, not a certification: {built['verdict_reason']}"
    return built, found


def write(built: dict, directory: Path) -> dict[str, Path]:
    return report.write(built, directory)
