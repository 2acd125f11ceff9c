"""Cards (operations 15-20) of the reference server."""

from __future__ import annotations

import httpx
import pytest


def assert_card_shape(card: dict) -> None:
    """The Card record of section 2, with every leaf a string, and the plugins and projects
    that card-returning responses carry (section 2, "Other records")."""
    assert set(card) == {"id", "name", "url", "createdFlair", "columns", "metadata", "plugins",
                         "projects"}
    assert isinstance(card["plugins"], list) and isinstance(card["projects"], list)
    for key in ("id", "name", "url", "createdFlair"):
        assert isinstance(card[key], str), key
    for column in card["columns"]:
        assert set(column) == {"id", "name"} and all(isinstance(v, str) for v in column.values())
    for entry in card["metadata"]:
        assert set(entry) == {"id", "value"} and all(isinstance(v, str) for v in entry.values())


def test_create_card(client: httpx.Client, board, expect) -> None:
    """Operation 15 answers the Card in its column, last in the project's card order."""
    column = board.column_ids[1]
    card = expect.ok(client.post(f"{board.base}/columns/{column}/cards", json={"name": "new"}))
    assert_card_shape(card)
    assert card["name"] == "new" and card["metadata"] == []
    assert card["columns"] == [{"id": column, "name": "done"}]
    assert board.order() == [*board.card_ids, card["id"]]
    assert board.card(card["id"]) == card


def test_card_carries_plugins_and_projects(client: httpx.Client, board, expect) -> None:
    """A Card answer carries the project's plugins and the project the card is in."""
    expect.ok(client.post(f"{board.base}/plugins/boardcert", json={}))
    card = expect.ok(client.patch(f"{board.base}/cards/{board.card_ids[0]}", json={"name": "p"}))
    assert card["plugins"] == [{"id": "boardcert"}]
    assert card["projects"] == [{"id": board.project_id, "name": board.project()["name"]}]


def test_create_card_in_unknown_column(client: httpx.Client, board, expect) -> None:
    """Operation 15 in a column that does not exist answers 404 and adds nothing."""
    expect.rejected(client.post(f"{board.base}/columns/nope/cards", json={"name": "x"}), 404)
    assert board.order() == board.card_ids


def test_rename_card(client: httpx.Client, board, expect) -> None:
    """Operation 16 answers the Card with the new name."""
    card = expect.ok(client.patch(f"{board.base}/cards/{board.card_ids[0]}", json={"name": "z"}))
    assert_card_shape(card)
    assert card["name"] == "z" and board.card(card["id"]) == card


def test_delete_card(client: httpx.Client, board, expect) -> None:
    """Operation 17 answers the deleted Card; the card is gone afterwards."""
    card_id = board.card_ids[0]
    before = board.card(card_id)
    assert expect.ok(client.delete(f"{board.base}/cards/{card_id}")) == before
    assert board.order() == board.card_ids[1:]
    expect.rejected(client.patch(f"{board.base}/cards/{card_id}", json={"name": "x"}), 404)
    expect.rejected(client.delete(f"{board.base}/cards/{card_id}"), 404)


def test_cards_belong_to_their_project(client: httpx.Client, board, new_board, expect) -> None:
    """A card is addressed only through its own project."""
    other = new_board()
    path = f"{other.base}/cards/{board.card_ids[0]}"
    expect.rejected(client.patch(path, json={"name": "x"}), 404)


def test_move_after(client: httpx.Client, board, expect) -> None:
    """Operation 18 with afterCardId puts the cards right after that card, in ids order."""
    a, b, c = board.card_ids
    body = {"ids": [b, a], "afterCardId": c}
    card = expect.ok(client.patch(f"{board.base}/cards/move", json=body))
    assert_card_shape(card)
    assert card["id"] == b
    assert board.order() == [c, b, a]


def test_move_before(client: httpx.Client, board, expect) -> None:
    """Operation 18 with beforeCardId puts the card right before that card."""
    a, b, c = board.card_ids
    expect.ok(client.patch(f"{board.base}/cards/move", json={"ids": [c], "beforeCardId": a}))
    assert board.order() == [c, a, b]


def test_move_with_both_anchors(client: httpx.Client, board, expect) -> None:
    """Given both anchors, afterCardId decides; beforeCardId must still name a card."""
    a, b, c = board.card_ids
    body = {"ids": [c], "afterCardId": a, "beforeCardId": b}
    expect.ok(client.patch(f"{board.base}/cards/move", json=body))
    assert board.order() == [a, c, b]
    body = {"ids": [a], "afterCardId": b, "beforeCardId": c}
    expect.ok(client.patch(f"{board.base}/cards/move", json=body))
    assert board.order() == [c, b, a]
    body = {"ids": [a], "afterCardId": b, "beforeCardId": "nope"}
    expect.rejected(client.patch(f"{board.base}/cards/move", json=body), 404)
    assert board.order() == [c, b, a]


