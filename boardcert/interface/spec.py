"""The OpenAPI document, read once: its operations by number, with what callers need of each
(callers read `Operation`, not the document's paths)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from boardcert.paths import OPENAPI, read_yaml

METHODS = ("get", "put", "post", "patch", "delete")
ANCHORS = ("afterCardId", "beforeCardId")  # a moved card's neighbours (rule 3 of section 4)


@dataclass(frozen=True)
class Operation:
    number: int
    method: str  # upper case
    path: str
    operation_id: str
    auth_required: bool  # X-API-Key listed for it in section 5
    takes_body: bool = False  # has a requestBody (shown or not)
    body_schema_shown: bool = False  # the interface shows the request body's shape
    profile_body: str | None = None  # x-profile-body: the profile's `bodies.<name>` it sends
    response_schema: str | None = None  # component schema of the 200 body; None: not shown
    links: tuple[int, ...] = ()  # operations the 200 response's links lead to
    body_properties: tuple[str, ...] = ()  # the properties its request body's schema names
    # x-profile-key of its parameters: the profile's values it needs (plugin_id, entity_id)
    profile_keys: tuple[str, ...] = ()
    # x-profile-place: (parameter, profile key placing it) for one whose position is not shown
    placed: tuple[str, str] | None = None
    # x-project-values: what its profile body names of the project as it is now (read first)
    project_values: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def anchored(self) -> bool:
        """Its body names the cards next to which a moved card goes (ops 18, 19)."""
        return set(ANCHORS) <= set(self.body_properties)

    @property
    def path_parameters(self) -> tuple[str, ...]:
        """The parameters of its path, in order."""
        return tuple(re.findall(r"{(\w+)}", self.path))

    @property
    def body_shown(self) -> bool:
        """The interface shows the 200 response's body (JSON-RESPONSES applies)."""
        return self.response_schema is not None


@cache
def document() -> dict[str, Any]:
    return read_yaml(OPENAPI)


@cache
def operations() -> dict[int, Operation]:
    """All operations of spec/openapi.yaml, keyed by their number in section 4."""
    raw = {int(op["x-operation"]): (method, path, op) for path, item in document()["paths"].items()
           for method in METHODS if (op := item.get(method)) is not None}
    numbers = {op["operationId"]: n for n, (_, _, op) in raw.items()}
    found: dict[int, Operation] = {}
    for number, (method, path, op) in sorted(raw.items()):
        security = op.get("security", document().get("security", []))
        ok = _response(op)
        parameters = _parameters(op)
        placed = next(((p["name"], p["x-profile-place"]) for p in parameters
                       if "x-profile-place" in p), None)
        found[number] = Operation(
            number, method.upper(), path, op["operationId"],
            auth_required=bool(security) and all(scheme for scheme in security),
            takes_body="requestBody" in op,
            body_schema_shown="content" in op.get("requestBody", {}),  # not the NotShown body
            profile_body=op.get("x-profile-body"),
            response_schema=_schema_name(ok),
            links=tuple(numbers[link["operationId"]] for link in (ok.get("links") or {}).values()),
            body_properties=tuple(_request_schema(op).get("properties", {})),
            profile_keys=tuple(p["x-profile-key"] for p in parameters if "x-profile-key" in p),
            placed=placed, project_values=tuple(op.get("x-project-values", ())))
    return found


@cache
def profile_parameters() -> dict[str, str]:
    """Each parameter the profile supplies (x-profile-key), by name: {"pluginId": "plugin_id"}."""
    return {p["name"]: p["x-profile-key"] for path in document()["paths"].values()
            for method in METHODS if method in path
            for p in _parameters(path[method]) if "x-profile-key" in p}


@cache
def labels() -> dict[str, int]:
    """Each operation's number by its label, as schemathesis names it ("GET /projects")."""
    return {op.label: n for n, op in operations().items()}


def operation(number: int) -> Operation:
    return operations()[number]


@cache
def name_limit() -> tuple[int, int]:
    """(operation, maximum length) of section 8's one limit, the card name's: the operation
    whose request body's `name` declares a `maxLength` (op 16), and that maxLength."""
    for number, op in operations().items():
        raw = document()["paths"][op.path][op.method.lower()]
        limit = _request_schema(raw).get("properties", {}).get("name", {}).get("maxLength")
        if limit is not None:
            return number, int(limit)
    raise LookupError("spec/openapi.yaml declares no maxLength of a name")


def _resolved(item: dict[str, Any], section: str) -> dict[str, Any]:
    """`item`, or the component of `section` its $ref names."""
    if "$ref" in item:
        return document()["components"][section][item["$ref"].rsplit("/", 1)[-1]]
    return item


def _parameters(op: dict[str, Any]) -> list[dict[str, Any]]:
    return [_resolved(p, "parameters") for p in op.get("parameters", [])]


def _request_schema(op: dict[str, Any]) -> dict[str, Any]:
    """The schema of the request body, where the spec shows one ({} where not)."""
    body = _resolved(op.get("requestBody", {}), "requestBodies")
    content = next(iter(body.get("content", {}).values()), {})
    return _resolved(content.get("schema", {}), "schemas")


def _response(op: dict[str, Any]) -> dict[str, Any]:
    """The 200 response, a shared one of components/responses resolved."""
    response = op.get("responses", {}).get("200", {})
    if "$ref" in response:
        response = document()["components"]["responses"][response["$ref"].rsplit("/", 1)[-1]]
    return response


def _schema_name(response: dict[str, Any]) -> str | None:
    schema = response.get("content", {}).get("application/json", {}).get("schema", {})
    ref = schema.get("$ref", "")
    return ref.rsplit("/", 1)[-1] if ref else None
