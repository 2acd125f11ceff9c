"""The proxy's way to the server: HTTP/1.1 over keep-alive connections (asyncio streams, the
answer parsed by httptools, uvicorn's parser), the request sent as it came and the answer's
body handed on chunk by chunk as it arrives. A third of what httpx's async client costs a
request (benchmarks/proxy_overhead.py), and nothing added: no header of its own but Host and
the body's framing, no retry but one, of a request sent on a kept connection the server had
closed before reading it.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httptools

CONNECT_TIMEOUT, READ_TIMEOUT = 10.0, 60.0
CHUNK = 65536
Headers = list[tuple[bytes, bytes]]


class UpstreamError(Exception):
    """The server gave no (whole) answer: refused, reset, closed, timed out, not HTTP."""


@dataclass
class _Parsed:
    """httptools' callbacks: what the answer's head and body have shown so far."""

    headers: Headers = field(default_factory=list)
    chunks: list[bytes] = field(default_factory=list)
    head: bool = False
    done: bool = False
    keep: bool = False  # both sides keep the connection (asked as the answer completes)
    parser: Any = None

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        self.head = True

    def on_body(self, body: bytes) -> None:
        self.chunks.append(body)

    def on_message_complete(self) -> None:
        self.done = True
        self.keep = self.parser.should_keep_alive()  # once complete, the parser forgets it


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer, self.used = reader, writer, False

    def close(self) -> None:
        self.writer.close()


@dataclass
class Answer:
    """The server's answer: status and headers as they came, the body as it comes."""

    status: int
    headers: Headers
    body: AsyncIterator[bytes]


class Upstream:
    """Keep-alive connections to one server (http:// or https://, maybe under a path)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.https = parts.scheme == "https"
        self.host = parts.hostname or "localhost"
        self.port = parts.port or (443 if self.https else 80)
        self.authority = parts.netloc.rsplit("@", 1)[-1].encode("latin-1")
        self.prefix = parts.path.rstrip("/").encode("latin-1")
        self.idle: list[_Connection] = []

    async def _connect(self) -> _Connection:
        context = ssl.create_default_context() if self.https else None
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(
                self.host, self.port, ssl=context, limit=CHUNK * 4), CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ssl.SSLError) as exc:
            raise UpstreamError(f"cannot connect to {self.host}:{self.port} "
                                f"({type(exc).__name__}: {exc})") from None
        return _Connection(reader, writer)

    async def send(self, method: str, target: bytes, headers: Headers,
                   body: bytes | AsyncIterator[bytes], length: bytes | None = None) -> Answer:
        """Send the request and read the answer's head; a kept connection the server had
        closed is tried once more on a new one (nothing of the answer had come). A body that
        comes as it is read goes with the client's Content-Length (`length`), else chunked."""
        while self.idle and isinstance(body, bytes):  # a body read as it comes: sent once
            connection = self.idle.pop()
            if connection.reader.at_eof():
                connection.close()
                continue
            try:
                return await self._exchange(connection, method, target, headers, body, length)
            except _Unread:
                connection.close()
                break
        try:
            return await self._exchange(await self._connect(), method, target, headers, body,
                                        length)
        except _Unread as exc:
            raise UpstreamError(str(exc)) from None

    async def _exchange(self, connection: _Connection, method: str, target: bytes,
                        headers: Headers, body: bytes | AsyncIterator[bytes],
                        length: bytes | None) -> Answer:
        whole = isinstance(body, bytes)
        chunked = not whole and length is None
        framing = [(b"content-length", str(len(body)).encode())] if whole and (
            body or method not in ("GET", "HEAD", "DELETE", "OPTIONS")) else \
            [] if whole else [(b"transfer-encoding", b"chunked")] if chunked else \
            [(b"content-length", length or b"0")]
        head = b"".join([method.encode("latin-1"), b" ", self.prefix, target, b" HTTP/1.1\r\n",
                         b"host: ", self.authority, b"\r\n",
                         *(n + b": " + v + b"\r\n" for n, v in [*headers, *framing]), b"\r\n"])
        parsed = _Parsed()
        parser = parsed.parser = httptools.HttpResponseParser(parsed)
        first = True
        try:
            connection.writer.write(head + body if whole else head)
            if not whole:
                async for chunk in body:  # type: ignore[union-attr]
                    if chunk and chunked:
                        connection.writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    elif chunk:
                        connection.writer.write(chunk)
                    await connection.writer.drain()
                if chunked:
                    connection.writer.write(b"0\r\n\r\n")
            await connection.writer.drain()
            while not parsed.head:
                data = await asyncio.wait_for(connection.reader.read(CHUNK), READ_TIMEOUT)
                if not data:
                    raise (_Unread if first else UpstreamError)(
                        "the server closed the connection before its answer's head")
                first = False
                parser.feed_data(data)
        except httptools.HttpParserError as exc:
            connection.close()
            raise UpstreamError(f"the server's answer is not HTTP ({exc})") from None
        except (ConnectionError, OSError) as exc:
            connection.close()
            raise (_Unread if first else UpstreamError)(f"{type(exc).__name__}: {exc}") \
                from None
        except TimeoutError:
            connection.close()
            raise UpstreamError(f"no answer within {READ_TIMEOUT:g} s") from None
        status = parser.get_status_code()
        if status < 200:  # the proxy sends no Expect: an interim answer is not forwarded
            connection.close()
            raise UpstreamError(f"the server answered {status}, an interim answer")
        return Answer(status, parsed.headers,
                      self._body(connection, parser, parsed, method == "HEAD"))

    async def _body(self, connection: _Connection, parser: httptools.HttpResponseParser,
                    parsed: _Parsed, head_only: bool) -> AsyncIterator[bytes]:
        """The body's chunks as they come; the connection kept for another request once the
        answer is whole and both sides keep it alive."""
        framed = any(n.lower() in (b"content-length", b"transfer-encoding")
                     for n, _ in parsed.headers)
        closed = False  # the body ended with the connection
        try:
            while not (parsed.done or head_only):
                while parsed.chunks:
                    yield parsed.chunks.pop(0)
                data = await asyncio.wait_for(connection.reader.read(CHUNK), READ_TIMEOUT)
                if not data:
                    if framed:
                        raise UpstreamError("the server closed the connection in the middle "
                                            "of its answer's body")
                    closed = True  # a body that ends when the connection does
                    break
                parser.feed_data(data)
            while parsed.chunks:
                yield parsed.chunks.pop(0)
        except (httptools.HttpParserError, ConnectionError, OSError) as exc:
            connection.close()
            raise UpstreamError(f"the answer's body broke off ({type(exc).__name__})") from None
        except TimeoutError:
            connection.close()
            raise UpstreamError(f"the answer's body stalled for {READ_TIMEOUT:g} s") from None
        if parsed.done and parsed.keep and not (head_only or closed):
            self.idle.append(connection)
        else:
            connection.close()

    async def aclose(self) -> None:
        for connection in self.idle:
            connection.close()
        self.idle.clear()


class _Unread(Exception):
    """Nothing of the answer came on a connection: it may be tried on a new one."""
