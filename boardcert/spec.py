"""The OpenAPI document, read once: its operations by number."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import yaml

from boardcert.paths import OPENAPI

METHODS = ("get", "put", "post", "patch", "delete")


@dataclass(frozen=True)
class Operation:
    number: int
    method: str  # upper case
    path: str
    operation_id: str
    auth_required: bool  # X-API-Key listed for it in section 5

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"


@cache
def document() -> dict[str, Any]:
    with OPENAPI.open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


@cache
def operations() -> dict[int, Operation]:
    """All operations of spec/openapi.yaml, keyed by their number in section 4."""
    found: dict[int, Operation] = {}
    for path, item in document()["paths"].items():
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            security = op.get("security", document().get("security", []))
            required = bool(security) and all(scheme for scheme in security)
            number = int(op["x-operation"])
            found[number] = Operation(number, method.upper(), path, op["operationId"], required)
    return dict(sorted(found.items()))


def operation(number: int) -> Operation:
    return operations()[number]
