"""What a server's refusals say: the body fields it names as required, and its message."""

from __future__ import annotations

import json
import re

from boardcert.http.api import server_message, walk
from boardcert.http.client import Exchange

# How servers say a field is missing: FastAPI's {"loc": [..., field], "type": "missing"} and
# sentences such as "name is required", "missing field name".
_NAME = r"[\'\"`]?([A-Za-z_][\w-]*)[\'\"`]?"
_MISSING = [re.compile(_NAME + r" (?:is|are) (?:required|missing)"),
            re.compile(r"missing (?:required )?(?:field|property|key)s?:? " + _NAME)]
_NOT_FIELDS = {"body", "request", "field", "header", "it", "this", "that", "afterCardId",
               "beforeCardId"}  # the anchors are the interface's, added to every move


def required_fields(exchange: Exchange) -> list[str]:
    """Body fields a refusal names as required (none for a 2xx or an answer that says none)."""
    if not 400 <= (exchange.status or 0) < 500 or not exchange.content:
        return []
    try:
        answer = json.loads(exchange.content)
    except (ValueError, RecursionError):
        answer = exchange.text
    found: list[str] = []
    for item in walk(answer):
        loc, kind = item.get("loc"), str(item.get("type", "")) + str(item.get("msg", ""))
        if isinstance(loc, list) and loc and isinstance(loc[-1], str) and loc[0] == "body" \
                and ("missing" in kind or "required" in kind.lower()):
            found.append(loc[-1])
    texts = [answer] if isinstance(answer, str) else \
        [v for item in walk(answer) for v in item.values() if isinstance(v, str)]
    for text in texts:
        for pattern in _MISSING:
            found += pattern.findall(text)
    return list(dict.fromkeys(f for f in found if f not in _NOT_FIELDS))


def said(exchange: Exchange | None) -> str:
    """The status and the message of an answer, for a finding's note."""
    if exchange is None:
        return "nothing"
    message = server_message(exchange)
    return f"{exchange.status}" + (f" {message}" if message else "")
