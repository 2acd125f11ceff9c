"""The observer: a server's board read into the model's facts.

What a reading shows, it shows by stated fields only: a Project's `name`, `createdAt`, `rows`,
`cards` and `plugins` (section 2), op 6's `rows`, a Card's `name`, `columns` ({id, name}) and
`metadata` ({id, value}), op 27's answer for a key the run wrote. Row and column records are
not shown: a row or column is found by its id, and its name is one of its record's values (the
names the run sends are unique). Everything else a record carries is left alone.

`Sight` is what one reading showed: fact -> value seen, and where in the answer (a path of
keys and `{"id": ...}` steps, for the failure's reproduction). A fact the reading does not show
is not in it: no answer is read into what it does not say.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from boardcert.http.api import Api, SideBySide, mentions
from boardcert.http.client import Exchange
from boardcert.model.board import ABSENT, Board, Fact, Project

__all__ = ["Look", "Observer", "Sight", "card_sight", "project_sight", "rows_sight"]

Path = list[Any]
NAME_KEYS = ("name", "rowName", "columnName", "cardName", "title")


@dataclass
class Sight:
    """What one reading showed: `seen` fact -> value, `at` fact -> where in the answer."""

    label: str  # "op 3", "op 6", "op 10's answer", "op 27 for key 'k'"
    exchange: Exchange | None
    seen: dict[Fact, Any] = field(default_factory=dict)
    at: dict[Fact, Path] = field(default_factory=dict)
    counts: dict[Fact, int] = field(default_factory=dict)  # the items of a list with extras
    copies: dict[Fact, set[str]] = field(default_factory=dict)  # extras named as the run's

    def put(self, fact: Fact, value: Any, path: Path, count: int | None = None) -> None:
        self.seen[fact] = value
        self.at[fact] = path
        if count is not None:
            self.counts[fact] = count


def _json(exchange: Exchange) -> Any:
    try:
        return json.loads(exchange.content) if exchange.content.strip() else None
    except (ValueError, RecursionError):
        return None


def _id(item: Any) -> str | None:
    if isinstance(item, str | int) and not isinstance(item, bool):
        return str(item)
    if isinstance(item, dict) and isinstance(item.get("id"), str | int):
        return str(item["id"])
    return None


def _records(value: Any, path: Path) -> Iterator[tuple[dict[str, Any], Path]]:
    """Every record inside `value` (itself excluded), with its path; a list item with an id
    is stepped to by `{"id": ...}`."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if isinstance(inner, dict):
                yield inner, [*path, key]
            yield from _records(inner, [*path, key])
    elif isinstance(value, list):
        for n, inner in enumerate(value):
            step = {"id": inner["id"]} if _id(inner) is not None and isinstance(inner, dict) \
                else n
            if isinstance(inner, dict):
                yield inner, [*path, step]
            yield from _records(inner, [*path, step])


def _named(record: dict[str, Any], expected: str) -> tuple[Any, str]:
    """The name a record shows: `expected` if one of its values, else what a usual name key
    holds; and the key (for the reproduction's path)."""
    for key, value in record.items():
        if value == expected:
            return expected, key
    for key in NAME_KEYS:
        if key in record:
            return record[key], key
    return None, "name"


def _order(record: dict[str, Any], ids: set[str], path: Path) -> tuple[list[str], Path] | None:
    """The ids of the first list inside `record` whose items carry any of `ids`, in order,
    and where that list is."""
    for inner, at in [(record, path), *_records(record, path)]:
        for key, value in inner.items():
            if isinstance(value, list):
                found = [i for i in map(_id, value) if i is not None]
                if ids & set(found):
                    return [i for i in found if i in ids], [*at, key]
    return None


def _list_at(record: dict[str, Any], at: Path) -> list[Any]:
    """The list at `at` inside a record (empty if there is none)."""
    value: Any = record
    for step in at:
        if isinstance(step, dict) and isinstance(value, list):
            value = next((v for v in value if _id(v) == str(step["id"])), None)
        elif isinstance(value, dict | list):
            value = value[step] if not isinstance(value, list) or isinstance(step, int) \
                else None
    return value if isinstance(value, list) else []


