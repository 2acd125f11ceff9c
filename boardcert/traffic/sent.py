"""What a client sent, judged by the client rules (spec/client-rules.yaml): each request gives
the findings it breaks, with what to do instead. The operations a rule concerns are read from
spec/openapi.yaml (the name limit's, the anchored moves', the row name's choice), never by
number."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import parse_qsl

from boardcert.interface import spec
from boardcert.interface.removed import RemovedPath
from boardcert.traffic.seen import EMPTY, NOT_JSON, TOO_LONG, Seen

KEY_HEADER = "x-api-key"
# Where a client may put the key instead of X-API-Key: such headers, and query parameters.
KEY_HEADERS = ("authorization", "api-key", "apikey", "x-api-token", "x-auth-token", "x-apikey",
               "x-api_key", "x_api_key", "api_key", "x-key", "token")
KEY_PARAMETER = re.compile(r"(x[-_]?)?(api[-_]?key|key|(access[-_]?|auth[-_]?)?token)", re.I)
NOT_JUDGED = ("OPTIONS",)  # a browser's preflight is not the client's choice
JSON_TYPE = re.compile(r"^\s*application/([\w.+-]+\+)?json\s*(;|$)", re.I)


@dataclass(frozen=True)
class Finding:
    """A client rule one request broke: which, what the request did, what to do instead."""

    rule: str
    detail: str
    fill: tuple[tuple[str, str], ...] = ()  # the rule's `instead` placeholders


def judge(seen: Seen, key: str | None = None) -> list[Finding]:
    """The client rules the request breaks (`key`: the server's, when boardcert knows it)."""
    if seen.method in NOT_JUDGED:
        return []
    if seen.former is not None:
        return [_former(seen, seen.former)]
    op = seen.operation
    if op is None:
        return [] if seen.method == "HEAD" else [Finding(
            "CLIENT-UNKNOWN-OPERATION",
            f"{seen.method} {seen.target} is no operation of section 4 (nor a former path)")]
    return _key(seen, op, key) + _body(seen, op)


def _former(seen: Seen, former: RemovedPath) -> Finding:
    current = spec.operation(former.current)
    shape = f", with the body properties {', '.join(current.body_properties)}" \
        if current.body_properties else ""
    tolerated = f"; this server still answered it {seen.status}: a server of interface " \
        "0.0.1 does not, it works here only for old clients" \
        if seen.status is not None and 200 <= seen.status < 300 else ""
    return Finding("CLIENT-FORMER-PATH",
                   f"{former.label} is a former path of section 9{tolerated}",
                   (("current", f"{current.label} (operation {current.number}{shape})"),))


def _key(seen: Seen, op: int, key: str | None) -> list[Finding]:
    if not spec.operation(op).auth_required or (seen.header(KEY_HEADER) or "").strip():
        return []
    where = _elsewhere(seen, key)
    how = "with an empty X-API-Key" if seen.header(KEY_HEADER) is not None else \
        "without X-API-Key"
    if where:
        return [Finding("CLIENT-API-KEY-ELSEWHERE",
                        f"operation {op} was called {how}, with a key in {where}",
                        (("where", where),))]
    return [Finding("CLIENT-API-KEY-HEADER", f"operation {op} was called {how}")]


def _elsewhere(seen: Seen, key: str | None) -> str | None:
    """Where else the request carries a key: by the header's or parameter's name, or (the
    server's key known) by its value."""
    for name, value in seen.request_headers:
        if name != KEY_HEADER and value.strip() and (
                name in KEY_HEADERS or key and key in value):
            return f"the {name} header"
    for name, value in parse_qsl(seen.query, keep_blank_values=True):
        if value and (KEY_PARAMETER.fullmatch(name) or key and key in value):
            return f"the query parameter {name}"
    if key and key.encode() in seen.request_body:
        return "the body"
    return None


def _body(seen: Seen, op: int) -> list[Finding]:
    body = seen.sent
    if body is NOT_JSON:
        return [Finding("CLIENT-BODY-JSON", f"the body of operation {op} does not parse as "
                        "JSON")]
    found = []
    if body not in (EMPTY, TOO_LONG) and not JSON_TYPE.match(seen.header("content-type") or ""):
        label = seen.header("content-type")
        found.append(Finding("CLIENT-JSON-MEDIA-TYPE", f"a JSON body was sent to operation {op} "
                             f"with {f'Content-Type {label}' if label else 'no Content-Type'}"))
    if body is TOO_LONG:
        return found
    limit_op, limit = spec.name_limit()
    if op == limit_op:
        found += _name(body, op, limit)
    if op in one_of():
        found += _choice(body, op, one_of()[op])
    if spec.operation(op).anchored:
        found += _move(body, op)
    return found


def _name(body: Any, op: int, limit: int) -> list[Finding]:
    if not isinstance(body, dict) or "name" not in body:
        what = "no body" if body is EMPTY else "no name" if isinstance(body, dict) else \
            f"a JSON {type(body).__name__}, not an object with a name"
        return [Finding("CLIENT-CARD-NAME-REQUIRED", f"operation {op} was sent {what}")]
    name = body["name"]
    if not isinstance(name, str):
        return [Finding("CLIENT-CARD-NAME-STRING",
                        f"operation {op} was sent a name of JSON type {_json_type(name)}")]
    if len(name) > limit:
        return [Finding("CLIENT-CARD-NAME-MAX",
                        f"operation {op} was sent a name of {len(name)} characters "
                        f"(at most {limit})")]
    return []


def _choice(body: Any, op: int, names: tuple[str, ...]) -> list[Finding]:
    """The row name: one of the properties the interface leaves to the server's choice."""
    given = [n for n in names if isinstance(body, dict) and n in body]
    if not given:
        return [Finding("CLIENT-ROW-NAME", f"operation {op} was sent neither "
                        f"{' nor '.join(names)}")]
    if len(given) == 1:
        other = next(n for n in names if n not in given)
        return [Finding("CLIENT-ROW-NAME-CHOICE",
                        f"operation {op} was sent the row name as {given[0]} only",
                        (("sent", given[0]), ("other", other)))]
    return []


def _move(body: Any, op: int) -> list[Finding]:
    found = []
    properties = spec.operation(op).body_properties
    listed = [p for p in properties if p not in spec.ANCHORS]  # "ids": the cards to move
    have = body if isinstance(body, dict) else {}
    for name in listed:
        if name not in have:
            others = [k for k in have if k not in properties and "id" in k.lower()]
            under = f"under {', '.join(others)}" if others else "nowhere"
            found.append(Finding("CLIENT-MOVE-IDS", f"operation {op} was sent the cards to "
                                 f"move {under}, not under {name}"))
    if not any(have.get(anchor) not in (None, "") for anchor in spec.ANCHORS):
        found.append(Finding("CLIENT-MOVE-ANCHOR", f"operation {op} was sent neither "
                             f"{' nor '.join(spec.ANCHORS)}"))
    return found


@cache
def one_of() -> dict[int, tuple[str, ...]]:
    """The operations whose body carries one property of a choice (anyOf of required ones in
    spec/openapi.yaml: op 7's name or rowName), and the names it may take."""
    document = spec.document()
    found = {}
    for op in spec.operations().values():
        raw = document["paths"][op.path][op.method.lower()].get("requestBody", {})
        schema = next(iter(raw.get("content", {}).values()), {}).get("schema", {})
        if "$ref" in schema:
            schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
        names = tuple(n for option in schema.get("anyOf", ()) for n in option.get("required", ()))
        if len(names) > 1:
            found[op.number] = names
    return found


def _json_type(value: Any) -> str:
    return {bool: "boolean", int: "number", float: "number", list: "array", dict: "object",
            type(None): "null"}.get(type(value), type(value).__name__)
