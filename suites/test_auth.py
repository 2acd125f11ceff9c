"""Section 5: the X-API-Key on operations 1-5, 7-13 and 15-19; the others without a key (INFO).

Every request here is one that succeeds with the key (real ids from a board of this module's
own), so a 404 for a missing resource cannot stand in for a missing key check. A rejected
request must change nothing, so the board is shared; it is built again after any call that
was not rejected or that changed it.

With more than one request in flight (boardcert.pytest.together) the keyless requests of the
tests this process runs together go side by side between one reading before and one after
(`Scene.batch`); anything unexpected and they are made again one at a time, as serially. The
boards that the tests with the key and the unlisted ones build one after another are built
ahead, side by side (`Scene.spare_boards`).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import pytest

from boardcert.for_suites import (
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

LISTED = [op.number for op in spec.operations().values() if op.auth_required]
UNLISTED = [op.number for op in spec.operations().values() if not op.auth_required]
READS = {op.number for op in spec.operations().values() if op.method == "GET"}
# The statuses conventionally used for a refused key. The interface names no status, so any
# 4xx refuses (AUTH-KEY-REQUIRED); which one is only recorded (AUTH-REJECTION-STATUS).
AUTH_STATUSES = (401, 403)
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


@pytest.fixture(scope="module")
def boards(request: pytest.FixtureRequest) -> Boards:
    """The module's boards. The factories are looked up on first use, so tests that need no
    board (op 1) do not depend on them (and on the organization they need)."""
    return Boards(lambda: request.getfixturevalue("make_board"))


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
            self.keyless(number, variant, api_key)
            for other in KEYS:  # the others of the operation too, so that its twin follows
                if (number, other) not in self.boards.outcomes:  # them all (on one board)
                    with suppress(Exception, pytest.skip.Exception, pytest.fail.Exception), \
                            self.api.client.aside() as shown:
                        self.keyless(number, other, api_key)
                        self.boards.unadopted[(number, other)] = shown  # for its own test
        self.api.client.adopt(self.boards.unadopted.pop(pair, []))
        return self.boards.outcomes[pair]

    def keyless(self, number: int, variant: str, api_key: str) -> None:
        """Operation `number` sent with a key that is not valid, between two readings of what
        it could change."""
        call = _listed(self, number)
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
            with self.api.client.aside() as shown:
                call = _listed(self, number)
                exchange = self.send(call)
                self.adopt(call, exchange)  # a project op 2 created
                status = exchange.status or 0
                if not (400 <= status < 500 or 200 <= status < 300 and number in KEEP_BOARD):
                    self.boards.spoil()
            self.boards.twins[number], self.boards.twins_shown[number] = exchange, shown
        return self.boards.twins[number]

    def earned(self, number: int, what: str) -> None:
        """NotAssessed unless the twin with the key succeeded (with the profile's hint if it
        refused the profile's body)."""
        twin = self.twin(number)
        if not 200 <= (twin.status or 0) < 300:
            raise misfit(twin) or NotAssessed(
                f"{what}: the same request with the key answered {twin.status}, so a refusal "
                "without it says nothing of the key")

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
        call = _listed(control, number)
        exchange = control.send(call)
        control.adopt(call, exchange)
        return exchange if 200 <= (exchange.status or 0) < 300 else None

    def batch(self, api_key: str) -> None:
        """The outcomes this process's tests still need (the companions from this test on),
        side by side: one reading before, the keyless requests, one reading after. Kept when
        every request got a 4xx and nothing changed; else thrown away (what op 2 created is in
        the ledger; the board is built again) and made one at a time, as serially. Tried once
        for each outcome."""
        pairs = [pair for pair in _pending(self.request)
                 if pair not in self.boards.tried and pair not in self.boards.outcomes]
        self.boards.tried.update(pairs)
        self.spare_boards()  # the board of the batch too
        with self.api.client.aside() as set_up:
            calls = self.calls(pairs)
        self.api.client.adopt(set_up)  # boards built for the calls: set-up of this test
        if len(calls) < 2:
            return
        lanes = together.lanes(self.request.config)
        reads: list[Read] = sorted({("project", c.project_id) for c in calls.values()
                                    if c.project_id is not None})
        before = self.readings(reads, lanes)
        if not all(map(_answered, before.values())):
            return  # nothing sent yet: one at a time, as serially
        sent = together.gather(self.api.client, [
            partial(self.send, call, KEYS[variant](api_key))
            for (_, variant), call in calls.items()], lanes)
        after = self.readings(reads + [ME] * any(c.created_name for c in calls.values()), lanes)
        judged = [self.judge(call, done, before, after)  # each: op 2's project into the ledger
                  for call, done in zip(calls.values(), sent, strict=True)]
        if not all(judged) or not all(map(_answered, after.values())):
            self.boards.spoil()  # a request may have changed the board: serially, a new one
            return
        for pair, (outcome, exchanges) in zip(calls, judged, strict=True):
            self.boards.outcomes[pair], self.boards.unadopted[pair] = outcome, exchanges

    def calls(self, pairs: list[tuple[int, str]]) -> dict[tuple[int, str], Call]:
        """The batch's calls; a pair whose call cannot be made is left to its test (which
        finds out why, serially)."""
        calls: dict[tuple[int, str], Call] = {}
        scenes = {self.read_only: self}
        for number, variant in pairs:
            read_only = number in READS
            if read_only not in scenes:
                scenes[read_only] = Scene(self.request, self.boards, read_only)
            scene = scenes[read_only]
            try:
                calls[(number, variant)] = _listed(scene, number)
            except (Exception, pytest.skip.Exception, pytest.fail.Exception):
                if number > 2 and not read_only and not self.boards.built:
                    break  # no board: the tests that need it build it again, one at a time
        return calls

    def readings(self, reads: list[Read], lanes: together.Lanes) -> dict[Read, together.Done[Any]]:
        """Fresh readings, side by side, kept aside for the tests that rest on them."""
        jobs = [partial(self.fresh_state, what[1]) if what[0] == "project" else
                partial(self.api.call, 1) for what in reads]
        return dict(zip(reads, together.gather(self.api.client, jobs, lanes), strict=True))

    def judge(self, call: Call, done: together.Done[Exchange],
              before: dict[Read, together.Done[Any]],
              after: dict[Read, together.Done[Any]]
              ) -> tuple[expect.Outcome, list[Exchange]] | None:
        """The outcome of a request of a batch and what the test that judges it adopts (the
        readings it rests on and the request), or None if anything was unexpected."""
        exchange = done.value
        if exchange is None:  # no usable answer
            return None
        try:
            states = [self.state(call, answer, lambda what, r=readings: r[what].result())
                      for answer, readings in ((None, before), (exchange, after))]
        except AssertionError:  # a reading with no usable answer (before op 2's adoption)
            with suppress(AssertionError):
                self.adopt(call, exchange)
            return None
        if not 400 <= (exchange.status or 0) < 500 or states[0] != states[1]:
            return None
        rests_on = [("project", call.project_id), ME if call.created_name else None]
        return expect.Outcome(exchange, *states), [
            *(x for what in before if what in rests_on for x in before[what].exchanges),
            *done.exchanges,
            *(x for what in after if what in rests_on for x in after[what].exchanges)]

    def spare_boards(self) -> None:
        """With requests in flight: the boards that the tests from this one on build one
        after another, built ahead side by side (at the first keyless batch or test with the
        key or of an unlisted operation, and again when they run out); the test that takes
        one adopts its exchanges. One that fails is dropped (built when needed), and no more
        are built."""
        b = self.boards
        if b.spares or b.spares_failed or b.spare_rounds and b.built \
                or together.in_flight(self.request.config) <= 1:
            return
        needed = _boards_needed(self.request, b.built, b.unlisted_spoil)
        if needed < 2:
            return
        b.spare_rounds += 1
        try:
            make = self.boards.maker()
        except (Exception, pytest.skip.Exception, pytest.fail.Exception):
            b.spares_failed = True  # the test that needs a board finds out why
            return
        built = together.gather(self.api.client, [make] * needed,
                                together.lanes(self.request.config))
        b.spares = [(done.value, done.exchanges) for done in built if done.error is None]
        b.spares_failed = len(b.spares) < needed

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


def _answered(reading: together.Done[Any]) -> bool:
    """A reading of a batch that answered 200 (a project's state, or op 1's exchange)."""
    value = reading.value
    status = value.get("status") if isinstance(value, dict) else getattr(value, "status", None)
    return reading.error is None and status == 200


def _boards_needed(request: pytest.FixtureRequest, built: bool, unlisted_spoil: bool) -> int:
    """How many boards the tests from this one on build, one after another, against a server
    that accepts the key and refuses requests without it (the unlisted operations too, unless
    `unlisted_spoil`)."""
    needed, twinned = 0, set()
    for item, params in together.upcoming(request):
        name, number = getattr(item, "originalname", ""), params.get("number")
        if name == test_unlisted_operation_without_key_is_recorded.__name__:
            uses, keeps = True, not unlisted_spoil
        elif name == test_listed_operation_accepts_the_key.__name__:
            uses, keeps = False, True  # it shows the twin its keyless tests sent
        else:  # a keyless one: the first of an operation sends them all, then their twin
            uses = "variant" in params and number not in READS and number != 2 \
                and number not in twinned
            keeps = number in KEEP_BOARD
            twinned.add(number)
        if uses:
            needed += not built
            built = keeps
    return needed


def _pending(request: pytest.FixtureRequest) -> list[tuple[int, str]]:
    """The (operation, variant) pairs whose outcome this test and the companions that run
    after it in this process need (together.pending), in order, once each."""
    pairs: dict[tuple[int, str], None] = {}
    for item, params in together.upcoming(request):
        if "variant" in params:
            pairs[(params["number"], params["variant"])] = None
        elif getattr(item, "originalname", "") == test_key_rejection_status_is_recorded.__name__:
            pairs |= dict.fromkeys((params["number"], variant) for variant in KEYS)
    return list(pairs)


def set_up(exchange: Exchange, number: int) -> None:
    if exchange.status != 200:
        raise misfit(exchange) or NotAssessed(
            f"set-up (op {number} with the key answered {exchange.status})")


# --- one request per operation that succeeds with the key ----------------------------------

def _listed(s: Scene, n: int) -> Call:
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


def _unlisted(s: Scene, n: int) -> Call:
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


# --- parameters ----------------------------------------------------------------------------

def _label(n: int) -> str:
    return f"operation {n} ({spec.operation(n).label})"


def _case(n: int, variant: str, *requirement: str, read_only: bool = False) -> Any:
    marks = [pytest.mark.requirement(*requirement, op=n)]
    if read_only:
        marks.append(pytest.mark.read_only)
    return pytest.param(n, variant, marks=marks, id=f"op{n}-{variant.replace(' ', '-')}")


@pytest.fixture
def scene(request: pytest.FixtureRequest, boards: Boards) -> Scene:
    return Scene(request, boards, request.node.get_closest_marker("read_only") is not None)


# --- AUTH-KEY-REQUIRED and AUTH-REJECTED-CHANGES-NOTHING -----------------------------------

@pytest.mark.parametrize(("number", "variant"), [
    _case(n, v, "AUTH-KEY-REQUIRED", "NO-SERVER-ERROR", read_only=n in READS)
    for n in LISTED for v in KEYS])
def test_listed_operation_demands_the_key(number, variant, scene, target):
    """The listed operations with no X-API-Key, an empty one or a wrong one answer a 4xx."""
    exchange = scene.without_key(number, variant, target.api_key).exchange
    status = exchange.status or 0
    if status >= 500:
        expect.fail("NO-SERVER-ERROR", f"a 4xx (not a 5xx) from {_label(number)} with {variant}",
                    exchange)
    if not 400 <= status < 500:
        expect.fail("AUTH-KEY-REQUIRED", f"a 4xx from {_label(number)} with {variant}", exchange)
    scene.earned(number, f"AUTH-KEY-REQUIRED of {_label(number)} with {variant}")


@pytest.mark.parametrize("number", [
    pytest.param(n, marks=[pytest.mark.requirement("AUTH-REJECTION-STATUS", op=n),
                           pytest.mark.read_only], id=f"op{n}") for n in (1, 3)])
def test_key_rejection_status_is_recorded(number, scene, target, observe):
    """Which status refuses a missing, empty or wrong key (401, 403 or another 4xx) is recorded."""
    seen = {variant: scene.without_key(number, variant, target.api_key).exchange.status
            for variant in KEYS}
    kinds = {"401/403" if status in AUTH_STATUSES else "a 4xx other than 401/403"
             for status in seen.values() if 400 <= (status or 0) < 500}
    observe("AUTH-REJECTION-STATUS", f"{_label(number)}: " + "; ".join(
        f"{variant} answered {status}" for variant, status in seen.items())
        + (f" ({' and '.join(sorted(kinds))})" if kinds else ""))


@pytest.mark.parametrize(("number", "variant"), [
    _case(n, v, "AUTH-REJECTED-CHANGES-NOTHING") for n in LISTED if n not in READS
    for v in KEYS])
def test_request_without_valid_key_changes_nothing(number, variant, scene, target):
    """A state-changing listed operation rejected for its key leaves every resource as it was
    (assessed where the same request with the key succeeds: else it could change nothing)."""
    expect.changes_nothing("AUTH-REJECTED-CHANGES-NOTHING",
                           f"what {_label(number)} with {variant} could change",
                           scene.without_key(number, variant, target.api_key))
    scene.earned(number, f"AUTH-REJECTED-CHANGES-NOTHING of {_label(number)} with {variant}")


# --- AUTH-VALID-KEY-ACCEPTED ---------------------------------------------------------------

@pytest.mark.parametrize("number", [
    pytest.param(n, marks=[pytest.mark.requirement("AUTH-VALID-KEY-ACCEPTED", op=n),
                           *([pytest.mark.read_only] if n in READS else [])], id=f"op{n}")
    for n in LISTED])
def test_listed_operation_accepts_the_key(number, scene):
    """The listed operations accept the configured key in X-API-Key: the twin of the keyless
    requests answers 2xx. A 401 or 403 refuses the key; any other answer fails where a request
    of this kind was seen to succeed with the key, else is not assessed (the operation or the
    profile may be at fault, not the key)."""
    scene.spare_boards()
    exchange = scene.twin(number)
    scene.api.client.adopt(scene.boards.twins_shown.pop(number, []))
    status = exchange.status or 0
    if 200 <= status < 300:
        return
    if status in AUTH_STATUSES:
        expect.fail("AUTH-VALID-KEY-ACCEPTED", f"{_label(number)} to accept the key", exchange)
    seen = scene.seen(number)
    if seen is not None:
        how = seen if isinstance(seen, str) else "the same request on a fresh board answered " \
            f"{seen.status}"
        expect.fail("AUTH-VALID-KEY-ACCEPTED", f"{_label(number)} to accept the key after its "
                    f"keyless requests, as a request of this kind did ({how})", exchange,
                    got=f"status {status}")
    raise misfit(exchange) or NotAssessed(
        f"AUTH-VALID-KEY-ACCEPTED on op {number}: it answered {status} with the key, and no "
        "request of this kind was seen to succeed (OPERATION-IMPLEMENTED judges the operation)")


# --- AUTH-UNLISTED-OBSERVED (INFO) ---------------------------------------------------------

@pytest.mark.parametrize("number", [
    pytest.param(n, marks=pytest.mark.requirement("AUTH-UNLISTED-OBSERVED", op=n), id=f"op{n}")
    for n in UNLISTED])
def test_unlisted_operation_without_key_is_recorded(number, scene, observe):
    """What the operations whose authentication is not shown do without a key is recorded."""
    scene.spare_boards()
    call = _unlisted(scene, number)
    exchange = scene.send(call, key=None)
    status = exchange.status or 0
    scene.settle(exchange)
    scene.boards.unlisted_spoil = not scene.boards.built  # how many spares the next need
    if 200 <= status < 300 and number == 25:
        plugin = call.path
        scene.ledger.created("plugin_data", pluginId=plugin["pluginId"],
                             entityId=plugin["entityId"], key=plugin["key"])
    text = f"{_label(number)} without X-API-Key answered {status}"
    opened = 200 <= status < 300 and spec.operation(number).method != "GET"
    if opened:
        text = f"state-changing operation open without a key: {text}"
    observe("AUTH-UNLISTED-OBSERVED", text, security=opened)
