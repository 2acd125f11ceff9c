"""Card metadata (21-22), plugins (23-24), plugin data (25-27) and exchange-code (28)."""

from __future__ import annotations

import httpx
import pytest


def test_add_metadata(client: httpx.Client, board, expect) -> None:
    """Operation 21 adds an entry whose id is the key, and replaces it in place."""
    card_id = board.card_ids[0]
    path = f"{board.base}/cards/{card_id}/metadata"
    expect.ok(client.post(path, json={"key": "k1", "value": "v1"}))
    card = expect.ok(client.post(path, json={"key": "k2", "value": ""}))
    assert card["metadata"] == [{"id": "k1", "value": "v1"}, {"id": "k2", "value": ""}]
    card = expect.ok(client.post(path, json={"key": "k1", "value": "v3"}))
    assert card["metadata"] == [{"id": "k1", "value": "v3"}, {"id": "k2", "value": ""}]
    assert board.card(card_id) == card


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"key": "k"},
        {"value": "v"},
        {"key": "", "value": "v"},
        {"key": "a/b", "value": "v"},
        {"key": 1, "value": "v"},
        {"key": "k", "value": 1},
        {"key": "k", "value": None},
    ],
    ids=str,
)
def test_add_metadata_refusals(client: httpx.Client, board, expect, body) -> None:
    """Operation 21 refuses a missing, empty or mistyped key or value."""
    before = board.project()
    expect.rejected(client.post(f"{board.base}/cards/{board.card_ids[0]}/metadata", json=body))
    assert board.project() == before


@pytest.mark.parametrize("body", [None, {}, {"reason": "done"}], ids=["no-body", "{}", "fields"])
def test_remove_metadata(client: httpx.Client, board, expect, body) -> None:
    """Operation 22 removes the entry, with or without a JSON body."""
    card_id = board.card_ids[0]
    entry = {"key": "k", "value": "v"}
    expect.ok(client.post(f"{board.base}/cards/{card_id}/metadata", json=entry))
    path = f"{board.base}/cards/{card_id}/metadata/k"
    card = expect.ok(board.send("DELETE", path, body))
    assert card["metadata"] == [] and board.card(card_id)["metadata"] == []
    expect.rejected(board.send("DELETE", path, body), 404)


def test_remove_metadata_refuses_bad_body(client: httpx.Client, board, expect) -> None:
    """A body that is not a JSON object is refused and the entry stays."""
    card_id = board.card_ids[0]
    entry = {"key": "k", "value": "v"}
    expect.ok(client.post(f"{board.base}/cards/{card_id}/metadata", json=entry))
    path = f"{board.base}/cards/{card_id}/metadata/k"
    expect.rejected(client.request("DELETE", path, content=b"{nope"), 400)
    expect.rejected(client.request("DELETE", path, content=b"[1]"), 422)
    assert board.card(card_id)["metadata"] == [{"id": "k", "value": "v"}]


@pytest.mark.parametrize("body", [None, {}], ids=["no-body", "{}"])
def test_attach_and_detach_plugin(client: httpx.Client, board, expect, body) -> None:
    """Operations 23 and 24 attach and detach a plugin, answering the Project."""
    path = f"{board.base}/plugins/boardcert"
    project = expect.ok(board.send("POST", path, body))
    assert project["plugins"] == [{"id": "boardcert"}] and board.project() == project
    assert expect.ok(board.send("POST", path, body))["plugins"] == [{"id": "boardcert"}]
    project = expect.ok(client.delete(path))
    assert project["plugins"] == [] and board.project()["plugins"] == []
    expect.rejected(client.delete(path), 404)


def test_unknown_plugin(client: httpx.Client, board, expect) -> None:
    """A plugin the server does not know is not found."""
    expect.rejected(client.post(f"{board.base}/plugins/other", json={}), 404)
    expect.rejected(client.put("/plugins/other/entities/e/data/k", json={"value": 1}), 404)
    assert board.project()["plugins"] == []


@pytest.mark.parametrize("value", ["text", 3, None, [1, {"a": True}], {"nested": {"x": 1.5}}])
def test_plugin_data_round_trip(client: httpx.Client, expect, value) -> None:
    """Operations 25, 27 and 26 store, read back and delete any JSON value."""
    path, entity = "/plugins/boardcert/entities/e1/data/k", {"entityId": "e1"}
    stored = expect.ok(client.put(path, json={"value": value}))
    assert stored == {"pluginId": "boardcert", "entityId": "e1", "key": "k", "value": value}
    assert expect.ok(client.get("/plugins/boardcert/data/k", params=entity)) == stored
    deleted = expect.ok(client.delete(path))
    assert deleted == {"pluginId": "boardcert", "entityId": "e1", "key": "k", "deleted": True}
    expect.rejected(client.get("/plugins/boardcert/data/k", params=entity), 404)
    expect.rejected(client.delete(path), 404)


def test_plugin_data_is_per_entity(client: httpx.Client, expect) -> None:
    """Data stored for one entity is not answered for another."""
    expect.ok(client.put("/plugins/boardcert/entities/ea/data/shared", json={"value": "a"}))
    expect.ok(client.put("/plugins/boardcert/entities/eb/data/shared", json={"value": "b"}))
    for entity, value in (("ea", "a"), ("eb", "b")):
        got = expect.ok(client.get("/plugins/boardcert/data/shared", params={"entityId": entity}))
        assert got["value"] == value


def test_plugin_data_refusals(client: httpx.Client, expect) -> None:
    """A missing value, or a read without entityId, is refused."""
    expect.rejected(client.put("/plugins/boardcert/entities/e/data/k", json={}), 422)
    expect.rejected(client.get("/plugins/boardcert/data/k"), 422)
    expect.rejected(client.get("/plugins/boardcert/data/k", params={"entityId": ""}), 422)
    expect.rejected(client.get("/plugins/boardcert/data/k", params={"entityId": "e"}), 404)


def test_exchange_code(client: httpx.Client, expect) -> None:
    """Operation 28 exchanges boardcert-code for a fresh userToken and no accessToken."""
    path = "/plugins/boardcert/entities/e/exchange-code"
    first = expect.ok(client.post(path, json={"code": "boardcert-code"}))
    second = expect.ok(client.post(path, json={"code": "boardcert-code"}))
    assert set(first) == {"userToken"} and isinstance(first["userToken"], str)
    assert first["userToken"] and first["userToken"] != second["userToken"]


@pytest.mark.parametrize("body", [{}, {"code": ""}, {"code": "other"}, {"code": 1}], ids=str)
def test_exchange_code_refusals(client: httpx.Client, expect, body) -> None:
    """Operation 28 refuses any code but boardcert-code."""
    path = "/plugins/boardcert/entities/e/exchange-code"
    assert "userToken" not in expect.rejected(client.post(path, json=body), 422)
