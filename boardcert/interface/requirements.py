"""The requirement catalogue (spec/requirements.yaml), read once."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from boardcert.paths import REQUIREMENTS, read_yaml

LEVELS = ("MUST", "SHOULD", "INFO")
DOCS_PAGE = "requirements.md"  # docs/requirements.md: an entry per requirement


def anchor(requirement_id: str) -> str:
    """The anchor of a requirement's entry in docs/requirements.md: its id in lower case, the
    slug GitHub and GitLab give the entry's heading (`## CARD-NAME-MAX`)."""
    return requirement_id.lower()


def link(docs_url: str, requirement_id: str) -> str:
    """Where a report points for a requirement: its entry under the docs base URL."""
    return f"{docs_url.rstrip('/')}/{DOCS_PAGE}#{anchor(requirement_id)}"


@dataclass(frozen=True)
class Requirement:
    id: str
    level: str
    title: str
    text: str
    section: str
    quote: str
    operations: tuple[int, ...]
    change: str | None = None
    reading: str | None = None  # the conformance policy's words, where a MUST is its reading


@cache
def catalogue() -> dict[str, Requirement]:
    data = _document()
    found: dict[str, Requirement] = {}
    for item in data["requirements"]:
        source = item.get("source") or {}
        req = Requirement(
            id=item["id"],
            level=item["level"],
            title=item["title"],
            text=item["text"],
            section=str(source.get("section", "")),
            quote=source.get("quote", ""),
            operations=tuple(item.get("operations", ())),
            change=str(item["change"]) if item.get("change") else None,
            reading=item.get("reading") or None,
        )
        if req.id in found:
            raise ValueError(f"duplicate requirement id {req.id} in {REQUIREMENTS}")
        found[req.id] = req
    return found


def changes() -> dict[str, str]:
    return {str(k): v for k, v in _document().get("changes", {}).items()}


@cache
def _document() -> dict[str, Any]:
    """spec/requirements.yaml, parsed once (callers copy what they keep)."""
    return read_yaml(REQUIREMENTS)
