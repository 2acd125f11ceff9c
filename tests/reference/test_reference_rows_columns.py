"""Rows and columns (operations 6-14) of the reference server."""

from __future__ import annotations

import httpx
import pytest


def test_list_rows(client: httpx.Client, board, expect) -> None:
    """Operation 6 answers an object whose rows hold ids, names and columns."""
    rows = expect.ok(client.get(f"{board.base}/rows"))
    assert set(rows) == {"rows"}
    assert rows["rows"] == board.project()["rows"]
    assert rows["rows"][0]["id"] == board.row_id
    assert [c["id"] for c in rows["rows"][0]["columns"]] == board.column_ids


@pytest.mark.parametrize(
    "body", [{"name": "R2"}, {"rowName": "R2"}, {"name": "R2", "rowName": "R2"}], ids=str
)
def test_create_row_with_either_property(client: httpx.Client, board, expect, body) -> None:
    """Operation 7 takes the row name as name or rowName and answers the Project."""
    project = expect.ok(client.post(f"{board.base}/rows", json=body))
    assert [row["name"] for row in project["rows"]] == ["row", "R2"]
    assert project["rows"][1]["columns"] == []
    assert expect.ok(client.get(f"{board.base}/rows"))["rows"] == project["rows"]


@pytest.mark.parametrize(
    "body",
    [{}, {"name": ""}, {"rowName": 3}, {"name": "a", "rowName": "b"}, {"name": "x" * 25001}],
)
def test_create_row_rejects_bad_bodies(client: httpx.Client, board, expect, body) -> None:
    """Operation 7 refuses a missing, empty, mistyped, conflicting or over-long name."""
    before = board.project()
    expect.rejected(client.post(f"{board.base}/rows", json=body), 422)
    assert board.project() == before


def test_order_rows(client: httpx.Client, board, expect) -> None:
    """Operation 8 puts the rows in the order of ids."""
    second = expect.ok(client.post(f"{board.base}/rows", json={"name": "second"}))["rows"][1]
    wanted = [second["id"], board.row_id]
    project = expect.ok(client.patch(f"{board.base}/order-rows", json={"ids": wanted}))
    assert [row["id"] for row in project["rows"]] == wanted
    assert [row["id"] for row in expect.ok(client.get(f"{board.base}/rows"))["rows"]] == wanted


BAD_ROW_IDS = {
    "empty": lambda board: [],
    "unknown": lambda board: ["nope"],
    "not-a-list": lambda board: board.row_id,
    "null": lambda board: None,
    "number": lambda board: [1],
    "repeated": lambda board: [board.row_id, board.row_id],
    "extra": lambda board: [board.row_id, "nope"],
}


@pytest.mark.parametrize("make_ids", BAD_ROW_IDS.values(), ids=BAD_ROW_IDS.keys())
def test_order_rows_needs_a_permutation(client: httpx.Client, board, expect, make_ids) -> None:
    """Operation 8 refuses ids that are not each row id exactly once, and changes nothing."""
    before = board.project()
    body = {"ids": make_ids(board)}
    expect.rejected(client.patch(f"{board.base}/order-rows", json=body), 422)
    assert board.project() == before


def test_delete_row(client: httpx.Client, board, expect) -> None:
    """Operation 9 answers the Project without the row, its columns or its cards."""
    project = expect.ok(client.delete(f"{board.base}/rows/{board.row_id}"))
    assert project["rows"] == [] and project["cards"] == []
    assert expect.ok(client.get(f"{board.base}/rows")) == {"rows": []}
    expect.rejected(client.delete(f"{board.base}/rows/{board.row_id}"), 404)


def test_delete_row_keeps_cards_aliased_elsewhere(client: httpx.Client, board, expect) -> None:
    """A card that also sits in another row's column survives the row's deletion."""
    project = expect.ok(client.post(f"{board.base}/rows", json={"name": "other"}))
    other_row = project["rows"][1]["id"]
    project = expect.ok(client.post(f"{board.base}/rows/{other_row}/columns", json={"name": "c"}))
    other_column = project["rows"][1]["columns"][0]
    card, alias = board.card_ids[0], {"columnId": other_column["id"]}
    expect.ok(client.post(f"{board.base}/cards/{card}/alias", json=alias))
    project = expect.ok(client.delete(f"{board.base}/rows/{board.row_id}"))
    assert [c["id"] for c in project["cards"]] == [card]
    assert project["cards"][0]["columns"] == [other_column]


def test_rename_row(client: httpx.Client, board, expect) -> None:
    """Operation 10 renames the row in the Project and in operation 6."""
    path = f"{board.base}/rows/{board.row_id}/rename"
    project = expect.ok(client.patch(path, json={"name": "N"}))
    assert project["rows"][0]["name"] == "N"
    assert expect.ok(client.get(f"{board.base}/rows"))["rows"][0]["name"] == "N"
    expect.rejected(client.patch(f"{board.base}/rows/nope/rename", json={"name": "N"}), 404)


def test_create_column(client: httpx.Client, board, expect) -> None:
    """Operation 11 adds the column at the end of its row."""
    path = f"{board.base}/rows/{board.row_id}/columns"
    project = expect.ok(client.post(path, json={"name": "later"}))
    assert [c["name"] for c in project["rows"][0]["columns"]] == ["todo", "done", "later"]
    expect.rejected(client.post(f"{board.base}/rows/nope/columns", json={"name": "x"}), 404)


def test_order_columns(client: httpx.Client, board, expect) -> None:
    """Operation 12 puts a row's columns in the order of ids, and refuses a non-permutation."""
    path = f"{board.base}/rows/{board.row_id}/order-columns"
    wanted = board.column_ids[::-1]
    project = expect.ok(client.patch(path, json={"ids": wanted}))
    assert [c["id"] for c in project["rows"][0]["columns"]] == wanted
    expect.rejected(client.patch(path, json={"ids": wanted[:1]}), 422)
    assert [c["id"] for c in board.project()["rows"][0]["columns"]] == wanted


def test_rename_column_shows_on_cards(client: httpx.Client, board, expect) -> None:
    """Operation 13 renames the column in its row and in the cards placed in it."""
    column = board.column_ids[0]
    path = f"{board.base}/columns/{column}/rename"
    project = expect.ok(client.patch(path, json={"name": "Doing"}))
    assert project["rows"][0]["columns"][0] == {"id": column, "name": "Doing"}
    assert board.card(board.card_ids[0])["columns"] == [{"id": column, "name": "Doing"}]


def test_delete_column(client: httpx.Client, board, expect) -> None:
    """Operation 14 answers the Project without the column and the cards only it held."""
    column = board.column_ids[0]
    project = expect.ok(client.delete(f"{board.base}/columns/{column}"))
    assert [c["id"] for c in project["rows"][0]["columns"]] == board.column_ids[1:]
    assert [card["id"] for card in project["cards"]] == board.card_ids[2:]
    assert board.project() == project
    expect.rejected(client.delete(f"{board.base}/columns/{column}"), 404)


def test_delete_column_takes_it_off_aliased_cards(client: httpx.Client, board, expect) -> None:
    """A card aliased into another column loses only the deleted column."""
    card, (first, second) = board.card_ids[0], board.column_ids
    expect.ok(client.post(f"{board.base}/cards/{card}/alias", json={"columnId": second}))
    expect.ok(client.delete(f"{board.base}/columns/{first}"))
    assert [c["id"] for c in board.card(card)["columns"]] == [second]
