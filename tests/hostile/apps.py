"""ASGI apps and wrappers that misbehave, slow down or watch, for `Servers.asgi`."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

Scope = dict[str, Any]
PROJECT_CREATE = re.compile(r"^/organizations/[^/]+/projects$")  # operation 2


async def _drain(receive: Any) -> None:
    while (await receive()).get("more_body"):
        pass


def fixed(status: int, body: bytes | str, content_type: str | None = "application/json",
          headers: dict[str, str] | None = None) -> Any:
    """Answers every request with the same status, body and headers."""
    content = body.encode() if isinstance(body, str) else body
    sent = [(b"content-length", b"%d" % len(content))]
    if content_type:
        sent.append((b"content-type", content_type.encode()))
    sent += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]

    async def app(scope: Scope, receive: Any, send: Any) -> None:
        await _drain(receive)
        await send({"type": "http.response.start", "status": status, "headers": sent})
        await send({"type": "http.response.body", "body": content})
    return app


def oversized(size: int, declared: bool) -> Any:
    """A JSON body of `size` bytes, with its Content-Length or chunked (no length given)."""
    chunk = b" " * 65536

    async def app(scope: Scope, receive: Any, send: Any) -> None:
        await _drain(receive)
        headers = [(b"content-type", b"application/json")]
        if declared:
            headers.append((b"content-length", b"%d" % size))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        left = size
        while left > 0:
            part = chunk[:left]
            left -= len(part)
            await send({"type": "http.response.body", "body": part, "more_body": left > 0})
    return app


def nested(depth: int) -> Any:
    """JSON nested deeper than any parser's recursion limit."""
    return fixed(200, "[" * depth + "]" * depth)


@dataclass
class Hit:
    at: float  # time.monotonic() when the request arrived
    method: str
    path: str
    status: int = 0
    body: bytes = b""
    answered: bool = False  # the whole response was sent


@dataclass
class Recorder:
    """Wraps an app and records every request, with the status and body it got."""

    app: Any
    hits: list[Hit] = field(default_factory=list)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        hit = Hit(time.monotonic(), scope["method"], scope["path"])
        self.hits.append(hit)

        async def watch(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                hit.status = message["status"]
            elif message["type"] == "http.response.body":
                hit.body += message.get("body", b"")
                hit.answered = not message.get("more_body")
            await send(message)
        await self.app(scope, receive, watch)

    def busiest(self, window: float) -> int:
        """The most requests that arrived within any `window` seconds."""
        times = sorted(hit.at for hit in self.hits)
        return max((sum(1 for t in times[i:] if t - start < window)
                    for i, start in enumerate(times)), default=0)

    def created_projects(self) -> list[str]:
        """Ids of the projects that operation 2 answered with 200."""
        found = []
        for hit in self.hits:
            if hit.method == "POST" and PROJECT_CREATE.match(hit.path) and hit.status == 200 \
                    and hit.answered:
                found.append(str(json.loads(hit.body)["id"]))
        return found


@dataclass
class Throttled:
    """Answers 429 (with Retry-After) to the first `times` requests (all, if None), then
    hands the rest to `app`."""

    app: Any
    times: int | None
    retry_after: str = "0"
    count: int = 0

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.count += 1
        if self.times is None or self.count <= self.times:
            await fixed(429, '{"error": "slow down"}',
                        headers={"retry-after": self.retry_after})(scope, receive, send)
            return
        await self.app(scope, receive, send)


@dataclass
class Latency:
    """Adds a delay before every answer (without blocking other requests)."""

    app: Any
    seconds: float

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            await asyncio.sleep(self.seconds)
        await self.app(scope, receive, send)


@dataclass
class Failing:
    """Answers `status` to requests whose method and path match; hands the rest to `app`."""

    app: Any
    method: str
    path: str  # a regular expression for the whole path
    status: int = 500

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == self.method \
                and re.fullmatch(self.path, scope["path"]):
            await fixed(self.status, '{"error": "injected"}')(scope, receive, send)
            return
        await self.app(scope, receive, send)


@dataclass
class Dying:
    """Hands requests to `app` until the `after`-th, then calls `die` (once, in a thread:
    e.g. stopping the server that serves this app) and answers 503."""

    app: Any
    after: int
    die: Any
    count: int = 0

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.count += 1
        if self.count < self.after:
            await self.app(scope, receive, send)
            return
        if self.count == self.after:
            threading.Thread(target=self.die, daemon=True).start()
        await fixed(503, '{"error": "going away"}')(scope, receive, send)


@dataclass
class Hanging:
    """Hands requests to `app` until the `after`-th; from then on (only those matching
    `method` and the regular expression `path`, when given) never answers."""

    app: Any
    after: int
    method: str | None = None
    path: str | None = None
    count: int = 0

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.count += 1
            matches = self.method in (None, scope["method"]) \
                and (self.path is None or re.fullmatch(self.path, scope["path"]))
            if self.count >= self.after and matches:
                await asyncio.Event().wait()  # until the server stops
        await self.app(scope, receive, send)
