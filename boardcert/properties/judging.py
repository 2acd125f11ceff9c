"""What a property test's answer proves: the requirements each operation's checks judge, which
requirement a schemathesis failure breaks, what answers left unchecked, and the `Judge` that
runs the checks and raises a violation naming the requirements, with the exchanges.

A schemathesis failure is known by its class (boardcert.compat.failure_kind: each class checked
at start-up by the code schemathesis keeps for it), never by its name or its words; a failure of
a class boardcert does not know stops the run (a CompatError), never passes."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

import pytest
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.specs.openapi.checks import (
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from boardcert import compat
from boardcert.errors import Violation
from boardcert.http.client import KEY_HEADER, Client
from boardcert.interface import conditions as when
from boardcert.interface import requirements, spec
from boardcert.outputs.report import partly
from boardcert.properties.cases import MALFORMED_JSON_OPS, CaseInfo
from boardcert.properties.schema import EXACT_BODY_OP, operation_number
from boardcert.properties.schemathesis_checks import (
    BOARDCERT_CHECKS,
    CHECK_REQUIREMENT,
    KEY_CHECK,
    CheckFailed,
    json_payload,
    key_required,
    name_as_sent,
)
from boardcert.pytest.failures import not_checked
from boardcert.pytest.markers import item_operations
from boardcert.pytest.markers import requirement_ids as marked_requirement_ids
from boardcert.pytest.together import PLAIN, Lanes
from boardcert.workbench import checks

NAME_REQUIREMENTS = ("CARD-NAME-REQUIRED", "CARD-NAME-STRING", "CARD-NAME-MAX-REJECTED",
                     "CARD-NAME-MAX-ACCEPTED")


def requirement_ids(number: int, negative: bool = True) -> list[str]:
    """What the checks run on an operation's responses prove (never an INFO requirement)."""
    ids = ["NO-SERVER-ERROR", "SUCCESS-STATUS-200", "JSON-RESPONSES"]
    schema_name = spec.operation(number).response_schema
    if schema_name:
        ids.append(checks.SCHEMA_REQUIREMENT[schema_name])
        if schema_name in checks.REMOVED_PROPERTY:
            ids.append(checks.REMOVED_PROPERTY[schema_name][1])
        ids += [c.requirement for c in checks.checks_for(number) if c.requirement not in ids]
    if spec.operation(number).auth_required:
        ids.append("AUTH-KEY-REQUIRED")
    if number == EXACT_BODY_OP:
        ids.append("CARD-NAME-AS-SENT")  # boardcert_name_as_sent, on positive cases
    if negative and number == EXACT_BODY_OP:
        ids += NAME_REQUIREMENTS
    if negative and number in MALFORMED_JSON_OPS and spec.operation(number).body_schema_shown:
        ids.append("REJECT-MALFORMED-JSON")  # schemathesis sends non-JSON only to these
    return ids


# Requirements a refusal still proves something about: no 5xx, and the rejections of input the
# interface forbids. Every other one a property test names is judged on 2xx answers only.
JUDGED_ON_REFUSALS = frozenset({"NO-SERVER-ERROR", *NAME_REQUIREMENTS, "REJECT-MALFORMED-JSON"})
STATUSES = pytest.StashKey[dict[int, Counter[int]]]()  # operation -> statuses of its answers


def answered(item: pytest.Item, number: int | None, status: int) -> None:
    """Note an answer a property test judged, and record (failures.not_checked) what the
    test's answers so far leave unchecked, so that the report does not count it there."""
    if number is None:
        return
    seen = item.stash.setdefault(STATUSES, {})
    seen.setdefault(number, Counter())[status] += 1
    not_checked(item, unchecked(seen, marked_requirement_ids(item), item_operations(item)))


