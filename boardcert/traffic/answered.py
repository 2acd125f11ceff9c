"""What a server answered, judged with the checks and requirement ids `boardcert run` uses:
the status (200 for a success, no 5xx), JSON bodies and their labels, the response checks of
boardcert.workbench.checks (top-level Project, Card types, `rows`, `userToken`, no removed
properties), and the refusals the interface demands: a request breaking a client rule marked
`server_refuses` (a former path, no key, a card name the interface rules out, a body that is
not JSON) answered 2xx fails that rule's requirement, and a 4xx passes it.

Each judgement is one requirement on one operation: passed or failed, with the problem.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from boardcert.interface import requirements, spec
from boardcert.traffic import rules
from boardcert.traffic.seen import EMPTY, NOT_JSON, TOO_LONG, Seen
from boardcert.traffic.sent import Finding
from boardcert.workbench import checks

JSON_TYPE = re.compile(r"^\s*application/([\w.+-]+\+)?json\s*(;|$)", re.I)


@dataclass(frozen=True)
class Judgement:
    requirement: str
    operation: int
    failed: bool
    problem: str = ""
    # a refusal that counts only once the operation was seen to succeed (a pass must be able
    # to fail: a 4xx for an unknown id says nothing of the key or the name)
    if_it_works: bool = False


def judge(seen: Seen, findings: list[Finding]) -> list[Judgement]:
    """The requirements the answer passes or fails (none when there was no answer)."""
    if seen.status is None:
        return []
    found = _refusals(seen, findings)
    op = seen.operation
    if op is None:
        return found
    found.append(Judgement("NO-SERVER-ERROR", op, seen.status >= 500,
                           f"{seen.method} {seen.target} answered {seen.status}"))
    if 200 <= seen.status < 300 and not any(f.failed for f in found):
        found += _success(seen, op)
    return found


def _refusals(seen: Seen, findings: list[Finding]) -> list[Judgement]:
    """A request the interface forbids: the server must not answer it 2xx (a 5xx is no
    answer either way: NO-SERVER-ERROR judges it)."""
    found = []
    for finding in findings:
        rule = rules.rule(finding.rule)
        op = seen.operation or (seen.former.current if seen.former else None)
        if not rule.server_refuses or rule.requirement is None or op is None or \
                op not in requirements.catalogue()[rule.requirement].operations or \
                seen.status is None or seen.status >= 500:
            continue
        served = seen.status < 400
        why = finding.detail.split(";")[0]  # a former path's: without what the client is told
        found.append(Judgement(
            rule.requirement, op, served,
            f"{seen.method} {seen.target} answered {seen.status} to a request the interface "
            f"rules out ({why})", if_it_works=not served and seen.former is None))
    return found


def _success(seen: Seen, op: int) -> list[Judgement]:
    operation = spec.operation(op)
    found = [Judgement("SUCCESS-STATUS-200", op, seen.status != 200,
                       f"a success of operation {op} answered {seen.status}, not 200")]
    body = seen.answer
    if body is EMPTY:
        if operation.body_shown:
            found.append(Judgement("JSON-RESPONSES", op, True, f"operation {op} answered "
                                   f"{seen.status} with no body (the interface shows a "
                                   f"{operation.response_schema})"))
        return found
    if body is TOO_LONG:
        return found
    label = seen.answer_header("content-type") or ""
    found.append(Judgement("JSON-RESPONSES", op, body is NOT_JSON,
                           f"operation {op} answered {seen.status} with a body that is not JSON"
                           f" ({label or 'no Content-Type'})"))
    if body is NOT_JSON:
        return found
    found.append(Judgement("JSON-MEDIA-TYPE", op, not JSON_TYPE.match(label),
                           f"operation {op} answered JSON labelled "
                           f"{label or 'with no Content-Type'}"))
    if seen.status == 200:
        for check in checks.checks_for(op):
            problems = check.problems(body)
            found.append(Judgement(check.requirement, op, bool(problems), "; ".join(problems)))
    return found
