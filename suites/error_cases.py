"""The cases of suites/test_errors.py: bodies that are not JSON, JSON that is not a usable body,
ids that name nothing, a name over the limit; each a `Spec` (its id is the tests' parameter),
made on the module's board when a test first needs it."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import pytest

from boardcert.conformance import Board, fill, placeholders, spec, unique

JSON_TYPE = {"Content-Type": "application/json"}
NAME_MAX = spec.name_limit()[1]  # op 16's name: at most this many characters (25000)
# Ids that name nothing: too big for any integer column, and not a number at all.
MISSING = ("99999999999999999999999999999", "bc-no-such-id")


@dataclass
class Case:
    """A request to operation `number`: path parameters and either JSON or raw content."""

    number: int
    path: dict[str, str]
    json: Any = None
    content: bytes | None = None


Make = Callable[[Board, Any], Case]  # (board, the test's request) -> Case


def board_path(board: Board, number: int, **given: str) -> dict[str, str]:
    """Path parameters of operation `number`: the board's own, except those given."""
    own = {"projectId": board.project.id, "rowId": board.row.id,
           "columnId": board.columns[0].id, "cardId": board.cards[0].id} | given
    template = spec.operation(number).path
    return {k: v for k, v in own.items() if f"{{{k}}}" in template}


BODY_NAMES = {2: "create_project", 5: "rename_project", 8: "order_rows", 10: "rename_row",
              11: "create_column", 12: "order_columns", 13: "rename_column", 15: "create_card",
              18: "move_cards", 19: "move_cards_by_metadata", 20: "alias_card",
              21: "add_card_metadata", 22: "remove_card_metadata", 23: "attach_plugin",
              25: "put_plugin_data", 28: "exchange_code"}


def _values(board: Board, request: pytest.FixtureRequest, **given: Any) -> dict[str, Any]:
    """The board's placeholders with the profile's (plugin id, entity, code), the board's
    metadata entry as key and value where it has one."""
    if board.metadata:
        given = {"key": board.metadata[0], "value": board.metadata[1]} | given
    return placeholders(board, request.getfixturevalue("profile"), **given)


def _good_body(number: int, board: Board, request: pytest.FixtureRequest) -> Any:
    """A body operation `number` accepts, with a fresh name (profile bodies where not shown)."""
    name = unique("name")
    if number == 7:
        return {request.getfixturevalue("row_name_property"): name}
    if number == 16:
        return {"name": name}
    where = f"bodies.{BODY_NAMES[number]}"
    body = fill(request.getfixturevalue("profile").get(where),
                _values(board, request, name=name), where)  # a plain dict: a refusal of it
    # is no profile misfit here
    return body | {"afterCardId": board.cards[2].id} if number in (18, 19) else body


def _organization(request: pytest.FixtureRequest) -> str:
    return request.getfixturevalue("organization_id")


def _path_of(number: int, board: Board, request: pytest.FixtureRequest) -> dict[str, str]:
    """Path parameters of operation `number` on the board; a plugin's (ops 23-28) from the
    profile, op 22's key the board's metadata entry (a fresh one where it has none)."""
    if number == 2:
        return {"organizationId": _organization(request)}
    template, given = spec.operation(number).path, {}
    if "{pluginId}" in template:
        profile = request.getfixturevalue("profile")
        given["pluginId"] = str(profile.get("plugin_id"))
        if "{entityId}" in template:
            given["entityId"] = str(fill(profile.get("entity_id"), _values(board, request),
                                         "entity_id"))
    if "{key}" in template:
        given["key"] = board.metadata[0] if number == 22 and board.metadata else unique("key")
    return board_path(board, number, **given)


# --- bodies that are not JSON (sent with a JSON content type) ------------------------------
# Each is a body the operation accepts, spoilt: a server that parses leniently, reads only the
# first document or takes a body it cannot parse for none would act on it.


def _text(body: Any) -> str:
    return json.dumps(body, ensure_ascii=False)


def _invalid_utf8(body: Any) -> bytes:
    """Two bytes that are no UTF-8 at the end of the body's last string."""
    text = _text(body)
    if '"' not in text:
        return b'{"\xff\xfe": 1}'
    head, tail = text.rsplit('"', 1)
    return head.encode() + b'\xff\xfe"' + tail.encode()


def _first_key(body: Any) -> str:
    return next(iter(body), "name") if isinstance(body, dict) else "name"


def _form(body: Any) -> bytes:
    """The body's fields as a form (never empty: an empty body is no body)."""
    fields = {k: v for k, v in body.items() if isinstance(v, str | int | list)} \
        if isinstance(body, dict) else {}
    return (urlencode(fields, doseq=True) or "name=x").encode()


