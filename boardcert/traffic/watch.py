"""An ASGI layer that watches every exchange an app serves (`Watch`): the request as the
client sent it and the answer as it left, handed to a callback (a `Book`'s `add`) once the
answer is sent. The app (the bundled reference server, maybe behind `vary.Vary`) is not
changed: this layer only copies what passes, a body up to seen.MAX_PARSED bytes."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from boardcert.traffic.seen import MAX_PARSED, Seen

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]],
                   Awaitable[None]]


class Watch:
    """ASGI middleware: `seen(Seen)` after each HTTP exchange."""

    def __init__(self, app: ASGIApp, seen: Callable[[Seen], None]) -> None:
        self.app, self.seen = app, seen

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        read, request = await read_ahead(receive)
        answer = bytearray()
        status: list[int] = []
        headers: list[tuple[str, str]] = []
        answered: list[float] = []  # when the status went out

        async def tap() -> Message:
            return read.pop(0) if read else await receive()

        async def tell(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
                answered.append(time.perf_counter())
                headers.extend(decoded(message.get("headers", ())))
            elif message["type"] == "http.response.body" and len(answer) <= MAX_PARSED:
                answer.extend(message.get("body", b"")[:MAX_PARSED + 1 - len(answer)])
            await send(message)

        started = time.perf_counter()
        try:
            await self.app(scope, tap, tell)
        finally:
            self.seen(Seen(scope["method"], target(scope), query(scope),
                           decoded(scope.get("headers", ())), request,
                           status[0] if status else None, headers, bytes(answer),
                           time.perf_counter() - started,
                           None if status else "the server sent no answer",
                           sent_at=started, answered_at=answered[0] if answered else 0.0))


async def read_ahead(receive: Any) -> tuple[list[Message], bytes]:
    """The request's messages read before the app reads them (to be given it in order), up to
    its whole body or MAX_PARSED bytes; and that body (one byte over MAX_PARSED: longer).
    Read ahead, the body is whole whatever part of it the app reads."""
    messages: list[Message] = []
    body = bytearray()
    while len(body) <= MAX_PARSED:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            break
        body.extend(message.get("body", b"")[:MAX_PARSED + 1 - len(body)])
        if not message.get("more_body"):
            break
    return messages, bytes(body)


def decoded(headers: Any) -> list[tuple[str, str]]:
    """ASGI headers as (lower-case name, value) text; bytes that are not text as latin-1."""
    return [(bytes(n).decode("latin-1").lower(), bytes(v).decode("latin-1")) for n, v in headers]


def target(scope: Scope) -> str:
    """The path as the client sent it (percent-encoded), without the query."""
    raw = scope.get("raw_path")
    return bytes(raw).decode("latin-1").split("?", 1)[0] if raw else scope["path"]


def query(scope: Scope) -> str:
    return bytes(scope.get("query_string", b"")).decode("latin-1")
