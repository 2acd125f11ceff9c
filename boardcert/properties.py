"""Property-based and stateful testing of the interface with schemathesis, without false alarms.

`suites/test_properties.py` drives schemathesis over spec/openapi.yaml; this module holds what
it needs, so that the suite reads as a page:

- pytest hooks: `--budget` (validated at start-up), a fixed Hypothesis seed printed in the
  header (`--hypothesis-seed N` reproduces), requirement markers on schemathesis items;
- `load_schema()`: the schema with the phases and checks the conformance policy supports;
- boardcert's own checks (`boardcert.checks.CHECKS`) registered as schemathesis checks;
- `Arena`: real resources of this run that generated requests point into, the profile's bodies
  for the bodies the interface does not show, and `validate()`, which runs the checks and turns
  each failure into a requirement, with a curl command whose key is `***`.
"""

from __future__ import annotations

import json
import re
import uuid
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache, cached_property, partial
from typing import Any

import hypothesis
import pytest
import requests
import schemathesis
from hypothesis import strategies as st
from hypothesis.errors import FailedHealthCheck, FlakyStrategyDefinition, Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.core import NotSet
from schemathesis.core.failures import CustomFailure, Failure, FailureGroup, ServerError
from schemathesis.core.parameters import ParameterLocation
from schemathesis.generation.meta import CoverageScenario
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from boardcert import checks, requirements, spec
from boardcert.api import Api, ids_in_order, walk
from boardcert.budget import BUDGETS, DEFAULT_SEED, Budget, parse_budget
from boardcert.client import KEY_HEADER, Exchange, recorded_body
from boardcert.config import NotAssessed, Profile, Target, fill
from boardcert.errors import ConfigError, Violation
from boardcert.failures import not_checked
from boardcert.ledger import Entry, Ledger
from boardcert.paths import OPENAPI, SUITES
from boardcert.plugin import item_operations
from boardcert.plugin import requirement_ids as plugin_requirement_ids
from boardcert.redact import Redactor
from boardcert.resources import DELETED_BY


@dataclass
class _Run:
    """What pytest_configure decided, read by the suite when it is imported (collected)."""

    budget: Budget = BUDGETS["standard"]
    seed: int = DEFAULT_SEED
    rate_limit: float | None = None
    profile: Profile | None = None


