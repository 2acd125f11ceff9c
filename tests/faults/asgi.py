"""One seam for every variant: ASGI middleware that hands a buffered request to a handler.

A handler is `async (request, forward) -> Response`. `forward(request)` runs the wrapped
reference app and returns its buffered answer, so a handler can rewrite the request, rewrite
the answer, call the app several times (side effects) or answer on its own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from boardcert.interface import spec

Scope = dict[str, Any]
ASGIApp = Callable[..., Awaitable[None]]


@dataclass
class Request:
    method: str
    path: str
    query: str = ""
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names
    body: bytes = b""

    @property
    def op(self) -> int | None:
        return operation_of(self.method, self.path)[0]

    @property
    def params(self) -> dict[str, str]:
        return operation_of(self.method, self.path)[1]

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def but(self, *, json_body: Any = ..., **changes: Any) -> Request:
        """A copy with some parts changed; json_body= replaces the body with that JSON."""
        if json_body is not ...:
            changes["body"] = json.dumps(json_body).encode()
        return replace(self, **changes)


@dataclass
class Response:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=lambda: {"content-type": "application/json"})

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None


def json_response(value: Any, status: int = 200) -> Response:
    return Response(status, json.dumps(value).encode())


Forward = Callable[[Request], Awaitable[Response]]
Handler = Callable[[Request, Forward], Awaitable[Response]]


@cache
def _templates() -> list[tuple[int, str, re.Pattern[str]]]:
    """(number, method, regex) of the 28 operations; literal paths before parametrised ones."""
    found = []
    for op in spec.operations().values():
        regex = re.sub(r"\\{(\w+)\\}", r"(?P<\1>[^/]+)", re.escape(op.path))
        found.append((op.path.count("{"), op.number, op.method, re.compile(regex + "$")))
    return [(number, method, regex) for _, number, method, regex in sorted(found)]


def operation_of(method: str, path: str) -> tuple[int | None, dict[str, str]]:
    """The operation number a request addresses (as the server routes it), and its params."""
    for number, op_method, regex in _templates():
        match = regex.match(path)
        if match and op_method == method:
            return number, match.groupdict()
    return None, {}


class Intercept:
    """ASGI middleware: every HTTP request goes through `handler` in front of `app`."""

    def __init__(self, app: ASGIApp, handler: Handler) -> None:
        self.app, self.handler = app, handler

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        request = Request(scope["method"], scope["path"],
                          scope.get("query_string", b"").decode("latin-1"), headers, body)

        async def forward(request: Request) -> Response:
            return await self._forward(scope, request)

        response = await self.handler(request, forward)
        headers_out = {**response.headers, "content-length": str(len(response.body))}
        await send({"type": "http.response.start", "status": response.status,
                    "headers": [(k.encode(), v.encode()) for k, v in headers_out.items()]})
        await send({"type": "http.response.body", "body": response.body})

    async def _forward(self, scope: Scope, request: Request) -> Response:
        headers = {**request.headers, "content-length": str(len(request.body))}
        inner = dict(scope, method=request.method, path=request.path,
                     raw_path=request.path.encode(), query_string=request.query.encode(),
                     headers=[(k.encode("latin-1"), v.encode("latin-1"))
                              for k, v in headers.items()])
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": request.body, "more_body": False}

        answer = Response(500, b"", {})

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                answer.status = message["status"]
                answer.headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                                  for k, v in message.get("headers", [])}
            elif message["type"] == "http.response.body":
                answer.body += message.get("body", b"")

        await self.app(inner, receive, send)
        answer.headers.pop("content-length", None)
        return answer
