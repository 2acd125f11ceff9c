"""Conformant variants: servers that differ from the reference only where the interface is
silent (conformance policy, section 2). The suite must certify each of them "conformant".
"""

from __future__ import annotations

import asyncio
import math
import random
import time
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from .asgi import Forward, Handler, Request, Response, json_response
from .edits import (
    LISTED_OPS,
    PROJECT_OPS,
    edit_answers,
    error,
    former,
    on,
    read_card,
    read_project,
    send,
)
from .moments import CONFORMANT as MOMENTS
from .variant import Variant

# --- row name only under rowName ---------------------------------------------------------


async def _row_name_only(request: Request, forward: Forward) -> Response:
    body = request.json()
    if isinstance(body, dict) and "name" in body:
        return error(422, "unknown field name (use rowName)")
    return await forward(request)


# --- UUID ids and extra, undocumented fields ----------------------------------------------


class UuidIds:
    """Answers carry UUIDs for the reference's numeric ids; requests are mapped back."""

    def __init__(self) -> None:
        self.internal: dict[str, str] = {}

    def public(self, value: str) -> str:
        mapped = str(uuid.uuid5(uuid.NAMESPACE_URL, f"boardcert:{value}"))
        self.internal[mapped] = value
        return mapped

    def to_public(self, value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            out = {k: self.to_public(v, k) for k, v in value.items()}
            if "id" in value:
                out["etag"] = f'W/"{len(value)}"'
            return out
        if isinstance(value, list):
            return [self.to_public(v, key) for v in value]
        if isinstance(value, str) and key in ("id", "entityId") and value.isdigit():
            return self.public(value)
        if isinstance(value, str) and key == "url":
            return "/".join(self.public(s) if s.isdigit() else s for s in value.split("/"))
        return value

    def to_internal(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: self.to_internal(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.to_internal(v) for v in value]
        return self.internal.get(value, value) if isinstance(value, str) else value

    async def __call__(self, request: Request, forward: Forward) -> Response:
        path = "/".join(self.internal.get(s, s) for s in request.path.split("/"))
        query = "&".join("=".join(self.internal.get(x, x) for x in pair.split("=", 1))
                         for pair in request.query.split("&")) if request.query else ""
        body = request.json()
        inner = request.but(path=path, query=query)
        if isinstance(body, dict | list):
            inner = inner.but(json_body=self.to_internal(body))
        response = await forward(inner)
        answer = response.json()
        if not isinstance(answer, dict):
            return response
        public = self.to_public(answer)
        public["_links"] = {"self": request.path}
        return json_response(public, response.status)


# --- FastAPI-style errors ------------------------------------------------------------------


async def _detail_errors(request: Request, forward: Forward) -> Response:
    response = await forward(request)
    if not 400 <= response.status < 500:
        return response
    error_body = (response.json() or {}).get("error", {})
    if response.status == 401:  # FastAPI's APIKeyHeader answers 403
        return json_response({"detail": "Not authenticated"}, 403)
    detail = [{"loc": ["body"], "msg": error_body.get("message", ""),
               "type": error_body.get("code", "value_error")}]
    return json_response({"detail": detail}, response.status)


# --- removed paths answering 405 and 410 ------------------------------------------------------

GONE = ["card/*", "cards/move-by-metadata", "projects/*/cards/*/archive",
        "projects/*/columns/*/archive", "projects/*/rows/*/archive",
        "projects/*/columns/*/card", "projects/*/columns/*/cards/*/alias", "exchange-code"]
NOT_ALLOWED = ["projects", "projects/*/row", "projects/*/rows/*/column"]


async def _gone(request: Request, forward: Forward) -> Response:
    parts = request.path.strip("/").split("/")
    if any(former(p)(parts) for p in GONE):
        return error(410, "this path was removed; see the changelog")
    if request.op is None and any(former(p)(parts) for p in NOT_ALLOWED):
        return error(405, "method not allowed")
    return await forward(request)


# --- epoch-millisecond timestamps -------------------------------------------------------------


def _epoch(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: int(datetime.fromisoformat(v).timestamp() * 1000)
                if k in ("createdAt", "updatedAt") and isinstance(v, str) else _epoch(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_epoch(v) for v in value]
    return value


async def _epoch_timestamps(request: Request, forward: Forward) -> Response:
    response = await forward(request)
    if response.status != 200 or response.json() is None:
        return response
    return json_response(_epoch(response.json()))


# --- no key needed on the operations section 5 does not list ---------------------------------

UNLISTED_OPS = {6, 14, 20, 21, 22, 23, 24, 25, 26, 27, 28}


def _unlisted_open(key: str) -> Handler:
    async def fn(request: Request, forward: Forward) -> Response:
        return await forward(request.but(headers={**request.headers, "x-api-key": key}))
    return on(UNLISTED_OPS, fn)


# --- a slow server ----------------------------------------------------------------------------


async def _slow(request: Request, forward: Forward) -> Response:
    await asyncio.sleep(0.02)
    return await forward(request)


async def _jittery(request: Request, forward: Forward) -> Response:
    """Each answer a random 0 to 10 ms late: with requests in flight, answers come back in
    another order than the requests went out."""
    await asyncio.sleep(random.uniform(0, 0.01))
    return await forward(request)


# --- entityId of op 27 in a header ------------------------------------------------------------


async def _entity_in_header(request: Request, forward: Forward) -> Response:
    entity_id = request.headers.get("x-entity-id")
    if not entity_id:
        return error(422, "the header X-Entity-Id is required")
    return await forward(request.but(query=f"entityId={entity_id}"))


# --- other request property names -------------------------------------------------------------

RENAMED = {2: {"title": "name"}, 18: {}, 21: {"name": "key", "content": "value"}}
# Op 18 keeps ids (the interface names it) and wants a field of its own besides.
REQUIRED_BESIDES = {18: "toColumnId"}


async def _other_bodies(request: Request, forward: Forward) -> Response:
    body, names = request.json(), RENAMED[request.op]
    if not isinstance(body, dict):
        return await forward(request)
    besides = REQUIRED_BESIDES.get(request.op)
    if besides is not None:
        if besides not in body:
            return error(422, f"{besides} is required")
        body = {k: v for k, v in body.items() if k != besides}
    if set(names.values()) & set(body):
        return error(422, f"unknown fields; this server takes {sorted(names)}")
    return await forward(request.but(json_body={names.get(k, k): v for k, v in body.items()}))


# --- 422 for a missing key (FastAPI's Header(...)), 404 for a wrong one (hiding what exists) ---


def _key_422_404(key: str) -> Handler:
    async def fn(request: Request, forward: Forward) -> Response:
        given = request.headers.get("x-api-key")
        if not given:
            return json_response({"detail": [{"loc": ["header", "x-api-key"],
                                              "msg": "Field required", "type": "missing"}]}, 422)
        if given != key:
            return json_response({"detail": "Not Found"}, 404)
        return await forward(request)
    return on(LISTED_OPS, fn)


# --- records embedded where the interface shows no shape ---------------------------------------


def _embed_organization(body: Any) -> Any:
    """A Project that also embeds its organization {id, name, createdAt, updatedAt}."""
    return {**body, "organization": {"id": "1", "name": "Boardcert",
                                     "createdAt": body["createdAt"],
                                     "updatedAt": body["updatedAt"]}}


def _user_token_object(body: Any) -> Any:
    return {**body, "userToken": {"token": body["userToken"], "expiresIn": 3600}}


def _tokens_in_other_records(body: Any) -> Any:
    """accessTokens on the organization and project records of op 1 (not the user record)."""
    tokens = [{"id": "org-token", "scope": "organization"}]
    organizations = [{**o, "accessTokens": tokens} for o in body["organizations"]]
    current = body["currentProject"]
    return {**body, "currentOrganization": {**body["currentOrganization"], "accessTokens": tokens},
            "organizations": organizations,
            "currentProject": {**current, "accessTokens": tokens} if current else current}


# --- moves that require an anchor ("optional-looking", section 4 rule 3) ----------------------


async def _anchor_required(request: Request, forward: Forward) -> Response:
    body = request.json()
    if not (isinstance(body, dict) and {"afterCardId", "beforeCardId"} & set(body)):
        return json_response({"detail": "afterCardId or beforeCardId is required"}, 422)
    return await forward(request)


# --- no body: a record with a default name -----------------------------------------------------


async def _default_name(request: Request, forward: Forward) -> Response:
    if request.body.strip():
        return await forward(request)
    default = "Untitled project" if request.op == 2 else "Untitled card"
    return await forward(request.but(json_body={"name": default}))


# --- every body the interface does not show named otherwise (certified with no profile) -----
# (op 18's ids is shown: it keeps its name)

# op -> {this server's property: the reference's}; a request with the reference's names is
# refused, as a server with its own names would (FastAPI-style 422).
ELSEWHERE = {2: {"title": "name"}, 5: {"title": "name"}, 8: {"rowIds": "ids"},
             10: {"newName": "name"}, 11: {"columnName": "name"}, 12: {"columnIds": "ids"},
             13: {"title": "name"}, 15: {"title": "name"},
             19: {"metadataKey": "key", "metadataValue": "value"},
             21: {"metadataKey": "key", "metadataValue": "value"}, 25: {"data": "value"},
             28: {"exchangeCode": "code"}}


async def _bodies_elsewhere(request: Request, forward: Forward) -> Response:
    """Other names everywhere; op 7 takes rowName only; moves need an anchor; op 20 gives an
    alias by name; op 23 names the plugin in its body; op 27 takes entityId in a header."""
    body = request.json()
    if request.op == 7:
        return await _row_name_only(request, forward)
    if request.op == 27:
        return await _entity_in_header(request, forward)
    if not isinstance(body, dict):
        return await forward(request)
    if request.op in (18, 19) and not {"afterCardId", "beforeCardId"} & set(body):
        return error(422, "afterCardId or beforeCardId is required")
    if request.op == 20:
        if not isinstance(body.get("alias"), str):
            return error(400, "alias is required")
        return await read_card(request, forward)  # an alias the Card does not show
    if request.op == 23 and body.get("pluginId") != request.params["pluginId"]:
        return error(422, "pluginId is required and must match the path")
    names = ELSEWHERE.get(request.op)
    if names is None:
        return await forward(request)
    if set(names.values()) & set(body):
        return error(422, f"unknown fields; this server takes {sorted(names)}")
    return await forward(request.but(json_body={names.get(k, k): v for k, v in body.items()}))


# --- fields that change on every read (a request id, a read time) -----------------------------


def volatile(body: Any) -> Any:
    """A Project with a request id at the top level and a read time in each row."""
    rows = [{**row, "readAt": time.time_ns()} if isinstance(row, dict) else row
            for row in body.get("rows") or []]
    return {**body, "requestId": str(uuid.uuid4()), "rows": rows}


def coarse_read_time(body: Any) -> Any:
    """A Project with the time it was read, to the tenth of a second (a clock that ticks, not
    one that is new on every read: two readings in a row mostly agree)."""
    return {**body, "servedAt": datetime.now().strftime("%H:%M:%S.%f")[:10]}


async def _tidy_names_only(request: Request, forward: Forward) -> Response:
    """Op 16 refuses a name with a control character or surrounding whitespace (never alters
    one): which strings a server takes beyond type and length is not shown."""
    body = request.json()
    name = body.get("name") if isinstance(body, dict) else None
    if isinstance(name, str) and (name != name.strip() or any(c < " " for c in name)):
        return error(422, "name: no control characters or surrounding whitespace")
    return await forward(request)


# --- a rate limit: 429 to every 25th request (retry at once), or a window of a second -------

def _throttled(every: int, window: int) -> Callable[[str], Handler]:
    """Every `every`-th request is answered 429 Too Many Requests and not carried out: a rate
    limit, which every request boardcert sends honours (policy, section 6). `window` seconds:
    its Retry-After, and for that long every request is refused with the seconds left (a limit
    that holds, so a retry sent sooner than asked is refused again); 0: retry at once."""
    def handler(_key: str) -> Handler:
        seen, until = [0], [0.0]

        async def fn(request: Request, forward: Forward) -> Response:
            left = until[0] - time.monotonic()
            if left <= 0:
                seen[0] += 1
                if seen[0] % every:
                    return await forward(request)
                until[0], left = time.monotonic() + window, window
            return Response(429, b'{"error": "too many requests"}',
                            {"content-type": "application/json",
                             "retry-after": str(math.ceil(left))})
        return fn
    return handler


# --- a new row comes with a column; an order lists some, the others keep their place ------


async def _row_with_a_column(request: Request, forward: Forward) -> Response:
    """Op 7 makes the row with a first column of its own ("Backlog"); ops 8 and 12 take the
    ids they are given first, the others after in their order (so a client need not know the
    column it did not make)."""
    if request.op == 7:
        made = await forward(request)
        if made.status != 200:
            return made
        row = made.json()["rows"][-1]
        path = f"/projects/{request.params['projectId']}/rows/{row['id']}/columns"
        return await forward(send(request, "POST", path, {"name": "Backlog"}))
    project = await read_project(request, forward)
    body = request.json()
    if project.status != 200 or not isinstance(body, dict) or \
            not isinstance(body.get("ids"), list):
        return await forward(request)
    rows = project.json()["rows"]
    if request.op == 8:
        current = [r["id"] for r in rows]
    else:
        row = next((r for r in rows if r["id"] == request.params["rowId"]), {"columns": []})
        current = [c["id"] for c in row["columns"]]
    given = [i for i in body["ids"] if i in current]
    return await forward(request.but(json_body={**body, "ids": given + [
        i for i in current if i not in given]}))


def _variant(name: str, description: str, handler: Handler, profile: str | None = None,
             make: Any = None, args: tuple[str, ...] = ()) -> Variant:
    return Variant(name, description, None, make or (lambda _key: handler), profile, args)


async def _as_is(request: Request, forward: Forward) -> Response:
    return await forward(request)


CONFORMANT: list[Variant] = [
    _variant("reference", "the reference server itself, through the same seam", _as_is),
    _variant("row-name-only", "op 7 takes rowName and rejects name",
             on(7, _row_name_only), "row-name-only.yaml"),
    Variant("uuid-ids-extra-fields", "UUID ids and extra undocumented fields in every answer",
            None, lambda _key: UuidIds()),
    _variant("detail-errors", "FastAPI-style errors: {\"detail\": [...]}, 403 for a bad key",
             _detail_errors),
    _variant("removed-paths-405-410", "removed paths answer 405 or 410 instead of 404", _gone),
    _variant("epoch-timestamps", "createdAt and updatedAt are epoch milliseconds",
             _epoch_timestamps),
    Variant("unlisted-ops-open", "no key needed on the operations section 5 does not list",
            None, _unlisted_open),
    _variant("slow", "every answer takes 20 ms longer", _slow),
    _variant("jittery-in-flight", "every answer takes a random 0 to 10 ms longer, certified "
             "with 8 requests in flight (as boardcert runs from 3 ms): answers come back "
             "in another order than sent", _jittery, args=("--in-flight", "8")),
    _variant("entity-id-in-header", "op 27 takes entityId in the header X-Entity-Id",
             on(27, _entity_in_header), "entity-id-in-header.yaml"),
    Variant("key-422-404", "422 for a missing or empty key, 404 for a wrong one", None,
            _key_422_404),
    _variant("embedded-organization", "Project answers embed organization {id, name, createdAt, "
             "updatedAt}", edit_answers(PROJECT_OPS, _embed_organization)),
    _variant("user-token-object", "op 28 answers userToken as an object",
             edit_answers(28, _user_token_object)),
    _variant("access-tokens-in-organizations", "op 1's organization and project records carry "
             "accessTokens (the user record does not)", edit_answers(1, _tokens_in_other_records)),
    _variant("anchors-required", "ops 18 and 19 answer 422 without afterCardId or beforeCardId",
             on({18, 19}, _anchor_required)),
    _variant("default-name-without-body", "ops 2 and 15 without a body create a record with a "
             "default name", on({2, 15}, _default_name)),
    _variant("other-request-bodies", "ops 2 and 21 name their body properties differently; op 18 "
             "wants toColumnId beside ids",
             on(set(RENAMED), _other_bodies), "other-request-bodies.yaml"),
    _variant("volatile-fields", "every Project carries a new requestId and each of its rows a "
             "new readAt on every read", edit_answers(PROJECT_OPS, volatile)),
    _variant("tidy-names-only", "op 16 refuses a name with a control character or surrounding "
             "whitespace (422)", on(16, _tidy_names_only)),
    _variant("coarse-read-time", "every Project carries the time it was read, to the tenth of "
             "a second", edit_answers(PROJECT_OPS, coarse_read_time)),
    _variant("bodies-elsewhere", "every body the interface does not show takes other names, "
             "op 7 rowName only, anchors required, op 27 entityId in a header; no profile",
             on({*ELSEWHERE, 7, 18, 20, 23, 27}, _bodies_elsewhere)),
    _variant("rows-come-with-a-column", "a new row comes with a column of its own; ops 8 and 12 "
             "put the ids given first and keep the others' order", on({7, 8, 12},
                                                                     _row_with_a_column)),
    Variant("every-25th-throttled", "every 25th request is answered 429 with Retry-After: 0 "
            "(and not carried out)", None, _throttled(25, 0)),
    Variant("throttled-for-a-second", "every 200th request is answered 429 with Retry-After: 1, "
            "and so is every request in the second after it", None, _throttled(200, 1)),
    *MOMENTS,
]