def _copies(items: list[Any], extras: set[str], names: set[str]) -> set[str]:
    """The extras of a list whose records carry a name the run gave an item of that kind:
    copies some write made, never the server's own (the names the run sends are unique)."""
    return {str(_id(item)) for item in items if isinstance(item, dict) and _id(item) in extras
            and any(isinstance(v, str) and v in names for v in item.values())}


def rows_sight(sight: Sight, rows: Any, project: Project, board: Board,
               path: Path) -> None:
    """What a list of rows (a Project's, op 6's) shows of the model's rows and columns."""
    if not isinstance(rows, list):
        return
    gone_rows, gone_columns = board.gone_rows(project.id), board.gone_columns(project.id)
    known = {r.id for r in project.rows} | set(gone_rows)
    listed = [i for i in map(_id, rows) if i is not None]
    sight.put(("rows", project.id), [i for i in listed if i in known], path)
    extra_rows = set(listed) - project.known()
    sight.put(("extra-rows", project.id), extra_rows, path, len(listed))
    sight.copies[("extra-rows", project.id)] = _copies(rows, extra_rows,
                                                       {r.name for r in project.rows})
    records = {_id(r): r for r in rows if isinstance(r, dict) and _id(r) is not None}
    for row_id in known:
        step = [*path, {"id": row_id}]
        sight.put(("row", project.id, row_id), row_id in listed, step)  # in `path` (rows)
        row = next((r for r in project.rows if r.id == row_id), None)
        record = records.get(row_id)
        if row is None or record is None:
            continue
        name, key = _named(record, row.name)
        if name is not None:
            sight.put(("row-name", project.id, row_id), name, [*step, key])
    columns = {c.id: (r.id, c.name) for r in project.rows for c in r.columns}
    columns |= {c: (r, None) for c, r in gone_columns.items()}
    found: dict[str, tuple[str, dict[str, Any], Path]] = {}
    for row_id, record in records.items():
        for inner, inner_path in _records(record, [*path, {"id": row_id}]):
            column_id = _id(inner)
            if column_id in columns and column_id not in found:
                found[column_id] = (str(row_id), inner, inner_path)
    if not found:
        return  # this reading shows no column at all: it says nothing of them
    for column_id, (row_id, name) in columns.items():
        where = found.get(column_id)
        sight.put(("column", project.id, row_id, column_id),  # in its row's record
                  where is not None and where[0] == row_id, [*path, {"id": row_id}])
        if where is not None and name is not None:
            shown, key = _named(where[1], name)
            if shown is not None:
                sight.put(("column-name", project.id, column_id), shown, [*where[2], key])
    for row in project.rows:
        record = records.get(row.id)
        ids = {c.id for c in row.columns} | {c for c, r in gone_columns.items() if r == row.id}
        order = _order(record, ids, [*path, {"id": row.id}]) if record is not None and ids \
            else None
        if order is not None:
            sight.put(("columns", project.id, row.id), *order)
            items = _list_at(record, order[1][len(path) + 1:])
            shown = {i for i in map(_id, items) if i is not None}
            fact = ("extra-columns", project.id, row.id)
            sight.put(fact, shown - project.known(), order[1], len(shown))
            sight.copies[fact] = _copies(items, shown - project.known(),
                                         {c.name for r in project.rows for c in r.columns})


def card_sight(sight: Sight, record: Any, project: Project, card_id: str, path: Path,
               id_is_key: bool) -> None:
    """What a Card record (an answer, or an item of a Project's cards) shows of a card."""
    card = project.cards.get(card_id)
    if card is None or not isinstance(record, dict):
        return
    if "name" in record:
        sight.put(("card-name", project.id, card_id), record["name"], [*path, "name"])
    columns = record.get("columns")
    if isinstance(columns, list):
        shown = {_id(c): c.get("name") for c in columns if isinstance(c, dict)}
        sight.put(("card-columns", project.id, card_id), shown, [*path, "columns"])
    entries = record.get("metadata")
    if isinstance(entries, list):
        for key in project.keys:
            value = card.metadata.get(key, ABSENT)
            sought = card.values.get(key, project.keys[key]) if value is ABSENT else value
            entry = _entry(entries, key, sought, id_is_key)
            sight.put(("metadata", project.id, card_id, key),
                      ABSENT if entry is None else entry.get("value"), [*path, "metadata"])


