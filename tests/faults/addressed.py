"""Faults of the kinds nobody listed one by one (issue 31), written after the board model to
measure it: for every operation that addresses one item among several (8-26), a server that
acts on the first item instead, one that acts on all of them, and (dropped.py) one that also
drops another field of the record it addresses. Each breaks WRITE-ONLY-ADDRESSED, and a
"first" fault the operation's own requirement too; none has a check of its own: the whole
board after every write must catch them.

Every handler reads the project the request addresses (op 3, through the reference app) to
find the item's siblings, then sends the same operation for other items, through the app.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from boardcert.interface import spec

from .asgi import Forward, Handler, Request, Response, json_response
from .edits import read_project, send
from .variant import Variant

Pick = Callable[[Request, dict[str, Any], "Memory"], Awaitable[list[Request]]]
REQUIREMENT = "WRITE-ONLY-ADDRESSED"


class Memory:
    """What a server remembers across requests: its projects (in the order it made or first
    served them) and the keys stored per plugin entity."""

    def __init__(self) -> None:
        self.projects: list[str] = []
        self.keys: dict[tuple[str, str], list[str]] = {}

    def made(self, request: Request, response: Response) -> None:
        """A project op 2 made is the organization's, served or not."""
        body = response.json() if request.op == 2 and response.status == 200 else None
        if isinstance(body, dict) and str(body.get("id")) not in self.projects:
            self.projects.append(str(body.get("id")))

    def saw(self, request: Request) -> None:
        project = request.params.get("projectId")
        if project and project not in self.projects:
            self.projects.append(project)
        if request.op == 25:
            keys = self.keys.setdefault((request.params["pluginId"],
                                         request.params["entityId"]), [])
            if request.params["key"] not in keys:
                keys.append(request.params["key"])


def to(request: Request, **params: str) -> Request:
    """The same request, addressed to other path parameters."""
    return request.but(path=spec.operation(request.op).path.format(**(request.params | params)))


def with_body(request: Request, **fields: Any) -> Request:
    return request.but(json_body={**(request.json() or {}), **fields})


def instead(op: int, pick: Pick, answer_last: bool = True, status: int | None = None
            ) -> Callable[[], Handler]:
    """The write of `op` sent as `pick` chooses (other items, or more of them) instead of as
    it came; the answer is the last one's (`status`: an error of that status instead, once
    the writes are done)."""
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
                if read.status != 200:
                    return await forward(request)
                project = read.json()
            chosen = await pick(request, project, memory)
            if not chosen:
                return await forward(request)
            answers = [await forward(r) for r in chosen]
            if status is not None:
                return json_response({"error": "could not complete the request"}, status)
            return answers[-1] if answer_last else answers[0]
        return handler
    return make


def variant(name: str, requirement: str, description: str, make: Callable[[], Handler]
            ) -> Variant:
    return Variant(name, description, requirement, lambda _key: make())


# --- where things are, in a Project of the reference app ------------------------------------

def row_of(project: dict[str, Any], column_id: str) -> dict[str, Any] | None:
    return next((r for r in project["rows"] if column_id in [c["id"] for c in r["columns"]]),
                None)


def column_of(project: dict[str, Any], card_id: str) -> str | None:
    card = next((c for c in project["cards"] if c["id"] == card_id), None)
    return card["columns"][0]["id"] if card and card["columns"] else None


def cards_in(project: dict[str, Any], column_id: str | None) -> list[str]:
    return [c["id"] for c in project["cards"] if column_id in [x["id"] for x in c["columns"]]]


def reordered(ids: list[str], wanted: list[str], current: list[str]) -> list[str]:
    """`ids` in the order `wanted` gives `current` (the same moves, by position)."""
    places = [current.index(i) for i in wanted if i in current]
    return [ids[n] for n in places if n < len(ids)] if len(places) == len(ids) else ids


# --- the pickers ------------------------------------------------------------------------------

async def first_row(request: Request, project: dict[str, Any], _: Memory) -> list[Request]:
    rows = project["rows"]
    return [to(request, rowId=rows[0]["id"])] if rows else []


async def every_row(request: Request, project: dict[str, Any], _: Memory) -> list[Request]:
    return [to(request, rowId=r["id"]) for r in project["rows"]]


async def first_column(request: Request, project: dict[str, Any], _: Memory) -> list[Request]:
    row = row_of(project, request.params["columnId"])
    return [to(request, columnId=row["columns"][0]["id"])] if row else []


async def every_column(request: Request, project: dict[str, Any], _: Memory) -> list[Request]:
    row = row_of(project, request.params["columnId"])
    return [to(request, columnId=c["id"]) for c in row["columns"]] if row else []


async def first_card(request: Request, project: dict[str, Any], _: Memory) -> list[Request]:
    cards = cards_in(project, column_of(project, request.params["cardId"]))
    return [to(request, cardId=cards[0])] if cards else []


