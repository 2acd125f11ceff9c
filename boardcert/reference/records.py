"""The records of the reference server's store (projects, rows, columns, cards) with their JSON
views, the store's refusals and the rules every write checks first (names, permutations)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

NAME_MAX = 25000  # projects, rows, columns and cards; counted in code points (len of str)
CREATED_FLAIR = "\N{SPARKLES}"

JSON = dict[str, Any]


class StoreError(Exception):
    """A request the store refuses; `code` names the reason, `message` explains it."""

    code = "error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class NotFound(StoreError):
    """A named organization, project, row, column, card, plugin or datum does not exist."""

    code = "not_found"


class Invalid(StoreError):
    """The values are well typed but break a rule (length, permutation, anchor, code)."""

    code = "invalid"


def timestamp() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def check_name(name: str, what: str) -> None:
    if not 1 <= len(name) <= NAME_MAX:
        raise Invalid(f"{what} name must be 1 to {NAME_MAX} characters", "invalid_name")


def check_permutation(ids: list[str], current: list[str], what: str) -> None:
    if len(ids) != len(current) or set(ids) != set(current):
        raise Invalid(f"ids must list each {what} id exactly once", "not_a_permutation")


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
    url: str
    column_ids: list[str]
    metadata: dict[str, str] = field(default_factory=dict)


@dataclass
class Project:
    id: str
    name: str
    created_at: str
    updated_at: str
    rows: list[Row] = field(default_factory=list)
    cards: dict[str, Card] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # the project's card order
    plugins: list[str] = field(default_factory=list)

    def row(self, row_id: str) -> Row:
        for row in self.rows:
            if row.id == row_id:
                return row
        raise NotFound(f"no row {row_id!r} in project {self.id!r}")

    def column(self, column_id: str) -> tuple[Row, Column]:
        for row in self.rows:
            for column in row.columns:
                if column.id == column_id:
                    return row, column
        raise NotFound(f"no column {column_id!r} in project {self.id!r}")

    def card(self, card_id: str) -> Card:
        try:
            return self.cards[card_id]
        except KeyError:
            raise NotFound(f"no card {card_id!r} in project {self.id!r}") from None

    def drop_columns(self, column_ids: set[str]) -> None:
        """Take the columns off every card; a card left in no column is deleted."""
        for card in list(self.cards.values()):
            card.column_ids = [c for c in card.column_ids if c not in column_ids]
            if not card.column_ids:
                del self.cards[card.id]
        self.order = [card_id for card_id in self.order if card_id in self.cards]

    def card_view(self, card: Card) -> JSON:
        names = {column.id: column.name for row in self.rows for column in row.columns}
        return {
            "id": card.id,
            "name": card.name,
            "url": card.url,
            "createdFlair": CREATED_FLAIR,
            "columns": [{"id": c, "name": names[c]} for c in card.column_ids],
            "metadata": [{"id": k, "value": v} for k, v in card.metadata.items()],
            # Section 2, "Other records": card-returning responses carry plugins and projects
            # (shapes not shown): the project's plugins, and the project the card is in.
            "plugins": [{"id": plugin_id} for plugin_id in self.plugins],
            "projects": [{"id": self.id, "name": self.name}],
        }

    def rows_view(self) -> list[JSON]:
        return [
            {
                "id": row.id,
                "name": row.name,
                "columns": [{"id": c.id, "name": c.name} for c in row.columns],
            }
            for row in self.rows
        ]

    def view(self) -> JSON:
        return {
            "id": self.id,
            "name": self.name,
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
            "rows": self.rows_view(),
            "cards": [self.card_view(self.cards[card_id]) for card_id in self.order],
            "plugins": [{"id": plugin_id} for plugin_id in self.plugins],
        }
