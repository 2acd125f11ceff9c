"""Card metadata (ops 21-22): given and stripped on a card that has three entries, the whole
board read back against its model (the Card through op 16, renaming it to its own name)."""

from __future__ import annotations

from typing import Any

import pytest

from boardcert.conformance import (
    Exchange,
    NotAssessed,
    checks,
    expect,
    misfit,
    modelled,
    placeholders,
    unique,
)


class Metadata:
    """One metadata entry given to a card of the test's own."""

    def __init__(self, api, profile, board) -> None:
        self.api, self.board = api, board
        self.card = board.cards[0]
        self.key, self.value = unique("key"), unique("value")
        self.id_is_key = bool(profile.data.get("metadata_id_is_key"))

    def values(self) -> dict[str, Any]:
        return placeholders(self.board, key=self.key, value=self.value)

    def add(self) -> Exchange:
        return self.api.call(21, projectId=self.board.project.id, cardId=self.card.id,
                             json=self.api.body("add_card_metadata", **self.values()))

    def remove(self, body: dict[str, Any] | None) -> Exchange:
        return self.api.call(22, projectId=self.board.project.id, cardId=self.card.id,
                             path_params={"key": self.key}, json=body)

    def read(self, requirement: str) -> tuple[Any, Exchange]:
        """The Card's metadata, from op 16 renaming the card to its own name."""
        exchange = self.api.call(16, projectId=self.board.project.id, cardId=self.card.id,
                                 json={"name": self.card.name})
        if exchange.status != 200:
            raise NotAssessed(f"card metadata (op 16, which reads the Card back, answered "
                              f"{exchange.status})")
        body = exchange.json()
        metadata = body.get("metadata") if isinstance(body, dict) else None
        if not isinstance(metadata, list):
            raise NotAssessed("card metadata (the Card of op 16 has no metadata list)")
        return self.entry(metadata), exchange

    def entry(self, metadata: list[Any]) -> dict[str, Any] | None:
        """This entry: id equal to the key where the profile says so, else found by value."""
        for item in metadata:
            if not isinstance(item, dict) or item.get("value") != self.value:
                continue
            if not self.id_is_key or item.get("id") == self.key:
                return item
        return None


@pytest.fixture
def metadata(api, profile, fresh_board) -> Metadata:
    return Metadata(api, profile, fresh_board)


def _ok(exchange: Exchange, number: int, requirement: str) -> None:
    """Status 200 (the body of ops 21 and 22 is not shown, so only the status is judged)."""
    if exchange.status != 200:
        expect.fail(requirement, f"status 200 from operation {number}", exchange)


def _added(metadata: Metadata) -> None:
    """Set-up for the removal tests: the entry is there to remove."""
    exchange = metadata.add()
    if exchange.status != 200:
        raise misfit(exchange) or NotAssessed(
            f"card metadata to remove (op 21 answered {exchange.status})")


def _entries(board) -> Any:
    """A wide board whose middle card has three metadata entries and whose last has one."""
    if len(board.entries) < 4:
        raise NotAssessed("card metadata (op 21 did not give the board's cards their entries)")
    return board.entries


def _read_card(api, oracle, board, card) -> Exchange:
    """The Card as op 16 answers it when renamed to its own name (no operation reads one
    card): told to the model as the rename it is. (The board is read before it too: the
    rename would hide a name the write changed.)"""
    exchange = api.call(16, projectId=board.project.id, cardId=card.id, json={"name": card.name})
    if exchange.status == 200:
        oracle.board.rename_card(board.project.id, card.id, card.name)
    return exchange


@pytest.mark.requirement("CARD-METADATA-ADD")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=21)
def test_added_metadata_shows_in_the_card(api, wide_board_with_metadata):
    """After op 21 the middle card (which has three entries) has a fourth with the value
    given, in its Project and in its Card; its other entries, and every other card's, are as
    they were."""
    board = wide_board_with_metadata
    _entries(board)
    oracle, project, card = modelled(api, board), board.project.id, board.cards[1]
    key, value = unique("key"), unique("value")
    exchange = api.call(21, projectId=project, cardId=card.id,
                        json=api.body("add_card_metadata",
                                      **placeholders(board, key=key, value=value,
                                                     card_id=card.id)))
    act, _ = expect.written(oracle, exchange, 21, "CARD-METADATA-ADD",
                            lambda board: board.add_metadata(project, card.id, key, value),
                            body=False)
    oracle.check(act, exchange, project, card.id, last=False)
    oracle.check(act, _read_card(api, oracle, board, card), project, card.id, number=16)


@pytest.mark.requirement("CARD-METADATA-REMOVE")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=22)
def test_removed_metadata_is_gone_from_the_card(api, wide_board_with_metadata):
    """After op 22 the middle card's second entry of three (read there before) is gone, in its
    Project and its Card; its other two entries, and every other card's, are as they were."""
    board = wide_board_with_metadata
    _, (card, key, value), _, _ = _entries(board)
    oracle, project = modelled(api, board), board.project.id
    body = api.body("remove_card_metadata", **placeholders(board, key=key, value=value,
                                                           card_id=card.id)) \
        if api.profile.has("bodies.remove_card_metadata") else None
    exchange = api.call(22, projectId=project, cardId=card.id, path_params={"key": key},
                        json=body)
    act, _ = expect.written(oracle, exchange, 22, "CARD-METADATA-REMOVE",
                            lambda board: board.remove_metadata(project, card.id, key),
                            body=False)
    oracle.check(act, exchange, project, card.id, last=False)
    oracle.check(act, _read_card(api, oracle, board, card), project, card.id, number=16)


@pytest.mark.requirement("CARD-METADATA-REMOVE-BODY")
def test_metadata_removal_accepts_a_body(metadata, api):
    """Op 22 answers 200 when the DELETE request carries a JSON body."""
    _added(metadata)
    body = api.body("remove_card_metadata", **metadata.values())
    _ok(metadata.remove(body), 22, "CARD-METADATA-REMOVE-BODY")


@pytest.mark.requirement("CARD-FIELD-TYPES", op=[21, 16])
def test_metadata_value_that_looks_like_a_number_stays_a_string(metadata):
    """A metadata value such as "42" comes back in the Card as the string "42"."""
    metadata.value = "42"
    exchange = metadata.add()
    if exchange.status != 200:
        raise misfit(exchange) or NotAssessed(
            f"card metadata (op 21 answered {exchange.status})")
    _, exchange = metadata.read("CARD-FIELD-TYPES")
    checks.assert_ok(16, exchange.json(), exchange, "CARD-FIELD-TYPES")
