"""The ids and names of a recipe, and the texts that hold them as parts.

A request's path, query, headers and body are lists of parts: text, `{"id": ref}` (the id
an earlier step's answer brings; `"quote": true` in a URL), `{"name": ref}` (a `bc-<label>-
<hex>` name the script makes afresh) and `{"key": true}` (the key, where a header held it).
A JSON value with ids or names inside (a condition's wanted value, an answer compared) is a
template: `{"$boardcert": parts}` for such a string, `{"$boardcert-long": [length, sha256]}`
for a long string (a 25,000-character name) the script compares by its digest."""

from __future__ import annotations

import hashlib
import re
from typing import Any
from urllib.parse import quote

from boardcert.http.client import MASK
from boardcert.reproduce.index import NAME, Made

TEMPLATE = "$boardcert"
LONG, LONG_TEXT = "$boardcert-long", 200
Part = str | dict[str, Any]
Rule = tuple[dict[str, Made], str, str, bool]  # values, lookbehind, lookahead, URL-quoted


class Refs:
    """What a recipe calls its ids and names."""

    def __init__(self) -> None:
        self.ids: dict[int, str] = {}  # id(Made) -> its ref
        self.made: dict[str, Made | None] = {}  # ref -> Made (None: a project not seen made)
        self.names: dict[str, str] = {}  # the run's name -> its ref

    def ref(self, made: Made | None, quoted: bool = False, kind: str = "project") -> dict:
        """The part that stands for an id (a new ref for a Made not named yet; for None, a
        project whose id the run's answer did not show)."""
        if made is None or id(made) not in self.ids:
            kind = made.kind.replace(" ", "_") if made else kind
            n = 1
            while f"{kind}{n}" in self.made:
                n += 1
            self.made[f"{kind}{n}"] = made
            if made is None:
                return self._part(f"{kind}{n}", quoted)
            self.ids[id(made)] = f"{kind}{n}"
        return self._part(self.ids[id(made)], quoted)

    @staticmethod
    def _part(ref: str, quoted: bool) -> dict[str, Any]:
        return {"id": ref, "quote": True} if quoted else {"id": ref}

    def parts(self, text: str, rules: list[Rule] = ()) -> list[Part]:
        """The text with ids (each rule: the values it replaces where its lookarounds allow)
        and every name as parts."""
        spans: list[tuple[int, int, Part]] = []
        for values, before, after, url in rules:
            for value, made in values.items():
                literal = quote(value, safe="") if url else value
                for match in re.finditer(before + re.escape(literal) + after, text):
                    spans.append((match.start(), match.end(), self.ref(made, url)))
        for match in NAME.finditer(text):
            ref = self.names.setdefault(match.group(), f"name{len(self.names) + 1}")
            spans.append((match.start(), match.end(), {"name": ref}))
        out: list[Part] = []
        at = 0
        for start, end, part in sorted(spans, key=lambda s: (s[0], -s[1])):
            if start >= at:
                out += [text[at:start], part]
                at = end
        return join([*out, text[at:]])

    def template(self, value: Any) -> Any:
        """A JSON value with the recipe's ids and the names inside it as parts."""
        if isinstance(value, dict):
            return {k: self.template(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.template(v) for v in value]
        if not isinstance(value, str):
            return value
        ids = {str(m.value): m for m in sorted(
            (m for m in self.made.values() if m is not None), key=lambda m: m.kind != "other",
            reverse=True)}  # a value of a known kind wins over the same value seen elsewhere
        if value in ids:
            return {TEMPLATE: [self.ref(ids[value])]}
        parts = self.parts(value, [(ids, "(?<=/)", "(?=/|$|\\?)", False)])
        return value if parts in ([value], []) else {TEMPLATE: parts}


def digested(value: Any) -> Any:
    """A JSON value with its long strings as their length and SHA-256."""
    if isinstance(value, dict):
        return {k: digested(v) for k, v in value.items()}
    if isinstance(value, list):
        return [digested(v) for v in value]
    return digest(value) if isinstance(value, str) and len(value) > LONG_TEXT else value


def digest(text: str) -> dict[str, Any]:
    return {LONG: [len(text), hashlib.sha256(text.encode("utf-8")).hexdigest()]}


def with_key(parts: list[Part]) -> list[Part]:
    """A header value's parts with the masked key ("***") as the key's part."""
    out: list[Part] = []
    for part in parts:
        if isinstance(part, str) and MASK in part:
            for n, piece in enumerate(part.split(MASK)):
                out += ([{"key": True}] if n else []) + [piece]
        else:
            out.append(part)
    return join(out)


def join(parts: list[Part]) -> list[Part]:
    """Parts with empty texts dropped and neighbouring texts joined."""
    out: list[Part] = []
    for part in parts:
        if part == "":
            continue
        if isinstance(part, str) and out and isinstance(out[-1], str):
            out[-1] += part
        else:
            out.append(part)
    return out
