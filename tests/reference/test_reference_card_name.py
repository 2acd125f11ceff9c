"""The card name rule of operation 16: a required string of at most 25000 code points."""

from __future__ import annotations

import httpx
import pytest

CHARACTERS = {"ascii": "x", "two-byte": "é", "astral": "\N{GRINNING FACE}"}


@pytest.mark.parametrize("char", CHARACTERS.values(), ids=CHARACTERS.keys())
def test_25000_characters_accepted(client: httpx.Client, board, expect, char) -> None:
    """A name of exactly 25000 characters is accepted and read back whole."""
    card_id, name = board.card_ids[0], char * 25000
    card = expect.ok(client.patch(f"{board.base}/cards/{card_id}", json={"name": name}))
    assert card["name"] == name
    assert board.card(card_id)["name"] == name


@pytest.mark.parametrize("char", CHARACTERS.values(), ids=CHARACTERS.keys())
def test_25001_characters_rejected(client: httpx.Client, board, expect, char) -> None:
    """A name of 25001 characters is rejected and the stored name is unchanged."""
    card_id = board.card_ids[0]
    response = client.patch(f"{board.base}/cards/{card_id}", json={"name": char * 25001})
    assert expect.rejected(response, 422)["code"] == "invalid_name"
    assert board.card(card_id)["name"] == "a"


@pytest.mark.parametrize(
    "body",
    [{}, {"title": "x"}, {"name": None}, {"name": 1}, {"name": True}, {"name": []}, {"name": {}}],
    ids=str,
)
def test_name_required_and_string(client: httpx.Client, board, expect, body) -> None:
    """A missing or non-string name is rejected and the stored name is unchanged."""
    card_id = board.card_ids[0]
    expect.rejected(client.patch(f"{board.base}/cards/{card_id}", json=body), 422)
    assert board.card(card_id)["name"] == "a"


def test_empty_name_rejected(client: httpx.Client, board, expect) -> None:
    """The reference server refuses an empty name (its documented choice)."""
    card_id = board.card_ids[0]
    expect.rejected(client.patch(f"{board.base}/cards/{card_id}", json={"name": ""}), 422)
    assert board.card(card_id)["name"] == "a"


def test_extra_properties_ignored(client: httpx.Client, board, expect) -> None:
    """Properties beside name are ignored."""
    card_id = board.card_ids[0]
    body = {"name": "kept", "url": "ignored", "id": "other"}
    card = expect.ok(client.patch(f"{board.base}/cards/{card_id}", json=body))
    assert card["id"] == card_id and card["name"] == "kept" and card["url"] != "ignored"