NOT_JSON: dict[str, Callable[[Any], bytes]] = {
    "truncated": lambda body: _text(body)[:-1].encode(),
    "trailing-comma": lambda body: f"{_text(body)[:-1]},}}".encode(),
    "single-quotes": lambda body: (_text(body).replace('"', "'") if '"' in _text(body)
                                   else "{'name': 'x'}").encode(),
    "trailing-garbage": lambda body: f"{_text(body)} x".encode(),
    "two-documents": lambda body: (_text(body) * 2).encode(),
    "invalid-utf8": _invalid_utf8,
    "not-a-number": lambda body: f'{{"{_first_key(body)}": NaN}}'.encode(),
    "form-encoded": _form,
}  # not an empty body: that is no body, which a server may answer with defaults
MALFORMED_OPS = (2, 5, 7, 15, 16)  # every way a body fails to parse
# The other operations that take a body, each with a body cut off, one with more after it and
# one that is no UTF-8: how leniently a server parses is the same for all its operations; what
# differs between them is whether the body is parsed at all.
OTHER_BODY_OPS = (8, 10, 11, 12, 13, 18, 19, 20, 21, 22, 23, 25, 28)
SOME_NOT_JSON = ("truncated", "trailing-garbage", "invalid-utf8")


def _not_json(number: int, variant: str) -> Make:
    def make(board: Board, request: pytest.FixtureRequest) -> Case:
        body = _good_body(number, board, request)
        return Case(number, _path_of(number, board, request), content=NOT_JSON[variant](body))
    return make


# --- JSON that is not a usable body, and ids that name nothing -----------------------------

JSON_VALUES = {"empty-object": {}, "array": [], "string": "x", "null": None,
               "name-number": {"name": 5}, "name-null": {"name": None},
               "name-array": {"name": ["x"]}, "name-object": {"name": {"x": "y"}}}
JSON_OPS = (2, 5, 7, 10, 11, 13, 15, 16)
WATCHED_OPS = (5, 7, 15, 16)  # REJECTED-CHANGES-NOTHING
UNKNOWN = [(3, "projectId"), (4, "projectId"), (5, "projectId"), (6, "projectId"),
           (9, "rowId"), (10, "rowId"), (11, "rowId"), (13, "columnId"), (14, "columnId"),
           (15, "columnId"), (16, "cardId"), (17, "cardId"), (20, "cardId"), (21, "cardId"),
           (2, "organizationId")]


def _json(number: int, value: Any) -> Make:
    def make(board: Board, request: pytest.FixtureRequest) -> Case:
        if value is None:  # JSON null has to go as raw content (json=None sends no body)
            return Case(number, _path_of(number, board, request), content=b"null")
        return Case(number, _path_of(number, board, request), json=value)
    return make


def _missing(number: int, parameter: str, value: str) -> Make:
    def make(board: Board | None, request: pytest.FixtureRequest) -> Case:
        if parameter in ("organizationId", "projectId") and number in READS:
            return Case(number, {parameter: value})
        path = board_path(board, number, **{parameter: value}) if number != 2 \
            else {"organizationId": value}
        body = _good_body(number, board, request) \
            if spec.operation(number).method in ("POST", "PATCH") else None
        return Case(number, path, json=body)
    return make


def _move_missing(value: str) -> Make:
    def make(board: Board, request: pytest.FixtureRequest) -> Case:
        return Case(18, board_path(board, 18), json={"ids": [value], "afterCardId": value})
    return make


def _too_long(board: Board, request: pytest.FixtureRequest) -> Case:
    return Case(16, board_path(board, 16), json={"name": "a" * (NAME_MAX + 1)})


# --- the cases, each sent once; the tests below judge them ---------------------------------

READS = {op.number for op in spec.operations().values() if op.method == "GET"}


@dataclass(frozen=True)
class Spec:
    id: str
    number: int
    make: Make
    watched: bool = False  # read the Project before and after

    @property
    def read_only(self) -> bool:
        return self.number in READS


def _specs() -> dict[str, Spec]:
    specs = [Spec(f"op{n}-not-json-{v}", n, _not_json(n, v), True)
             for n in MALFORMED_OPS for v in NOT_JSON]
    specs += [Spec(f"op{n}-not-json-{v}", n, _not_json(n, v), True)
              for n in OTHER_BODY_OPS for v in SOME_NOT_JSON]
    specs += [Spec(f"op{n}-{label}", n, _json(n, value), n in WATCHED_OPS)
              for n in JSON_OPS for label, value in JSON_VALUES.items()]
    specs += [Spec(f"op{n}-unknown-{parameter}-{i + 1}", n, _missing(n, parameter, value),
                   (n, parameter) == (15, "columnId"))
              for n, parameter in UNKNOWN for i, value in enumerate(MISSING)]
    specs += [Spec(f"op18-unknown-card-in-body-{i + 1}", 18, _move_missing(value))
              for i, value in enumerate(MISSING)]
    specs.append(Spec(f"op16-name-{NAME_MAX + 1}", 16, _too_long, True))
    return {s.id: s for s in specs}


SPECS = _specs()
