"""The OpenAPI document, read once: its operations by number, with what callers need of each
(callers read `Operation`, not the document's paths)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from boardcert.paths import OPENAPI, read_yaml

METHODS = ("get", "put", "post", "patch", "delete")


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

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"

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
        found[number] = Operation(
            number, method.upper(), path, op["operationId"],
            auth_required=bool(security) and all(scheme for scheme in security),
            takes_body="requestBody" in op,
            body_schema_shown="content" in op.get("requestBody", {}),  # not the NotShown body
            profile_body=op.get("x-profile-body"),
            response_schema=_schema_name(ok),
            links=tuple(numbers[link["operationId"]] for link in (ok.get("links") or {}).values()))
    return found


@cache
def labels() -> dict[str, int]:
    """Each operation's number by its label, as schemathesis names it ("GET /projects")."""
    return {op.label: n for n, op in operations().items()}


def operation(number: int) -> Operation:
    return operations()[number]


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
