"""compliance.json: a run's test results read against the catalogue and the 28 operations.

A requirement is `failed` when a test of it failed on it, `not assessed` when no test of it
ran to a result (none exists, all were skipped, or one errored) or when one of its operations
has no test that passed naming it and that operation (a test marked with several operations
counts for each, unless it recorded the requirement unassessed there), else `passed`, and
partly assessed when some of its tests could not check it (report.partly: the verdict counts
it as passed, every output says so). An INFO
requirement is never failed: a failure of its tests becomes an observation. The verdict
follows docs/policy.md, section 4.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import quote

from boardcert import INTERFACE_VERSION, __version__
from boardcert.interface import requirements, revisions, spec
from boardcert.interface.requirements import Requirement
from boardcert.interface.resources import DELETE_OP
from boardcert.outputs.report import partly as partly_assessed
from boardcert.outputs.report.verdict import (  # noqa: F401 - the report's words, said here too
    CONFORMANT,
    FAILED,
    INCOMPLETE,
    NON_CONFORMANT,
    NOT_ASSESSED,
    PASSED,
    STATUSES,
    VERDICTS,
    WARNINGS,
    _list,
    decide,
)

FORMAT = "boardcert-compliance/1"
OUTCOMES = ("passed", "failed", "error", "skipped")
BUG = "this is a bug in boardcert"


@dataclass
class TestResult:
    """One test of the run: its outcome and what it names."""

    __test__ = False  # not a pytest test class

    nodeid: str
    outcome: str  # passed | failed | error | skipped
    requirements: tuple[str, ...] = ()
    operations: tuple[int, ...] = ()
    message: str = ""  # the failure message, or the skip reason
    evidence: tuple[dict[str, Any], ...] = ()  # the failure's exchanges (Exchange.as_dict())
    observations: tuple[tuple[str, str], ...] = ()  # (requirement id, text)
    duration: float = 0.0
    blamed: tuple[str, ...] = ()  # the requirements the failure says it breaks (its data)
    security_observations: tuple[tuple[str, str], ...] = ()  # the same, flagged as security
    boardcert_error: str = ""  # "Type: message": the test broke inside boardcert (a bug)
    # requirement -> {operation: why}: what the test names but did not check there
    # (failures.UNASSESSED; a property item whose requests never got a 2xx)
    unassessed: Mapping[str, Mapping[int, str]] = field(default_factory=dict)
    reproduction: Mapping[str, Any] | None = None  # a failure's recipe (boardcert.reproduce)
    kept: tuple[dict[str, Any], ...] = ()  # what --keep-failed left on the server for it
    lacks: tuple[str, ...] = ()  # a not-assessed test's profile keys the profile does not give
    misfit: tuple[str, ...] = ()  # a not-assessed test's profile keys the server refused
    held: tuple[str, ...] = ()  # a failed test's requirements it checked and saw hold first

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {self.outcome!r} of {self.nodeid}")

    @property
    def failed_requirements(self) -> tuple[str, ...]:
        """The requirements a failure counts against: those it names (`Violation`
        .requirements), else, for a failure that names none, all the test names."""
        if self.outcome != "failed":
            return ()
        named = [i for i in self.blamed if i in requirements.catalogue()]
        return tuple(named) or self.requirements

    def assessed(self, req_id: str, op: int | None = None) -> bool:
        """Whether the test passed and checked the requirement (on operation `op`), or failed on
        another after checking this one (`held`)."""
        if req_id not in self.requirements or self.outcome != "passed" and req_id not in self.held:
            return False
        skipped = self.unassessed.get(req_id, {})
        if op is None:
            return not skipped or set(self.operations) - set(skipped) != set()
        return op in self.operations and op not in skipped

    @property
    def summary(self) -> str:
        return self.message.strip()


@dataclass
class ReportedRun:
    """What the report says about the run besides the tests."""

    started: datetime
    finished: datetime
    base_url: str | None
    reference_server: bool
    profile_name: str
    profile_path: str | None  # the user's file name (never a directory); None: the defaults
    profile_content: Mapping[str, Any]  # merged with the defaults
    collection_errors: list[dict[str, str]] = field(default_factory=list)
    profile_sha256: str | None = None
    facts: Mapping[str, Any] | None = None  # budget, seed, versions, options (settings.run_facts)
    read_only: bool = False  # a --read-only smoke check, not a certification
    stopped: str | None = None  # why the run ended early ("interrupted after 3 of 40 tests")


def build(tests: Iterable[TestResult], run: ReportedRun) -> dict[str, Any]:
    """The compliance report (the document spec/compliance.schema.json describes)."""
    tests = list(tests)
    judged = [requirement_result(req, tests) for req in requirements.catalogue().values()]
    reqs = [entry for entry, _ in judged]
    ops = [operation_result(op, tests) for op in spec.operations().values()]
    observations = collect_observations(tests)
    verdict, reason = decide(reqs, {entry["id"]: cited for entry, cited in judged})
    if run.stopped:  # a run cut short certifies nothing; what failed so far is still said
        so_far = f" (so far: {reason})" if verdict == NON_CONFORMANT else ""
        verdict, reason = INCOMPLETE, f"{run.stopped}{so_far}"
    smoke = read_only_result(reqs, tests) if run.read_only else None
    if smoke:
        reason = f"{smoke['summary']} ({reason[0].lower()}{reason[1:]})"
    report = {
        "format": FORMAT,
        "suite": {"name": "boardcert", "version": __version__},
        "interface_version": INTERFACE_VERSION,
        "target": {"base_url": run.base_url, "reference_server": run.reference_server},
        "profile": {"name": run.profile_name, "path": run.profile_path,
                    "sha256": run.profile_sha256, "content": dict(run.profile_content),
                    "discovered": discovered(observations)},
        **({"run": dict(run.facts)} if run.facts else {}),
        "started": _iso(run.started),
        "finished": _iso(run.finished),
        "duration_seconds": round((run.finished - run.started).total_seconds(), 3),
        "verdict": verdict,
        "verdict_reason": reason,
        "counts": count(reqs, ops, tests, observations),
        "requirements": reqs,
        "operations": ops,
        "observations": observations,
        "tests": [test_entry(t) for t in tests],
        "collection_errors": list(run.collection_errors),
        "boardcert_errors": boardcert_errors(tests),
        "revision": revisions.compute(reqs),
    }
    kept = kept_resources(tests)
    return report | ({"read_only": smoke} if smoke else {}) | ({"kept": kept} if kept else {})


def kept_resources(tests: list[TestResult]) -> list[dict[str, Any]]:
    """What --keep-failed left on the server, once each: how to delete it, the tests that
    used it."""
    found: dict[str, dict[str, Any]] = {}
    for test in tests:
        for resource in test.kept:
            kind, params = resource["kind"], dict(resource["params"])
            op = spec.operation(DELETE_OP[kind])
            path = op.path.format_map({k: quote(str(v), safe="") for k, v in params.items()})
            entry = found.setdefault(f"{kind} {sorted(params.items())}", {
                "kind": kind, "params": params, "method": op.method, "path": path,
                "tests": []})
            entry["tests"].append(test.nodeid)
    return list(found.values())


def read_only_result(reqs: list[dict[str, Any]], tests: list[TestResult]) -> dict[str, Any]:
    """The verdict of a --read-only run: its checks (the tests that ran) passed or failed."""
    ran = [t for t in tests if t.outcome != "skipped"]
    failed = [r["id"] for r in reqs if r["status"] == FAILED]
    errored = [t.nodeid for t in tests if t.outcome == "error"]
    if failed or errored:
        what = _list(failed) if failed else f"a check errored: {errored[0]}"
        summary = f"read-only checks failed: {what}"
    elif not ran:
        summary = "read-only checks failed: no check could run"
    else:
        summary = "read-only checks passed: not a certification"
    return {"passed": bool(ran) and not failed and not errored, "summary": summary,
            "checks": len(ran), "failed": failed}


def requirement_result(req: Requirement, tests: list[TestResult]
                       ) -> tuple[dict[str, Any], list[TestResult]]:
    """A requirement's entry, and the skipped tests whose reasons its message gives."""
    mine = [t for t in tests if req.id in t.requirements or req.id in t.failed_requirements]
    failures = [t for t in mine if req.id in t.failed_requirements]
    errors = [t for t in mine if t.outcome == "error"]
    ran = [t for t in mine if t.assessed(req.id) or t in failures]
    missing = _unassessed_operations(req, mine, failures)
    partly = None  # passed, but some of its cases not assessed (report.partly)
    cited: list[TestResult] = []
    if failures and req.level != "INFO":
        status, message = FAILED, "\n".join(t.summary for t in failures)
    elif errors:
        status, message = NOT_ASSESSED, _errored(errors[0])
    elif ran and missing:
        cited = [t for t in _skips(mine) if set(t.operations) & set(missing)]
        status, message = NOT_ASSESSED, _not_assessed_on(req.id, missing, mine, cited)
    elif ran:
        status, message = PASSED, None
        partly = partly_assessed.reasons(req.id, mine) or None
    else:
        cited = _skips(mine)
        status, message = NOT_ASSESSED, _why_not_assessed(mine, cited)
    return {
        "id": req.id,
        "level": req.level,
        "title": req.title,
        "text": req.text,
        "section": req.section,
        "quote": req.quote,
        "reading": req.reading,
        "operations": list(req.operations),
        "status": status,
        "message": "; ".join(partly) if partly else message,
        "partly_assessed": partly,
        "tests": [{"nodeid": t.nodeid, "outcome": _outcome_for(req.id, t)} for t in mine],
        "failures": [{"test": t.nodeid, "message": t.summary} for t in failures],
    }, cited


