"""The records of the board model: the marks for what the interface leaves open or rules out,
the kinds of fact, an `Act` (what a write addressed), and projects, rows, columns and cards as
the model holds them. Pure data (boardcert.model.board writes them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ABSENT", "KINDS", "OPEN", "OTHERS", "Act", "AtLeast", "Card", "Column", "Fact",
           "Project", "Row", "label", "nth"]

OTHERS = "WRITE-ONLY-ADDRESSED"


class _Mark:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name

    def __copy__(self) -> _Mark:  # one of each: held by identity (`is OPEN`)
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _Mark:
        return self


OPEN = _Mark("OPEN")  # the interface leaves it open: any value, present or not
ABSENT = _Mark("ABSENT")  # a metadata entry or plugin datum that must not be there


class AtLeast(dict):
    """Columns a card must still list, among others it may list too (after an alias)."""

Fact = tuple[Any, ...]  # (kind, *ids)
# The kinds of fact, and what each says (the observer reads them, compare words them).
KINDS = {
    "project": "the project is there (op 3 answers it)",
    "project-name": "the project's name",
    "project-created": "the project's createdAt (its creation time)",
    "rows": "the order of the project's rows",
    "row": "the row is there",
    "row-name": "the row's name",
    "columns": "the order of a row's columns",
    "column": "the column is there, in its row",
    "column-name": "the column's name",
    "card": "the card is there (listed in the Project's cards)",
    "cards-order": "the order of the Project's cards",
    "card-name": "the card's name",
    "card-columns": "the columns the card is placed in",
    "metadata": "a metadata entry of the card",
    "extra-rows": "rows nobody created (beyond those the server had when first read)",
    "extra-columns": "columns nobody created in a row",
    "extra-cards": "cards nobody created",
    "plugin": "the plugin is attached to the project",
    "data": "a plugin's datum for an entity under a key",
}


@dataclass
class Act:
    """A write the model applied: op number, a sentence ("renamed row 2 of 3 'bc-row-…'"),
    and the facts it addressed -> the requirement a difference there breaks."""

    op: int
    said: str
    addressed: dict[Fact, str] = field(default_factory=dict)
    allows: set[Fact] = field(default_factory=set)  # extras it may make (a new row's columns)
    moved: list[str] = field(default_factory=list)  # a move's cards: the others keep order

    def requirement(self, fact: Fact) -> str:
        return self.addressed.get(fact, OTHERS)


@dataclass
class Column:
    id: str
    name: str


@dataclass
class Row:
    id: str
    name: str
    columns: list[Column] = field(default_factory=list)


@dataclass
class Card:
    id: str
    name: str
    columns: set[str] | None  # None: open (after a move); see `least`
    least: set[str] = field(default_factory=set)  # columns it must still list (an alias)
    metadata: dict[str, Any] = field(default_factory=dict)  # key -> value, ABSENT or OPEN
    present: Any = True  # True, False or OPEN (a deleted row's or column's card)
    values: dict[str, str] = field(default_factory=dict)  # key -> the last value given


@dataclass
class Project:
    id: str
    name: str
    rows: list[Row] = field(default_factory=list)
    cards: dict[str, Card] = field(default_factory=dict)
    order: list[str] | None = None  # the cards' order, learnt from a first reading
    floating: set[str] = field(default_factory=set)  # rows, columns, cards whose place is open
    plugins: dict[str, bool] = field(default_factory=dict)
    present: bool = True
    created: Any = OPEN  # createdAt, learnt from a first reading
    gone_rows: list[str] = field(default_factory=list)  # deleted rows
    gone_columns: dict[str, str] = field(default_factory=dict)  # deleted column -> its row
    foreign: set[str] = field(default_factory=set)  # what the server had when first read
    seen: set[Fact] = field(default_factory=set)  # lists read once (what they held is learnt)
    keys: dict[str, str] = field(default_factory=dict)  # every metadata key given -> its value

    def known(self) -> set[str]:
        """The ids of every row, column and card the model knows of, gone ones included."""
        return ({r.id for r in self.rows} | {c.id for r in self.rows for c in r.columns}
                | set(self.cards) | set(self.gone_rows) | set(self.gone_columns) | self.foreign)

    def row(self, row_id: str) -> Row:
        return next(r for r in self.rows if r.id == row_id)

    def column(self, column_id: str) -> tuple[Row, Column]:
        return next((r, c) for r in self.rows for c in r.columns if c.id == column_id)

    def facts(self) -> dict[Fact, Any]:
        """What the project holds now, fact -> expected value (boardcert.model.board)."""
        p, found = self, {("project", self.id): self.present}
        if not p.present:
            return found
        found[("project-name", p.id)] = p.name
        found[("project-created", p.id)] = p.created
        found[("rows", p.id)] = [r.id for r in p.rows if r.id not in p.floating]
        found[("extra-rows", p.id)] = set()
        found[("extra-cards", p.id)] = set()
        found |= {("row", p.id, row_id): False for row_id in p.gone_rows}
        found |= {("column", p.id, row_id, column_id): False
                  for column_id, row_id in p.gone_columns.items()}
        for row in p.rows:
            found[("row", p.id, row.id)] = True
            found[("row-name", p.id, row.id)] = row.name
            found[("columns", p.id, row.id)] = [c.id for c in row.columns
                                                if c.id not in p.floating]
            found[("extra-columns", p.id, row.id)] = set()
            for column in row.columns:
                found[("column", p.id, row.id, column.id)] = True
                found[("column-name", p.id, column.id)] = column.name
        if p.order is not None:
            found[("cards-order", p.id)] = [i for i in p.order if i not in p.floating
                                            and p.cards[i].present is True]
        for card in p.cards.values():
            found[("card", p.id, card.id)] = card.present
            if card.present is False:
                continue
            found[("card-name", p.id, card.id)] = card.name
            if card.columns is not None:
                found[("card-columns", p.id, card.id)] = {
                    c: p.column_name(c) for c in sorted(card.columns)}
            elif card.least:
                found[("card-columns", p.id, card.id)] = AtLeast(
                    {c: p.column_name(c) for c in sorted(card.least)})
            for key in p.keys:  # an entry given to one card is on no other
                found[("metadata", p.id, card.id, key)] = card.metadata.get(key, ABSENT)
        found |= {("plugin", p.id, plugin): on for plugin, on in p.plugins.items()}
        return found

    def column_name(self, column_id: str) -> str | None:
        found = [c.name for r in self.rows for c in r.columns if c.id == column_id]
        return found[0] if found else None


def nth(items: list[Any], item: Any) -> str:
    return f"{items.index(item) + 1} of {len(items)}"


def label(projects: dict[str, Project], fact: Fact, named: bool = True) -> str:
    """What a fact is about, in words: "row 2 of 3 ('bc-row-…')" (`named`: with its name)."""
    kind, *ids = fact
    if kind in ("data",):
        return f"plugin {ids[0]}'s datum {ids[2]!r} of entity {ids[1]!r}"
    project = projects.get(ids[0])
    if project is None:
        return f"{kind} {ids}"
    if kind in ("project", "project-name", "project-created", "rows", "cards-order"):
        return f"project {project.name!r}"
    if kind == "plugin":
        return f"plugin {ids[1]!r} of project {project.name!r}"
    if kind in ("extra-rows", "extra-cards"):
        return f"project {project.name!r}"
    if kind in ("row", "row-name", "columns", "extra-columns"):
        row = next((r for r in project.rows if r.id == ids[1]), None)
        if row is None:
            return f"the deleted row {ids[1]}"
        return f"row {nth(project.rows, row)}" + (f" ({row.name!r})" if named else "")
    if kind in ("column", "column-name"):
        column_id = ids[-1]
        for row in project.rows:
            for column in row.columns:
                if column.id == column_id:
                    own = f" ({column.name!r})" if named else ""
                    return f"column {nth(row.columns, column)}{own} of row {nth(project.rows, row)}"
        return f"the deleted column {column_id}"
    card = project.cards.get(ids[1])
    if card is None:
        return f"card {ids[1]}"
    own = f"card {nth(list(project.cards.values()), card)}" + (f" ({card.name!r})" if named
                                                               else "")
    return f"{own}, metadata {ids[2]!r}" if kind == "metadata" else own
