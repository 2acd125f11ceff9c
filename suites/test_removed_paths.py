"""Section 9: the former paths answer neither 2xx nor 3xx and have no side effect.

Each former method+path is called once, with real ids of a board this module made, the body its
former operation plausibly took (boardcert.removed) and the valid key; the project is read by a
fresh operation 3 before and after. A 5xx is not 2xx or 3xx, so it passes the MUST and is held
against NO-SERVER-ERROR in a test of its own.

With more than one request in flight (boardcert.concurrency) the calls the tests this process
runs together need go side by side between one reading before and one after (`Calls.batch`);
anything unexpected and they are made again one at a time, as serially.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from boardcert import concurrency, expect
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
        self.outcomes: concurrency.Outcomes[str, Outcome] = concurrency.Outcomes(client)

    def outcome(self, removed: RemovedPath, request: pytest.FixtureRequest) -> Outcome:
        return self.outcomes.get(request, removed.test_id, partial(self._call, removed),
                                 partial(self.batch, request))

    def batch(self, request: pytest.FixtureRequest) -> None:
        """The calls this test and its companions still need, side by side between one reading
        of the project before and one after. Kept when every call got a 4xx and the project
        read back the same; else thrown away, and the board built again for the calls made one
        at a time."""
        pending = {r.test_id: r for r in concurrency.pending_values(request, "removed")}
        ids = self.outcomes.fresh(pending)
        if len(ids) < 2:
            return
        if self.board is None:
            self.board = self.build()  # as the first call would, in this test
        board, made = self.board, {}
        for test_id in ids:
            try:
                made[test_id] = pending[test_id].request(self.values(board))
            except Exception:  # noqa: BLE001 - its tests find out why, one at a time
                continue
        batch = concurrency.between(
            self.client, partial(project_state, self.api, board.project.id),
            [partial(self.client.request, method, path, json=body)
             for method, path, body in made.values()],
            concurrency.in_flight(request.config), lambda state: state["status"] == 200)
        if batch is not None and not self.outcomes.keep_between(
                list(made), batch, lambda i: Outcome(batch.sent[i].value, batch.before.value,
                                                     batch.after.value)):
            self.board = None  # the batch may have changed it: serially, a board of its own

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


@pytest.fixture
def outcome(request, calls) -> Any:
    """The outcome of a removed path's call, made on first use."""
    return partial(calls.outcome, request=request)


def _params(requirement: str, *also: int) -> list[Any]:
    return [pytest.param(removed, id=removed.test_id,
                         marks=pytest.mark.requirement(requirement, op=[removed.current, *also]))
            for removed in REMOVED]


@pytest.mark.parametrize("removed", _params("REMOVED-PATH-NOT-SERVED"))
def test_removed_path_is_not_served(removed, outcome):
    """A former method and path, with real ids, a plausible body and the key, is not served."""
    exchange = outcome(removed).exchange
    if 200 <= (exchange.status or 0) < 400:
        expect.fail("REMOVED-PATH-NOT-SERVED", f"neither 2xx nor 3xx from the removed "
                    f"{removed.label} (replaced by operation {removed.current})", exchange)


@pytest.mark.parametrize("removed", _params("REMOVED-PATH-NO-EFFECT", 3))
def test_removed_path_has_no_effect(removed, outcome):
    """After a call to a former path the resources it named read back unchanged."""
    expect.changes_nothing("REMOVED-PATH-NO-EFFECT", f"the project after the removed "
                           f"{removed.label} (naming a {removed.resource})",
                           outcome(removed))


@pytest.mark.parametrize("removed", _params("NO-SERVER-ERROR"))
def test_removed_path_causes_no_server_error(removed, outcome):
    """A call to a former path is answered without a 5xx."""
    exchange = outcome(removed).exchange
    if (exchange.status or 0) >= 500:
        expect.fail("NO-SERVER-ERROR", f"a 4xx (not a 5xx) from the removed {removed.label}",
                    exchange)
