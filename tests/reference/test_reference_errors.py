"""Bad input, unknown paths and removed paths: a 4xx JSON error, never a 5xx, no change."""

from __future__ import annotations

import httpx
import pytest

BODY_OPERATIONS = [2, 5, 7, 8, 10, 11, 12, 13, 15, 16, 18, 19, 20, 21, 25, 28]
TYPED_OPERATIONS = [n for n in BODY_OPERATIONS if n != 25]  # op 25's value may be any JSON

RAW_BODIES = {
    "not-json": (b"name=x", 400),
    "truncated": (b'{"name": "x"', 400),
    "empty": (b"", 400),
    "nan": (b'{"name": NaN}', 400),
    "bad-utf8": (b'{"name": "\xff"}', 400),
    "lone-surrogate": (b'{"name": "\\ud800"}', 400),
    "deep": (b"[" * 100_000, 400),
    "huge-int": (b'{"name": ' + b"9" * 5000 + b"}", 400),
    "array": (b'["name"]', 422),
    "string": (b'"name"', 422),
    "null": (b"null", 422),
    "number": (b"12", 422),
}

TYPED_BODIES = [
    {"name": 1, "rowName": 1, "ids": 1, "key": 1, "value": 1, "columnId": 1, "code": 1},
    {"name": None, "ids": None, "key": None, "columnId": None, "code": None},
    {"name": [], "ids": [[]], "key": [], "value": [], "columnId": [], "code": []},
    {"name": {}, "ids": {}, "key": {}, "value": {}, "columnId": {}, "code": {}},
    {"unrelated": True},
]


def everything(board) -> tuple:
    """What the client can read of the state the board and plugin data live in."""
    me = board.client.get("/users/me").json()
    data = board.client.get("/plugins/boardcert/data/k", params={"entityId": board.card_ids[0]})
    return me["currentProject"], board.project(), data.status_code, data.text


@pytest.mark.parametrize("raw, status", RAW_BODIES.values(), ids=RAW_BODIES.keys())
def test_malformed_bodies(board, calls, expect, raw, status) -> None:
    """A body that is not a JSON object is refused by every operation that reads one."""
    before = everything(board)
    for number in BODY_OPERATIONS:
        method, path, _ = calls[number]
        response = board.client.request(method, path, content=raw)
        assert expect.rejected(response, status), number
    assert everything(board) == before


@pytest.mark.parametrize("body", TYPED_BODIES, ids=range(len(TYPED_BODIES)))
def test_mistyped_bodies(board, calls, expect, body) -> None:
    """Fields of the wrong type, or missing, are refused with 422 by every operation."""
    before = everything(board)
    for number in TYPED_OPERATIONS:
        method, path, _ = calls[number]
        assert expect.rejected(board.send(method, path, body), 422), number
    assert everything(board) == before


def test_unknown_ids_are_not_found(board, calls, expect) -> None:
    """Every project-scoped operation on an unknown project answers 404."""
    before = everything(board)
    for number, (method, path, body) in calls.items():
        if path.startswith(board.base):
            wrong = path.replace(board.base, "/projects/unknown", 1)
            expect.rejected(board.send(method, wrong, body), 404)
        if board.card_ids[0] in path and number not in (25, 26, 27, 28):
            wrong = path.replace(board.card_ids[0], "unknown")
            expect.rejected(board.send(method, wrong, body), 404)
    assert everything(board) == before


def test_body_size_cap(board, calls, expect) -> None:
    """A body over 1 MiB answers 413 and changes nothing."""
    before = everything(board)
    method, path, _ = calls[16]
    big = b'{"name": "' + b"x" * (1024 * 1024) + b'"}'
    assert expect.rejected(board.client.request(method, path, content=big), 413)
    assert everything(board) == before


def test_unknown_path(client: httpx.Client, expect) -> None:
    """A path that is not routed answers a JSON 404, with or without a trailing slash."""
    for path in ("/", "/nope", "/users/me/", "/projects", "/projects/1/rows/", "/users//me"):
        assert expect.rejected(client.get(path), 404)["code"] == "not_found", path


def test_wrong_method(client: httpx.Client, board, expect) -> None:
    """A routed path called with another method answers a JSON 405 with Allow."""
    response = client.put(f"{board.base}/rename", json={"name": "x"})
    assert expect.rejected(response, 405)["code"] == "method_not_allowed"
    assert response.headers["allow"] == "PATCH"
    expect.rejected(client.post("/users/me", json={}), 405)


def removed_calls(board) -> list[tuple[str, str, dict]]:
    """The former method and path of section 9, with the board's real ids and a plausible body."""
    p, (card, other_card, _), (column, other) = board.base, board.card_ids, board.column_ids
    row = board.row_id
    return [
        ("PATCH", f"/card/{card}", {"columnId": other, "afterCardId": other_card}),
        ("PATCH", "/cards/move-by-metadata", {"key": "k", "value": "v"}),
        ("PATCH", f"{p}/cards/{card}/archive", {}),
        ("PATCH", f"{p}/columns/{column}/archive", {}),
        ("DELETE", f"{p}/columns/{column}/archive", {}),
        ("PATCH", f"{p}/rows/{row}/archive", {}),
        ("DELETE", f"{p}/rows/{row}/archive", {}),
        ("POST", f"{p}/columns/{column}/card", {"name": "x"}),
        ("POST", f"{p}/row", {"name": "x", "rowName": "x"}),
        ("POST", f"{p}/rows/{row}/column", {"name": "x"}),
        ("PATCH", "/projects", {"id": board.project_id, "name": "x"}),
        ("POST", f"{p}/columns/{column}/cards/{card}/alias", {"columnId": other}),
        ("POST", "/exchange-code", {"code": "boardcert-code"}),
    ]


def test_removed_paths(board, expect) -> None:
    """The removed paths answer 404 and have no effect."""
    expect.ok(
        board.send(
            "POST", f"{board.base}/cards/{board.card_ids[0]}/metadata", {"key": "k", "value": "v"}
        )
    )
    before = board.project()
    for method, path, body in removed_calls(board):
        assert expect.rejected(board.send(method, path, body), 404), (method, path)
    assert board.project() == before


def test_no_server_error_on_odd_paths(client: httpx.Client, board, expect) -> None:
    """Odd but routable path parameters are answered with a 4xx, never a 5xx."""
    for segment in ("%00", "%FF", "..%2F", "%E2%82", "a%20b", "x" * 5000, "%F0%9F%98%80"):
        for path in (
            f"/projects/{segment}",
            f"{board.base}/cards/{segment}",
            f"/plugins/boardcert/data/{segment}?entityId={segment}",
        ):
            response = client.get(path) if "cards" not in path else client.patch(path, json={})
            assert 400 <= response.status_code < 500, (path, response.status_code)