def unchecked(seen: dict[int, Counter[int]], named: list[str],
              ops: list[int]) -> dict[str, dict[int, str]]:
    """requirement -> {operation: why} for what answers with these statuses did not check: on an
    operation no request reached, everything; on one that never answered a 2xx, all but what a
    refusal proves; and what the operation's checks never judge (the stateful test names the
    requirements of all its operations). The reasons the stateful test gives (it names several
    operations) are its reach, no gap in a requirement's assessment (report.partly)."""
    found: dict[str, dict[int, str]] = {}
    for number in ops:
        statuses = seen.get(number, Counter())
        judged = requirement_ids(number)
        if not statuses:
            missing, why = named, f"op {number}: {partly.UNREACHED}"
        elif not any(200 <= s < 300 for s in statuses):
            shown = ", ".join(f"{s} x {n}" for s, n in sorted(statuses.items()))
            missing = [r for r in named if r not in JUDGED_ON_REFUSALS]
            why = f"op {number}: no generated request got a 2xx (statuses seen: {shown})"
            why += f" {partly.SCENARIOS}" if len(ops) > 1 else ""
        else:
            missing, why = [], ""
        for req in named:
            if req in missing:
                found.setdefault(req, {})[number] = why
            elif req not in judged:
                found.setdefault(req, {})[number] = f"op {number}: {partly.UNJUDGED}"
    return found


def _schema_requirement(number: int, failure: Failure, kind: str) -> str:
    """The requirement of the 200 schema a body breaks (a JsonSchemaError says where, as data: a
    removed property, a Card without its records; a DiscriminatorMismatch does not)."""
    schema_name = spec.operation(number).response_schema or ""
    removed = checks.REMOVED_PROPERTY.get(schema_name)
    path = list(failure.schema_path) if kind == "JsonSchemaError" else []
    if removed and "not" in path:  # not: {required: [..]}
        return removed[1]
    if schema_name == "Card" and path[-1:] == ["required"] and _lacks_only_card_records(failure):
        return "CARD-PLUGINS-PROJECTS"
    return checks.SCHEMA_REQUIREMENT.get(schema_name, "JSON-RESPONSES")


def _lacks_only_card_records(failure: Any) -> bool:
    """A Card whose only missing required properties are plugins and projects."""
    instance = failure.instance
    if not isinstance(instance, dict):
        return False
    required = spec.document()["components"]["schemas"]["Card"]["required"]
    missing = {name for name in required if name not in instance}
    return bool(missing) and missing <= set(checks.CARD_RECORDS)


def requirement_of(failure: Failure, number: int, case: CaseInfo, status: int) -> str | None:
    """The requirement a schemathesis failure breaks; None for what is no failure here (a
    choice the interface leaves open). A failure boardcert does not know: CompatError."""
    kind = compat.failure_kind(failure)
    if kind == "CustomFailure":
        name = _own_check(failure)
        if name in CHECK_REQUIREMENT:
            return CHECK_REQUIREMENT[name]
        if name in BOARDCERT_CHECKS:
            return BOARDCERT_CHECKS[name][1]
        raise compat.unknown_failure(failure)  # only boardcert's own checks are custom
    if kind in ("ServerError", "ContentTypeServerError"):
        return "NO-SERVER-ERROR"
    if kind == "UndefinedStatusCode":
        return "SUCCESS-STATUS-200" if 200 <= status < 300 else None
    if kind in ("MissingContentType", "UndefinedContentType", "MalformedMediaType"):
        return None  # the label is JSON-MEDIA-TYPE's (a SHOULD), judged by test_general
    if kind in ("MalformedJson", "ContentDeserializationError"):
        return "JSON-RESPONSES"
    if kind in ("JsonSchemaError", "DiscriminatorMismatch"):
        return _schema_requirement(number, failure, kind)
    if kind == "AcceptedNegativeData":  # a 5xx is NO-SERVER-ERROR's; a MUST breaks on a 2xx
        if status >= 500 and case.rejection \
                and requirements.catalogue()[case.rejection].level == "MUST":
            return None
        return case.rejection
    if kind == "RejectedPositiveData":
        return case.acceptance
    raise compat.unknown_failure(failure)  # a class compat knows that this does not name


