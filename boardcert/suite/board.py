"""What the suites build on the server and the words they fill the profile's bodies with: `Made`
(a resource the run created), `unique` names, the `Board` (a project, its rows, two columns in
the first row, three cards in the first column), `placeholders()` (every `{placeholder}` a
profile body may use, for a board) and `profile_body()`. The suites import from here."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from boardcert.errors import ConfigError
from boardcert.http.api import Api
from boardcert.http.client import Exchange
from boardcert.settings.config import Profile, ProfileBody, fill
from boardcert.suite.ledger import Entry

__all__ = ["Board", "Made", "build", "give_metadata", "placeholders", "profile_body",
           "project_state", "shape", "unique"]


def unique(label: str) -> str:
    """A name no other run or test uses."""
    return f"bc-{label}-{uuid.uuid4().hex[:10]}"


@dataclass
class Made:
    """A resource the run created: its id, name, the body that answered and its ledger entry."""

    id: str
    name: str
    body: Any
    entry: Entry | None  # None: not the run's own (readable_project under --read-only)
    exchange: Exchange


@dataclass
class Board:
    """A project with its rows, two columns in the first row and three cards in the first
    column; `metadata`: a (key, value) entry of the first card, when it was given one."""

    project: Made
    rows: list[Made]
    columns: list[Made]
    cards: list[Made]
    metadata: tuple[str, str] | None = None

    @property
    def row(self) -> Made:
        return self.rows[0]


Make = Callable[..., Made]
COLUMNS, CARDS = 2, 3  # in the first row, in the first column


def shape(rows: int = 1) -> dict[str, int]:
    """How many of each kind a board holds (for --plan)."""
    return {"project": 1, "row": rows, "column": COLUMNS, "card": CARDS}


def build(make_project: Make, make_row: Make, make_column: Make, make_card: Make,
          rows: int = 1) -> Board:
    """A board made with the plugin's factories (which put it in the ledger)."""
    project = make_project()
    made_rows = [make_row(project) for _ in range(rows)]
    columns = [make_column(project, made_rows[0]) for _ in range(COLUMNS)]
    cards = [make_card(project, columns[0]) for _ in range(CARDS)]
    return Board(project, made_rows, columns, cards)


def give_metadata(api: Api, board: Board) -> Board:
    """The first card gets a metadata entry (op 21, the profile's body), noted on the board;
    none when the profile has no body for it or the server does not answer 200."""
    if api.profile.has("bodies.add_card_metadata"):
        key, value = unique("key"), unique("value")
        exchange = api.call(21, projectId=board.project.id, cardId=board.cards[0].id,
                            json=api.body("add_card_metadata", key=key, value=value))
        board.metadata = (key, value) if exchange.status == 200 else None
    return board


def placeholders(board: Board, profile: Profile | None = None, **given: Any) -> dict[str, Any]:
    """Every `{placeholder}` a profile body may use (config.PLACEHOLDERS), for this board: its
    ids in their order, fresh names, and with a profile its plugin_id and exchange_code (as
    `code`) where it has them and `entity_id` filled from its template; `given` replaces any."""
    cards = [card.id for card in board.cards]
    values: dict[str, Any] = {
        "name": unique("name"), "alias": unique("alias"), "key": unique("key"),
        "value": unique("value"), "project_id": board.project.id, "row_id": board.row.id,
        "row_ids": [row.id for row in board.rows], "column_id": board.columns[0].id,
        "other_column_id": board.columns[1].id, "column_ids": [c.id for c in board.columns],
        "card_id": cards[0], "card_ids": cards[:1], "after_card_id": cards[2],
        "before_card_id": cards[1]}
    if profile is not None:
        values |= {name: profile.data[key] for name, key in (("plugin_id", "plugin_id"),
                                                              ("code", "exchange_code"))
                   if profile.has(key)}
    values |= given
    if profile is not None and "entity_id" not in given and profile.has("entity_id"):
        with suppress(ConfigError):  # a template naming a value the board has not: none
            values["entity_id"] = fill(profile.get("entity_id"), values, "entity_id")
    return values


def profile_body(profile: Profile, body_name: str, board: Board, **given: Any) -> ProfileBody:
    """The profile's `bodies.<body_name>`, filled with the board's placeholders."""
    return profile.body(body_name, **placeholders(board, profile, **given))


def project_state(api: Api, project_id: str) -> dict[str, Any]:
    """The project as a fresh operation 3 answers it: what a rejected request must not change."""
    read = api.call(3, projectId=project_id)
    return {"status": read.status, "project": read.json() if read.status == 200 else None}
