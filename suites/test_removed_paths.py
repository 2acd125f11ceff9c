"""Section 9: the former paths answer neither 2xx nor 3xx and have no side effect.

Each former method+path is called once, with real ids of a board this module made, the body its
former operation plausibly took (boardcert.removed) and the valid key; the project is read by a
fresh operation 3 before and after. A 5xx is not 2xx or 3xx, so it passes the MUST and is held
against NO-SERVER-ERROR in a test of its own.
"""

from __future__ import annotations

from typing import Any

import pytest

from boardcert import expect
from boardcert.api import Api
from boardcert.board import Board, placeholders, project_state, unique
from boardcert.client import Client
from boardcert.config import Profile, fill
from boardcert.expect import Outcome
from boardcert.removed import REMOVED, RemovedPath


class Calls:
    """Each removed path called once (whichever test asks first); the board is built again
    after a call that was answered or that changed it, so every call names live resources."""

    def __init__(self, api: Api, client: Client, profile: Profile, build: Any) -> None:
        self.api, self.client, self.profile, self.build = api, client, profile, build
        self.board: Board | None = None
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
        outcome = expect.observed(lambda: self.client.request(method, path, json=body),
                                  lambda: project_state(self.api, board.project.id))
        if outcome.before != outcome.after or not 400 <= (outcome.exchange.status or 0) < 500:
            self.board = None
        return outcome

    def values(self, board: Board) -> dict[str, Any]:
        """The board's placeholders; stand-ins where the profile has no plugin values."""
        key, value = board.metadata or (unique("key"), unique("value"))
        values = placeholders(board, self.profile, name=unique("removed"), key=key, value=value)
        values.setdefault("plugin_id", "boardcert")
        values.setdefault("code", "boardcert-code")
        return values | {"entity_id": fill(self.profile.data.get("entity_id") or "{card_id}",
                                           values, "entity_id")}


@pytest.fixture(scope="module")
def calls(api, client, profile, make_board) -> Calls:
    """The board has a metadata entry on its first card, so that the former move by metadata
    has something to move."""
    return Calls(api, client, profile, lambda: make_board(metadata=True))


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
    expect.changes_nothing("REMOVED-PATH-NO-EFFECT", f"the project after the removed "
                           f"{removed.label} (naming a {removed.resource})",
                           calls.outcome(removed))


@pytest.mark.parametrize("removed", _params("NO-SERVER-ERROR"))
def test_removed_path_causes_no_server_error(removed, calls):
    """A call to a former path is answered without a 5xx."""
    exchange = calls.outcome(removed).exchange
    if (exchange.status or 0) >= 500:
        expect.fail("NO-SERVER-ERROR", f"a 4xx (not a 5xx) from the removed {removed.label}",
                    exchange)
