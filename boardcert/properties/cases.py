"""A generated case as the property tests read it: positive or negative, a probe for a check
that does not run, and the requirement its rejection (or acceptance) proves.

Which requirement a rejected case proves is read from the body it sends, judged by the
interface's own rules (op 16: name required, a string, at most 25000 characters; a body that
is not JSON), never from schemathesis's description of what it generated: a reworded
description or a new kind of mutation changes nothing here. From schemathesis only data is
read: the generation mode, and the coverage scenarios of requests sent in another shape (an
undocumented method or path, another content type), which boardcert.compat checks at start-up
against what schemathesis itself counts as such probes (`probe_scenarios`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from boardcert import compat
from boardcert.interface import requirements
from boardcert.properties.schema import EXACT_BODY_OP, NAME_MAX, operation_number

MALFORMED_JSON_OPS = frozenset(requirements.catalogue()["REJECT-MALFORMED-JSON"].operations)


@dataclass(frozen=True)
class CaseInfo:
    """What schemathesis meant by a case, read before the arena changes it."""

    positive: bool
    probe: bool  # a request-shape probe for checks we do not run (undocumented method, ...)
    rejection: str | None  # the requirement a rejection of this case proves, if the interface
    # forbids the input exactly; None: negative_data_rejection does not apply
    acceptance: str | None = None  # likewise for positive_data_acceptance

    @classmethod
    def of(cls, case: Any) -> CaseInfo:
        meta = case.meta
        if meta is None:
            return cls(True, False, None)
        # requests in another shape: what answers them is not the interface's business (another
        # method or path), or not of the body sent (another content type)
        other_request, other_content_type = compat.probe_scenarios()
        scenario = getattr(meta.phase.data, "scenario", None)  # coverage cases only
        probe = scenario in other_request or case.method.upper() != case.operation.method.upper()
        if meta.generation.mode.is_negative:
            rejection = None if scenario in other_content_type else rejection_of(case)
            return cls(False, probe, rejection)
        return cls(True, probe, None, _acceptance(case))


def _acceptance(case: Any) -> str | None:
    """Op 16 must accept {"name": <exactly 25000 characters>} (CARD-NAME-MAX-ACCEPTED); ASCII
    only, since astral characters are a SHOULD, and nothing else in the body. Other positive
    cases prove nothing by being accepted (an empty name, for one, is INFO)."""
    body = case.body
    if operation_number(case) != EXACT_BODY_OP or not isinstance(body, dict) or set(body) != {
            "name"}:
        return None
    name = body["name"]
    if isinstance(name, str) and len(name) == NAME_MAX and name.isascii() and name.isprintable():
        return "CARD-NAME-MAX-ACCEPTED"
    return None


def rejection_of(case: Any) -> str | None:
    """The requirement whose rule the body of a negative case breaks, by the interface: bytes
    that are not JSON (REJECT-MALFORMED-JSON, where it applies); on op 16, no body, no object
    or no name (CARD-NAME-REQUIRED), a name that is no string (CARD-NAME-STRING) or longer than
    25000 (CARD-NAME-MAX-REJECTED). None: the body breaks no rule the interface makes exact
    (the case is negative elsewhere, or in what the interface leaves open)."""
    number, body = operation_number(case), case.body
    if isinstance(body, bytes):  # sent as it is; any other value is sent as JSON
        return "REJECT-MALFORMED-JSON" if number in MALFORMED_JSON_OPS and _not_json(body) \
            else None
    if number != EXACT_BODY_OP:
        return None
    if not isinstance(body, dict) or "name" not in body:  # no body (NotSet) included
        return "CARD-NAME-REQUIRED"
    name = body["name"]
    if not isinstance(name, str):
        return "CARD-NAME-STRING"
    return "CARD-NAME-MAX-REJECTED" if len(name) > NAME_MAX else None


def _not_json(raw: bytes) -> bool:
    if not raw.strip():
        return False  # an empty body is no body, not a malformed one
    try:
        json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return True
    return False
