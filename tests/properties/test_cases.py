"""boardcert.properties.cases: which generated cases prove a requirement by being accepted."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from boardcert.properties import cases


def test_only_op16_at_exactly_25000_ascii_characters_must_be_accepted():
    """Acceptance is judged only where the interface demands it: op 16, {"name": 25000 x "a"};
    not an empty name (INFO), not emoji (SHOULD), not extra fields, not other operations."""
    def acceptance(number: int, body: Any) -> str | None:
        return cases._acceptance(SimpleNamespace(body=body, **vars(_case(number))))

    assert acceptance(16, {"name": "a" * 25000}) == "CARD-NAME-MAX-ACCEPTED"
    assert acceptance(16, {"name": "a" * 24999}) is None
    assert acceptance(16, {"name": ""}) is None
    assert acceptance(16, {"name": "\U0001F600" * 25000}) is None
    assert acceptance(16, {"name": "a" * 25000, "x": 1}) is None
    assert acceptance(15, {"name": "a" * 25000}) is None


def _case(number: int) -> Any:
    return SimpleNamespace(operation=SimpleNamespace(definition=SimpleNamespace(
        raw={"x-operation": number})))