def _entry(entries: list[Any], key: str, value: Any, id_is_key: bool) -> dict[str, Any] | None:
    """The card's entry of `key`: its id is the key (where the profile says so), else the one
    carrying the value the run gave it (values are unique)."""
    for entry in entries:
        if isinstance(entry, dict) and (_id(entry) == key if id_is_key
                                        else entry.get("value") == value):
            return entry
    return None


def project_sight(sight: Sight, body: Any, project: Project, board: Board,
                  id_is_key: bool) -> None:
    """What a Project record shows: its name, createdAt, rows, cards and plugins."""
    if not isinstance(body, dict):
        return
    for fact, key in ((("project-name", project.id), "name"),
                      (("project-created", project.id), "createdAt")):
        if key in body:
            sight.put(fact, body[key], [key])
    rows_sight(sight, body.get("rows"), project, board, ["rows"])
    cards = body.get("cards")
    if isinstance(cards, list):
        listed = [_id(c) for c in cards]
        sight.put(("cards-order", project.id), [i for i in listed if i in project.cards],
                  ["cards"])
        extra_cards = {i for i in listed if i is not None} - project.known()
        sight.put(("extra-cards", project.id), extra_cards, ["cards"], len(listed))
        sight.copies[("extra-cards", project.id)] = _copies(
            cards, extra_cards, {c.name for c in project.cards.values()})
        for card_id in project.cards:
            sight.put(("card", project.id, card_id), card_id in listed,
                      ["cards", {"id": card_id}])
            if card_id in listed:
                record = cards[listed.index(card_id)]
                card_sight(sight, record, project, card_id, ["cards", {"id": card_id}],
                           id_is_key)
    plugins_sight(sight, body, project)


def plugins_sight(sight: Sight, body: Any, project: Project) -> None:
    """Whether the `plugins` of a Project (or of op 23's and 24's answers) name each plugin
    the model knows of (plugin records are not shown: the id anywhere in them)."""
    if isinstance(body, dict) and "plugins" in body:
        for plugin in list(project.plugins):
            sight.put(("plugin", project.id, plugin), mentions(body["plugins"], plugin),
                      ["plugins"])


@dataclass
class Look:
    """One reading of the whole board: its sights, and, when its requests went side by side,
    their exchanges, kept aside for the caller to adopt (`keep`) or drop (None: sent one at a
    time, already the running test's)."""

    sights: list[Sight]
    aside: list[Exchange] | None = None


