"""Variants about time (issue 24): updatedAt that does not move, a clock that ticks once a
second (conformant). Faults here are in catalogue.FAULTS, conformant variants in
conformant.CONFORMANT."""

from __future__ import annotations

import re
from typing import Any

from .asgi import Forward, Handler, Request, Response, json_response
from .edges import fresh
from .edits import PROJECT_OPS
from .variant import Variant

# --- updatedAt ----------------------------------------------------------------------------------


def _updated_at_moved_by(ops: set[int]) -> Handler:
    """Project answers show updatedAt as the last of `ops` (op 2, a creation, at least) left
    it: the other updates forget to touch it."""
    shown: dict[str, Any] = {}

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        body = response.json()
        if request.op not in PROJECT_OPS or response.status != 200 \
                or not isinstance(body, dict) or "updatedAt" not in body:
            return response
        project_id = str(body.get("id"))
        if request.op in ops or project_id not in shown:
            shown[project_id] = body["updatedAt"]
        return json_response({**body, "updatedAt": shown[project_id]})
    return handler


UPDATED_AT = [
    fresh("updated-at-never-moves", "PROJECT-UPDATED-AT",
          "updatedAt stays the creation time whatever changes",
          lambda: _updated_at_moved_by({2})),
    fresh("updated-at-moves-on-rename-only", "PROJECT-UPDATED-AT",
          "a rename moves updatedAt, a row or column created or deleted does not",
          lambda: _updated_at_moved_by({2, 5})),
    fresh("updated-at-not-on-columns", "PROJECT-UPDATED-AT",
          "row changes move updatedAt, column changes (inside a row) do not",
          lambda: _updated_at_moved_by({2, 5, 7, 8, 9, 10})),
]

# --- conformant: a clock that ticks once a second -----------------------------------------------

_FRACTION = re.compile(r"\.\d+(?=Z$|[+-]\d\d:\d\d$)")


def _whole_seconds(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _FRACTION.sub("", v) if k in ("createdAt", "updatedAt") and isinstance(v, str)
                else _whole_seconds(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_whole_seconds(v) for v in value]
    return value


async def _one_second_clock(request: Request, forward: Forward) -> Response:
    response = await forward(request)
    body = response.json()
    if response.status != 200 or body is None:
        return response
    return json_response(_whole_seconds(body))


FAULTS: list[Variant] = [*UPDATED_AT]
CONFORMANT: list[Variant] = [
    Variant("one-second-clock", "createdAt and updatedAt in whole seconds (a clock that ticks "
            "once a second)", None, lambda _key: _one_second_clock),
]
