"""Response checks shared by the explicit suites and the schemathesis tests.

Each check reads the shape it enforces from spec/openapi.yaml (the 200 response schema of the
operation) and names the requirement it proves. A check returns the problems it found, as
sentences (`Problem`: each also says, as data, where in the body it stands, for the failure's
reproduction); `assert_ok` turns them into one `Violation` naming each broken requirement.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from boardcert.errors import Violation
from boardcert.interface import conditions as when
from boardcert.interface import spec

PROJECT_FIELDS = ("id", "name", "createdAt", "updatedAt", "rows", "cards", "plugins")


class Problem(str):
    """A problem's sentence, with the conditions (boardcert.interface.conditions, without the
    exchange they read) that make it."""

    conditions: tuple[when.Condition, ...] = ()

    @classmethod
    def of(cls, text: str, *conditions: when.Condition) -> Problem:
        found = cls(text)
        found.conditions = tuple({k: v for k, v in c.items() if k != "on"} for c in conditions)
        return found


@dataclass(frozen=True)
class Check:
    name: str
    requirement: str
    schema: str  # the component schema of the responses it applies to
    problems: Callable[[Any], list[str]]
    of_schema: bool = False  # its requirement is what a body breaking `schema` breaks
    removed: str | None = None  # the removed property whose absence it checks

    def __repr__(self) -> str:
        return f"<Check {self.name} ({self.requirement})>"


@cache
def _registry() -> Registry:
    resource = Resource.from_contents(spec.document(), default_specification=DRAFT202012)
    return Registry().with_resource("urn:boardcert:openapi", resource)


@cache
def _fast(schema_name: str) -> Any:
    """The component schema compiled by jsonschema-rs (schemathesis's dependency), or None."""
    try:
        import jsonschema_rs

        return jsonschema_rs.Draft202012Validator({
            "$ref": f"#/components/schemas/{schema_name}",
            "components": spec.document()["components"]})
    except Exception:  # noqa: BLE001 - not installed or cannot compile it: jsonschema alone
        return None


def schema_errors(body: Any, schema_name: str) -> list[Problem]:
    """Violations of a component schema of spec/openapi.yaml, as readable sentences. A body
    jsonschema-rs finds valid has none (9 µs a Card, where jsonschema takes 0.3 ms: the proxy
    judges every answer); only one it rejects goes through jsonschema, which names the
    problems (and has the last word), as the compliance report is validated."""
    fast = _fast(schema_name)
    try:
        if fast is not None and fast.is_valid(body):
            return []
    except Exception:  # noqa: BLE001 - a value it cannot take: jsonschema judges
        pass
    validator = jsonschema.Draft202012Validator(
        {"$ref": f"urn:boardcert:openapi#/components/schemas/{schema_name}"},
        registry=_registry(),
    )
    return [Problem.of(_sentence(e), *_conditions(e))
            for e in sorted(validator.iter_errors(body), key=lambda e: e.path)]


def _sentence(error: jsonschema.ValidationError) -> str:
    where = "".join(f"[{p!r}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return f"body{where}: {error.message}"


def _conditions(error: jsonschema.ValidationError) -> list[when.Condition]:
    """What the schema error is, where: a missing property, a value of another type, else the
    value that broke it (a large one: none, the reproduction compares the whole answer)."""
    at = list(error.absolute_path)
    if error.validator == "required" and isinstance(error.instance, dict):
        return [when.missing(None, [*at, name]) for name in error.validator_value
                if name not in error.instance]
    if error.validator == "type":
        return [when.wrong_type(None, at, error.validator_value)]
    if len(repr(error.instance)) <= 2000:
        return [when.same_value(None, at, error.instance)]
    return []


# --- the checks ------------------------------------------------------------------------------

def _project_top_level(body: Any) -> list[str]:
    if not isinstance(body, dict):
        return [_not_an_object("a Project", body)]
    missing = [f for f in PROJECT_FIELDS if f not in body]
    return [Problem.of(f"Project field {f!r} is not at the top level of the response",
                       when.missing(None, [f])) for f in missing]


def _not_an_object(what: str, body: Any) -> Problem:
    return Problem.of(f"{what} must be a JSON object, got {type(body).__name__}",
                      when.wrong_type(None, [], "object"))


def _project_not_wrapped(body: Any) -> list[str]:
    """The removed shape: the Project's fields missing at the top level and found inside an
    inner property. An embedded record with an id and a name of its own is an extra field."""
    if not isinstance(body, dict):
        return []
    missing = [f for f in PROJECT_FIELDS if f not in body]
    if not missing:
        return []
    return [
        Problem.of(f"the Project fields {missing} are not at the top level but inside the inner "
                   f"property {key!r} (the removed pre-2024-05-19 shape)",
                   *(when.missing(None, [f]) for f in missing))
        for key, value in body.items()
        if isinstance(value, dict) and all(f in value for f in missing)
    ]


def _card_url_flair(body: Any) -> list[str]:
    if not isinstance(body, dict):
        return [_not_an_object("a Card", body)]
    return [Problem.of(f"Card has no {f!r} property", when.missing(None, [f]))
            for f in ("createdFlair", "url") if f not in body]


CARD_RECORDS = ("plugins", "projects")  # section 2, "Other records": shapes not shown


def _card_types(body: Any) -> list[Problem]:
    return [e for e in schema_errors(body, "Card")
            if not any(f"{name!r} is a required property" in e for name in CARD_RECORDS)]


def _card_records(body: Any) -> list[str]:
    if not isinstance(body, dict):
        return []  # card_url_flair reports a Card that is not an object
    return [Problem.of(f"the Card-returning response has no {name!r} property",
                       when.missing(None, [name])) for name in CARD_RECORDS if name not in body]


def _rows(body: Any) -> list[str]:
    if isinstance(body, list):
        return [Problem.of("op 6 answered a bare list; the interface requires an object with "
                           "'rows'", when.wrong_type(None, [], "object"))]
    return schema_errors(body, "RowsResponse")


def _users_me(body: Any) -> list[str]:
    return [e for e in schema_errors(body, "UsersMe") if "accessTokens" not in e]


def _absent(name: str, requirement: str, schema: str, property_name: str,
            records: tuple[str, ...] = ()) -> Check:
    """The check that the removed property `property_name` is absent (`_no_key`)."""
    return Check(name, requirement, schema, _no_key(property_name, records),
                 removed=property_name)


def _no_key(name: str, records: tuple[str, ...] = ()) -> Callable[[Any], list[str]]:
    """The removed property `name` is absent from the response object and from the records
    named `records` inside it, if present (other records are not shown: they may carry it)."""
    def problems(body: Any) -> list[str]:
        if not isinstance(body, dict):
            return []
        found = [[name]] if name in body else []
        found += [[record, name] for record in records
                  if isinstance(body.get(record), dict) and name in body[record]]
        return [Problem.of(f"the removed property {name!r} is present at "
                           f"body.{'.'.join(where)}", when.present(None, where))
                for where in found]
    return problems


def _plugins(body: Any) -> list[str]:
    return schema_errors(body, "PluginsResponse")


def _user_token(body: Any) -> list[str]:
    return [e for e in schema_errors(body, "ExchangeCodeResponse") if "accessToken" not in e]


CHECKS: tuple[Check, ...] = (
    Check("project_top_level", "PROJECT-TOP-LEVEL", "Project", _project_top_level, True),
    Check("project_not_wrapped", "PROJECT-NOT-WRAPPED", "Project", _project_not_wrapped),
    Check("card_url_flair", "CARD-URL-FLAIR", "Card", _card_url_flair),
    Check("card_field_types", "CARD-FIELD-TYPES", "Card", _card_types, True),
    Check("card_plugins_projects", "CARD-PLUGINS-PROJECTS", "Card", _card_records),
    Check("rows_property", "ROWS-PROPERTY-REQUIRED", "RowsResponse", _rows, True),
    Check("users_me_properties", "USERS-ME-PROPERTIES", "UsersMe", _users_me, True),
    _absent("no_access_tokens", "USERS-ME-NO-ACCESS-TOKENS", "UsersMe", "accessTokens",
            ("user",)),
    Check("plugins_property", "PLUGINS-PROPERTY", "PluginsResponse", _plugins, True),
    Check("user_token", "EXCHANGE-USER-TOKEN", "ExchangeCodeResponse", _user_token, True),
    _absent("no_access_token", "EXCHANGE-NO-ACCESS-TOKEN", "ExchangeCodeResponse",
            "accessToken"),
)
# What a response breaking a component schema breaks (schemathesis's schema check names no
# requirement), and each schema's removed property with the requirement of its absence.
SCHEMA_REQUIREMENT = {c.schema: c.requirement for c in CHECKS if c.of_schema}
REMOVED_PROPERTY = {c.schema: (c.removed, c.requirement) for c in CHECKS if c.removed}


def checks_for(number: int, requirement: str | None = None) -> list[Check]:
    """The checks that apply to an operation's 200 response (optionally of one requirement)."""
    schema_name = spec.operation(number).response_schema
    return [c for c in CHECKS if c.schema == schema_name
            and (requirement is None or c.requirement == requirement)]


def problems(number: int, body: Any, requirement: str | None = None) -> list[tuple[Check, str]]:
    return [(c, p) for c in checks_for(number, requirement) for p in c.problems(body)]


def assert_ok(number: int, body: Any, evidence: Any = None, requirement: str | None = None) -> None:
    """Fail with every problem of an operation's 200 response body and the requirements they
    break; `evidence` is the exchange (a text, as older suites pass, is left out: the test's
    last exchanges are shown instead)."""
    found = problems(number, body, requirement)
    if found:
        exchanges = [evidence] if hasattr(evidence, "as_dict") else []
        raise Violation("\n".join(f"[{c.requirement}] {p}" for c, p in found),
                        [c.requirement for c, _ in found], exchanges,
                        [c for _, p in found for c in conditions(p, evidence)])


def conditions(problem: str, exchange: Any) -> list[when.Condition]:
    """What makes a problem, on the exchange whose body has it (a problem that says no more
    than its sentence: the same answer again)."""
    if not hasattr(exchange, "as_dict"):
        return []
    found = getattr(problem, "conditions", ())
    return [{**c, "on": exchange} for c in found] or [when.answer(exchange)]