async def every_card(request: Request, project: dict[str, Any], _: Memory) -> list[Request]:
    cards = cards_in(project, column_of(project, request.params["cardId"]))
    addressed = request.params["cardId"]
    return [to(request, cardId=c) for c in cards if c != addressed] + [request]


async def swap_first_two(request: Request, project: dict[str, Any], _: Memory) -> list[Request]:
    ids = [r["id"] for r in project["rows"]]
    return [with_body(request, ids=[ids[1], ids[0], *ids[2:]])] if len(ids) > 1 else []


async def order_every_row(request: Request, project: dict[str, Any], _: Memory
                          ) -> list[Request]:
    """Op 8 as asked, then each row's columns moved the way the rows were."""
    wanted = (request.json() or {}).get("ids") or []
    current = [r["id"] for r in project["rows"]]
    return [request] + [
        send(request, "PATCH", f"/projects/{project['id']}/rows/{r['id']}/order-columns",
             {"ids": reordered([c["id"] for c in r["columns"]], wanted, current)})
        for r in project["rows"] if len(r["columns"]) == len(current)]


async def first_row_columns(request: Request, project: dict[str, Any], _: Memory
                            ) -> list[Request]:
    """Op 12's order applied to the first row's columns, by position."""
    row = next((r for r in project["rows"] if r["id"] == request.params["rowId"]), None)
    first = project["rows"][0] if project["rows"] else None
    if row is None or first is None or first is row:
        return []
    wanted = (request.json() or {}).get("ids") or []
    ids = reordered([c["id"] for c in first["columns"]], wanted,
                    [c["id"] for c in row["columns"]])
    return [to(request, rowId=first["id"]).but(json_body={"ids": ids})]


async def every_row_columns(request: Request, project: dict[str, Any], _: Memory
                            ) -> list[Request]:
    """Op 12 as asked, and every other row's columns turned round (the reorder's loop run
    over the project's rows)."""
    return [to(request, rowId=r["id"]).but(json_body={"ids": [c["id"] for c in r["columns"]][
        ::-1]}) for r in project["rows"] if r["id"] != request.params["rowId"]
        and len(r["columns"]) > 1] + [request]


async def first_row_of_project(request: Request, project: dict[str, Any], _: Memory
                               ) -> list[Request]:
    """Op 11 into the first row."""
    return await first_row(request, project, _)


async def column_create_everywhere(request: Request, project: dict[str, Any], _: Memory
                                   ) -> list[Request]:
    return await every_row(request, project, _)


async def card_create_first(request: Request, project: dict[str, Any], _: Memory
                            ) -> list[Request]:
    """Op 15 into the first column of the column's row."""
    return await first_column(request, project, _)


async def card_create_everywhere(request: Request, project: dict[str, Any], _: Memory
                                 ) -> list[Request]:
    return await every_column(request, project, _)


def _anchor(body: dict[str, Any]) -> str | None:
    return body.get("afterCardId") or body.get("beforeCardId")


async def move_first_card(request: Request, project: dict[str, Any], _: Memory
                          ) -> list[Request]:
    """Ops 18 and 19 move the project's first card instead."""
    body = request.json() or {}
    cards = [c["id"] for c in project["cards"] if c["id"] != _anchor(body)]
    if not cards:
        return []
    moved = {k: v for k, v in body.items() if k in ("afterCardId", "beforeCardId")}
    return [send(request, "PATCH", f"/projects/{project['id']}/cards/move",
                 {"ids": [cards[0]], **moved})]


async def move_whole_column(request: Request, project: dict[str, Any], _: Memory
                            ) -> list[Request]:
    """Op 18 moves every card of the moved card's column (but the anchor)."""
    body = request.json() or {}
    ids = body.get("ids") or []
    if not ids:
        return []
    column = cards_in(project, column_of(project, ids[0]))
    return [with_body(request, ids=[c for c in column if c != _anchor(body)])]


async def move_every_entry(request: Request, project: dict[str, Any], _: Memory
                           ) -> list[Request]:
    """Op 19 moves every card that has any metadata (not only that entry's)."""
    body = request.json() or {}
    cards = [c["id"] for c in project["cards"] if c["metadata"] and c["id"] != _anchor(body)]
    moved = {k: v for k, v in body.items() if k in ("afterCardId", "beforeCardId")}
    return [send(request, "PATCH", f"/projects/{project['id']}/cards/move",
                 {"ids": cards, **moved})] if cards else []


async def first_entry(request: Request, project: dict[str, Any], _: Memory) -> list[Request]:
    card = next((c for c in project["cards"] if c["id"] == request.params["cardId"]), None)
    keys = [m["id"] for m in card["metadata"]] if card else []
    return [to(request, key=keys[0])] if keys else []


async def every_entry(request: Request, project: dict[str, Any], _: Memory) -> list[Request]:
    card = next((c for c in project["cards"] if c["id"] == request.params["cardId"]), None)
    return [to(request, key=m["id"]) for m in card["metadata"]] if card else []


