"""Variants about time (issue 24): updatedAt that does not move, a clock that ticks once a
second (conformant), requests at the same moment (a handler that loses concurrent creations;
conformant: one that refuses them with 409, one that answers one request at a time). Faults
here are in catalogue.FAULTS, conformant variants in conformant.CONFORMANT."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from .asgi import Forward, Handler, Request, Response, json_response
from .edges import fresh
from .edits import PROJECT_OPS, error, named, on, read_project, send
from .variant import Variant, fault

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


def _updated_at_in_answer_only() -> Handler:
    """updatedAt is never stored again after the creation; op 5's answer shows a new one."""
    stored = _updated_at_moved_by({2})

    async def handler(request: Request, forward: Forward) -> Response:
        response = await stored(request, forward)
        body = response.json()
        if request.op != 5 or response.status != 200 or not isinstance(body, dict):
            return response
        return json_response({**body, "updatedAt": datetime.now(UTC).isoformat()})
    return handler


UPDATED_AT = [
    fresh("updated-at-never-moves", "PROJECT-UPDATED-AT",
          "updatedAt stays the creation time whatever changes",
          lambda: _updated_at_moved_by({2})),
    fresh("updated-at-in-answer-only", "PROJECT-UPDATED-AT",
          "a rename answers a new updatedAt but never stores it",
          _updated_at_in_answer_only),
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


# --- creations at the same moment ---------------------------------------------------------------

Listed = Callable[[Request, Forward], Awaitable[set[str]]]
AWAIT = 0.1  # seconds the racy handler awaits between its read and its write


def _lost_update(op: int, listed: Listed, ours: Callable[[Request, Response], str | None],
                 delete: Callable[[Request, str], Request]) -> Handler:
    """Op `op` read-modify-write: the handler reads the list, awaits, then writes back the list
    it read plus its own item, so the items other requests added meanwhile are lost (done here
    by deleting them: the reference itself is safe)."""
    async def fn(request: Request, forward: Forward) -> Response:
        before = await listed(request, forward)
        await asyncio.sleep(AWAIT)
        response = await forward(request)
        if response.status != 200:
            return response
        for other in await listed(request, forward) - before - {ours(request, response)}:
            await forward(delete(request, other))
        return response
    return on(op, fn)


async def _project_body(request: Request, forward: Forward) -> dict[str, Any]:
    project = await read_project(request, forward)
    return project.json() if project.status == 200 else {"rows": [], "cards": []}


async def _rows(request: Request, forward: Forward) -> set[str]:
    return {row["id"] for row in (await _project_body(request, forward))["rows"]}


async def _columns(request: Request, forward: Forward) -> set[str]:
    row = named((await _project_body(request, forward))["rows"], request.params["rowId"])
    return {column["id"] for column in (row or {}).get("columns", [])}


async def _cards(request: Request, forward: Forward) -> set[str]:
    return {card["id"] for card in (await _project_body(request, forward))["cards"]
            if any(c["id"] == request.params["columnId"] for c in card["columns"])}


async def _metadata(request: Request, forward: Forward) -> set[str]:
    card = named((await _project_body(request, forward))["cards"], request.params["cardId"])
    return {entry["id"] for entry in (card or {}).get("metadata", [])}


def _by_name(request: Request, response: Response) -> str | None:
    """The id of the record the request named, in the Project it answered."""
    body = request.json() or {}
    name = body.get("name", body.get("rowName"))
    found = [r for row in response.json()["rows"] for r in [row, *row["columns"]]
             if r["name"] == name]
    return found[0]["id"] if found else None


def _deleting(path: str) -> Callable[[Request, str], Request]:
    def delete(request: Request, item: str) -> Request:
        return send(request, "DELETE", path.format(item=item, **request.params))
    return delete


LOST = [
    fault("rows-lost-when-created-at-once", "CONCURRENT-CREATIONS-KEPT",
          "op 7 reads the project's rows, awaits, writes them back with its own: rows created "
          "meanwhile are lost",
          _lost_update(7, _rows, _by_name, _deleting("/projects/{projectId}/rows/{item}"))),
    fault("columns-lost-when-created-at-once", "CONCURRENT-CREATIONS-KEPT",
          "op 11 reads the row's columns, awaits, writes them back with its own",
          _lost_update(11, _columns, _by_name,
                       _deleting("/projects/{projectId}/columns/{item}"))),
    fault("cards-lost-when-created-at-once", "CONCURRENT-CREATIONS-KEPT",
          "op 15 reads the column's cards, awaits, writes them back with its own",
          _lost_update(15, _cards, lambda request, response: response.json()["id"],
                       _deleting("/projects/{projectId}/cards/{item}"))),
    fault("metadata-lost-when-added-at-once", "CONCURRENT-CREATIONS-KEPT",
          "op 21 reads the card's metadata, awaits, writes it back with its own entry",
          _lost_update(21, _metadata, lambda request, response: (request.json() or {}).get("key"),
                       _deleting("/projects/{projectId}/cards/{cardId}/metadata/{item}"))),
]

# --- conformant: 409 to a creation while another is made, one request at a time ------------------

CREATIONS = {7, 11, 15, 21}


def _conflicts() -> Handler:
    """A creation in a project while another is under way there answers 409."""
    busy: set[str] = set()

    async def fn(request: Request, forward: Forward) -> Response:
        project = request.params["projectId"]
        if project in busy:
            return error(409, "another change to this project is under way; try again")
        busy.add(project)
        try:
            await asyncio.sleep(0.002)  # long enough for requests sent together to meet
            return await forward(request)
        finally:
            busy.discard(project)
    return on(CREATIONS, fn)


def _one_at_a_time() -> Handler:
    """Every request waits for the one before it to be answered."""
    lock = asyncio.Lock()

    async def handler(request: Request, forward: Forward) -> Response:
        async with lock:
            return await forward(request)
    return handler


FAULTS: list[Variant] = [*UPDATED_AT, *LOST]
CONFORMANT: list[Variant] = [
    Variant("updated-at-own-fields-only", "updatedAt moves when the Project itself is renamed, "
            "not when its rows or columns change", None,
            lambda _key: _updated_at_moved_by({2, 5})),
    Variant("one-second-clock", "createdAt and updatedAt in whole seconds (a clock that ticks "
            "once a second)", None, lambda _key: _one_second_clock),
    Variant("conflict-on-concurrent-creations", "409 to a row, column, card or metadata "
            "creation while another is under way in the same project", None,
            lambda _key: _conflicts()),
    Variant("one-request-at-a-time", "every request waits for the one before it (a server "
            "that serialises requests)", None, lambda _key: _one_at_a_time()),
]
