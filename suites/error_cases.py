"""The cases of suites/test_errors.py: bodies that are not JSON, JSON that is not a usable body,
ids that name nothing, a name over the limit; each a `Spec` (its id is the tests' parameter),
made on the module's board when a test first needs it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from boardcert.for_suites import Board, fill, placeholders, spec, unique

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
           "columnId": board.columns[0].id, "cardId": board.cards[0].id}
    template = spec.operation(number).path
    return {k: v for k, v in (own | given).items() if f"{{{k}}}" in template}


BODY_NAMES = {2: "create_project", 5: "rename_project", 10: "rename_row", 11: "create_column",
              13: "rename_column", 15: "create_card", 18: "move_cards", 20: "alias_card",
              21: "add_card_metadata"}


def _good_body(number: int, board: Board, request: pytest.FixtureRequest) -> Any:
    """A body operation `number` accepts, with a fresh name (profile bodies where not shown)."""
    name = unique("name")
    if number == 7:
        return {request.getfixturevalue("row_name_property"): name}
    if number == 16:
        return {"name": name}
    where = f"bodies.{BODY_NAMES[number]}"
    body = fill(request.getfixturevalue("profile").get(where), placeholders(board, name=name),
                where)  # a plain dict: a refusal of it is no profile misfit here
    return body | {"afterCardId": board.cards[2].id} if number == 18 else body


def _organization(request: pytest.FixtureRequest) -> str:
    return request.getfixturevalue("organization_id")


def _path_of(number: int, board: Board, request: pytest.FixtureRequest) -> dict[str, str]:
    if number == 2:
        return {"organizationId": _organization(request)}
    return board_path(board, number)


# --- bodies that are not JSON (sent with a JSON content type) ------------------------------

NOT_JSON: dict[str, Callable[[str], bytes]] = {
    "truncated": lambda name: f'{{"name": "{name}"'.encode(),
    "trailing-comma": lambda name: f'{{"name": "{name}",}}'.encode(),
    "single-quotes": lambda name: f"{{'name': '{name}'}}".encode(),
    "trailing-garbage": lambda name: f'{{"name": "{name}"}} x'.encode(),
    "two-documents": lambda name: f'{{"name": "{name}"}}{{"name": "{name}"}}'.encode(),
    "invalid-utf8": lambda name: b'{"name": "' + name.encode() + b'\xff\xfe"}',
    "not-a-number": lambda name: b'{"name": NaN}',
    "form-encoded": lambda name: f"name={name}".encode(),
}  # not an empty body: that is no body, which a server may answer with defaults
MALFORMED_OPS = (2, 5, 7, 15, 16)


def _not_json(number: int, variant: str) -> Make:
    def make(board: Board, request: pytest.FixtureRequest) -> Case:
        body = _good_body(number, board, request)
        name = next((v for v in body.values() if isinstance(v, str)), unique("name")) \
            if isinstance(body, dict) else unique("name")
        return Case(number, _path_of(number, board, request), content=NOT_JSON[variant](name))
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
