"""Every operation is served, answers 200 and JSON; the forms of ids and timestamps (INFO)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any

import pytest

from boardcert.conformance import (
    Entry,
    Exchange,
    NotAssessed,
    SetUpError,
    expect,
    fill,
    misfit,
    placeholders,
    spec,
    together,
    unique,
)

Call = Callable[[], Exchange]

READS = (3, 6)  # operations that read the board, prepared without changing it: the shared one


class Setting:
    """What the calls below need: the api, the ledger and, made on first use, a fresh board
    (the session's shared one for an operation that only reads it)."""

    def __init__(self, fixture: Callable[[str], Any], shared: bool = False) -> None:
        self.fixture, self.shared = fixture, shared
        self.api = fixture("api")
        self.profile = fixture("profile")
        self.ledger = fixture("ledger")
        self.made: dict[str, Any] = {}  # not functools.cached_property: before Python 3.12
        # its lock is one for every instance, so the set-ups made side by side waited in turn

    def once(self, name: str, make: Callable[[], Any]) -> Any:
        if name not in self.made:
            self.made[name] = make()
        return self.made[name]

    @property
    def board(self) -> Any:
        return self.once("board", lambda: self.fixture("board" if self.shared else "fresh_board"))

    @property
    def plugin_id(self) -> str:
        return self.once("plugin_id", lambda: self.profile.get("plugin_id"))

    @property
    def entity_id(self) -> str:
        return self.once("entity_id", lambda: fill(self.profile.get("entity_id"), self.values(),
                                                   "entity_id"))

    def values(self, **extra: Any) -> dict[str, Any]:
        """Every placeholder a profile body may use, for this board."""
        return placeholders(self.board, **extra)

    def body(self, name: str, **extra: Any) -> dict[str, Any]:
        return self.profile.body(name, **self.values(**extra))

    def bound(self, number: int, body: str | None = None, **path: Any) -> Call:
        """Op `number` on the board's project with the profile's body, ready to send."""
        params = {"projectId": self.board.project.id, **path}
        used = {k: v for k, v in params.items() if f"{{{k}}}" in spec.operation(number).path}
        return partial(self.api.call, number, json=self.body(body) if body else None, **used)

    def card(self, number: int, **kwargs: Any) -> Call:
        """Op `number` on the board's first card."""
        return partial(self.api.call, number, projectId=self.board.project.id,
                       cardId=self.board.cards[0].id, **kwargs)

    def ready(self, exchange: Exchange, what: str) -> None:
        """A set-up step succeeded; otherwise the test errors in set-up (not assessed)."""
        if exchange.status != 200:
            raise misfit(exchange) or SetUpError(f"set-up: {what} answered {exchange.status}",
                                                 exchanges=[exchange])

    def add_metadata(self, key: str, value: str) -> None:
        self.ready(self.card(21, json=self.body("add_card_metadata", key=key, value=value))(),
                   "op 21 (card metadata)")

    def attach_plugin(self) -> Call:
        return partial(self.api.call, 23, projectId=self.board.project.id,
                       pluginId=self.plugin_id,
                       json=self.body("attach_plugin", plugin_id=self.plugin_id))

    def put_plugin_data(self) -> tuple[Exchange, Entry]:
        """Store a datum (op 25); the ledger deletes it at the end (it has no project)."""
        where = {"pluginId": self.plugin_id, "entityId": self.entity_id, "key": unique("data")}
        exchange = self.api.call(25, path_params=where,
                                 json=self.body("put_plugin_data", plugin_id=self.plugin_id,
                                                entity_id=self.entity_id))
        entry = self.ledger.created("plugin_data", **where)
        assert entry is not None  # its key is given
        return exchange, entry


# --- each operation, prepared with real ids (set-up) and then called (the test) -------------

def _create_project(s: Setting) -> Call:
    organization_id = s.fixture("organization_id")

    def call() -> Exchange:
        exchange = s.api.call(2, organizationId=organization_id,
                              json=s.api.body("create_project", name=unique("project")))
        if exchange.status == 200:
            s.ledger.created("project", answer=exchange.json())
        return exchange
    return call


def _delete_project(s: Setting) -> Call:
    project = s.fixture("make_project")()

    def call() -> Exchange:
        exchange = s.api.call(4, projectId=project.id)
        if exchange.status == 200:
            s.ledger.forget(project.entry)
        return exchange
    return call


def _create_row(s: Setting) -> Call:
    return partial(s.api.call, 7, projectId=s.board.project.id,
                   json={s.fixture("row_name_property"): unique("row")})


def _order_rows(s: Setting) -> Call:
    other = s.fixture("make_row")(s.board.project)
    return partial(s.api.call, 8, projectId=s.board.project.id,
                   json=s.body("order_rows", row_ids=[other.id, s.board.row.id]))


def _order_columns(s: Setting) -> Call:
    columns = [s.board.columns[1].id, s.board.columns[0].id]
    return partial(s.api.call, 12, projectId=s.board.project.id, rowId=s.board.row.id,
                   json=s.body("order_columns", column_ids=columns))


def _anchored(body: Any, s: Setting) -> Any:
    """A move body that names an anchor: afterCardId and beforeCardId are "optional-looking",
    so a server may require one; the profile's own, else afterCardId."""
    if isinstance(body, dict) and not {"afterCardId", "beforeCardId"} & set(body):
        return body | {"afterCardId": s.board.cards[2].id}
    return body


def _move_cards(s: Setting) -> Call:
    return partial(s.api.call, 18, projectId=s.board.project.id,
                   json=_anchored(s.body("move_cards"), s))


def _move_cards_by_metadata(s: Setting) -> Call:
    key, value = unique("key"), unique("value")
    s.add_metadata(key, value)
    return partial(s.api.call, 19, projectId=s.board.project.id,
                   json=_anchored(s.body("move_cards_by_metadata", key=key, value=value), s))


def _remove_card_metadata(s: Setting) -> Call:
    key = unique("key")
    s.add_metadata(key, unique("value"))
    return s.card(22, path_params={"key": key}, json=s.body("remove_card_metadata", key=key))


def _detach_plugin(s: Setting) -> Call:
    s.ready(s.attach_plugin()(), "op 23 (attaching the plugin)")
    return partial(s.api.call, 24, projectId=s.board.project.id, pluginId=s.plugin_id)


def _put_plugin_data(s: Setting) -> Call:
    s.attach_plugin()()
    return lambda: s.put_plugin_data()[0]


def _delete_plugin_data(s: Setting) -> Call:
    s.attach_plugin()()
    stored, entry = s.put_plugin_data()
    s.ready(stored, "op 25 (storing plugin data)")

    def call() -> Exchange:
        exchange = s.api.call(26, path_params=entry.params)
        if exchange.status == 200:
            s.ledger.forget(entry)
        return exchange
    return call


def _get_plugin_data(s: Setting) -> Call:
    s.attach_plugin()()
    stored, entry = s.put_plugin_data()
    s.ready(stored, "op 25 (storing plugin data)")
    params, headers = s.api.plugin_data_location(s.entity_id)
    return partial(s.api.call, 27, path_params={"pluginId": s.plugin_id,
                                                "key": entry.params["key"]},
                   params=params, headers=headers)


def _exchange_code(s: Setting) -> Call:
    s.attach_plugin()()
    body = s.body("exchange_code", code=s.profile.get("exchange_code"), plugin_id=s.plugin_id,
                  entity_id=s.entity_id)
    return partial(s.api.call, 28, pluginId=s.plugin_id, entityId=s.entity_id, json=body)


PREPARE: dict[int, Callable[[Setting], Call]] = {
    1: lambda s: partial(s.api.call, 1),
    2: _create_project,
    3: lambda s: s.bound(3),
    4: _delete_project,
    5: lambda s: s.bound(5, "rename_project"),
    6: lambda s: s.bound(6),
    7: _create_row,
    8: _order_rows,
    9: lambda s: s.bound(9, rowId=s.board.row.id),
    10: lambda s: s.bound(10, "rename_row", rowId=s.board.row.id),
    11: lambda s: s.bound(11, "create_column", rowId=s.board.row.id),
    12: _order_columns,
    13: lambda s: s.bound(13, "rename_column", columnId=s.board.columns[0].id),
    14: lambda s: s.bound(14, columnId=s.board.columns[1].id),
    15: lambda s: s.bound(15, "create_card", columnId=s.board.columns[0].id),
    16: lambda s: s.card(16, json={"name": unique("card")}),
    17: lambda s: s.card(17),
    18: _move_cards,
    19: _move_cards_by_metadata,
    20: lambda s: s.card(20, json=s.body("alias_card")),
    21: lambda s: s.card(21, json=s.body("add_card_metadata")),
    22: _remove_card_metadata,
    23: lambda s: s.attach_plugin(),
    24: _detach_plugin,
    25: _put_plugin_data,
    26: _delete_plugin_data,
    27: _get_plugin_data,
    28: _exchange_code,
}


UNPREPARED = (1, 2, *READS)  # no set-up of a test's own: nothing to build ahead
FIXTURES = ("api", "profile", "ledger", "organization_id", "make_project", "make_row",
            "row_name_property", "make_board")  # what PREPARE reaches, but the test's board


@pytest.fixture
def operation(number: int, request: pytest.FixtureRequest) -> Call:
    """Op `number` with everything it needs made first: a set-up failure is an error (not
    assessed), never a failure of the operation. With more than one request in flight, the
    set-ups of the tests that follow, and their calls, are made side by side
    (together.ahead); a call kept only if it answered 200, else made again one at a time."""
    def plan(item: pytest.Item) -> tuple[str, Callable[[], Call]] | None:
        other = together.param(item, "operation", "number")
        if other is None or other in UNPREPARED:
            return None
        fixture = together.fixtures(request, FIXTURES,
                                 fresh_board=request.getfixturevalue("make_board"))
        return item.nodeid, lambda: _answered(PREPARE[other](Setting(fixture))())

    return together.ahead(request, "operation set-ups",
                       lambda: PREPARE[number](Setting(request.getfixturevalue,
                                                       shared=number in READS)), plan,
                       accept=lambda call: call().status == 200)


def _answered(exchange: Exchange) -> Call:
    return lambda: exchange


def _implemented(number: int) -> Any:
    marks = pytest.mark.requirement("OPERATION-IMPLEMENTED", "SUCCESS-STATUS-200",
                                    "JSON-RESPONSES", op=number)
    return pytest.param(number, marks=marks, id=f"op{number}")


@pytest.fixture(scope="module")
def answers() -> dict[int, Exchange]:
    """Each operation's answer to test_operation_is_served, which its label's test judges
    too (one call of each operation, two requirements)."""
    return {}


@pytest.mark.parametrize("number", [_implemented(n) for n in sorted(PREPARE)])
def test_operation_is_served(number, operation, answers):
    """Each operation, called with real ids and the profile's body, answers 200 with JSON (or,
    where the interface does not show the response, with no body)."""
    exchange = answers[number] = operation()
    label = spec.operation(number).label
    status = exchange.status or 0
    if 200 < status < 300:
        expect.fail("SUCCESS-STATUS-200", f"status 200 from operation {number} ({label})",
                    exchange)
    if status != 200:
        expect.fail("OPERATION-IMPLEMENTED", f"status 200 from operation {number} ({label})",
                    exchange)
    expect.success(exchange, number)


@pytest.mark.parametrize("number", [
    pytest.param(n, marks=pytest.mark.requirement("JSON-MEDIA-TYPE", op=n), id=f"op{n}")
    for n in sorted(PREPARE)])
def test_operation_labels_its_json(number, answers, request):
    """Each operation's JSON answer says so: Content-Type application/json or a +json type."""
    exchange = answers.get(number) or request.getfixturevalue("operation")()
    if exchange.status != 200:
        raise NotAssessed(f"the label of op {number}'s answer (it answered {exchange.status})")
    expect.success(exchange, number)
    expect.labelled(exchange, number)


# --- what the interface leaves open: observed, never failed --------------------------------

def _id_form(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        return f"a JSON {type(value).__name__}"
    if isinstance(value, int):
        return "a JSON number"
    if value.isdigit():
        return "a numeric string"
    try:
        uuid.UUID(value)
        return "a UUID string"
    except ValueError:
        return "another string"


def _time_form(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "an epoch number"
    if not isinstance(value, str):
        return f"a JSON {type(value).__name__}"
    if re.fullmatch(r"\d{9,}(\.\d+)?", value):
        return "an epoch number as a string"
    try:
        datetime.fromisoformat(value)
        return "ISO 8601 text"
    except ValueError:
        return "other text"


@pytest.mark.read_only
@pytest.mark.requirement("ID-FORMAT")
def test_id_format_is_recorded(board, observe):
    """The form of the ids the server hands out for projects and cards is recorded."""
    project_id = board.project.body["id"]
    card_ids = [card.body["id"] for card in board.cards]
    forms = " / ".join(sorted({_id_form(i) for i in card_ids}))
    observe("ID-FORMAT", f"project id {project_id!r}: {_id_form(project_id)}; card ids "
            f"{card_ids!r}: {forms}")


@pytest.mark.read_only
@pytest.mark.requirement("TIMESTAMP-FORMAT")
def test_timestamp_format_is_recorded(api, board, observe):
    """The form of createdAt and updatedAt of a Project is recorded."""
    exchange = api.call(3, projectId=board.project.id)
    body = exchange.json() if exchange.status == 200 else None
    if not isinstance(body, dict):
        raise NotAssessed("createdAt and updatedAt (op 3 answered no Project to read them from)")
    forms = [f"{field} {body.get(field)!r} is {_time_form(body.get(field))}"
             for field in ("createdAt", "updatedAt")]
    observe("TIMESTAMP-FORMAT", "; ".join(forms))
