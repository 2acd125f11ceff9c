"""The scene of suites/test_auth.py: the module's boards, one request per operation that
succeeds with the key (`Call`, `listed`, `unlisted`), and the `Scene` the tests send them from,
one at a time, each keyless request between two readings of what it could change
(auth_batch.py sends them side by side)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext, suppress
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import pytest

from boardcert.conformance import (
    Api,
    Board,
    Client,
    Exchange,
    NotAssessed,
    expect,
    mentions,
    misfit,
    placeholders,
    project_state,
    spec,
    together,
    unique,
)

READS = {op.number for op in spec.operations().values() if op.method == "GET"}
# After these succeed the board's requests still succeed and still change something (fresh
# names); after any other, a reorder or move would be a no-op, or a create or delete would
# leave an id or a permutation stale, so the board is built again.
KEEP_BOARD = {1, 2, 3, 5, 10, 13, 16}

# How the key is wrong. "the key plus a character" catches prefix comparisons; it shows as ***x.
KEYS: dict[str, Callable[[str], str | None]] = {
    "no key": lambda key: None,
    "empty key": lambda key: "",
    "wrong key": lambda key: "bc-wrong-" + secrets.token_hex(12),
    "the key plus a character": lambda key: key + "x",
}
Read = tuple[str, ...]  # a reading of what a call could change: ("project", id) or ME
ME = ("op 1",)



class Boards:
    """The module's board: built on first use, and again after a call may have changed it
    (or taken from the spares built ahead); and the outcome of each keyless request, made
    once for the tests that judge it."""

    def __init__(self, factory: Callable[[], Callable[..., Board]]) -> None:
        self._factory = factory  # make_board
        self._board: Board | None = None
        self.spares: list[tuple[Board, list[Exchange]]] = []  # built ahead, for the next
        self.spare_rounds = 0  # how often spares were built
        self.spares_failed = False  # a spare could not be built: no more
        self.unlisted_spoil = False  # the last unlisted operation was not refused
        self.outcomes: dict[tuple[int, str], expect.Outcome] = {}
        self.tried: set[tuple[int, str]] = set()  # outcomes a batch was made for
        self.unadopted: dict[tuple[int, str], list[Exchange]] = {}  # a batch's, for the
        # first test that judges the outcome
        self.last_read: dict[str, Any] | None = None  # the board's project, if nothing since
        self.twins: dict[int, Exchange] = {}  # op -> its keyless requests' twin, with the key
        self.twins_shown: dict[int, list[Exchange]] = {}  # for the test with the key to show
        self.shown_by_me: bool | None = None  # op 1 showed the project op 2's twin made

    def maker(self) -> Callable[[], Board]:
        """What builds a board: two rows (for op 9), metadata on the first card (for op 19)."""
        return partial(self._factory(), rows=2, metadata=True)

    def get(self, client: Client) -> Board:
        if self._board is None and self.spares:
            self._board, made = self.spares.pop(0)
            client.adopt(made)  # the test that takes it shows its building
        if self._board is None:
            self._board = self.maker()()
        return self._board

    @property
    def built(self) -> bool:
        return self._board is not None

    def spoil(self) -> None:
        self._board = self.last_read = None



@dataclass
class Call:
    """One request of operation `number` that succeeds with the key."""

    number: int
    path: dict[str, str]
    json: Any = None
    params: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    project_id: str | None = None  # the project whose state it could change
    created_name: str | None = None  # op 2: the name of the project it would create


class Scene:
    """What the calls need: api, ledger, profile and a board (the shared one for reads)."""

    def __init__(self, request: pytest.FixtureRequest, boards: Boards, read_only: bool) -> None:
        self.request, self.boards, self.read_only = request, boards, read_only
        self.api: Api = request.getfixturevalue("api")
        self.ledger = request.getfixturevalue("ledger")
        self.profile = request.getfixturevalue("profile")
        self.own: Board | None = None  # a board of its own (a control request's)

    @property
    def board(self) -> Any:
        if self.own is not None:
            return self.own
        if self.read_only:
            return self.request.getfixturevalue("board")
        return self.boards.get(self.api.client)

    def values(self, **extra: Any) -> dict[str, Any]:
        """Every placeholder a profile body may use, for this board; rows and columns in
        reverse, so that a reorder changes something."""
        b = self.board
        return placeholders(b, self.profile, row_ids=[r.id for r in b.rows][::-1],
                            column_ids=[c.id for c in b.columns][::-1], **extra)

    def body(self, body_name: str, /, **extra: Any) -> Any:
        return self.profile.body(body_name, **self.values(**extra))

    def send(self, call: Call, key: Any = ...) -> Exchange:
        self.boards.last_read = None
        keyword = {} if key is ... else {"key": key}
        return self.api.call(call.number, json=call.json, params=call.params or None,
                             headers=call.headers or None, path_params=call.path, **keyword)

    def state(self, call: Call, answer: Exchange | None = None,
              read: Callable[[Read], Any] | None = None) -> dict[str, Any]:
        """What the call could have changed, read with the key (after `answer`, if given);
        `read` answers the readings (a batch's, made once for all its calls)."""
        read = read or self.read
        found: dict[str, Any] = {}
        if call.project_id is not None:
            found["project"] = read(("project", call.project_id))
        if call.created_name is not None:
            # No operation lists projects: look for the fresh name in op 1 (currentProject).
            me = read(ME) if answer is not None else None
            found["op 1 mentions the new name"] = me is not None and me.status == 200 and \
                mentions(me.json(), call.created_name)
            found["a project created"] = bool(answer is not None and self.adopt(call, answer))
        return found

    def read(self, what: Read) -> Any:
        """One reading: a project's state (op 3) or op 1's answer."""
        return self.project_state(what[1]) if what[0] == "project" else self.api.call(1)

    def fresh_read(self, what: Read) -> Any:
        """One reading, never the last one again (a control read)."""
        return self.fresh_state(what[1]) if what[0] == "project" else self.api.call(1)

    def project_state(self, project_id: str) -> dict[str, Any]:
        """A fresh operation 3, or the last one if no request was sent since."""
        if self.boards.last_read is None or self.boards.last_read["id"] != project_id:
            self.boards.last_read = self.fresh_state(project_id)
        return self.boards.last_read

    def fresh_state(self, project_id: str) -> dict[str, Any]:
        return {"id": project_id} | project_state(self.api, project_id)

    def adopt(self, call: Call, answer: Exchange) -> str | None:
        """A project that op 2 created after all goes into the ledger; its id."""
        if call.number != 2 or not 200 <= (answer.status or 0) < 300 or not answer.content:
            return None
        entry = self.ledger.created("project", answer=answer.json())
        return entry.id if entry is not None else None

    def without_key(self, number: int, variant: str, api_key: str) -> expect.Outcome:
        """Operation `number` sent with a key that is not valid (once per variant)."""
        pair = (number, variant)
        if pair not in self.boards.tried and pair not in self.boards.outcomes \
                and together.in_flight(self.request.config) > 1:
            self.batch(api_key)
        if pair not in self.boards.outcomes:
            with self.quiet(number):
                self.keyless(number, variant, api_key)
                for other in KEYS:  # the others of the operation too, so that its twin
                    if (number, other) not in self.boards.outcomes:  # follows them all
                        with suppress(Exception, pytest.skip.Exception, pytest.fail.Exception), \
                                self.api.client.aside() as shown:
                            self.keyless(number, other, api_key)
                            self.boards.unadopted[(number, other)] = shown  # for its test
        self.api.client.adopt(self.boards.unadopted.pop(pair, []))
        return self.boards.outcomes[pair]

    def keyless(self, number: int, variant: str, api_key: str) -> None:
        """Operation `number` sent with a key that is not valid, between two readings of what
        it could change."""
        call = listed(self, number)
        before = self.state(call)
        exchange = self.send(call, key=KEYS[variant](api_key))
        after = self.state(call, exchange)  # adopts a project op 2 created after all
        self.settle(exchange, changed=before != after)
        self.boards.outcomes[(number, variant)] = expect.Outcome(
            exchange, before, after, read=partial(self.state, call, None, self.fresh_read))

    def twin(self, number: int) -> Exchange:
        """The keyless requests' twin: operation `number` with the key, sent once, after its
        keyless requests (made first if they were not), on the board they were sent on while
        they left it as it was; the test with the key shows it. A refusal without the key
        says something of the key only if the twin succeeds."""
        if number not in self.boards.twins:
            api_key = self.api.client.target.api_key
            if any((number, variant) not in self.boards.outcomes for variant in KEYS):
                self.without_key(number, next(iter(KEYS)), api_key)
            with self.api.client.aside() as shown, self.quiet(number):
                call = listed(self, number)
                exchange = self.send(call)
                if self.adopt(call, exchange) and call.created_name:  # a project op 2 made
                    me = self.api.call(1)  # would op 1 show one made without the key?
                    self.boards.shown_by_me = me.status == 200 and \
                        mentions(me.json(), call.created_name)
                status = exchange.status or 0
                if not (400 <= status < 500 or 200 <= status < 300 and number in KEEP_BOARD):
                    self.boards.spoil()
            self.boards.twins[number], self.boards.twins_shown[number] = exchange, shown
        return self.boards.twins[number]

    def quiet(self, number: int) -> AbstractContextManager[None]:
        """Op 2's requests and the op 1 that shows what they made, with the server to
        themselves: op 1 shows the project last created or used, whoever used it (another
        worker's request between them would hide it)."""
        return together.alone(self.request.config) if number == 2 else nullcontext()

    def earned(self, number: int, what: str) -> None:
        """NotAssessed unless the twin with the key succeeded (with the profile's hint if it
        refused the profile's body)."""
        twin = self.twin(number)
        if not 200 <= (twin.status or 0) < 300:
            raise misfit(twin) or NotAssessed(
                f"{what}: the same request with the key answered {twin.status}, so a refusal "
                "without it says nothing of the key")

    def would_show(self, number: int, what: str) -> None:
        """NotAssessed unless the readings that judge a keyless request would show what it
        did: for op 2 (no operation lists projects), op 1 mentions the project its twin with
        the key just created; a creation without the key could not be seen otherwise."""
        if number == 2 and self.boards.shown_by_me is False:
            raise NotAssessed(f"{what}: op 1 does not show the project op 2 just created with "
                              "the key (no operation lists projects), so one created without "
                              "it could not be seen either")

    def seen(self, number: int) -> Exchange | str | None:
        """A request of this kind seen to succeed with the key: discovery saw operation
        `number` accept the profile's body, or the same request now on a fresh board (or, for
        the read-only and board-less operations, sent again) answers 2xx."""
        body = spec.operation(number).profile_body
        if body is not None and body in self.profile.proven:
            return f"discovery saw op {number} accept the profile's body {body}"
        control = Scene(self.request, self.boards, read_only=False)
        if number > 2:
            control.own = self.boards.maker()()
        call = listed(control, number)
        exchange = control.send(call)
        control.adopt(call, exchange)
        return exchange if 200 <= (exchange.status or 0) < 300 else None

    def batch(self, api_key: str) -> None:
        """The keyless requests of the tests that follow, side by side: none here (one at a
        time; auth_batch.BatchedScene)."""

    def spare_boards(self) -> None:
        """Boards built ahead for the tests that follow: none here (auth_batch.BatchedScene)."""

    def settle(self, exchange: Exchange, changed: bool = False) -> None:
        """Build the board again if the call was not rejected or changed it."""
        if changed or not 400 <= (exchange.status or 0) < 500:
            self.boards.spoil()

    # --- setting up the unlisted operations (with the key) ----------------------------

    def plugin(self) -> tuple[str, str]:
        """The profile's plugin id and entity id (NotAssessed when it has none)."""
        plugin_id = self.profile.get("plugin_id")
        self.profile.get("entity_id")
        return plugin_id, self.values()["entity_id"]

    def attach_plugin(self) -> None:
        plugin_id, _ = self.plugin()
        b = self.board
        set_up(self.api.call(23, projectId=b.project.id, pluginId=plugin_id,
                             json=self.body("attach_plugin")), 23)
        self.ledger.created("plugin", b.project.entry, projectId=b.project.id,
                            pluginId=plugin_id)

    def put_plugin_data(self, key: str) -> None:
        plugin_id, entity_id = self.plugin()
        set_up(self.api.call(25, path_params={"pluginId": plugin_id, "entityId": entity_id,
                                              "key": key},
                             json=self.body("put_plugin_data", key=key)), 25)
        self.ledger.created("plugin_data", pluginId=plugin_id, entityId=entity_id, key=key)

    def add_metadata(self, key: str) -> None:
        b = self.board
        set_up(self.api.call(21, projectId=b.project.id, cardId=b.cards[0].id,
                             json=self.body("add_card_metadata", key=key)), 21)



def set_up(exchange: Exchange, number: int) -> None:
    if exchange.status != 200:
        raise misfit(exchange) or NotAssessed(
            f"set-up (op {number} with the key answered {exchange.status})")


# --- one request per operation that succeeds with the key ----------------------------------

def listed(s: Scene, n: int) -> Call:
    if n == 1:
        return Call(1, {})
    if n == 2:
        name = unique("project")
        organization_id = s.request.getfixturevalue("organization_id")
        body = s.profile.body("create_project", name=name)
        return Call(2, {"organizationId": organization_id}, body, created_name=name)
    b = s.board
    p = {"projectId": b.project.id}
    if n in (3, 4):
        return Call(n, p, project_id=b.project.id)
    row, column, card = b.rows[0].id, b.columns[0].id, b.cards[0].id
    calls: dict[int, Callable[[], Call]] = {
        5: lambda: Call(5, p, s.body("rename_project")),
        7: lambda: Call(7, p, {s.request.getfixturevalue("row_name_property"): unique("row")}),
        8: lambda: Call(8, p, s.body("order_rows")),
        9: lambda: Call(9, p | {"rowId": b.rows[1].id}),
        10: lambda: Call(10, p | {"rowId": row}, s.body("rename_row")),
        11: lambda: Call(11, p | {"rowId": row}, s.body("create_column")),
        12: lambda: Call(12, p | {"rowId": row}, s.body("order_columns")),
        13: lambda: Call(13, p | {"columnId": column}, s.body("rename_column")),
        15: lambda: Call(15, p | {"columnId": column}, s.body("create_card")),
        16: lambda: Call(16, p | {"cardId": card}, {"name": unique("card")}),
        17: lambda: Call(17, p | {"cardId": card}),
        18: lambda: Call(18, p, s.body("move_cards") | {"afterCardId": b.cards[2].id}),
        19: lambda: _move_by_metadata(s, p),
    }
    call = calls[n]()
    call.project_id = b.project.id
    return call


def _move_by_metadata(s: Scene, p: dict[str, str]) -> Call:
    if s.board.metadata is None:
        raise NotAssessed("bodies.add_card_metadata (op 19 needs a card with metadata)")
    key, value = s.board.metadata
    body = s.body("move_cards_by_metadata", key=key, value=value)
    return Call(19, p, body | {"afterCardId": s.board.cards[2].id})


def unlisted(s: Scene, n: int) -> Call:
    b = s.board
    p = {"projectId": b.project.id}
    card = p | {"cardId": b.cards[0].id}
    if n == 6:
        return Call(6, p)
    if n == 14:
        return Call(14, p | {"columnId": b.columns[1].id})
    if n == 20:
        return Call(20, card, s.body("alias_card"))
    if n == 21:
        return Call(21, card, s.body("add_card_metadata"))
    if n == 22:
        key = unique("key")
        s.add_metadata(key)
        return Call(22, card | {"key": key}, s.body("remove_card_metadata", key=key))
    plugin_id, entity_id = s.plugin()
    if n == 23:
        return Call(23, p | {"pluginId": plugin_id}, s.body("attach_plugin"))
    if n == 24:
        s.attach_plugin()
        return Call(24, p | {"pluginId": plugin_id})
    data = {"pluginId": plugin_id, "entityId": entity_id, "key": unique("data")}
    if n == 25:
        return Call(25, data, s.body("put_plugin_data", key=data["key"]))
    if n == 28:
        s.profile.get("exchange_code")
        return Call(28, {"pluginId": plugin_id, "entityId": entity_id}, s.body("exchange_code"))
    s.put_plugin_data(data["key"])
    if n == 26:
        return Call(26, data)
    params, headers = s.api.plugin_data_location(entity_id)
    return Call(27, {"pluginId": plugin_id, "key": data["key"]}, params=params, headers=headers)
