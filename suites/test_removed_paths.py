"""Section 9: the former paths are not served, answer as gone and have no side effect.

Each former method+path is called with real ids of a board this module made and the valid key:
first with the body its current operation accepts (the profile's, or what discovery found),
so that a route still there that takes today's body answers 2xx, then (if that was not served)
with the body the former operation plausibly took (boardcert.interface.removed), which carries the
ids
its path no longer has; the project is read by a fresh operation 3 before and after. A 2xx
fails the MUST; a 3xx, or a 4xx other than 404, 405 and 410 (the route is evidently still
there), the SHOULD REMOVED-PATH-GONE (a reading); a 5xx is held against NO-SERVER-ERROR in a
test of its own. POST /exchange-code changes nothing the interface can read back: its
no-effect test is not assessed.

With more than one request in flight (boardcert.pytest.together) the calls the tests this process
runs together need go side by side between one reading before and one after (`Calls.batch`);
anything unexpected and they are made again one at a time, as serially.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from boardcert.conformance import (
    REMOVED,
    Api,
    Board,
    Client,
    Exchange,
    NotAssessed,
    Outcome,
    Profile,
    RemovedPath,
    expect,
    fill,
    placeholders,
    project_state,
    spec,
    together,
    unique,
)

GONE = (404, 405, 410)  # the statuses of a route that is not there (any of them is fine)
Request = tuple[str, str, Any]  # method, path, body


def _rank(exchange: Exchange) -> int:
    """How much an answer says about a former path: served, redirected or still routed,
    a server error, gone."""
    status = exchange.status or 0
    if 200 <= status < 300:
        return 0
    return 2 if status >= 500 else 3 if status in GONE else 1


class Calls:
    """Each removed path called once (whichever test asks first); the board is built again
    after a call that was answered or that changed it, so every call names live resources."""

    def __init__(self, api: Api, client: Client, profile: Profile, build: Any,
                 row_name: Any) -> None:
        self.api, self.client, self.profile, self.build = api, client, profile, build
        self.row_name = row_name  # op 7's row-name property, looked up on first use
        self.board: Board | None = None
        self.outcomes: together.Outcomes[str, Outcome] = together.Outcomes(client)

    def outcome(self, removed: RemovedPath, request: pytest.FixtureRequest) -> Outcome:
        return self.outcomes.get(request, removed.test_id, partial(self._call, removed),
                                 partial(self.batch, request))

    def batch(self, request: pytest.FixtureRequest) -> None:
        """The calls this test and its companions still need, side by side between one reading
        of the project before and one after. Kept when every call got a 4xx and the project
        read back the same; else thrown away, and the board built again for the calls made one
        at a time."""
        pending = {r.test_id: r for r in together.pending_values(request, "removed")}
        ids = self.outcomes.fresh(pending)
        if len(ids) < 2:
            return
        if self.board is None:
            self.board = self.build()  # as the first call would, in this test
        board, made = self.board, {}
        for test_id in ids:
            try:
                made[test_id] = self.requests(pending[test_id], board)
            except Exception:  # noqa: BLE001 - its tests find out why, one at a time
                continue
        batch = together.between(
            self.client, partial(project_state, self.api, board.project.id),
            [partial(self.send, requests) for requests in made.values()],
            together.lanes(request.config), lambda state: state["status"] == 200)
        if batch is not None and not self.outcomes.keep_between(
                list(made), batch, lambda i: self.judged(
                    pending[list(made)[i]], batch.sent[i].exchanges, batch.before.value,
                    batch.after.value)):
            self.board = None  # the batch may have changed it: serially, a board of its own

    def _call(self, removed: RemovedPath) -> Outcome:
        if self.board is None:
            self.board = self.build()
        board = self.board
        requests, sent = self.requests(removed, board), []
        try:
            with self.client.aside() as sent:
                seen = expect.observed(partial(self.send, requests),
                                       partial(project_state, self.api, board.project.id))
        finally:
            self.client.adopt(sent)  # the test shows its requests between the readings
        outcome = self.judged(removed, sent, seen.before, seen.after, seen.read)
        if outcome.before != outcome.after or any(
                not 400 <= (x.status or 0) < 500 for x in outcome.answers):
            self.board = None
        return outcome

    def send(self, requests: list[Request]) -> Exchange:
        """The requests in turn, until one is served (2xx); the answer that says most."""
        sent = []
        for method, path, body in requests:
            sent.append(self.client.request(method, path, json=body))
            if 200 <= (sent[-1].status or 0) < 300:
                break
        return min(sent, key=_rank)

    def judged(self, removed: RemovedPath, sent: list[Exchange], before: Any, after: Any,
               read: Any = None) -> Outcome:
        """The outcome of a removed path's requests (`sent`, readings between them left out,
        and a 429 sent again: its retry is the answer)."""
        calls = [x for x in sent if x.method == removed.method and not x.retried]
        outcome = Outcome(min(calls, key=_rank), before, after, read=read,
                          sent=calls if len(calls) > 1 else [])
        if not removed.observable:
            outcome.unreadable = NotAssessed(
                f"what {removed.label} could change (it names no record the interface lets "
                "anyone read back: the use of a user token is not shown)")
        return outcome

    def requests(self, removed: RemovedPath, board: Board) -> list[Request]:
        """The former path with the body its current operation accepts (if the profile has
        one), then with the body the former operation took (if another)."""
        values = self.values(board)
        former = removed.request(values)
        try:
            current = [(former[0], former[1], self.current_body(removed.current, values))]
        except NotAssessed:
            current = []
        return current + [former] * (former not in current)

    def current_body(self, number: int, values: dict[str, Any]) -> Any:
        """What operation `number` is sent with elsewhere in the run: the profile's body (as
        discovery proved it, an anchor added for the moves), op 7's row-name property, or none."""
        if number == 7:
            return {self.row_name(): values["name"]}
        name = spec.operation(number).profile_body
        if name is None:
            return None
        body = self.profile.body(name, **values)
        if number in (18, 19) and not {"afterCardId", "beforeCardId"} & set(body):
            body = body | {"afterCardId": values["after_card_id"]}
        return body

    def values(self, board: Board) -> dict[str, Any]:
        """The board's placeholders; stand-ins where the profile has no plugin values."""
        key, value = board.metadata or (unique("key"), unique("value"))
        values = placeholders(board, self.profile, name=unique("removed"), key=key, value=value)
        values.setdefault("plugin_id", "boardcert")
        values.setdefault("code", "boardcert-code")
        return values | {"entity_id": fill(self.profile.data.get("entity_id") or "{card_id}",
                                           values, "entity_id")}


