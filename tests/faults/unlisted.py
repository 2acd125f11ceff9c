"""Faults of kinds no issue and no earlier fault described (issue 31's measure, written on
2026-12-02, after the board model and every check, with no check of their own): bugs that
show only with three items rather than two, with two items alike, or on an item other than
the first. What the whole board after every write caught of them unaided, and what the
boards needed to catch the rest, is in docs/detection.md. (An op 18 that moves only the first
of several ids was dropped: the interface shows neither ids' type nor that several cards
move at once, and it answers one Card.)
"""

from __future__ import annotations

from typing import Any

from .addressed import Memory, instead, row_of, to, variant, with_body
from .asgi import Forward, Request
from .dropped import _at, _card, _each, then
from .variant import Variant


def _rows(project: dict[str, Any]) -> list[str]:
    return [r["id"] for r in project["rows"]]


async def first_listed_first(request: Request, project: dict[str, Any], _: Memory
                             ) -> list[Request]:
    """Op 8 moves the first id it is given to the front and leaves the others where they
    were: right for two rows, wrong for most orders of three."""
    wanted = (request.json() or {}).get("ids") or []
    current = _rows(project)
    if len(current) < 3 or not wanted:
        return []
    return [with_body(request, ids=[wanted[0], *[r for r in current if r != wanted[0]]])]


async def last_listed_last(request: Request, project: dict[str, Any], _: Memory
                           ) -> list[Request]:
    """Op 12 moves the last id it is given to the end and leaves the others where they were
    (an 'append' loop that stopped after one): right for two columns, not for three."""
    row = next((r for r in project["rows"] if r["id"] == request.params["rowId"]), None)
    wanted = (request.json() or {}).get("ids") or []
    current = [c["id"] for c in (row or {}).get("columns", [])]
    if len(current) < 3 or not wanted:
        return []
    return [with_body(request, ids=[*[c for c in current if c != wanted[-1]], wanted[-1]])]


async def the_entry_before(request: Request, project: dict[str, Any], _: Memory
                           ) -> list[Request]:
    """Op 22 removes the entry before the one named (an index off by one), the first one
    itself."""
    entries = [m["id"] for m in _card(project, request.params["cardId"])["metadata"]]
    key = request.params["key"]
    if key not in entries or entries.index(key) == 0:
        return []
    return [to(request, key=entries[entries.index(key) - 1])]


async def same_value_gone(request: Request, project: dict[str, Any], forward: Forward,
                          _: Memory) -> None:
    """Op 21 adds the entry and drops the card's other entries with the same value (a unique
    index on the value, not on the key)."""
    body = request.json() or {}
    value, key = body.get("value"), body.get("key") or body.get("id")
    card = request.params["cardId"]
    await _each(forward, [_at(request, project, "DELETE", f"/cards/{card}/metadata/{m['id']}")
                          for m in _card(project, card)["metadata"]
                          if m.get("value") == value and m["id"] != key])


async def rows_after_gone(request: Request, project: dict[str, Any], forward: Forward,
                          _: Memory) -> None:
    """Op 9 deletes the row and every row after it (a delete by position, `>=`)."""
    rows = _rows(project)
    row = request.params["rowId"]
    if row in rows:
        await _each(forward, [_at(request, project, "DELETE", f"/rows/{r}")
                              for r in rows[rows.index(row) + 1:]])


async def same_name_renamed(request: Request, project: dict[str, Any], forward: Forward,
                            _: Memory) -> None:
    """Op 16 renames every card of the project that had the addressed card's name (an update
    by name, not by id)."""
    card = request.params["cardId"]
    old = next((c.get("name") for c in project["cards"] if c["id"] == card), None)
    name = (request.json() or {}).get("name")
    await _each(forward, [_at(request, project, "PATCH", f"/cards/{c['id']}", {"name": name})
                          for c in project["cards"] if c["id"] != card and c.get("name") == old])


async def columns_of_the_next_row(request: Request, project: dict[str, Any], forward: Forward,
                                  _: Memory) -> None:
    """Op 13 renames the column, and the column at the same place in the next row too (the
    rename's loop walks the row index, not the column id)."""
    row = row_of(project, request.params["columnId"])
    rows = project["rows"]
    if row is None or rows.index(row) + 1 >= len(rows):
        return
    place = [c["id"] for c in row["columns"]].index(request.params["columnId"])
    after = rows[rows.index(row) + 1]["columns"]
    if place < len(after):
        await forward(_at(request, project, "PATCH", f"/columns/{after[place]['id']}/rename",
                          request.json() or {}))


UNLISTED: list[Variant] = [
    variant("rows-order-first-listed-only", "ROW-ORDER",
            "op 8 moves the first id given to the front, the others stay (three rows or more)",
            instead(8, first_listed_first)),
    variant("columns-order-last-listed-only", "COLUMN-ORDER",
            "op 12 moves the last id given to the end, the others stay (three columns or more)",
            instead(12, last_listed_last)),
    variant("metadata-remove-the-entry-before", "CARD-METADATA-REMOVE",
            "op 22 removes the entry before the one named (the first one itself)",
            instead(22, the_entry_before)),
    variant("metadata-add-drops-same-value", "WRITE-ONLY-ADDRESSED",
            "op 21 drops the card's other entries with the value it adds",
            then(21, same_value_gone)),
    variant("row-delete-and-the-rows-after", "WRITE-ONLY-ADDRESSED",
            "op 9 deletes the row and every row after it", then(9, rows_after_gone)),
    variant("card-rename-by-name", "WRITE-ONLY-ADDRESSED",
            "op 16 renames every card that had the addressed card's name",
            then(16, same_name_renamed)),
    variant("column-rename-next-row-too", "WRITE-ONLY-ADDRESSED",
            "op 13 also renames the column at the same place in the next row",
            then(13, columns_of_the_next_row)),
]
