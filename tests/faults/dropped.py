"""Faults that do what they are asked and drop something they were not (issue 31, written after
the board model, with addressed.py): for each operation 8-26, the write also loses another
field or part of the record it addresses (a rename that strips the card's metadata, a move
that drops it, a reorder that rebuilds the rows without their columns). Each breaks
WRITE-ONLY-ADDRESSED and has no check of its own."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from .addressed import REQUIREMENT, Memory, cards_in, column_of, row_of, variant
from .asgi import Forward, Handler, Request, Response
from .edits import read_project, send
from .variant import Variant

Then = Callable[[Request, dict[str, Any], Forward, Memory], Awaitable[None]]


def then(op: int, extra: Then) -> Callable[[], Handler]:
    """Op `op` as asked; when it answered 200, `extra` sends what else this server does (with
    the project as it was read just before the write)."""
    def make() -> Handler:
        memory = Memory()

        async def handler(request: Request, forward: Forward) -> Response:
            memory.saw(request)
            if request.op != op:
                response = await forward(request)
                memory.made(request, response)
                return response
            project: dict[str, Any] = {}
            if "projectId" in request.params:
                read = await read_project(request, forward)
                project = read.json() if read.status == 200 else {}
            response = await forward(request)
            if response.status == 200 and (project or "projectId" not in request.params):
                await extra(request, project, forward, memory)
            return response
        return handler
    return make


def _at(request: Request, project: dict[str, Any], method: str, tail: str,
        body: Any = None) -> Request:
    return send(request, method, f"/projects/{project['id']}{tail}", body)


async def _each(forward: Forward, requests: list[Request]) -> None:
    for r in requests:
        await forward(r)


async def columns_gone(request: Request, project: dict[str, Any], forward: Forward,
                       _: Memory) -> None:
    """Every row rebuilt without its columns."""
    await _each(forward, [_at(request, project, "DELETE", f"/columns/{c['id']}")
                          for r in project["rows"] for c in r["columns"]])


async def rows_reversed(request: Request, project: dict[str, Any], forward: Forward,
                        _: Memory) -> None:
    kept = [r["id"] for r in project["rows"] if r["id"] != request.params.get("rowId")]
    await forward(_at(request, project, "PATCH", "/order-rows", {"ids": kept[::-1]}))


async def own_columns_gone(request: Request, project: dict[str, Any], forward: Forward,
                           _: Memory) -> None:
    row = next((r for r in project["rows"] if r["id"] == request.params["rowId"]), None)
    await _each(forward, [_at(request, project, "DELETE", f"/columns/{c['id']}")
                          for c in (row or {}).get("columns", [])])


async def row_takes_the_name(request: Request, project: dict[str, Any], forward: Forward,
                             _: Memory) -> None:
    name = (request.json() or {}).get("name") or "column"
    await forward(_at(request, project, "PATCH", f"/rows/{request.params['rowId']}/rename",
                      {"name": name}))


async def row_cards_gone(request: Request, project: dict[str, Any], forward: Forward,
                         _: Memory) -> None:
    row = next((r for r in project["rows"] if r["id"] == request.params["rowId"]), None)
    cards = {c for col in (row or {}).get("columns", []) for c in cards_in(project, col["id"])}
    await _each(forward, [_at(request, project, "DELETE", f"/cards/{c}") for c in cards])


async def column_cards_gone(request: Request, project: dict[str, Any], forward: Forward,
                            _: Memory) -> None:
    await _each(forward, [_at(request, project, "DELETE", f"/cards/{c}")
                          for c in cards_in(project, request.params["columnId"])])


async def columns_reversed(request: Request, project: dict[str, Any], forward: Forward,
                           _: Memory) -> None:
    row = row_of(project, request.params["columnId"])
    kept = [c["id"] for c in (row or {}).get("columns", [])
            if c["id"] != request.params["columnId"]]
    if row and len(kept) > 1:
        await forward(_at(request, project, "PATCH", f"/rows/{row['id']}/order-columns",
                          {"ids": kept[::-1]}))


async def column_takes_the_name(request: Request, project: dict[str, Any], forward: Forward,
                                _: Memory) -> None:
    name = (request.json() or {}).get("name") or "card"
    await forward(_at(request, project, "PATCH",
                      f"/columns/{request.params['columnId']}/rename", {"name": name}))


def _card(project: dict[str, Any], card_id: str) -> dict[str, Any]:
    return next((c for c in project["cards"] if c["id"] == card_id), {"metadata": []})


async def metadata_gone(request: Request, project: dict[str, Any], forward: Forward,
                        _: Memory) -> None:
    """The addressed card (or op 18's moved one, op 19's chosen one) without its entries."""
    body = request.json() or {}
    card = request.params.get("cardId") or (body.get("ids") or [None])[0]
    if card is None and "key" in body:  # op 19: the card that has that entry
        card = next((c["id"] for c in project["cards"]
                     if {"id": body["key"], "value": body.get("value")} in c["metadata"]), None)
    await _each(forward, [_at(request, project, "DELETE", f"/cards/{card}/metadata/{m['id']}")
                          for m in _card(project, card)["metadata"]] if card else [])


async def last_card_first(request: Request, project: dict[str, Any], forward: Forward,
                          _: Memory) -> None:
    """The project's card order rebuilt: its last card put first."""
    cards = [c["id"] for c in project["cards"] if c["id"] != request.params["cardId"]]
    if len(cards) > 1:
        await forward(_at(request, project, "PATCH", "/cards/move",
                          {"ids": [cards[-1]], "beforeCardId": cards[0]}))