@pytest.fixture(scope="module")
def calls(request, api, client, profile, make_board) -> Calls:
    """The board has a metadata entry on its first card, so that the former move by metadata
    has something to move."""
    return Calls(api, client, profile, lambda: make_board(metadata=True),
                 lambda: request.getfixturevalue("row_name_property"))


@pytest.fixture
def outcome(request, calls) -> Any:
    """The outcome of a removed path's calls, made on first use."""
    return partial(calls.outcome, request=request)


def _params(requirement: str, *also: int) -> list[Any]:
    return [pytest.param(removed, id=removed.test_id,
                         marks=pytest.mark.requirement(requirement, op=[removed.current, *also]))
            for removed in REMOVED]


def _with(exchange: Exchange) -> str:
    body = exchange.request_body
    return "with no body" if not body else f"with the body {body.decode(errors='replace')[:120]}"


@pytest.mark.parametrize("removed", _params("REMOVED-PATH-NOT-SERVED"))
def test_removed_path_is_not_served(removed, outcome):
    """A former method and path, with real ids, the body its current operation accepts (and the
    one it took) and the key, is not served: no 2xx."""
    for exchange in outcome(removed).answers:
        if 200 <= (exchange.status or 0) < 300:
            expect.fail("REMOVED-PATH-NOT-SERVED", f"no 2xx from the removed {removed.label} "
                        f"(replaced by operation {removed.current}) {_with(exchange)}", exchange)


@pytest.mark.parametrize("removed", _params("REMOVED-PATH-GONE"))
def test_removed_path_answers_as_gone(removed, outcome):
    """A former method and path answers 404, 405 or 410: a 3xx, or another 4xx (the route is
    still there, refusing the body), says it is not gone."""
    for exchange in outcome(removed).answers:
        status = exchange.status or 0
        if 300 <= status < 500 and status not in GONE:
            expect.fail("REMOVED-PATH-GONE", f"404, 405 or 410 from the removed "
                        f"{removed.label} {_with(exchange)} (a route no longer there)", exchange)


@pytest.mark.parametrize("removed", _params("REMOVED-PATH-NO-EFFECT", 3))
def test_removed_path_has_no_effect(removed, outcome):
    """After a call to a former path the resources it named read back unchanged."""
    expect.changes_nothing("REMOVED-PATH-NO-EFFECT", f"the project after the removed "
                           f"{removed.label} (naming a {removed.resource})",
                           outcome(removed))


@pytest.mark.parametrize("removed", _params("NO-SERVER-ERROR"))
def test_removed_path_causes_no_server_error(removed, outcome):
    """A call to a former path is answered without a 5xx."""
    for exchange in outcome(removed).answers:
        if (exchange.status or 0) >= 500:
            expect.fail("NO-SERVER-ERROR", f"a 4xx (not a 5xx) from the removed "
                        f"{removed.label} {_with(exchange)}", exchange)