def _skips(tests: list[TestResult]) -> list[TestResult]:
    """The skipped tests that say why."""
    return [t for t in tests if t.outcome == "skipped" and t.message.strip()]


def _unassessed_operations(req: Requirement, mine: list[TestResult],
                           failures: list[TestResult]) -> list[int]:
    """The requirement's operations that no test checked: none that names the requirement and
    the operation passed having checked it there (a failure of it, as an INFO one, counts)."""
    return [op for op in req.operations
            if not any(t.assessed(req.id, op) or (t in failures and op in t.operations)
                       for t in mine)]


def _not_assessed_on(req_id: str, ops: list[int], mine: list[TestResult],
                     skips: list[TestResult]) -> str:
    """"not assessed on ops 23, 28: <why>": the skip reasons of the tests of those operations
    and what the tests that passed did not check there."""
    reasons = [t.message.strip() for t in skips]
    reasons += [why for t in mine for op, why in t.unassessed.get(req_id, {}).items()
                if op in ops]
    named = "op" if len(ops) == 1 else "ops"
    why = "; ".join(dict.fromkeys(r.removeprefix("not assessed: ") for r in reasons)) or \
        "no test of it covers them"
    return f"not assessed on {named} {', '.join(map(str, ops))}: {why}"


def _errored(test: TestResult) -> str:
    if test.boardcert_error:
        return f"not assessed: {BUG}: {test.boardcert_error} in {test.nodeid}"
    return f"a test errored: {test.summary}"


