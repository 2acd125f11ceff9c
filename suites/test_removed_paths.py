"""Section 9: the former paths answer neither 2xx nor 3xx and have no side effect.

Each former method+path is called once, with real ids of a board this module made, the body its
former operation plausibly took (boardcert.removed) and the valid key; the project is read by a
fresh operation 3 before and after. A 5xx is not 2xx or 3xx, so it passes the MUST and is held
against NO-SERVER-ERROR in a test of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from boardcert import expect
from boardcert.api import Api
from boardcert.board import Made, unique
from boardcert.client import Client, Exchange
from boardcert.config import Profile, fill
from boardcert.removed import REMOVED, RemovedPath


@dataclass
class RemovedBoard:
    """A project with a row of two columns, three cards in the first column, and a metadata
    entry on the first card (so the former move-by-metadata has something to move)."""

    project: Made
    row: Made
    columns: list[Made]
    cards: list[Made]
    metadata: tuple[str, str]


@dataclass
class Outcome:
    before: dict[str, Any]
    exchange: Exchange
    after: dict[str, Any]


class Calls:
    """Each removed path called once (whichever test asks first); the board is built again
    after a call that was answered or that changed it, so every call names live resources."""

    def __init__(self, api: Api, client: Client, profile: Profile, build: Any) -> None:
        self.api, self.client, self.profile, self.build = api, client, profile, build
        self.board: RemovedBoard | None = None
        self.outcomes: dict[str, Outcome] = {}

    def outcome(self, removed: RemovedPath) -> Outcome:
        if removed.test_id not in self.outcomes:
            self.outcomes[removed.test_id] = self._call(removed)
        return self.outcomes[removed.test_id]

    def _call(self, removed: RemovedPath) -> Outcome:
        if self.board is None:
            self.board = self.build()
        board = self.board
        method, path, body = removed.request(self.values(board))
        before = self.state(board)
        exchange = self.client.request(method, path, json=body)
        after = self.state(board)
        if before != after or not 400 <= (exchange.status or 0) < 500:
            self.board = None
        return Outcome(before, exchange, after)

    def state(self, board: RemovedBoard) -> dict[str, Any]:
        read = self.api.call(3, projectId=board.project.id)
        return {"status": read.status, "project": read.json() if read.status == 200 else None}

    def values(self, board: RemovedBoard) -> dict[str, Any]:
        cards = [card.id for card in board.cards]
        values = {
            "name": unique("removed"), "project_id": board.project.id, "row_id": board.row.id,
            "column_id": board.columns[0].id, "other_column_id": board.columns[1].id,
            "card_id": cards[0], "after_card_id": cards[2], "key": board.metadata[0],
            "value": board.metadata[1],
            "plugin_id": self.profile.data.get("plugin_id") or "boardcert",
            "code": self.profile.data.get("exchange_code") or "boardcert-code",
        }
        template = self.profile.data.get("entity_id") or "{card_id}"
        return values | {"entity_id": fill(template, values, "entity_id")}


@pytest.fixture(scope="module")
def calls(api, client, profile, make_project, make_row, make_column, make_card) -> Calls:
    def build() -> RemovedBoard:
        project = make_project()
        row = make_row(project)
        columns = [make_column(project, row), make_column(project, row)]
        cards = [make_card(project, columns[0]) for _ in range(3)]
        key, value = unique("key"), unique("value")
        if profile.has("bodies.add_card_metadata"):
            api.call(21, projectId=project.id, cardId=cards[0].id,
                     json=api.body("add_card_metadata", key=key, value=value))
        return RemovedBoard(project, row, columns, cards, (key, value))
    return Calls(api, client, profile, build)


def _params(requirement: str, *also: int) -> list[Any]:
    return [pytest.param(removed, id=removed.test_id,
                         marks=pytest.mark.requirement(requirement, op=[removed.current, *also]))
            for removed in REMOVED]


@pytest.mark.parametrize("removed", _params("REMOVED-PATH-NOT-SERVED"))
def test_removed_path_is_not_served(removed, calls):
    """A former method and path, with real ids, a plausible body and the key, is not served."""
    exchange = calls.outcome(removed).exchange
    if 200 <= (exchange.status or 0) < 400:
        expect.fail("REMOVED-PATH-NOT-SERVED", f"neither 2xx nor 3xx from the removed "
                    f"{removed.label} (replaced by operation {removed.current})", exchange)


@pytest.mark.parametrize("removed", _params("REMOVED-PATH-NO-EFFECT", 3))
def test_removed_path_has_no_effect(removed, calls):
    """After a call to a former path the resources it named read back unchanged."""
    outcome = calls.outcome(removed)
    expect.unchanged("REMOVED-PATH-NO-EFFECT", f"the project after the removed {removed.label} "
                     f"(naming a {removed.resource})", outcome.before, outcome.after,
                     outcome.exchange)


@pytest.mark.parametrize("removed", _params("NO-SERVER-ERROR"))
def test_removed_path_causes_no_server_error(removed, calls):
    """A call to a former path is answered without a 5xx."""
    exchange = calls.outcome(removed).exchange
    if (exchange.status or 0) >= 500:
        expect.fail("NO-SERVER-ERROR", f"a 4xx (not a 5xx) from the removed {removed.label}",
                    exchange)
