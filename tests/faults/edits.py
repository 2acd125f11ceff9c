"""Small handlers and helpers the variants are built from."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from .asgi import Forward, Handler, Request, Response, json_response

PROJECT_OPS = {2, 3, 5, 7, 8, 9, 10, 11, 12, 13, 14}
CARD_OPS = {15, 16, 17, 18, 19, 20, 21, 22}  # the reference answers a Card on 21 and 22 too
LISTED_OPS = {1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 18, 19}  # section 5

Fn = Callable[[Request, Forward], Awaitable[Response]]


def on(ops: int | Iterable[int], fn: Fn) -> Handler:
    """`fn` handles requests to these operations; every other request goes to the app."""
    wanted = {ops} if isinstance(ops, int) else set(ops)

    async def handler(request: Request, forward: Forward) -> Response:
        if request.op in wanted:
            return await fn(request, forward)
        return await forward(request)
    return handler


def at(method: str, path_match: Callable[[list[str]], bool], fn: Fn) -> Handler:
    """`fn` handles requests whose method matches and whose path segments pass `path_match`."""
    async def handler(request: Request, forward: Forward) -> Response:
        if request.method in method.split("|") and path_match(request.path.strip("/").split("/")):
            return await fn(request, forward)
        return await forward(request)
    return handler


def former(pattern: str) -> Callable[[list[str]], bool]:
    """A path-segment matcher for `at`: 'projects/*/row' (* is any one segment)."""
    want = pattern.split("/")
    return lambda parts: len(parts) == len(want) and all(
        w in ("*", p) for w, p in zip(want, parts, strict=True))


def edit_answers(ops: int | Iterable[int], edit: Callable[[Any], Any]) -> Handler:
    """`edit(body)` rewrites the JSON of the 200 answers of these operations."""
    async def fn(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if response.status != 200:
            return response
        return json_response(edit(response.json()))
    return on(ops, fn)


def edit_requests(ops: int | Iterable[int], edit: Callable[[Any], Any]) -> Handler:
    """`edit(body)` rewrites the JSON body of requests to these operations."""
    async def fn(request: Request, forward: Forward) -> Response:
        body = request.json()
        if not isinstance(body, dict):
            return await forward(request)
        return await forward(request.but(json_body=edit(dict(body))))
    return on(ops, fn)


def error(status: int, message: str) -> Response:
    return json_response({"error": {"code": "error", "message": message}}, status)


def refuse(status: int, message: str) -> Fn:
    """Answer an error without reaching the app (an operation that is not routed)."""
    async def fn(request: Request, forward: Forward) -> Response:
        return error(status, message)
    return fn


def without(key: str) -> Callable[[Any], Any]:
    def edit(body: Any) -> Any:
        if isinstance(body, dict):
            body.pop(key, None)
        return body
    return edit


def get(request: Request, path: str, query: str = "") -> Request:
    """A GET with the caller's headers (so its key decides, as for the original request)."""
    headers = {k: v for k, v in request.headers.items() if k != "content-type"}
    return Request("GET", path, query, headers, b"")


def send(request: Request, method: str, path: str, body: Any = None) -> Request:
    """Another request with the caller's headers and a JSON body."""
    raw = b"" if body is None else json.dumps(body).encode()
    return request.but(method=method, path=path, query="", body=raw)


async def read_project(request: Request, forward: Forward) -> Response:
    """Operation 3 on the project the request addresses."""
    return await forward(get(request, f"/projects/{request.params['projectId']}"))


async def read_card(request: Request, forward: Forward) -> Response:
    """The Card the request addresses, as it is (from the Project of operation 3)."""
    project = await read_project(request, forward)
    if project.status != 200:
        return project
    card = named(project.json()["cards"], request.params["cardId"])
    return json_response(card) if card else error(404, "no such card")


def named(items: Any, record_id: str) -> dict[str, Any] | None:
    """The record with this id anywhere in a list of records (and their columns)."""
    for item in items or []:
        if str(item.get("id")) == record_id:
            return item
        found = named(item.get("columns"), record_id)
        if found:
            return found
    return None


def drop(project: dict[str, Any], record_id: str) -> dict[str, Any]:
    """The Project without the row or column of that id (as a deletion would answer it)."""
    rows = [r for r in project["rows"] if r["id"] != record_id]
    for row in rows:
        row["columns"] = [c for c in row["columns"] if c["id"] != record_id]
    return {**project, "rows": rows}


def acts_then_401(ops: set[int]) -> Callable[[str], Handler]:
    """Requests to `ops` without the valid key are carried out, then answered 401."""
    def make(key: str) -> Handler:
        async def fn(request: Request, forward: Forward) -> Response:
            if request.headers.get("x-api-key") == key:
                return await forward(request)
            await forward(request.but(headers={**request.headers, "x-api-key": key}))
            return error(401, "a valid X-API-Key header is required")
        return on(ops, fn)
    return make