class Observer:
    """Reads the observable board of a model from a server: op 3 and op 6 of each of its
    projects, op 27 for each plugin datum the run wrote; and a write's own answer.

    The readings of one look depend on nothing but the write before them: with the api's
    lanes (`Api.side_by_side`, set from boardcert.pytest.together) they go side by side, one
    round trip in all instead of one each. A look whose answers are not all those the model
    expects (a status, an error) is not kept: the board is read again one request at a time."""

    def __init__(self, api: Api) -> None:
        self.api = api
        self.id_is_key = bool(api.profile.data.get("metadata_id_is_key"))

    def look(self, board: Board, side_by_side: bool = True) -> Look:
        if side_by_side and self.api.side_by_side is not None:
            found = self._side_by_side(board, self.api.side_by_side)
            if found is not None:
                return found
        sights = []
        for project in board.projects.values():
            read = self.api.call(3, projectId=project.id)
            sights.append(self._project(board, project, read))
            if read.status == 200:
                sights.append(self._rows(board, project, self.api.call(6, projectId=project.id)))
        for plugin, entity, key in board.data:
            sights.append(self.datum(board, plugin, entity, key))
        return Look(sights)

    def _side_by_side(self, board: Board, lanes: SideBySide) -> Look | None:
        """Every reading at once (op 6 of the projects the model holds present); None, with
        nothing kept, where lanes are one wide or an answer is not one the model expects: op
        3 and op 6 answer 200 for a project there, op 3 a 4xx for one deleted, op 27 200 (or
        a 4xx for a datum deleted)."""
        projects = list(board.projects.values())
        present = [p for p in projects if p.present]
        data = list(board.data)
        jobs: list[Callable[[], Exchange]] = [
            *(partial(self.api.call, 3, projectId=p.id) for p in projects),
            *(partial(self.api.call, 6, projectId=p.id) for p in present),
            *(partial(self._datum_read, *datum) for datum in data)]
        done = lanes(jobs) if len(jobs) > 1 else None
        if done is None or any(error is not None or read is None for read, error, _ in done):
            return None
        reads = iter(done)
        shown = [(p, next(reads)) for p in projects]
        listed = {p.id: next(reads) for p in present}
        stored = [(datum, next(reads)) for datum in data]
        if any((read.status != 200 if p.present else not 400 <= (read.status or 0) < 500)
               for p, (read, _, _) in shown) \
                or any(read.status != 200 for read, _, _ in listed.values()) \
                or any(read.status != 200 and not (board.data[datum] is ABSENT
                                                   and 400 <= (read.status or 0) < 500)
                       for datum, (read, _, _) in stored):
            return None
        look = Look([], [])
        for project, (read, _, sent) in shown:
            look.sights.append(self._project(board, project, read))
            look.aside += sent
            if project.id in listed:
                listing, _, sent = listed[project.id]
                look.sights.append(self._rows(board, project, listing))
                look.aside += sent
        for datum, (read, _, sent) in stored:
            look.sights.append(self._datum(board, *datum, read))
            look.aside += sent
        return look

    def _project(self, board: Board, project: Project, read: Exchange) -> Sight:
        """What op 3 showed of a project."""
        sight = Sight("op 3", read)
        status = read.status or 0
        if status == 200:
            sight.put(("project", project.id), True, [])
            project_sight(sight, _json(read), project, board, self.id_is_key)
        elif 400 <= status < 500:
            sight.put(("project", project.id), False, [])
        return sight

    def _rows(self, board: Board, project: Project, listing: Exchange) -> Sight:
        """What op 6 showed of a project's rows and columns."""
        rows = Sight("op 6", listing)
        if listing.status == 200:
            body = _json(listing)
            rows_sight(rows, body.get("rows") if isinstance(body, dict) else None,
                       project, board, ["rows"])
        return rows

    def datum(self, board: Board, plugin: str, entity: str, key: str) -> Sight:
        """Op 27 for one datum."""
        return self._datum(board, plugin, entity, key, self._datum_read(plugin, entity, key))

    def _datum_read(self, plugin: str, entity: str, key: str) -> Exchange:
        params, headers = self.api.plugin_data_location(entity)
        return self.api.call(27, path_params={"pluginId": plugin, "key": key}, params=params,
                             headers=headers)

    def _datum(self, board: Board, plugin: str, entity: str, key: str,
               read: Exchange) -> Sight:
        """The value the run stored there if the answer mentions it, an absence for a 4xx or
        an answer with none of the run's values."""
        sight = Sight(f"op 27 for {key!r} of entity {entity!r}", read)
        status, fact = read.status or 0, ("data", plugin, entity, key)
        if 400 <= status < 500:
            sight.put(fact, ABSENT, [])
        elif status == 200:
            body = _json(read)
            values = [v for v in board.values(plugin) if mentions(body, v)]
            expected = board.data[(plugin, entity, key)]
            sight.put(fact, expected if expected in values else values[0] if values
                      else ABSENT, [])
        return sight

    def reading(self, board: Board, number: int, exchange: Exchange, project_id: str,
                card_id: str | None = None) -> Sight | None:
        """What one exchange shows: op 3's reading of a project, or a write's answer."""
        if number == 3:
            project = board.projects.get(project_id)
            return self._project(board, project, exchange) if project is not None else None
        return self.answer(board, number, exchange, project_id, card_id)

    def answer(self, board: Board, number: int, exchange: Exchange, project_id: str,
               card_id: str | None = None) -> Sight | None:
        """A write's own answer, where it is a record the model can read: a Project (ops 2,
        5, 7-14), a Card (ops 15-20: the card addressed, or the one it names), op 23's and 24's
        plugins."""
        body = _json(exchange) if exchange.status == 200 else None
        project = board.projects.get(project_id)
        if not isinstance(body, dict) or project is None:
            return None
        sight = Sight(f"op {number}'s answer", exchange)
        if number in (2, 5, 7, 8, 9, 10, 11, 12, 13, 14):
            project_sight(sight, body, project, board, self.id_is_key)
        elif number in (15, 16, 17, 18, 19, 20):
            shown = _id(body)
            if shown in project.cards and (card_id is None or shown == card_id):
                card_sight(sight, body, project, shown, [], self.id_is_key)
        elif number in (23, 24):
            plugins_sight(sight, body, project)
        return sight if sight.seen else None
