"""docs/policy.md, the conformance policy, as paragraphs a reading can be found in.

A requirement that rests on the policy's reading quotes its words (`reading:` in
spec/requirements.yaml, parts joined by "..."). Each paragraph of the policy has a heading of
its own; `anchor(reading)` is the heading's anchor (the slug GitHub and GitLab give it) of the
paragraph that holds every part of the reading, so that docs/requirements.md and the reports
link each reading to the words it rests on, found by data, never by a hand-kept list.
"""

from __future__ import annotations

import re
from functools import cache

from boardcert.paths import POLICY

PAGE = "policy.md"  # beside requirements.md under a docs URL


class NotInPolicy(LookupError):
    """A reading whose words no paragraph of docs/policy.md holds."""


def slug(heading: str) -> str:
    """The anchor GitHub and GitLab give a heading: lower case, punctuation dropped, spaces as
    hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _plain(text: str) -> str:
    """Text as a reading is compared with it: no Markdown code or emphasis marks, whitespace
    as single spaces."""
    return " ".join(re.sub(r"[`*]", "", text).split())


@cache
def paragraphs() -> dict[str, str]:
    """Anchor -> the plain text under that heading (up to the next heading), in page order;
    {} when the page is not at hand."""
    try:
        text = POLICY.read_text(encoding="utf-8")
    except OSError:
        return {}
    found: dict[str, str] = {}
    for part in re.split(r"^(?=#{1,4} )", text, flags=re.MULTILINE):
        heading, _, body = part.partition("\n")
        if heading.startswith("#"):
            found[slug(heading.lstrip("#"))] = _plain(body)
    return found


def anchor(reading: str) -> str:
    """The anchor of the paragraph that holds every part of `reading`; NotInPolicy when
    none does."""
    parts = [_plain(p) for p in reading.split("...") if p.strip()]
    for name, body in paragraphs().items():
        if all(p in body for p in parts):
            return name
    missing = next((p for p in parts if not any(p in b for b in paragraphs().values())),
                   parts[0] if parts else reading)
    raise NotInPolicy(f"no paragraph of docs/policy.md holds the reading's words {missing!r}")


def link(docs_url: str | None, reading: str) -> str:
    """The URL of a reading's paragraph under a docs base URL (`policy.md#anchor` without
    one); "" when the page is not at hand or does not hold it."""
    try:
        found = anchor(reading)
    except NotInPolicy:
        return ""
    return f"{docs_url.rstrip('/')}/{PAGE}#{found}" if docs_url else f"{PAGE}#{found}"
