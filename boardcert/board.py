"""What the suites build on the server: `Made` (a resource the run created), `unique` names and
the `Board` (a project with one row, two columns and three cards in the first column)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from boardcert.client import Exchange
from boardcert.ledger import Entry

__all__ = ["Board", "Made", "unique"]


def unique(label: str) -> str:
    """A name no other run or test uses."""
    return f"bc-{label}-{uuid.uuid4().hex[:10]}"


@dataclass
class Made:
    """A resource the run created: its id, name, the body that answered and its ledger entry."""

    id: str
    name: str
    body: Any
    entry: Entry | None  # None: not the run's own (readable_project under --read-only)
    exchange: Exchange


@dataclass
class Board:
    """A project with one row, two columns and three cards in the first column."""

    project: Made
    row: Made
    columns: list[Made]
    cards: list[Made]
