"""`boardcert proxy --upstream URL --report DIR`: between any client and any server, every
request forwarded as it came and every answer sent back as it came (status, headers, bytes:
only the hop-by-hop headers of HTTP/1.1 and Host are the proxy's own), each exchange judged
once its answer is on its way (`Book.add`: the request by the client rules, the answer by the
requirements). The reports are written when it stops (Ctrl-C or SIGTERM).

A server that does not answer gets the client a 502 (a JSON error body saying so) and the
report counts it; garbage from either side is judged, never a crash.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from boardcert.traffic import reports
from boardcert.traffic.book import Book
from boardcert.traffic.seen import MAX_PARSED, Seen
from boardcert.traffic.serve import say, stopping_quietly
from boardcert.traffic.watch import Message, Scope, decoded, query, read_ahead, target

# Headers of one connection (RFC 9110, section 7.6.1), never forwarded; Host is the upstream's.
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
                        "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
                        "host"})
TIMEOUT = httpx.Timeout(60.0, connect=10.0)


class Proxy:
    """ASGI app: forwards to `upstream`, hands each exchange to `book.add` once answered."""

    def __init__(self, upstream: str, book: Book) -> None:
        parts = urlsplit(upstream)
        self.prefix = parts.path.rstrip("/")  # an upstream under a path: requests go below it
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.host = parts.netloc
        self.book = book
        self.transport: httpx.AsyncHTTPTransport | None = None

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.transport = httpx.AsyncHTTPTransport(retries=0, verify=True)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self.transport is not None:
                    await self.transport.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: Scope, receive: Any, send: Any) -> None:
        read, body = await read_ahead(receive)
        headers = decoded(scope["headers"])
        seen = Seen(scope["method"], target(scope), query(scope), headers, body)
        started = time.perf_counter()
        try:
            await self._forward(scope, read, receive, send, seen)
        except (httpx.HTTPError, httpx.InvalidURL, ValueError) as exc:  # no answer to give
            seen.error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            if seen.status is None:
                await _unanswered(send, seen.error)
        finally:
            seen.elapsed = time.perf_counter() - started
            self.book.add(seen)

    async def _forward(self, scope: Scope, read: list[Message], receive: Any, send: Any,
                       seen: Seen) -> None:
        url = f"{self.origin}{self.prefix}{seen.target}" + (f"?{seen.query}" if seen.query else "")
        headers = [(n, v) for n, v in scope["headers"]
                   if bytes(n).decode("latin-1").lower() not in HOP_BY_HOP]
        headers.insert(0, (b"host", self.host.encode("latin-1")))
        whole = not read or read[-1]["type"] != "http.request" or \
            not read[-1].get("more_body")
        request = httpx.Request(seen.method, httpx.URL(url), headers=headers,
                                content=seen.request_body if whole else _body(read, receive))
        assert self.transport is not None, "the proxy's lifespan did not start"
        response = await self.transport.handle_async_request(request)
        try:
            kept = [(n, v) for n, v in response.headers.raw
                    if n.decode("latin-1").lower() not in HOP_BY_HOP]
            seen.status, seen.response_headers = response.status_code, decoded(kept)
            await send({"type": "http.response.start", "status": response.status_code,
                        "headers": kept})
            answer = bytearray()
            async for chunk in response.aiter_raw():
                if len(answer) <= MAX_PARSED:
                    answer.extend(chunk[:MAX_PARSED + 1 - len(answer)])
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            seen.response_body = bytes(answer)
            await send({"type": "http.response.body", "body": b""})
        finally:
            await response.aclose()


async def _body(read: list[Message], receive: Any) -> AsyncIterator[bytes]:
    """The request's body as it came: what was read ahead, then the rest."""
    for message in read:
        if message["type"] != "http.request":
            return
        yield message.get("body", b"")
        if not message.get("more_body"):
            return
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return
        yield message.get("body", b"")
        if not message.get("more_body"):
            return


async def _unanswered(send: Any, why: str) -> None:
    body = json.dumps({"error": {"code": "bad_gateway", "message": f"boardcert proxy: the "
                                 f"server did not answer ({why})"}}).encode()
    await send({"type": "http.response.start", "status": 502,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def run(upstream: str, host: str, port: int, directory: Path) -> reports.Written:
    """Serve the proxy until Ctrl-C or SIGTERM, then write the reports."""
    import uvicorn

    book = Book(answers=True)
    server = uvicorn.Server(uvicorn.Config(
        Proxy(upstream, book), host=host, port=port, log_level="warning", access_log=False,
        timeout_graceful_shutdown=2, lifespan="on", server_header=False, date_header=False))
    say(f"proxy on http://{host if ':' not in host else f'[{host}]'}:{port} to {upstream}; "
        f"the reports go to {directory} when it stops (Ctrl-C or SIGTERM)")
    with stopping_quietly():
        server.run()
    return reports.write(book, directory, upstream, "proxy")
