"""Passed, but partly assessed: a requirement every one of whose operations a passing test
checked, while some of its tests could not check it (skipped "not assessed", or stopped at a
failure of another requirement) or a passing one recorded it unchecked on an operation. The
requirement counts as passed (the conformance policy's "incomplete" is for a MUST that could
not be assessed; this one was, on every operation it names); every output says which of its
cases were not assessed, and the summaries count such requirements apart."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

# Why a test names a requirement it did not check on an operation where that is no gap: the
# stateful test names every requirement of every operation and each of its parts reaches what
# its random scenarios reach, and an operation's checks judge only some requirements
# (boardcert.properties.judging words its reasons with these).
UNREACHED = "no generated request was sent"
UNJUDGED = "its checks do not judge it"
SCENARIOS = "in its stateful scenarios"
STRUCTURAL = (UNREACHED, UNJUDGED, SCENARIOS)
SHOWN = 3  # reasons shown in a status line; the report's list has them all
LABEL = "partly assessed"


class Test(Protocol):  # report.build.TestResult, as this module reads it
    nodeid: str
    outcome: str
    message: str
    unassessed: Any

    @property
    def failed_requirements(self) -> tuple[str, ...]: ...


def reasons(req_id: str, tests: Iterable[Test]) -> list[str]:
    """What of a passed requirement was not assessed, once each: "<test>: <why>"."""
    found: list[str] = []
    for test in tests:
        name = test.nodeid.split("::", 1)[-1]
        if test.outcome == "skipped":
            found.append(f"{name}: {test.message.strip().removeprefix('not assessed: ')}")
        elif test.outcome == "failed" and req_id not in test.failed_requirements:
            stopped = ", ".join(test.failed_requirements)
            found.append(f"{name}: stopped at a failure of {stopped} first")
        elif test.outcome == "passed":
            found += [f"{name}: {why}" for why in test.unassessed.get(req_id, {}).values()
                      if not why.endswith(STRUCTURAL)]
    return list(dict.fromkeys(found))


def status_text(requirement: dict[str, Any]) -> str:
    """The status as people read it: "passed (partly assessed: ...)" for such a one."""
    found = requirement.get("partly_assessed")
    if requirement["status"] != "passed" or not found:
        return requirement["status"]
    more = f"; and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
    return f"passed ({LABEL}: {'; '.join(found[:SHOWN])}{more})"


def of(reqs: Iterable[dict[str, Any]], level: str | None = None) -> list[str]:
    """The ids of the passed requirements (of a level) that are partly assessed."""
    return [r["id"] for r in reqs if r["status"] == "passed" and r.get("partly_assessed")
            and level in (None, r["level"])]
