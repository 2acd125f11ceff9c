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

from boardcert.traffic import reports
from boardcert.traffic.book import Book
from boardcert.traffic.seen import MAX_PARSED, Seen
from boardcert.traffic.serve import say, stopping_quietly
from boardcert.traffic.upstream import Upstream, UpstreamError
from boardcert.traffic.watch import Message, Scope, decoded, query, read_ahead, target

# Headers of one connection (RFC 9110, section 7.6.1), never forwarded; Host is the upstream's,
# the body's framing (Content-Length, chunked) the proxy's own, and no Expect: the body is here.
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
                        "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
                        "host", "content-length", "expect"})
ANSWER_HOP_BY_HOP = HOP_BY_HOP - {"content-length"}  # an answer's length is passed on


class Proxy:
    """ASGI app: forwards to `upstream`, hands each exchange to `book.add` once answered."""

    def __init__(self, upstream: str, book: Book) -> None:
        self.upstream = Upstream(upstream)
        self.book = book

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.upstream.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: Scope, receive: Any, send: Any) -> None:
        read, body = await read_ahead(receive)
        headers = decoded(scope["headers"])
        seen = Seen(scope["method"], target(scope), query(scope), headers, body)
        started = seen.sent_at = time.perf_counter()
        try:
            await self._forward(scope, read, receive, send, seen)
        except UpstreamError as exc:
            seen.error = str(exc)
            if seen.status is None:
                await _unanswered(send, seen.error)
        finally:
            seen.elapsed = time.perf_counter() - started
            self.book.add(seen)

    async def _forward(self, scope: Scope, read: list[Message], receive: Any, send: Any,
                       seen: Seen) -> None:
        raw = bytes(scope.get("raw_path") or scope["path"].encode()).split(b"?", 1)[0]
        query = bytes(scope.get("query_string", b""))
        headers = [(bytes(n), bytes(v)) for n, v in scope["headers"]
                   if bytes(n).decode("latin-1").lower() not in HOP_BY_HOP]
        whole = not read or read[-1]["type"] != "http.request" or \
            not read[-1].get("more_body")
        length = next((bytes(v) for n, v in scope["headers"]
                       if bytes(n).lower() == b"content-length"), None)
        answer = await self.upstream.send(seen.method, raw + (b"?" + query if query else b""),
                                          headers, seen.request_body if whole
                                          else _body(read, receive), length)
        kept = [(n, v) for n, v in answer.headers
                if n.decode("latin-1").lower() not in ANSWER_HOP_BY_HOP]
        seen.status, seen.response_headers = answer.status, decoded(kept)
        seen.answered_at = time.perf_counter()
        await send({"type": "http.response.start", "status": answer.status, "headers": kept})
        kept_body = bytearray()
        try:
            async for chunk in answer.body:
                if len(kept_body) <= MAX_PARSED:
                    kept_body.extend(chunk[:MAX_PARSED + 1 - len(kept_body)])
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        finally:  # what came of a body that broke off is judged too
            seen.response_body = bytes(kept_body)
        await send({"type": "http.response.body", "body": b""})


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