def _outcome_for(req_id: str, test: TestResult) -> str:
    """A test that failed on another requirement did not get as far as this one, unless it
    checked this one first (`held`)."""
    if test.outcome == "failed" and req_id not in test.failed_requirements:
        return "passed" if req_id in test.held else "skipped"
    return test.outcome


def _why_not_assessed(mine: list[TestResult], skips: list[TestResult]) -> str:
    if not mine:
        return "no test of this requirement ran"
    reasons = [t.message.strip() for t in skips]
    if reasons:
        return "; ".join(dict.fromkeys(reasons))
    stopped = [t for t in mine if t.outcome == "failed"]
    if stopped:
        named = ", ".join(stopped[0].failed_requirements)
        return f"its tests stopped at a failure of {named} first"
    return "its tests were skipped"


def operation_result(op: spec.Operation, tests: list[TestResult]) -> dict[str, Any]:
    mine = [t for t in tests if op.number in t.operations]
    catalogue = requirements.catalogue()
    failed = sorted({i for t in mine for i in t.failed_requirements
                     if i in catalogue and catalogue[i].level != "INFO"})
    if failed:
        status = FAILED
    elif any(t.outcome == "passed" or t.failed_requirements for t in mine):
        status = PASSED
    else:
        status = NOT_ASSESSED
    outcomes = Counter(t.outcome for t in mine)
    return {
        "number": op.number,
        "method": op.method,
        "path": op.path,
        "operationId": op.operation_id,
        "auth_required": op.auth_required,
        "status": status,
        "failed_requirements": failed,
        "outcomes": {o: outcomes.get(o, 0) for o in OUTCOMES},
        "tests": [t.nodeid for t in mine],
    }


