"""A generated case as the property tests read it: positive or negative, a probe for a check
that does not run, and the requirement its rejection (or acceptance) proves."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from schemathesis.core.parameters import ParameterLocation
from schemathesis.generation.meta import CoverageScenario

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
        scenario = getattr(meta.phase.data, "scenario", None)
        probe = scenario in (CoverageScenario.UNSPECIFIED_HTTP_METHOD,
                             CoverageScenario.UNSUPPORTED_PATH_PATTERN) \
            or case.method.upper() != case.operation.method.upper()
        if meta.generation.mode.is_negative:
            return cls(False, probe, _rejection(case, meta, scenario))
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


def _rejection(case: Any, meta: Any, scenario: Any) -> str | None:
    number = operation_number(case)
    if scenario in (CoverageScenario.UNSUPPORTED_CONTENT_TYPE,
                    CoverageScenario.MALFORMED_CONTENT_TYPE):
        return None
    description = (meta.phase.data.description or "").lower()
    if "invalid syntax" in description:
        return "REJECT-MALFORMED-JSON" if number in MALFORMED_JSON_OPS \
            and _not_json(case.body) else None
    if number != EXACT_BODY_OP:
        return None
    if "missing request body" in description:
        return "CARD-NAME-REQUIRED"
    if not meta.is_negative_at(ParameterLocation.BODY):
        return None
    if "maxlength" in description or "larger than" in description:
        return "CARD-NAME-MAX-REJECTED"
    if "type" in description and "name" in description:
        return "CARD-NAME-STRING"
    if "type" in description or "required" in description:
        return "CARD-NAME-REQUIRED"  # not an object, or no name: either way name is missing
    return None


def _not_json(body: Any) -> bool:
    raw = body if isinstance(body, bytes | str) else None
    if raw is None or not raw.strip():
        return False  # an empty body is no body, not a malformed one
    try:
        json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return True
    return False