def _own_check(failure: Any) -> str | None:
    """The name of the boardcert check whose failure (a CustomFailure) this is (None: not one
    of ours)."""
    exception = failure.exception
    return exception.check if isinstance(exception, CheckFailed) else None


def _check_name(failure: Failure) -> str:
    """The check that reported a failure, as the message names it."""
    if compat.failure_kind(failure) == "CustomFailure":
        return _own_check(failure) or failure.title
    return failure.checks[0] if failure.checks else type(failure).__name__


def in_order(found: list[tuple[str, Failure]]) -> list[tuple[str, Failure]]:
    """Failures by requirement, then check and text: schemathesis collects them in a set, whose
    order follows string hashes (PYTHONHASHSEED), so the message would change from run to run."""
    return sorted(found, key=lambda item: (item[0], _check_name(item[1]), item[1].title,
                                           item[1].message or ""))


class PropertyViolation(Violation):
    """A generated request got an answer the interface does not allow."""

    traceback = False  # through schemathesis and Hypothesis: the message says it all
    scene = False  # a generated example: its own requests are the whole story


@cache
def _violation(requirement: str) -> type[PropertyViolation]:
    # One class per requirement, so Hypothesis reports distinct requirements as distinct bugs.
    name = "Violation_" + requirement.replace("-", "_")
    return type(name, (PropertyViolation,), {"__module__": __name__, "requirement": requirement})


# schemathesis's failures that say, as data, what is wrong with a status or a body
_STATUS_WANTED = {"ServerError": "not 5xx", "ContentTypeServerError": "not 5xx",
                  "AcceptedNegativeData": "4xx", "RejectedPositiveData": "2xx"}


def _conditions(failure: Failure, exchange: Any, probe: Any) -> list[when.Condition]:
    """What makes a failure (boardcert.interface.conditions): a status, a body that is not
    JSON, the key check's request answered without a 4xx, what boardcert's own check or the
    schema finds in the body, else the same answer again."""
    kind, name = compat.failure_kind(failure), _check_name(failure)
    own_failure = failure.exception if kind == "CustomFailure" else None
    if isinstance(own_failure, CheckFailed) and own_failure.conditions:
        return list(own_failure.conditions)  # a boardcert check that said what makes it
    if kind in _STATUS_WANTED:
        return [when.status(exchange, _STATUS_WANTED[kind])]
    if kind in ("MalformedJson", "ContentDeserializationError"):
        return [when.not_json(exchange)]
    if kind == "UndefinedStatusCode":
        return [when.status_was(exchange)]
    if probe is not None and name == KEY_CHECK:
        return [when.status(probe, "4xx")]
    own = next((c for c in checks.CHECKS if f"boardcert_{c.name}" == name), None)
    try:
        body = json.loads(exchange.content)
    except (ValueError, RecursionError):
        body = None
    if own is not None and body is not None:
        return [c for p in own.problems(body) for c in checks.conditions(p, exchange)]
    if kind == "JsonSchemaError":
        return _schema_conditions(failure, exchange) or [when.answer(exchange)]
    return [when.answer(exchange)]


def _schema_conditions(failure: Any, exchange: Any) -> list[when.Condition]:
    """A schema error's conditions: the properties it misses, the type it wanted, the
    removed property it holds."""
    keyword = list(failure.schema_path)[-1:] or [None]
    at, schema, instance = list(failure.instance_path), failure.schema, failure.instance
    if not isinstance(schema, dict):
        return []
    if keyword == ["required"] and isinstance(instance, dict):
        return [when.missing(exchange, [*at, name]) for name in schema.get("required", [])
                if name not in instance]
    if keyword == ["type"] and "type" in schema:
        return [when.wrong_type(exchange, at, schema["type"])]
    forbidden = schema.get("not")  # a removed property: not: {required: [...]}
    if keyword == ["not"] and isinstance(forbidden, dict) and isinstance(instance, dict):
        return [when.present(exchange, [*at, name]) for name in forbidden.get("required", [])
                if name in instance]
    return []