def collect_observations(tests: list[TestResult]) -> list[dict[str, Any]]:
    """INFO observations the tests recorded, and failures of INFO requirements."""
    catalogue = requirements.catalogue()
    found: list[dict[str, Any]] = []
    for test in tests:
        for (req_id, text), security in [*((o, False) for o in test.observations),
                                         *((o, True) for o in test.security_observations)]:
            found.append(_observation(req_id, test.nodeid, text, security))
        for req_id in test.failed_requirements:
            if req_id in catalogue and catalogue[req_id].level == "INFO":
                found.append(_observation(req_id, test.nodeid, f"test failed: {test.summary}"))
    return found


def _observation(req_id: str, test: str, text: str, security: bool = False) -> dict[str, Any]:
    req = requirements.catalogue().get(req_id)
    return {
        "requirement": req_id,
        "title": req.title if req else "",
        "test": test,
        "text": text,
        "security": security,
    }


def discovered(observations: list[dict[str, Any]]) -> list[str]:
    """What discovery found (boardcert.discovery, recorded by PROFILE-DISCOVERED), once each:
    under pytest-xdist every worker probes and records it."""
    return list(dict.fromkeys(o["text"] for o in observations
                              if o["requirement"] == "PROFILE-DISCOVERED"))


def count(reqs: list[dict[str, Any]], ops: list[dict[str, Any]], tests: list[TestResult],
          observations: list[dict[str, Any]]) -> dict[str, Any]:
    by_level = {}
    for level in (*requirements.LEVELS, "all"):
        chosen = [r for r in reqs if level in ("all", r["level"])]
        by_level[level] = {s: sum(r["status"] == s for r in chosen) for s in STATUSES}
        by_level[level][partly_assessed.LABEL] = len(partly_assessed.of(chosen))  # of passed
        by_level[level]["total"] = len(chosen)
    outcomes = Counter(t.outcome for t in tests)
    return {
        "requirements": by_level,
        "operations": {s: sum(o["status"] == s for o in ops) for s in STATUSES},
        "tests": {**{o: outcomes.get(o, 0) for o in OUTCOMES}, "total": len(tests)},
        "observations": len(observations),
    }


def test_entry(test: TestResult) -> dict[str, Any]:
    return {
        "nodeid": test.nodeid,
        "outcome": test.outcome,
        "requirements": list(test.requirements),
        "operations": list(test.operations),
        "failed_requirements": list(test.failed_requirements),
        "duration_seconds": round(test.duration, 3),
        "message": test.message or None,
        "evidence": list(test.evidence) or None,
        "boardcert_error": test.boardcert_error or None,
        **({"reproduction": dict(test.reproduction)}
           if test.reproduction and test.outcome == "failed" else {}),
    }


def boardcert_errors(tests: list[TestResult]) -> list[dict[str, Any]]:
    """The tests that broke inside boardcert: bugs in boardcert, never the server's doing."""
    return [{"test": t.nodeid, "error": t.boardcert_error, "requirements": list(t.requirements)}
            for t in tests if t.boardcert_error]


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")
