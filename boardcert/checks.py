"""Response checks shared by the explicit suites and the schemathesis tests.

Each check reads the shape it enforces from spec/openapi.yaml (the 200 response schema of the
operation) and names the requirement it proves. A check returns the problems it found, as
sentences; `assert_ok` turns them into one `Violation` naming each broken requirement.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from boardcert import spec
from boardcert.errors import Violation

PROJECT_FIELDS = ("id", "name", "createdAt", "updatedAt", "rows", "cards", "plugins")


@dataclass(frozen=True)
class Check:
    name: str
    requirement: str
    schema: str  # the component schema of the responses it applies to
    problems: Callable[[Any], list[str]]

    def __repr__(self) -> str:
        return f"<Check {self.name} ({self.requirement})>"


@cache
def _registry() -> Registry:
    resource = Resource.from_contents(spec.document(), default_specification=DRAFT202012)
    return Registry().with_resource("urn:boardcert:openapi", resource)


def schema_errors(body: Any, schema_name: str) -> list[str]:
    """Violations of a component schema of spec/openapi.yaml, as readable sentences."""
    validator = jsonschema.Draft202012Validator(
        {"$ref": f"urn:boardcert:openapi#/components/schemas/{schema_name}"},
        registry=_registry(),
    )
    return [_sentence(e) for e in sorted(validator.iter_errors(body), key=lambda e: e.path)]


def _sentence(error: jsonschema.ValidationError) -> str:
    where = "".join(f"[{p!r}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return f"body{where}: {error.message}"


# --- the checks ------------------------------------------------------------------------------

def _project_top_level(body: Any) -> list[str]:
    if not isinstance(body, dict):
        return [f"a Project must be a JSON object, got {type(body).__name__}"]
    missing = [f for f in PROJECT_FIELDS if f not in body]
    return [f"Project field {f!r} is not at the top level of the response" for f in missing]


def _project_not_wrapped(body: Any) -> list[str]:
    """The removed shape: the Project's fields missing at the top level and found inside an
    inner property. An embedded record with an id and a name of its own is an extra field."""
    if not isinstance(body, dict):
        return []
    missing = [f for f in PROJECT_FIELDS if f not in body]
    if not missing:
        return []
    return [
        f"the Project fields {missing} are not at the top level but inside the inner property "
        f"{key!r} (the removed pre-2024-05-19 shape)"
        for key, value in body.items()
        if isinstance(value, dict) and all(f in value for f in missing)
    ]


def _card_url_flair(body: Any) -> list[str]:
    if not isinstance(body, dict):
        return [f"a Card must be a JSON object, got {type(body).__name__}"]
    return [f"Card has no {f!r} property" for f in ("createdFlair", "url") if f not in body]


CARD_RECORDS = ("plugins", "projects")  # section 2, "Other records": shapes not shown


def _card_types(body: Any) -> list[str]:
    return [e for e in schema_errors(body, "Card")
            if not any(f"{name!r} is a required property" in e for name in CARD_RECORDS)]


def _card_records(body: Any) -> list[str]:
    if not isinstance(body, dict):
        return []  # card_url_flair reports a Card that is not an object
    return [f"the Card-returning response has no {name!r} property" for name in CARD_RECORDS
            if name not in body]


def _rows(body: Any) -> list[str]:
    if isinstance(body, list):
        return ["op 6 answered a bare list; the interface requires an object with 'rows'"]
    return schema_errors(body, "RowsResponse")


def _users_me(body: Any) -> list[str]:
    return [e for e in schema_errors(body, "UsersMe") if "accessTokens" not in e]


def _no_key(name: str, records: tuple[str, ...] = ()) -> Callable[[Any], list[str]]:
    """The removed property `name` is absent from the response object and from the records
    named `records` inside it, if present (other records are not shown: they may carry it)."""
    def problems(body: Any) -> list[str]:
        if not isinstance(body, dict):
            return []
        found = [f"body.{name}"] if name in body else []
        found += [f"body.{record}.{name}" for record in records
                  if isinstance(body.get(record), dict) and name in body[record]]
        return [f"the removed property {name!r} is present at {where}" for where in found]
    return problems


def _plugins(body: Any) -> list[str]:
    return schema_errors(body, "PluginsResponse")


def _user_token(body: Any) -> list[str]:
    return [e for e in schema_errors(body, "ExchangeCodeResponse") if "accessToken" not in e]


CHECKS: tuple[Check, ...] = (
    Check("project_top_level", "PROJECT-TOP-LEVEL", "Project", _project_top_level),
    Check("project_not_wrapped", "PROJECT-NOT-WRAPPED", "Project", _project_not_wrapped),
    Check("card_url_flair", "CARD-URL-FLAIR", "Card", _card_url_flair),
    Check("card_field_types", "CARD-FIELD-TYPES", "Card", _card_types),
    Check("card_plugins_projects", "CARD-PLUGINS-PROJECTS", "Card", _card_records),
    Check("rows_property", "ROWS-PROPERTY-REQUIRED", "RowsResponse", _rows),
    Check("users_me_properties", "USERS-ME-PROPERTIES", "UsersMe", _users_me),
    Check("no_access_tokens", "USERS-ME-NO-ACCESS-TOKENS", "UsersMe",
          _no_key("accessTokens", ("user",))),
    Check("plugins_property", "PLUGINS-PROPERTY", "PluginsResponse", _plugins),
    Check("user_token", "EXCHANGE-USER-TOKEN", "ExchangeCodeResponse", _user_token),
    Check("no_access_token", "EXCHANGE-NO-ACCESS-TOKEN", "ExchangeCodeResponse",
          _no_key("accessToken")),
)


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
                        [c.requirement for c, _ in found], exchanges)