def _what(failure: Failure) -> str:
    """What is wrong, in one line: a boardcert check's own sentence, else schemathesis's title
    and the first line of its message."""
    first = next((line.strip() for line in (failure.message or "").splitlines()
                  if line.strip()), "")
    if compat.failure_kind(failure) == "CustomFailure" and first:
        return first
    return f"{failure.title}: {first}" if first else failure.title


# --- judging an answer -----------------------------------------------------------------------

@dataclass(repr=False)
class Judge:
    """Runs the checks that apply to a case on its answer (sent through `client`), and turns
    their failures into a violation of requirements, with the exchanges (the key masked)."""

    client: Client
    lanes: Lanes = PLAIN  # how the key check's two probes go (boardcert.pytest.together)
    _auth_confirmed: set[int] = field(default_factory=set)

    @cached_property
    def key_check(self) -> Callable[..., None]:
        return key_required(self.client, self.lanes)

    @cached_property
    def name_check(self) -> Callable[..., None]:
        return name_as_sent(self.client)

    def checks_for(self, number: int, info: CaseInfo,
                   key: bool = True) -> list[Callable[..., Any]]:
        found = [not_a_server_error, status_code_conformance, json_payload]
        if spec.operation(number).body_shown:
            found.append(response_schema_conformance)
        found += [BOARDCERT_CHECKS[f"boardcert_{c.name}"][0] for c in checks.checks_for(number)]
        if key and spec.operation(number).auth_required and number not in self._auth_confirmed:
            found.append(self.key_check)  # two probes per operation are enough
        if number == EXACT_BODY_OP and info.positive:
            found.append(self.name_check)
        if info.rejection:
            found.append(negative_data_rejection)
        if info.acceptance:
            found.append(positive_data_acceptance)
        return found

    def validate(self, case: Any, response: Any, info: CaseInfo, key: bool = True) -> None:
        """The checks on an answer; without `key`, no key check (the stateful test's: the
        operations' own items and test_auth probe the key)."""
        number = operation_number(case)
        if number is None:
            return
        chosen = self.checks_for(number, info, key)
        target = self.client.target
        try:
            case.validate_response(response, checks=chosen, headers={KEY_HEADER: target.api_key},
                                   transport_kwargs={"base_url": target.base_url,
                                                     "timeout": target.timeout})
        except FailureGroup as group:
            found = [(req, f) for f in group.exceptions
                     if (req := requirement_of(f, number, info, response.status_code))]
            if found:
                raise self.violation(number, case, response, found) from None
        if self.key_check in chosen and 200 <= response.status_code < 300:
            self._auth_confirmed.add(number)

    def violation(self, number: int, case: Any, response: Any,
                  found: list[tuple[str, Failure]]) -> PropertyViolation:
        op = spec.operation(number)
        found = in_order(found)
        more = f" (and {len(found) - 1} more check{'s' if len(found) > 2 else ''})" \
            if len(found) > 1 else ""
        lines = [f"[{found[0][0]}] op {number} {op.label} ({op.operation_id}): "
                 f"{_what(found[0][1])}{more}"]
        for req, failure in found:
            lines.append(f"  [{req}] {_check_name(failure)}: {failure.title}")
            if failure.message:
                lines += [f"      {line}" for line in failure.message.splitlines()]
        ids = sorted({req for req, _ in found})
        message = self.client.redact("\n".join(lines))
        sent, probe = self.key_check.probes.pop(id(response), (None, None))
        shown = [response.exchange]  # an Answer's: the request as the client sent it
        if sent is response:  # the key check's request without the key (or a wrong one)
            shown.append(probe)
        reading = self.name_check.readings.pop(id(response), None)  # type: ignore[attr-defined]
        if reading is not None:  # the fresh op 3 that shows the stored name
            shown.append(reading)
        return _violation(ids[0])(message, ids, shown,
                                  [c for _, f in found
                                   for c in _conditions(f, response.exchange, probe)])
