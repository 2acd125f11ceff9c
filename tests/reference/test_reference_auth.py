"""X-API-Key: demanded by all 28 operations (the listed 17 and, by choice, the others)."""

from __future__ import annotations

import httpx
import pytest

from boardcert.reference.app import OPERATIONS

BAD_KEYS = {"missing": None, "empty": "", "wrong": "not-the-key", "non-ascii": "clé".encode()}


def state(board) -> tuple:
    """The board's project and the plugin datum under key k, as the valid key reads them."""
    data = board.client.get("/plugins/boardcert/data/k", params={"entityId": board.card_ids[0]})
    return board.project(), data.status_code, data.text


def test_every_operation_is_routed(calls) -> None:
    """The app serves exactly the 28 operations, and the tests call each of them."""
    assert sorted(op.number for op in OPERATIONS) == list(range(1, 29))
    assert sorted(calls) == list(range(1, 29))


@pytest.mark.parametrize("key", BAD_KEYS.values(), ids=BAD_KEYS.keys())
def test_bad_key_rejected_everywhere(server, board, calls, expect, key) -> None:
    """Every operation answers 401 to a missing, empty or wrong key, and changes nothing."""
    board.send("PUT", calls[25][1], {"value": "kept"})
    before = state(board)
    headers = {} if key is None else {"X-API-Key": key}
    with httpx.Client(base_url=server.base_url, headers=headers) as stranger:
        for number, (method, path, body) in calls.items():
            response = stranger.request(method, path, json=body)
            assert expect.rejected(response, 401)["code"] == "unauthorized", number
    assert state(board) == before


def test_only_the_exact_key(anonymous: httpx.Client, api_key: str, expect) -> None:
    """Only the exact key is accepted: not a prefix, another case, or with extra characters."""
    for key in (api_key[:-1], api_key.upper(), api_key + "x", f"{api_key} x", "x" * 1000):
        response = anonymous.get("/users/me", headers={"X-API-Key": key})
        expect.rejected(response, 401)
    expect.ok(anonymous.get("/users/me", headers={"X-API-Key": api_key}))


def test_unrouted_paths_answer_404_without_key(anonymous: httpx.Client, expect) -> None:
    """The key is checked on routed operations; an unknown path is a 404 either way."""
    expect.rejected(anonymous.get("/nope"), 404)
    expect.rejected(anonymous.post("/exchange-code", json={"code": "boardcert-code"}), 404)