async def out_of_its_column(request: Request, project: dict[str, Any], forward: Forward,
                            _: Memory) -> None:
    """An alias that moves the card: it keeps only the alias's column."""
    column = (request.json() or {}).get("columnId")
    own = column_of(project, request.params["cardId"])
    if column and column != own:
        await forward(_at(request, project, "PATCH", "/cards/move",
                          {"ids": [request.params["cardId"]], "columnId": column}))


async def other_entries_gone(request: Request, project: dict[str, Any], forward: Forward,
                             _: Memory) -> None:
    card, key = request.params["cardId"], (request.json() or {}).get("key")
    await _each(forward, [_at(request, project, "DELETE", f"/cards/{card}/metadata/{m['id']}")
                          for m in _card(project, card)["metadata"] if m["id"] != key])


async def card_takes_the_key(request: Request, project: dict[str, Any], forward: Forward,
                             _: Memory) -> None:
    await forward(_at(request, project, "PATCH", f"/cards/{request.params['cardId']}",
                      {"name": request.params["key"]}))


async def project_takes_the_plugin(request: Request, project: dict[str, Any],
                                   forward: Forward, _: Memory) -> None:
    await forward(_at(request, project, "PATCH", "/rename",
                      {"name": request.params["pluginId"]}))


async def other_keys_gone(request: Request, _: dict[str, Any], forward: Forward,
                          memory: Memory) -> None:
    plugin, entity = request.params["pluginId"], request.params["entityId"]
    keys = [k for k in memory.keys.get((plugin, entity), []) if k != request.params["key"]]
    await _each(forward, [send(request, "DELETE", f"/plugins/{plugin}/entities/{entity}/data/"
                                                  f"{k}") for k in keys])


async def key_gone_everywhere(request: Request, _: dict[str, Any], forward: Forward,
                              memory: Memory) -> None:
    plugin, key = request.params["pluginId"], request.params["key"]
    await _each(forward, [send(request, "DELETE", f"/plugins/{plugin}/entities/{e}/data/{key}")
                          for (p, e), keys in memory.keys.items()
                          if p == plugin and key in keys and e != request.params["entityId"]])


DROPS = {
    8: ("rebuilds the rows without their columns", columns_gone),
    9: ("puts the remaining rows in reverse order", rows_reversed),
    10: ("rebuilds the renamed row without its columns", own_columns_gone),
    11: ("gives the row the new column's name", row_takes_the_name),
    12: ("rebuilds the row's columns without their cards", row_cards_gone),
    13: ("rebuilds the renamed column without its cards", column_cards_gone),
    14: ("puts the row's remaining columns in reverse order", columns_reversed),
    15: ("gives the column the new card's name", column_takes_the_name),
    16: ("rebuilds the renamed card without its metadata", metadata_gone),
    17: ("rebuilds the project's card order with its last card first", last_card_first),
    18: ("drops the moved card's metadata", metadata_gone),
    19: ("drops the moved card's metadata", metadata_gone),
    20: ("takes the card out of its own column", out_of_its_column),
    21: ("keeps only the new entry of the card", other_entries_gone),
    22: ("gives the card the removed key as its name", card_takes_the_key),
    23: ("gives the project the plugin's id as its name", project_takes_the_plugin),
    24: ("gives the project the plugin's id as its name", project_takes_the_plugin),
    25: ("keeps only the stored key of the entity", other_keys_gone),
    26: ("deletes the key of every entity", key_gone_everywhere),
}

DROPPED: list[Variant] = [
    variant(f"op{op}-drops-another-field", REQUIREMENT, f"op {op} {said}", then(op, extra))
    for op, (said, extra) in DROPS.items()]
