"""What the suites build on the server and the words they fill the profile's bodies with: `Made`
(a resource the run created), `unique` names, the `Board` (a project, its rows, two columns in
the first row, three cards in the first column), `placeholders()` (every `{placeholder}` a
profile body may use, for a board) and `profile_body()`. The suites import from here."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from boardcert.errors import ConfigError, NotAssessed, SetUpError
from boardcert.http.api import Api
from boardcert.http.client import Exchange
from boardcert.model import Oracle
from boardcert.settings.config import Profile, ProfileBody, fill
from boardcert.workbench.ledger import Entry

__all__ = ["Board", "Made", "build", "give_metadata", "modelled", "placeholders",
           "profile_body", "project_state", "shape", "unique"]


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
    """A project with its rows, `columns` in one of them (`row`) and `cards` in one of those
    (`column`); `metadata`: a (key, value) entry of the first card, when it was given one.

    A plain board: the columns (2) in the first row, the cards (3) in the first column. A wide
    board (for the whole-board checks: three of each kind, the item a test addresses not
    always the first): three rows, three columns in the middle row, two in the first and one
    in the last, three cards in the middle column and one in each other column of the middle
    row, and with `metadata` three entries on the middle card and one on the last
    (`entries`). Two of a kind alike, as nothing in the interface keeps them apart: the middle
    card and the last column's card share a name (a server that refuses it gives the second
    one a name of its own), the middle card's first and third entries a value."""

    project: Made
    rows: list[Made]
    columns: list[Made]
    cards: list[Made]
    metadata: tuple[str, str] | None = None
    home: int = 0  # the index of `row` among the rows
    placed: int = 0  # the index of `column` among the columns
    held: dict[str, list[Made]] = field(default_factory=dict)  # row id -> its columns
    layout: dict[str, list[Made]] = field(default_factory=dict)  # column id -> its cards
    entries: list[tuple[Made, str, str]] = field(default_factory=list)  # (card, key, value)
    after: dict[str, Exchange] = field(default_factory=dict)  # key -> op 3 read after its op 21

    @property
    def row(self) -> Made:
        return self.rows[self.home]

    @property
    def column(self) -> Made:
        return self.columns[self.placed]

    @property
    def other_column(self) -> Made:
        return self.columns[(self.placed + 1) % len(self.columns)]


Make = Callable[..., Made]
COLUMNS, CARDS = 2, 3  # in the first row, in the first column
WIDE = {"project": 1, "row": 3, "column": 6, "card": 6}
# The orders of three a reorder test asks for, by position: the last first (one move), and all
# turned round (two): a server that makes only one move gets one of them wrong.
ORDERS = {"last-first": (2, 0, 1), "reversed": (2, 1, 0)}


def shape(rows: int = 1, wide: bool = False) -> dict[str, int]:
    """How many of each kind a board holds (for --plan)."""
    return dict(WIDE) if wide else {"project": 1, "row": rows, "column": COLUMNS, "card": CARDS}


def build(make_project: Make, make_row: Make, make_column: Make, make_card: Make,
          rows: int = 1, wide: bool = False) -> Board:
    """A board made with the plugin's factories (which put it in the ledger): the project,
    its rows, their columns row by row, their cards column by column (`modelled` tells the
    model in this order)."""
    project = make_project()
    made_rows = [make_row(project) for _ in range(3 if wide else rows)]
    home = 1 if wide else 0
    held = {row.id: [make_column(project, row)
                     for _ in range((2 - n // 2 if n != home else 3) if wide else
                                    (COLUMNS if n == home else 0))]
            for n, row in enumerate(made_rows)}
    columns, placed = held[made_rows[home].id], 1 if wide else 0
    twin = unique("twin")  # a wide board's middle card and its row's last card: one name

    def card(n: int, column: Made, k: int) -> Made:
        if not wide or (n, k) not in ((placed, 1), (len(columns) - 1, 0)):
            return make_card(project, column)
        try:  # two cards alike (nothing makes names unique); refused: a name of its own
            return make_card(project, column, twin)
        except (SetUpError, NotAssessed):
            return make_card(project, column)

    layout = {column.id: [card(n, column, k)
                          for k in range(CARDS if n == placed else 1 if wide else 0)]
              for n, column in enumerate(columns)}
    return Board(project, made_rows, columns, layout[columns[placed].id], home=home,
                 placed=placed, held=held, layout=layout)


def give_metadata(api: Api, board: Board, wide: bool = False) -> Board:
    """The first card gets a metadata entry (op 21, the profile's body), noted on the board
    (a wide board: three entries on the middle card, one on the last, the project read by op
    3 after each but the last: op 21 answers nothing the interface shows, and an entry seen
    there that a later op 21 loses is that write's fault, not its own creation's); none when
    the profile has no body for it or the server does not answer 200."""
    if not api.profile.has("bodies.add_card_metadata"):
        return board
    cards = [board.cards[1]] * 3 + [board.cards[2]] if wide else board.cards[:1]
    alike = unique("value")  # a wide board's middle card: its first and third entries' value
    for n, card in enumerate(cards):
        key, value = unique("key"), alike if wide and n in (0, 2) else unique("value")
        exchange = api.call(21, projectId=board.project.id, cardId=card.id,
                            json=api.body("add_card_metadata", key=key, value=value))
        if exchange.status != 200:
            continue
        board.entries.append((card, key, value))
        board.metadata = board.metadata or (key, value)
        if n + 1 < len(cards):
            board.after[key] = api.call(3, projectId=board.project.id)
    return board


def modelled(api: Api, board: Board, others: Sequence[Made] = ()) -> Oracle:
    """The board (and `others`: projects beside it) told to a model (boardcert.model) write
    by write in the order they were made, each judged on what its answer (or the reading
    after it) showed, then read back whole as the model says: the oracle a test's writes are
    checked with."""
    oracle = Oracle(api)
    model, project = oracle.board, board.project.id
    for other in others:
        model.create_project(other.id, other.name)
    oracle.made(model.create_project(project, board.project.name), board.project.exchange,
                project)
    for row in board.rows:
        oracle.made(model.create_row(project, row.id, row.name), row.exchange, project)
    for row in board.rows:
        for column in board.held.get(row.id, []):
            oracle.made(model.create_column(project, row.id, column.id, column.name),
                        column.exchange, project)
    for column_id, cards in board.layout.items():
        for card in cards:
            oracle.made(model.create_card(project, column_id, card.id, card.name),
                        card.exchange, project, card.id)
    for card, key, value in board.entries:
        oracle.made(model.add_metadata(project, card.id, key, value), board.after.get(key),
                    project, number=3)
    oracle.baseline()
    return oracle


def placeholders(board: Board, profile: Profile | None = None, **given: Any) -> dict[str, Any]:
    """Every `{placeholder}` a profile body may use (config.PLACEHOLDERS), for this board: its
    ids in their order, fresh names, and with a profile its plugin_id and exchange_code (as
    `code`) where it has them and `entity_id` filled from its template; `given` replaces any."""
    cards = [card.id for card in board.cards]
    values: dict[str, Any] = {
        "name": unique("name"), "alias": unique("alias"), "key": unique("key"),
        "value": unique("value"), "project_id": board.project.id, "row_id": board.row.id,
        "row_ids": [row.id for row in board.rows], "column_id": board.column.id,
        "other_column_id": board.other_column.id, "column_ids": [c.id for c in board.columns],
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