def test_move_into_column(client: httpx.Client, board, expect) -> None:
    """Operation 18 with columnId places the card in that column; null anchors are ignored."""
    a, b, c = board.card_ids
    done = board.column_ids[1]
    body = {"ids": [a], "columnId": done, "afterCardId": None, "beforeCardId": None}
    card = expect.ok(client.patch(f"{board.base}/cards/move", json=body))
    assert card["columns"] == [{"id": done, "name": "done"}]
    assert board.order() == [a, b, c]


@pytest.mark.parametrize(
    ("make_body", "status"),
    [
        (lambda a, b, c: {"ids": [a], "afterCardId": a}, 422),
        (lambda a, b, c: {"ids": [a, b], "beforeCardId": b}, 422),
        (lambda a, b, c: {"ids": ["nope"], "afterCardId": c}, 404),
        (lambda a, b, c: {"ids": [a], "afterCardId": "nope"}, 404),
        (lambda a, b, c: {"ids": [a], "columnId": "nope"}, 404),
        (lambda a, b, c: {"ids": [a, a], "afterCardId": c}, 422),
        (lambda a, b, c: {"ids": [], "afterCardId": c}, 422),
        (lambda a, b, c: {"ids": a, "afterCardId": c}, 422),
        (lambda a, b, c: {"afterCardId": c}, 422),
        (lambda a, b, c: {"ids": [a], "afterCardId": 7}, 422),
    ],
    ids=[
        "anchor-moved",
        "before-moved",
        "unknown-card",
        "unknown-anchor",
        "unknown-column",
        "repeated",
        "empty",
        "not-a-list",
        "no-ids",
        "anchor-number",
    ],
)
def test_move_refusals(client: httpx.Client, board, expect, make_body, status) -> None:
    """Operation 18 refuses unknown ids, repeated ids and anchors among the moved cards."""
    before = board.project()
    body = make_body(*board.card_ids)
    expect.rejected(client.patch(f"{board.base}/cards/move", json=body), status)
    assert board.project() == before


def test_move_by_metadata(client: httpx.Client, board, expect) -> None:
    """Operation 19 moves the cards carrying the key (and value) next to the anchor."""
    a, b, c = board.card_ids
    for card_id, value in ((a, "x"), (b, "y")):
        body = {"key": "team", "value": value}
        expect.ok(client.post(f"{board.base}/cards/{card_id}/metadata", json=body))
    body = {"key": "team", "value": "x", "afterCardId": c}
    card = expect.ok(client.patch(f"{board.base}/cards/move-by-metadata", json=body))
    assert card["id"] == a and board.order() == [b, c, a]
    body = {"key": "team", "beforeCardId": b}
    expect.rejected(client.patch(f"{board.base}/cards/move-by-metadata", json=body), 422)
    body = {"key": "team", "value": "y", "beforeCardId": c}
    expect.ok(client.patch(f"{board.base}/cards/move-by-metadata", json=body))
    assert board.order() == [b, c, a]
    body = {"key": "team", "afterCardId": c}
    assert expect.ok(client.patch(f"{board.base}/cards/move-by-metadata", json=body))["id"] == b
    assert board.order() == [c, b, a]


def test_move_by_metadata_without_match(client: httpx.Client, board, expect) -> None:
    """Operation 19 answers 404 when no card carries the metadata."""
    body = {"key": "absent", "value": "v", "afterCardId": board.card_ids[0]}
    expect.rejected(client.patch(f"{board.base}/cards/move-by-metadata", json=body), 404)
    expect.rejected(client.patch(f"{board.base}/cards/move-by-metadata", json={"value": "v"}), 422)


def test_alias(client: httpx.Client, board, expect) -> None:
    """Operation 20 places the card in another column too, once."""
    card_id, (todo, done) = board.card_ids[0], board.column_ids
    path = f"{board.base}/cards/{card_id}/alias"
    card = expect.ok(client.post(path, json={"columnId": done}))
    assert_card_shape(card)
    assert [c["id"] for c in card["columns"]] == [todo, done]
    assert expect.ok(client.post(path, json={"columnId": done})) == card
    expect.rejected(client.post(path, json={"columnId": "nope"}), 404)
    expect.rejected(client.post(path, json={}), 422)
    assert board.card(card_id) == card