async def first_project(request: Request, _: dict[str, Any], memory: Memory) -> list[Request]:
    return [to(request, projectId=memory.projects[0])] if memory.projects else []


async def every_project(request: Request, _: dict[str, Any], memory: Memory) -> list[Request]:
    """The other projects, then the one addressed (whose answer it gives, as every_card)."""
    addressed = request.params["projectId"]
    return [to(request, projectId=p) for p in memory.projects if p != addressed] + [request]


async def first_key(request: Request, _: dict[str, Any], memory: Memory) -> list[Request]:
    keys = memory.keys.get((request.params["pluginId"], request.params["entityId"]), [])
    return [to(request, key=keys[0])] if keys else []


async def every_key(request: Request, _: dict[str, Any], memory: Memory) -> list[Request]:
    keys = memory.keys.get((request.params["pluginId"], request.params["entityId"]), [])
    return [to(request, key=k) for k in keys if k != request.params["key"]] + [request]


FIRST = {
    8: ("swaps the first two rows instead of the order asked", swap_first_two),
    9: ("deletes the first row of the project", first_row),
    10: ("renames the first row of the project", first_row),
    11: ("creates the column in the first row", first_row_of_project),
    12: ("orders the first row's columns", first_row_columns),
    13: ("renames the first column of the row", first_column),
    14: ("deletes the first column of the row", first_column),
    15: ("creates the card in the first column of the row", card_create_first),
    16: ("renames the first card of the column", first_card),
    17: ("deletes the first card of the column", first_card),
    18: ("moves the project's first card", move_first_card),
    19: ("moves the project's first card", move_first_card),
    20: ("gives the first card of the column the alias", first_card),
    21: ("gives the first card of the column the entry", first_card),
    22: ("removes the card's first entry", first_entry),
    23: ("attaches the plugin to the first project it served", first_project),
    24: ("removes the plugin from the first project it served", first_project),
    25: ("stores the value under the entity's first key", first_key),
    26: ("deletes the entity's first key", first_key),
}
ALL = {
    8: ("orders the rows, and each row's columns the same way", order_every_row),
    9: ("deletes every row of the project", every_row),
    10: ("renames every row of the project", every_row),
    11: ("creates the column in every row", column_create_everywhere),
    12: ("orders the row's columns and turns every other row's round", every_row_columns),
    13: ("renames every column of the row", every_column),
    14: ("deletes every column of the row", every_column),
    15: ("creates the card in every column of the row", card_create_everywhere),
    16: ("renames every card of the column", every_card),
    17: ("deletes every card of the column", every_card),
    18: ("moves every card of the moved card's column", move_whole_column),
    19: ("moves every card that has metadata", move_every_entry),
    20: ("gives every card of the column the alias", every_card),
    21: ("gives every card of the column the entry", every_card),
    22: ("removes every entry of the card", every_entry),
    23: ("attaches the plugin to every project it served", every_project),
    24: ("removes the plugin from every project it served", every_project),
    25: ("stores the value under every key of the entity", every_key),
    26: ("deletes every key of the entity", every_key),
}

# What a server that acts on another item instead breaks first: the operation's own
# requirement (the addressed item was not acted on).
OWN = {8: "ROW-ORDER", 9: "ROW-DELETE-GONE", 10: "ROW-RENAME", 11: "COLUMN-CREATE",
       12: "COLUMN-ORDER", 13: "COLUMN-RENAME", 14: "COLUMN-DELETE-GONE", 15: "CARD-CREATE",
       16: "CARD-RENAME", 17: "CARD-DELETE-GONE", 18: "CARD-MOVE-PLACES",
       19: "CARD-MOVE-BY-METADATA-PLACES", 20: "CARD-ALIAS", 21: "CARD-METADATA-ADD",
       22: "CARD-METADATA-REMOVE", 23: "PLUGIN-ATTACH", 24: "PLUGIN-REMOVE",
       25: "PLUGIN-DATA-ROUND-TRIP", 26: "PLUGIN-DATA-DELETE"}

# Servers that act on every item and then answer an error: the write's own requirement fails
# by its status, and the whole board read after the failure must still show the rest.
FAILING = {9: 404, 16: 500, 23: 404, 24: 404, 26: 404}

ADDRESSED: list[Variant] = [
    variant(f"op{op}-acts-on-{which}", OWN[op] if which == "first" else REQUIREMENT,
            f"op {op} {said}", instead(op, pick))
    for which, table in (("first", FIRST), ("all", ALL)) for op, (said, pick) in table.items()]
ADDRESSED += [
    variant(f"op{op}-acts-on-all-answers-{status}", REQUIREMENT,
            f"op {op} {ALL[op][0]} and answers {status}", instead(op, ALL[op][1], status=status))
    for op, status in FAILING.items()]
