"""Card metadata (ops 21-22): given and stripped, read back through the Card of op 16."""

from __future__ import annotations

from typing import Any

import pytest

from boardcert.for_suites import Exchange, NotAssessed, checks, expect, misfit, placeholders, unique


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


@pytest.mark.requirement("CARD-METADATA-ADD")
def test_added_metadata_shows_in_the_card(metadata):
    """After op 21 the Card's metadata has an entry with the value given."""
    _ok(metadata.add(), 21, "CARD-METADATA-ADD")
    entry, exchange = metadata.read("CARD-METADATA-ADD")
    if entry is None:
        where = f"id {metadata.key!r} and " if metadata.id_is_key else ""
        expect.fail("CARD-METADATA-ADD", f"a metadata entry with {where}value "
                    f"{metadata.value!r}", exchange, got="no such entry")


@pytest.mark.requirement("CARD-METADATA-REMOVE")
def test_removed_metadata_is_gone_from_the_card(metadata, api):
    """After op 22 the Card's metadata no longer has that entry."""
    _added(metadata)
    body = api.body("remove_card_metadata", **metadata.values()) \
        if api.profile.has("bodies.remove_card_metadata") else None
    _ok(metadata.remove(body), 22, "CARD-METADATA-REMOVE")
    entry, exchange = metadata.read("CARD-METADATA-REMOVE")
    if entry is not None:
        expect.fail("CARD-METADATA-REMOVE", f"no metadata entry {metadata.key!r} after op 22",
                    exchange, got=f"the entry {entry!r}")


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