RUN = _Run()
SEED_OPTION = "hypothesis_seed"  # dest of Hypothesis's own --hypothesis-seed


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    # tryfirst: the seed must be in place before Hypothesis's plugin reads --hypothesis-seed.
    try:
        RUN.budget = parse_budget(config.getoption("budget", None))
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None
    given = config.getoption(SEED_OPTION, None)
    if given is None and hasattr(config.option, SEED_OPTION):
        setattr(config.option, SEED_OPTION, str(DEFAULT_SEED))
        given = DEFAULT_SEED
    try:
        RUN.seed = int(given if given is not None else DEFAULT_SEED)
    except ValueError:
        raise pytest.UsageError(f"--hypothesis-seed {given!r}: expected an integer") from None


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    from boardcert.plugin import TARGET

    target = session.config.stash.get(TARGET, None)
    RUN.profile = target.profile if target is not None else None
    # This process's share of --rate-limit (config.resolve divides it among xdist workers).
    RUN.rate_limit = target.rate_limit if target is not None else None


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [f"boardcert: hypothesis seed {RUN.seed}; reproduce with --hypothesis-seed {RUN.seed}",
            f"boardcert: schemathesis budget {RUN.budget.describe()}"]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A schemathesis item of one operation names that operation and what its checks prove
    (before boardcert.plugin turns requirement markers into markers and user properties)."""
    for item in items:
        number = LABELS.get(getattr(item, "operation_label", None) or "")
        if number is not None and item.get_closest_marker("requirement") is None \
                and SUITES in item.path.parents:
            item.add_marker(pytest.mark.requirement(*requirement_ids(number), op=number))


# --- the schema ----------------------------------------------------------------------------

LABELS = {op.label: n for n, op in spec.operations().items()}


def load_schema() -> Any:
    """spec/openapi.yaml for schemathesis, shaped by the budget and seed of this run.

    No schemathesis.toml is read (the config is given), no example database is written, only
    the links of the spec drive the state machine (no inferred links), and the coverage phase
    sends no undocumented methods (what answers them is not the interface's business)."""
    budget = RUN.budget
    data: dict[str, Any] = {
        "seed": RUN.seed,
        "generation": {"max-examples": budget.max_examples, "database": "none",
                       "no-shrink": not budget.shrink},
        "phases": {
            "examples": {"enabled": False},  # the spec has no examples
            "coverage": {"enabled": budget.coverage, "unexpected-methods": []},
            "stateful": {"inference": {"algorithms": []}},
        },
        # A rejection is any 4xx, whatever the status (policy, section 2).
        "checks": {"negative_data_rejection": {"expected-statuses": ["4XX"]},
                   "positive_data_acceptance": {"expected-statuses": ["2XX"]}},
    }
    operations: list[dict[str, Any]] = []
    if not budget.coverage:  # op 16's boundaries (25000 / 25001) are worth it at any budget
        operations.append({"include-operation-id": spec.operation(EXACT_BODY_OP).operation_id,
                           "phases": {"coverage": {"enabled": True, "unexpected-methods": []}}})
    few = max(2, budget.max_examples // 5)
    if few < budget.max_examples:  # all they take is path ids, which the arena replaces
        operations.append({"include-operation-id": [spec.operation(n).operation_id
                                                    for n in without_body()],
                           "generation": {"max-examples": few}})
    if operations:
        data["operations"] = operations
    if RUN.rate_limit:
        data["rate-limit"] = f"{max(1, int(RUN.rate_limit * 60))}/m"
    return schemathesis.openapi.from_path(OPENAPI, config=schemathesis.Config.from_dict(data))


def without_body() -> list[int]:
    """Operations that take no body: nothing generated reaches the server but the key."""
    return [n for n, op in spec.operations().items() if not op.takes_body]


def operation_number(case: Any) -> int | None:
    number = case.operation.definition.raw.get("x-operation")
    return int(number) if number is not None else None


# --- checks and the requirements they prove ------------------------------------------------
#
# Built-in checks used, and why they cannot false-alarm on a conformant server:
#   not_a_server_error           NO-SERVER-ERROR: a 5xx to client input is always a failure.
#   status_code_conformance      SUCCESS-STATUS-200: every operation documents 200, 4XX and 5XX,
#                                so only 1xx, 3xx and 2xx-but-not-200 are undocumented; 1xx and
#                                3xx are dropped (the interface names no status for them).
#   content_type_conformance     JSON-RESPONSES, on the 200s whose body the interface shows;
#                                a +json media type is JSON and is not a failure here.
#   response_schema_conformance  the requirement of the 200 schema (SCHEMA_REQUIREMENT).
#   boardcert_json_payload       JSON-RESPONSES on the 2xx of operations whose response is not
#                                shown (4, 21, 22, 25-27): no body, or one that parses as JSON.
#   boardcert_key_required       AUTH-KEY-REQUIRED, in place of schemathesis's ignored_auth (which
#                                wants 401 or 403): after a 2xx of a listed operation, the same
#                                request without the key and with a wrong key must get a 4xx,
#                                any 4xx (the interface names no status); a 5xx is NO-SERVER-ERROR.
#                                Operations whose security is optional are INFO (not probed).
#   negative_data_rejection      only where the interface is exact: op 16's body (name required,
#                                a string, at most 25000) and request bodies that are not JSON.
# Excluded:
#   positive_data_acceptance     bodies the interface does not show are open, so `{}` or `[]` is
#                                "schema-valid" and a 4xx to it is a fair answer; op 7 may accept
#                                only one of name and rowName.
#   negative_data_rejection      (elsewhere) open schemas: nothing generated is invalid by the
#                                interface; content-type probes: the interface says nothing of
#                                request content types.
#   missing_required_header      the only header is the key, judged by boardcert_key_required.
#   unsupported_method, allow_header_conformance   expect 405 and an Allow header; the interface
#                                names no error status, 404 or 501 to an unknown method is fine.
#   use_after_free, ensure_resource_availability   reason over link lineage and expect 404/200;
#                                "gone" is any 4xx and links take the first row of a shape the
#                                interface does not show; the explicit suites judge *-GONE and
#                                *-CREATE with real reads.
#   object_level_authorization   needs several identities; the interface has one key.
#   response_headers_conformance no response headers are declared.

SCHEMA_REQUIREMENT = {
    "Project": "PROJECT-TOP-LEVEL",
    "Card": "CARD-FIELD-TYPES",
    "RowsResponse": "ROWS-PROPERTY-REQUIRED",
    "UsersMe": "USERS-ME-PROPERTIES",
    "PluginsResponse": "PLUGINS-PROPERTY",
    "ExchangeCodeResponse": "EXCHANGE-USER-TOKEN",
}
REMOVED_PROPERTY = {"UsersMe": ("accessTokens", "USERS-ME-NO-ACCESS-TOKENS"),
                    "ExchangeCodeResponse": ("accessToken", "EXCHANGE-NO-ACCESS-TOKEN")}
NAME_REQUIREMENTS = ("CARD-NAME-REQUIRED", "CARD-NAME-STRING", "CARD-NAME-MAX-REJECTED",
                     "CARD-NAME-MAX-ACCEPTED")
MALFORMED_JSON_OPS = frozenset(requirements.catalogue()["REJECT-MALFORMED-JSON"].operations)
EXACT_BODY_OP, NAME_MAX = 16, 25000


def _register(check: checks.Check) -> Callable[..., None]:
    """One of boardcert's checks as a schemathesis check, scoped to the operations whose 200
    schema it applies to (the very function the explicit suites call)."""
    def run(ctx: Any, response: Any, case: Any) -> None:
        number = operation_number(case)
        if number is None or check not in checks.checks_for(number):
            return
        if not 200 <= response.status_code < 300:
            return
        try:
            body = response.json()
        except ValueError:
            return  # not JSON: content_type_conformance and response_schema_conformance judge it
        found = check.problems(body)
        if found:
            raise AssertionError("\n".join(found))

    run.__name__ = run.__qualname__ = f"boardcert_{check.name}"
    run.__doc__ = f"{check.requirement}: boardcert.checks {check.name} on 2xx bodies."
    return schemathesis.check(run)


def key_required(timeout: float) -> Callable[..., None]:
    """AUTH-KEY-REQUIRED, as a schemathesis check: a request that succeeded with the key, sent
    again without it and with a wrong one, is refused with a 4xx each time (any 4xx); a 5xx is
    NO-SERVER-ERROR."""
    def check(ctx: Any, response: Any, case: Any) -> None:
        if not 200 <= response.status_code < 300:
            return
        for what, key in (("without X-API-Key", None), ("with a wrong X-API-Key", unique("no"))):
            request = response.request.copy()
            request.headers.pop(KEY_HEADER, None)
            if key is not None:
                request.headers[KEY_HEADER] = key
            try:
                with requests.Session() as session:
                    probe = session.send(request, timeout=timeout, allow_redirects=False)
            except requests.RequestException:
                return  # no answer proves nothing either way
            status = probe.status_code
            if not 400 <= status < 500:  # the evidence: this request, not the one with the key
                check.probes[id(response)] = (response, probe)  # type: ignore[attr-defined]
            if status >= 500:
                raise ServerError(operation=case.operation.label, status_code=status,
                                  message=f"the same request {what} answered {status}")
            if not 400 <= status < 500:
                raise AssertionError(f"the same request {what} answered {status}; the operation "
                                     "carries the X-API-Key scheme, so it must be refused with "
                                     "a 4xx")

    check.__name__ = check.__qualname__ = KEY_CHECK
    check.probes = {}  # type: ignore[attr-defined]  # id(response) -> (response, the probe)
    return check


KEY_CHECK = "boardcert_key_required"


def json_payload(ctx: Any, response: Any, case: Any) -> None:
    """JSON-RESPONSES where the interface does not show the response: "All payloads are JSON",
    so a 2xx body, if there is one, parses as JSON."""
    content = response.content or b""
    if not 200 <= response.status_code < 300 or not content.strip():
        return
    try:
        json.loads(content)
    except (ValueError, RecursionError):
        kind = response.headers.get("content-type", ["no content type"])[0]
        raise AssertionError(f"the body ({kind}) is not JSON: All payloads are JSON") from None


JSON_CHECK = "boardcert_json_payload"
json_payload.__name__ = json_payload.__qualname__ = JSON_CHECK
CHECK_REQUIREMENT = {KEY_CHECK: "AUTH-KEY-REQUIRED", JSON_CHECK: "JSON-RESPONSES"}
BOARDCERT_CHECKS = {f"boardcert_{c.name}": (_register(c), c.requirement) for c in checks.CHECKS}


def requirement_ids(number: int, negative: bool = True) -> list[str]:
    """What the checks run on an operation's responses prove (never an INFO requirement)."""
    ids = ["NO-SERVER-ERROR", "SUCCESS-STATUS-200", "JSON-RESPONSES"]
    schema_name = spec.operation(number).response_schema
    if schema_name:
        ids.append(SCHEMA_REQUIREMENT[schema_name])
        if schema_name in REMOVED_PROPERTY:
            ids.append(REMOVED_PROPERTY[schema_name][1])
        ids += [c.requirement for c in checks.checks_for(number) if c.requirement not in ids]
    if spec.operation(number).auth_required:
        ids.append("AUTH-KEY-REQUIRED")
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
    not_checked(item, unchecked(seen, plugin_requirement_ids(item), item_operations(item)))


def unchecked(seen: dict[int, Counter[int]], named: list[str],
              ops: list[int]) -> dict[str, dict[int, str]]:
    """requirement -> {operation: why} for what answers with these statuses did not check: on an
    operation no request reached, everything; on one that never answered a 2xx, all but what a
    refusal proves; and what the operation's checks never judge (the stateful test names the
    requirements of all its operations)."""
    found: dict[str, dict[int, str]] = {}
    for number in ops:
        statuses = seen.get(number, Counter())
        judged = requirement_ids(number)
        if not statuses:
            missing, why = named, f"op {number}: no generated request was sent"
        elif not any(200 <= s < 300 for s in statuses):
            shown = ", ".join(f"{s} x {n}" for s, n in sorted(statuses.items()))
            missing = [r for r in named if r not in JUDGED_ON_REFUSALS]
            why = f"op {number}: no generated request got a 2xx (statuses seen: {shown})"
        else:
            missing, why = [], ""
        for req in named:
            if req in missing:
                found.setdefault(req, {})[number] = why
            elif req not in judged:
                found.setdefault(req, {})[number] = f"op {number}: its checks do not judge it"
    return found


def _schema_requirement(number: int, failure: Failure) -> str:
    schema_name = spec.operation(number).response_schema or ""
    removed = REMOVED_PROPERTY.get(schema_name)
    path = list(getattr(failure, "schema_path", ()))
    if removed and "not" in path:  # not: {required: [..]}
        return removed[1]
    if schema_name == "Card" and path[-1:] == ["required"] and _lacks_only_card_records(failure):
        return "CARD-PLUGINS-PROJECTS"
    return SCHEMA_REQUIREMENT.get(schema_name, "JSON-RESPONSES")


def _lacks_only_card_records(failure: Failure) -> bool:
    """A Card whose only missing required properties are plugins and projects."""
    instance = getattr(failure, "instance", None)
    if not isinstance(instance, dict):
        return False
    required = spec.document()["components"]["schemas"]["Card"]["required"]
    missing = {name for name in required if name not in instance}
    return bool(missing) and missing <= set(checks.CARD_RECORDS)


def requirement_of(failure: Failure, number: int, case: CaseInfo, status: int) -> str | None:
    """The requirement a schemathesis failure breaks; None for what is no failure here."""
    kind = type(failure).__name__
    if isinstance(failure, CustomFailure):
        name = re.search(r"`?(boardcert_\w+)`?", failure.title)
        if name and name.group(1) in CHECK_REQUIREMENT:
            return CHECK_REQUIREMENT[name.group(1)]
        return BOARDCERT_CHECKS[name.group(1)][1] if name else None
    if kind in ("ServerError", "ContentTypeServerError"):
        return "NO-SERVER-ERROR"
    if kind == "UndefinedStatusCode":
        return "SUCCESS-STATUS-200" if 200 <= status < 300 else None
    if kind == "UndefinedContentType" and _is_json_type(getattr(failure, "content_type", "")):
        return None
    if kind in ("MissingContentType", "UndefinedContentType", "MalformedMediaType",
                "MalformedJson", "ContentDeserializationError"):
        return "JSON-RESPONSES"
    if kind in ("JsonSchemaError", "DiscriminatorMismatch"):
        return _schema_requirement(number, failure)
    if kind == "AcceptedNegativeData":  # a 5xx is NO-SERVER-ERROR's; a MUST breaks on a 2xx
        if status >= 500 and case.rejection \
                and requirements.catalogue()[case.rejection].level == "MUST":
            return None
        return case.rejection
    if kind == "RejectedPositiveData":
        return case.acceptance
    return None


def _is_json_type(content_type: str) -> bool:
    media = content_type.split(";")[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


def _check_name(failure: Failure) -> str:
    if isinstance(failure, CustomFailure):
        found = re.search(r"`?(boardcert_\w+)`?", failure.title)
        return found.group(1) if found else failure.title
    return failure.checks[0] if failure.checks else type(failure).__name__


class PropertyViolation(Violation):
    """A generated request got an answer the interface does not allow."""

    traceback = False  # through schemathesis and Hypothesis: the message says it all


@cache
def _violation(requirement: str) -> type[PropertyViolation]:
    # One class per requirement, so Hypothesis reports distinct requirements as distinct bugs.
    name = "Violation_" + requirement.replace("-", "_")
    return type(name, (PropertyViolation,), {"__module__": __name__, "requirement": requirement})


# --- a generated case, as the suite reads it -----------------------------------------------

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


# --- the arena: this run's resources that generated requests point into ------------------

DELETES = {number: kind.name for number, kind in DELETED_BY.items()}


def unique(label: str) -> str:
    return f"bc-{label}-{uuid.uuid4().hex[:10]}"


@dataclass(repr=False)
class Arena:
    """A board the property tests own, built with the plugin's factories.

    Path ids of generated requests are replaced by ids of this board (or, in the stateful test,
    kept when a link supplied them, since links carry ids of this run's own resources); a
    delete never takes a board resource but a victim made for it; a positive case of an
    operation whose body the interface does not show gets the profile's body."""

    api: Api
    ledger: Ledger
    target: Target
    organization_id: str | None = None
    make: dict[str, Callable[..., Any]] = field(default_factory=dict)  # the plugin's factories
    broken: str | None = None  # why the board cannot be made
    project: Any = None
    row: Any = None
    columns: list[Any] = field(default_factory=list)
    cards: list[Any] = field(default_factory=list)
    metadata: tuple[str, str] | None = None  # (key, value) on cards[1], for op 19
    data_key: str | None = None  # plugin data of cards[0], for op 27
    session: requests.Session = field(default_factory=requests.Session)
    _victims: dict[int, tuple[dict[str, str], Entry | None]] = field(default_factory=dict)
    _auth_confirmed: set[int] = field(default_factory=set)
    _data: set[tuple[str, str, str]] = field(default_factory=set)
    _built: bool = False

    def __repr__(self) -> str:
        return f"<Arena project={self.project.id if self.project else None}>"

    @property
    def profile(self) -> Profile:
        return self.api.profile  # with what discovery found

    def board(self) -> None:
        """Make the board on first need; if the server cannot make it, every case that needs
        it is not assessed (the explicit suites judge the creating operations)."""
        if not self._built and self.broken is None:
            try:
                self.build()
            except (AssertionError, NotAssessed) as exc:
                self.broken = str(exc).splitlines()[0]
        if self.broken is not None:
            pytest.skip(f"not assessed: no board for the generated requests ({self.broken})")

    def build(self) -> Arena:
        make = self.make
        self.project = make["project"]()
        self.row = make["row"](self.project)
        self.columns = [make["column"](self.project, self.row) for _ in range(2)]
        self.cards = [make["card"](self.project, self.columns[0]) for _ in range(3)]
        key, value = unique("meta"), "bc-value"
        if self._setup_call(21, "add_card_metadata", dict(key=key, value=value),
                            projectId=self.project.id, cardId=self.cards[1].id):
            self.metadata = (key, value)
        if self.plugin_id and self.entity_id:
            key = unique("data")
            if self._put_data(key):
                self.data_key = key
        self._built = True
        return self

    def close(self) -> None:
        self.session.close()

    @cached_property
    def key_check(self) -> Callable[..., None]:
        return key_required(self.target.timeout)

    # profile values that may be absent (then the operations that need them are not assessed)
    @property
    def plugin_id(self) -> str | None:
        return str(self.profile.data["plugin_id"]) if self.profile.has("plugin_id") else None

    @property
    def entity_id(self) -> str | None:
        if not self.profile.has("entity_id") or not self.cards:
            return None
        try:
            return str(fill(self.profile.get("entity_id"), self._ids(), "entity_id"))
        except ConfigError:  # a placeholder the board has no value for
            return None

    def body(self, body_name: str, values: dict[str, Any]) -> Any:
        """The profile's `bodies.<body_name>`, filled (`values` may hold `name`)."""
        return self.profile.body(body_name, **values)

    def _ids(self) -> dict[str, Any]:
        if not self.cards:  # the board is not made (yet)
            return {}
        return {"project_id": self.project.id, "row_id": self.row.id,
                "column_id": self.columns[0].id, "other_column_id": self.columns[1].id,
                "card_id": self.cards[0].id}

    def _setup_call(self, number: int, body: str, values: dict[str, Any], **path: str) -> bool:
        try:
            json_body = self.body(body, values)
        except (NotAssessed, ConfigError):
            return False
        # Not Api.call: a path parameter named `key` (ops 22, 25-27) is not the API key.
        method = spec.operation(number).method
        return self.api.client.request(method, self.api.path(number, **path),
                                       json=json_body).status == 200

    def _put_data(self, key: str) -> bool:
        path = dict(pluginId=self.plugin_id, entityId=self.entity_id, key=key)
        if not self._setup_call(25, "put_plugin_data", dict(value="bc-value", **self._ids()),
                                **path):
            return False
        self._record_data(path)
        return True

    def _record_data(self, path: dict[str, str]) -> None:
        item = (path["pluginId"], path["entityId"], path["key"])
        if item not in self._data:
            self._data.add(item)
            self.ledger.add("plugin_data", **path)

    # --- preparing a case ------------------------------------------------------------------

    def prepare(self, case: Any, info: CaseInfo, linked: frozenset[str] = frozenset()) -> None:
        """Point the case at this run's resources; `linked` names path parameters that a
        stateful link supplied (ids of this run's own resources, kept unless protected)."""
        number = operation_number(case)
        if number == 2 and self.organization_id is None:
            pytest.skip(f"not assessed: no organization to create projects in ({self.broken})")
        if number not in (1, 2):  # the others need ids of the board
            self.board()
        path = self._path(number, dict(case.path_parameters or {}), linked)
        if path:
            case.path_parameters = path
        if number == 27:
            self._place_entity(case)
        if info.positive and spec.operation(number).profile_body:
            body = self._profile_body(number, path)
            if body is not None:
                case.body = _mix(body, case.body)

    def _path(self, number: int, given: dict[str, Any], linked: frozenset[str]) -> dict[str, str]:
        if not given:
            return {}
        if number in DELETES:
            kept = {k: str(v) for k, v in given.items() if k in linked}
            if len(kept) == len(given) and not self._protected(number, kept):
                return kept
            return dict(self._victim(number))
        return {k: str(v) if k in linked else self._default(k) for k, v in given.items()}

    def _default(self, name: str) -> str:
        """The board's value for a path parameter (the profile's, for plugins)."""
        board = {"organizationId": self.organization_id}
        if self._built:
            board |= {"projectId": self.project.id, "rowId": self.row.id,
                      "columnId": self.columns[0].id, "cardId": self.cards[0].id}
        if name in board:
            return board[name]
        if name == "pluginId":
            return self._need(self.plugin_id, "plugin_id")
        if name == "entityId":
            return self._need(self.entity_id, "entity_id")
        return self._need(self.data_key, "plugin data (op 25 with the profile's body)")

    @staticmethod
    def _need(value: str | None, what: str) -> str:
        if value is None:
            pytest.skip(f"not assessed: {what}")
        return value

    def _protected(self, number: int, path: dict[str, str]) -> bool:
        """Whether a delete would take a resource of the arena itself."""
        board = {self.project.id, self.row.id, *(c.id for c in self.columns),
                 *(c.id for c in self.cards)}
        keys = {k for k in (self.metadata[0] if self.metadata else None, self.data_key) if k}
        target = DELETED_BY[number].id_parameter
        if number == 24:
            return False  # the arena does not depend on a plugin being attached
        return path.get(target) in (keys if target == "key" else board)

    def _victim(self, number: int) -> dict[str, str]:
        """A resource made to be deleted by operation `number`, until a delete succeeds."""
        if number not in self._victims:
            self._victims[number] = self._make_victim(number)
        return self._victims[number][0]

    def _make_victim(self, number: int) -> tuple[dict[str, str], Entry | None]:
        make, p = self.make, self.project
        if number == 4:
            made = make["project"]()
            return {"projectId": made.id}, made.entry
        if number == 9:
            made = make["row"](p)
            return {"projectId": p.id, "rowId": made.id}, made.entry
        if number == 14:
            made = make["column"](p, self.row)
            return {"projectId": p.id, "columnId": made.id}, made.entry
        if number == 17:
            made = make["card"](p, self.columns[0])
            return {"projectId": p.id, "cardId": made.id}, made.entry
        if number == 22:
            key = unique("meta")
            if not self._setup_call(21, "add_card_metadata", dict(key=key, value="v"),
                                    projectId=p.id, cardId=self.cards[0].id):
                pytest.skip("not assessed: card metadata for op 22 (op 21 failed)")
            return {"projectId": p.id, "cardId": self.cards[0].id, "key": key}, None
        plugin = self._need(self.plugin_id, "plugin_id")
        if number == 24:
            if not self._setup_call(23, "attach_plugin", self._ids(), projectId=p.id,
                                    pluginId=plugin):
                pytest.skip("not assessed: an attached plugin for op 24 (op 23 failed)")
            return {"projectId": p.id, "pluginId": plugin}, None
        key = unique("data")
        if not self._put_data(key):
            pytest.skip("not assessed: plugin data for op 26 (op 25 failed)")
        return {"pluginId": plugin, "entityId": self.entity_id or "", "key": key}, None

    def _place_entity(self, case: Any) -> None:
        """Op 27's entityId goes where the profile says (the spec declares the query)."""
        place = self.profile.data.get("plugin_data_entity_id") or {}
        entity = self._need(self.entity_id, "entity_id")
        if place.get("in") == "header":
            case.query = {}
            case.headers = {**(case.headers or {}), place["name"]: entity}
        else:
            case.query = {place.get("name", "entityId"): entity}

    def _profile_body(self, number: int, path: dict[str, str]) -> Any:
        """The profile's body for a positive case, or None to keep the generated (open) one."""
        name = spec.operation(number).profile_body
        ids = self._ids()
        project = path.get("projectId", ids.get("project_id"))
        values: dict[str, Any] = ids | {
            "name": unique("prop"), "alias": unique("alias"), "key": unique("key"),
            "value": "bc-value", "project_id": project, "plugin_id": self.plugin_id,
            "entity_id": self.entity_id, "card_id": path.get("cardId", ids.get("card_id")),
            "row_id": path.get("rowId", ids.get("row_id"))}
        if self.profile.has("exchange_code"):
            values["code"] = self.profile.get("exchange_code")
        try:
            values |= self._read_values(number, project, path)
            body = self.body(name, values)
        except (NotAssessed, ConfigError, LookupError):
            return None
        if number in (18, 19) and isinstance(body, dict) and values.get("after_card_id") \
                and not {"afterCardId", "beforeCardId"} & set(body):
            body["afterCardId"] = values["after_card_id"]  # a server may require an anchor
        return body

    def _read_values(self, number: int, project: str, path: dict[str, str]) -> dict[str, Any]:
        """Values a body needs from the project as it is now (rows, columns, cards); a
        LookupError (or NotAssessed) when the answer does not show them."""
        if number not in (8, 12, 18, 19, 20):
            return {}
        if project == self.project.id and number in (18, 19, 20):
            values = {"card_ids": [self.cards[0].id], "after_card_id": self.cards[2].id,
                      "before_card_id": self.cards[1].id}
            if self.metadata:
                values |= {"key": self.metadata[0], "value": self.metadata[1]}
            return values
        try:
            view = self.api.call(3, projectId=project).json()
        except AssertionError as exc:  # not JSON
            raise LookupError("op 3 answered no JSON") from exc
        if not isinstance(view, dict):
            raise LookupError("op 3 answered no object")
        rows = view.get("rows")
        if number == 8:
            return {"row_ids": _rotated(ids_in_order(rows, "rows"))}
        if number == 12:
            row = next((r for r in walk(rows) if str(r.get("id")) == path.get("rowId")), None)
            if row is None:
                raise LookupError(f"row {path.get('rowId')} is not in the project")
            return {"column_ids": _rotated(ids_in_order(row.get("columns"), "columns"))}
        cards = ids_in_order(view.get("cards"), "cards")
        columns = [str(r["id"]) for r in walk(rows) if "id" in r and "columns" not in r]
        values: dict[str, Any] = {"card_ids": cards[:1],
                                  "after_card_id": cards[-1] if len(cards) > 1 else None,
                                  "before_card_id": cards[1] if len(cards) > 1 else None,
                                  "other_column_id": columns[-1]}
        if number == 19:
            entries = [e for record in walk(view.get("cards"))
                       if isinstance(record.get("metadata"), list)
                       for e in record["metadata"] if isinstance(e, dict) and "id" in e]
            if not entries:
                raise LookupError("no card of the project has metadata")
            values |= {"key": entries[0]["id"], "value": entries[0].get("value")}
        return values

    # --- calling and judging ---------------------------------------------------------------

    def call_kwargs(self) -> dict[str, Any]:
        return {"base_url": self.target.base_url, "headers": {KEY_HEADER: self.target.api_key},
                "timeout": self.target.timeout, "session": self.session}

    def after_call(self, case: Any, response: Any) -> None:
        """Record what a 2xx created (ledger) or deleted (victims)."""
        if not 200 <= response.status_code < 300:
            return
        number = operation_number(case)
        path = {k: str(v) for k, v in (case.path_parameters or {}).items()}
        if number in DELETES and number in self._victims and self._victims[number][0] == path:
            params, entry = self._victims.pop(number)
            if entry is not None:
                self.ledger.forget(entry)
        elif number in (2, 15):
            self._record_created(number, path, response)
        elif number == 25:
            self._record_data(path)

    def _record_created(self, number: int, path: dict[str, str], response: Any) -> None:
        try:
            body = response.json()
        except ValueError:
            return
        if not isinstance(body, dict) or "id" not in body:
            return
        if number == 2:
            self.ledger.add("project", projectId=str(body["id"]))
            return
        parent = next((e for e in reversed(self.ledger.entries) if e.kind == "project"
                       and e.params.get("projectId") == path.get("projectId")), None)
        self.ledger.add("card", parent, projectId=path["projectId"], cardId=str(body["id"]))

    def checks_for(self, number: int, info: CaseInfo) -> list[Callable[..., Any]]:
        found = [not_a_server_error, status_code_conformance]
        if spec.operation(number).body_shown:
            found += [content_type_conformance, response_schema_conformance]
        else:
            found.append(json_payload)
        found += [BOARDCERT_CHECKS[f"boardcert_{c.name}"][0] for c in checks.checks_for(number)]
        if spec.operation(number).auth_required and number not in self._auth_confirmed:
            found.append(self.key_check)  # two probes per operation are enough
        if info.rejection:
            found.append(negative_data_rejection)
        if info.acceptance:
            found.append(positive_data_acceptance)
        return found

    def validate(self, case: Any, response: Any, info: CaseInfo) -> None:
        number = operation_number(case)
        if number is None:
            return
        chosen = self.checks_for(number, info)
        try:
            case.validate_response(response, checks=chosen,
                                   headers={KEY_HEADER: self.target.api_key},
                                   transport_kwargs={"timeout": self.target.timeout})
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
        found = sorted(found, key=lambda item: item[0])
        more = f" (and {len(found) - 1} more check{'s' if len(found) > 2 else ''})" \
            if len(found) > 1 else ""
        lines = [f"[{found[0][0]}] op {number} {op.label} ({op.operation_id}): "
                 f"{_what(found[0][1])}{more}"]
        for req, failure in found:
            lines.append(f"  [{req}] {_check_name(failure)}: {failure.title}")
            if failure.message:
                lines += [f"      {line}" for line in failure.message.splitlines()]
        ids = sorted({req for req, _ in found})
        message = Redactor([self.target.api_key]).text("\n".join(lines))
        sent, probe = self.key_check.probes.pop(id(response), (None, None))
        shown = [self.exchange(response)]
        if sent is response:  # the key check's request without the key (or a wrong one)
            shown.append(self.exchange(probe))
        return _violation(ids[0])(message, ids, shown)

    def exchange(self, response: Any) -> Exchange:
        """A schemathesis response as an exchange: the request with the key masked, the
        response as it came (masked when shown)."""
        request, redactor = response.request, Redactor([self.target.api_key])
        body = request.body.encode() if isinstance(request.body, str) else request.body
        elapsed = response.elapsed  # seconds; a timedelta from requests (the key check's)
        return Exchange(
            method=request.method, url=redactor.text(request.url),
            request_headers={k: redactor.header(v) for k, v in request.headers.items()},
            request_body=recorded_body(body, redactor) if body else None,
            status=response.status_code,
            headers={k: v if isinstance(v, str) else ", ".join(v)
                     for k, v in response.headers.items()},
            content=response.content, redactor=redactor,
            elapsed=elapsed.total_seconds() if hasattr(elapsed, "total_seconds") else elapsed)


def _what(failure: Failure) -> str:
    """What is wrong, in one line: a boardcert check's own sentence, else schemathesis's title
    and the first line of its message."""
    first = next((line.strip() for line in (failure.message or "").splitlines()
                  if line.strip()), "")
    if isinstance(failure, CustomFailure) and first:
        return first
    return f"{failure.title}: {first}" if first else failure.title


def _mix(profile_body: Any, generated: Any) -> Any:
    """What a positive case of an operation whose body is not shown sends, chosen by the
    generated body (so Hypothesis replays it): mostly the profile's body, so the call reaches
    the operation and its 200 is judged; sometimes the profile's body with a generated JSON
    value in its first string field; sometimes the generated, open body as it is. The last
    two find 5xx on input the server must refuse; no check judges a 4xx to them."""
    value = None if isinstance(generated, NotSet) else generated
    seed = zlib.crc32(json.dumps(value, sort_keys=True, default=repr).encode()) % 8
    if seed == 0:
        return generated
    if seed == 1 and isinstance(profile_body, dict):
        field_name = next((k for k, v in profile_body.items() if isinstance(v, str)), None)
        if field_name is not None:
            return {**profile_body, field_name: value}
    return profile_body


def _rotated(ids: list[str]) -> list[str]:
    return ids[1:] + ids[:1]


# --- the state machine ---------------------------------------------------------------------

PROFILE_NEEDS = {23: ("plugin_id",), 24: ("plugin_id",), 25: ("plugin_id", "entity_id"),
                 26: ("plugin_id", "entity_id"), 27: ("plugin_id", "entity_id"),
                 28: ("plugin_id", "entity_id")}


def not_assessable(profile: Profile | None) -> list[int]:
    """Operations whose path values the profile lacks: their items are skipped "not assessed",
    and the state machine leaves them out (a skip there would skip every scenario)."""
    if profile is None:
        return []
    return [n for n, keys in PROFILE_NEEDS.items() if not all(profile.has(k) for k in keys)]


def state_machine(schema: Any) -> type:
    """The links of spec/openapi.yaml as a schemathesis state machine over the arena, choosing
    its rules only from what Hypothesis drew (see `_answer_independent`)."""
    left_out = [spec.operation(n).operation_id for n in not_assessable(RUN.profile)]
    if left_out:
        schema = schema.exclude(operation_id=left_out)
    base = _answer_independent(schema.as_state_machine(), root=2)

    class BoardWorkflow(base):  # type: ignore[misc, valid-type]
        arena: Arena | None = None
        item: pytest.Item | None = None  # the test's, where `answered` notes what it checked

        def step(self, input: Any) -> Any:
            self._linked = frozenset(name for location, name in input.applied_parameters
                                     if location == ParameterLocation.PATH and name)
            return super().step(input)

        def before_call(self, case: Any) -> None:
            self._info = CaseInfo.of(case)
            self.arena.prepare(case, self._info, getattr(self, "_linked", frozenset()))

        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return self.arena.call_kwargs()

        def after_call(self, response: Any, case: Any) -> None:
            super().after_call(response, case)
            self.arena.after_call(case, response)

        def validate_response(self, response: Any, case: Any, additional_checks: Any = None,
                              **kwargs: Any) -> None:
            if self.item is not None:
                answered(self.item, operation_number(case), response.status_code)
            self.arena.validate(case, response, self._info)

    budget = RUN.budget
    BoardWorkflow.TestCase.settings = hypothesis.settings(
        BoardWorkflow.TestCase.settings, max_examples=budget.scenarios,
        stateful_step_count=budget.steps, database=None)
    return BoardWorkflow


def stateful_operations() -> list[int]:
    """The operations the links of spec/openapi.yaml connect, but those the state machine
    leaves out (`not_assessable`): the stateful test does not speak for them."""
    left_out = not_assessable(RUN.profile)
    return sorted({n for op in spec.operations().values() if op.links
                   for n in (op.number, *op.links)} - set(left_out))


def workflow_requirements() -> list[str]:
    """What the stateful test names: only requirements the operations' own items also name, so
    that a stateful test that is skipped leaves no requirement unassessed."""
    return list(dict.fromkeys(req for n in stateful_operations()
                              for req in requirement_ids(n, negative=False)))


NOT_REPLAYABLE = ("not assessed: the stateful scenarios could not be replayed deterministically "
                  "against this server")


@contextmanager
def replayable() -> Iterator[None]:
    """Around the stateful test: an error of Hypothesis's own machinery (a scenario that did not
    replay the same way, no scenario satisfiable, a health check) is a skip, never a verdict on
    the server. A check that failed still fails (Hypothesis raises it, not these)."""
    try:
        yield
    except (FlakyStrategyDefinition, Unsatisfiable, FailedHealthCheck) as exc:
        pytest.skip(f"{NOT_REPLAYABLE} ({type(exc).__name__}: {str(exc).splitlines()[0]})")


def _answer_independent(machine: type, root: int) -> type:
    """schemathesis's machine, reshaped so that which rules it can choose never depends on what
    the server answered.

    Hypothesis replays the start of earlier scenarios when it makes new ones, and stops with
    FlakyStrategyDefinition when the same draws meet a different set of valid rules. In
    schemathesis's machine that set follows the server: a producer's answer enters the bundle of
    its links only if its status is the link's (200), a link draws its case with or without the
    ids the answer carried, and a root may be called again only if its answer fed a link. The
    server state left by earlier scenarios changes those answers (a 409 to a second attach, a
    429, ...). Here every call of a producer enters its bundle, a link's case is drawn alike
    whatever the answer and gets the answer's ids afterwards (only from a 2xx; else the arena
    points it at the board), and every root that has links counts as productive.

    Also adds operation `root` as an entry point: schemathesis's dependency analysis cannot see
    where organizationId comes from (op 1's inner shapes are not shown), so it never starts at
    op 2, the only way to a project of the scenario's own. This uses schemathesis internals; if
    they change, the machine stays schemathesis's own and `replayable()` keeps the verdict."""
    try:
        from hypothesis.stateful import RULE_MARKER, Bundle
        from schemathesis.core.parameters import CONTAINER_TO_LOCATION
        from schemathesis.core.result import Ok
        from schemathesis.core.transforms import UNRESOLVABLE
        from schemathesis.generation.feedback import NO_FEEDBACK
        from schemathesis.generation.stateful.state_machine import StepInput
        from schemathesis.specs.openapi import stateful as openapi_stateful
        from schemathesis.specs.openapi.expressions import MultiMatch

        def follow(link: Any, drawn: tuple[Any, Any]) -> Any:
            """A link's step: the case drawn for its target, with the ids of the producer's
            answer put in where the link says, if that answer was a 2xx and carries them."""
            output, case = drawn
            transition = link.extract(output)
            applied: list[tuple[ParameterLocation, str | None]] = []
            if 200 <= output.response.status_code < 300:
                for container, extracted in transition.parameters.items():
                    for name, param in extracted.items():
                        value = param.value.ok() if isinstance(param.value, Ok) else None
                        if isinstance(value, MultiMatch):
                            value = value.values[0] if value.values else None
                        if value is None or value is UNRESOLVABLE:
                            continue
                        setattr(case, container, {**(getattr(case, container) or {}), name: value})
                        applied.append((CONTAINER_TO_LOCATION[container], name))
            return StepInput(case=case, transition=transition, applied_parameters=applied)

        schema, bundles = machine.schema, machine.bundles
        catch_all = Bundle("catch_all")

        def cases(operation: Any) -> Any:
            modes = schema.config.generation_for(operation=operation, phase="stateful").modes
            return openapi_stateful._step_case_strategy(operation, modes, feedback=NO_FEEDBACK)

        namespace: dict[str, Any] = {  # schemathesis's link rules, replaced below
            name: None for name, value in vars(machine).items()
            if getattr(getattr(value, RULE_MARKER, None), "bundles", None)}
        producers: dict[str, str] = {}
        for found in machine._transitions.operations.values():
            for link in found.incoming:
                bundle_name = f"{link.source.label} -> {link.status_code}"
                producers.setdefault(link.source.label, bundle_name)
                name = "LINK__" + openapi_stateful.normalize_name(link.full_name)
                namespace[name] = openapi_stateful.transition(
                    name=name, target=catch_all, source_bundle=bundles[bundle_name],
                    precondition=openapi_stateful.is_transition_allowed(
                        link.source.label, link.target.label),
                    input=st.tuples(bundles[bundle_name], cases(link.target)).map(
                        partial(follow, link)))
        op = spec.operation(root)
        operation = schema[op.path][op.method]
        name = f"RANDOM__{op.operation_id}"
        namespace[name] = openapi_stateful.transition(
            name=name, target=catch_all, precondition=openapi_stateful.is_root_allowed(op.label),
            input=cases(operation).map(StepInput.initial))
        namespace |= {"root_rules": machine.root_rules | {name},
                      "_root_labels": machine._root_labels | {op.label},
                      "_producers": producers}
    except (ImportError, AttributeError, TypeError, KeyError):
        return machine

    def target_for(self: Any, result: Any) -> str | None:
        return self._producers.get(result.case.operation.label)

    def feeds_later_steps(self: Any, output: Any) -> bool:
        return output.case.operation.label in self._producers

    namespace |= {"_get_target_for_result": target_for, "_feeds_later_steps": feeds_later_steps}
    return type(machine.__name__, (machine,), namespace)

