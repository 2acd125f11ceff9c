"""HTTP/1.1 for http:// targets over the standard library's http.client (speed plugin).

httpx's own transport (httpcore and h11) is much of what a request costs the client: through
boardcert's client, against the bundled server, 0.47 ms of CPU a request with httpx's and
0.37 ms with this one (`python benchmarks/lean_http.py`; a quick run makes some 2,300).
This is an httpx transport (httpx's public `BaseTransport`), so that everything above it is
httpx's as before: the requests it is given are the ones httpx builds (headers, Host,
Content-Length), the Response is httpx's and so is its decoding of the body (gzip, deflate,
brotli where installed); so are proxies from the environment (where one is set, the client
keeps httpx's own transport: `make_transport`).
What it does in httpcore's place, as httpcore does it:

- up to `limit` idle connections per host kept alive, each for `expiry` seconds (httpx's
  keepalive_expiry, 5 s); one whose server closed it meanwhile (readable while idle) is
  dropped, not reused; one whose response was not read to its end, or that the server said
  it closes, is closed;
- the timeouts of the request (connect; write while sending; read for each read);
- a request whose sending broke still gets the answer the server sent before it closed (an
  early 413), else the failure to send;
- informational answers (1xx but 101) passed over to the final one;
- failures as httpx's: ConnectTimeout and ConnectError while connecting, WriteTimeout and
  WriteError while sending, ReadTimeout and ReadError while reading, RemoteProtocolError for
  an answer that is not HTTP, ends early or comes with no answer at all.

https:// goes to httpx's own transport (`fallback`), made for the first https:// request: the
TLS settings it loads (certifi's bundle) cost some 20 ms of CPU, for each process of a run.
`boardcert run --no-speed` uses httpx's transport for everything; tests/http/test_lean_http.py
holds both to the same outcome against servers that misbehave in every way tests/hostile
knows.
"""

from __future__ import annotations

import http.client
import select
import socket
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import httpx

LIMIT = 8  # idle connections kept per host, as boardcert's httpx.Limits
EXPIRY = 5.0  # seconds an idle connection is kept: httpx.Limits's keepalive_expiry


def make_transport(limits: httpx.Limits, tls: Callable[[], Any]
                   ) -> httpx.BaseTransport | None:
    """What boardcert.http.client.Client makes for itself (its `make_transport`) under the
    speed plugin: this transport, with httpx's own (as httpx.Client makes it, with the TLS
    settings `tls` gives, asked for at the first https:// request) for https://; None
    (httpx's own for all) where the environment names a proxy: httpx.Client, given a
    transport, would not look there."""
    if any(urllib.request.getproxies_environment()):
        return None
    return LeanTransport(lambda: httpx.HTTPTransport(verify=tls(), limits=limits),
                         limits.max_keepalive_connections or LIMIT,
                         limits.max_connections or LIMIT,
                         EXPIRY if limits.keepalive_expiry is None else limits.keepalive_expiry)


class LeanTransport(httpx.BaseTransport):
    def __init__(self, fallback: Callable[[], httpx.BaseTransport] = httpx.HTTPTransport,
                 limit: int = LIMIT, connections: int = LIMIT, expiry: float = EXPIRY) -> None:
        self._make_fallback = fallback
        self._fallback: httpx.BaseTransport | None = None  # made for the first https://
        self.limit = limit
        self.expiry = expiry
        self._open = threading.BoundedSemaphore(connections)  # a connection in use holds one
        # host -> its idle connections, each with the moment it went idle
        self._idle: dict[tuple[str, int], list[tuple[http.client.HTTPConnection, float]]] = {}
        self._lock = threading.Lock()
        self._closed = False

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.scheme != "http":
            return self.fallback().handle_request(request)
        timeouts = request.extensions.get("timeout", {})
        where = (request.url.host, request.url.port or 80)
        pool = timeouts.get("pool")
        if not self._open.acquire(timeout=-1 if pool is None else pool):
            raise httpx.PoolTimeout("no connection came free in time", request=request)
        connection = None
        try:
            connection = self._take(where) or self._connect(where, timeouts.get("connect"))
            unsent = None
            try:
                _send(connection, request, timeouts.get("write"))
            except httpx.WriteError as exc:  # as httpcore: read what the server may have
                unsent = exc  # answered before it closed (an early 413)
            connection.sock.settimeout(timeouts.get("read"))
            try:
                with _mapped(httpx.ReadTimeout, httpx.ReadError, request):
                    response = connection.getresponse()
            except httpx.HTTPError:
                if unsent is not None:
                    raise unsent from None
                raise
        except BaseException:
            if connection is not None:
                connection.close()
            self._open.release()
            raise
        stream = _Body(self, where, connection, response, request)
        return httpx.Response(response.status, headers=_headers(response), stream=stream,
                              extensions={"http_version": b"HTTP/1.1" if response.version ==
                                          11 else b"HTTP/1.0",
                                          "reason_phrase": response.reason.encode("latin-1")})

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, {}
            fallback = self._fallback
        for connections in idle.values():
            for connection, _ in connections:
                connection.close()
        if fallback is not None:
            fallback.close()

    def fallback(self) -> httpx.BaseTransport:
        """httpx's own transport, for https://: made once, when first asked for."""
        with self._lock:
            if self._fallback is None:
                self._fallback = self._make_fallback()
            return self._fallback

    def _take(self, where: tuple[str, int]) -> http.client.HTTPConnection | None:
        """An idle connection to `where`, idle for less than `expiry` and not closed by the
        server meanwhile, if any."""
        while True:
            with self._lock:
                idle = self._idle.get(where)
                if not idle:
                    return None
                connection, since = idle.pop()
            sock = connection.sock
            if sock is not None and time.monotonic() - since < self.expiry and \
                    not select.select([sock], [], [], 0)[0]:
                return connection
            connection.close()  # expired, or readable while idle: closed by the server

    def _connect(self, where: tuple[str, int], timeout: float | None
                 ) -> http.client.HTTPConnection:
        connection = http.client.HTTPConnection(where[0], where[1], timeout=timeout)
        connection.response_class = _Final
        try:
            connection.connect()
        except TimeoutError as exc:
            connection.close()
            raise httpx.ConnectTimeout(str(exc) or "timed out") from exc
        except OSError as exc:
            connection.close()
            raise httpx.ConnectError(str(exc)) from exc
        connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return connection

    def _give_back(self, where: tuple[str, int], connection: http.client.HTTPConnection
                   ) -> None:
        with self._lock:
            idle = self._idle.setdefault(where, [])
            if not self._closed and len(idle) < self.limit:
                idle.append((connection, time.monotonic()))
                return
        connection.close()


class _Final(http.client.HTTPResponse):
    """The final answer, past any informational one (103 Early Hints, 102 Processing): httpcore
    skips them all (but 101), where http.client skips only 100 Continue."""

    def begin(self) -> None:
        super().begin()
        while 100 <= self.status < 200 and self.status != 101:
            self.headers = self.msg = None  # begin() reads the next head from the same buffer
            super().begin()
            if self.headers is None:  # a begin() that no longer reads again: never a loop
                raise http.client.HTTPException("no answer read after an informational one")


def _send(connection: http.client.HTTPConnection, request: httpx.Request,
          timeout: float | None) -> None:
    """The request as httpx built it: its method, raw path and headers, its body."""
    connection.sock.settimeout(timeout)
    with _mapped(httpx.WriteTimeout, httpx.WriteError, request):
        connection.putrequest(request.method, request.url.raw_path.decode("ascii"),
                              skip_host=True, skip_accept_encoding=True)
        for name, value in request.headers.raw:
            connection.putheader(name, value)
        body = request.read()
        connection.endheaders(body or None)


class _mapped:
    """http.client's and the socket's exceptions as httpx raises them."""

    def __init__(self, timeout: type[httpx.TransportError], error: type[httpx.TransportError],
                 request: httpx.Request) -> None:
        self.timeout, self.error, self.request = timeout, error, request

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, traceback: Any) -> bool:
        if exc is None or isinstance(exc, httpx.HTTPError):
            return False
        if isinstance(exc, TimeoutError):
            raise self.timeout(str(exc) or "timed out", request=self.request) from exc
        if isinstance(exc, (http.client.HTTPException, ValueError)):
            raise httpx.RemoteProtocolError(_said(exc), request=self.request) from exc
        if isinstance(exc, OSError):
            raise self.error(str(exc) or type(exc).__name__, request=self.request) from exc
        return False


def _said(exc: BaseException) -> str:
    """An answer that is not HTTP, or ends early, in the words httpcore and h11 use."""
    if isinstance(exc, http.client.RemoteDisconnected):
        return "Server disconnected without sending a response."
    if isinstance(exc, http.client.BadStatusLine):
        return f"illegal status line: {exc.line.strip().encode('latin-1', 'replace')!r}"
    if isinstance(exc, _CutShort):
        return str(exc)
    if isinstance(exc, http.client.IncompleteRead):
        return ("peer closed connection without sending complete message body (incomplete "
                "chunked read)")
    return " ".join(str(exc).split()) or type(exc).__name__


class _CutShort(http.client.HTTPException):
    def __init__(self, received: int, expected: int) -> None:
        super().__init__(f"peer closed connection without sending complete message body "
                         f"(received {received} bytes, expected {expected})")


def _headers(response: http.client.HTTPResponse) -> list[tuple[bytes, bytes]]:
    """The response's headers, in order, as the bytes that came (http.client reads them as
    latin-1), each value without the white space around it and a folded one on one line, as
    h11 gives them (http.client keeps what trails a value, and the fold)."""
    return [(name.encode("latin-1"),
             " ".join(part.strip(" \t") for part in value.splitlines()).encode("latin-1"))
            for name, value in response.getheaders()]


class _Body(httpx.SyncByteStream):
    """The response's body as it comes; the connection goes back to the pool once the body
    was read to its end and neither side closes it, else it is closed."""

    CHUNK = 65536

    def __init__(self, transport: LeanTransport, where: tuple[str, int],
                 connection: http.client.HTTPConnection, response: http.client.HTTPResponse,
                 request: httpx.Request) -> None:
        self.transport, self.where = transport, where
        self.connection, self.response, self.request = connection, response, request
        self.done = False
        self.received = 0

    def __iter__(self) -> Iterator[bytes]:
        with _mapped(httpx.ReadTimeout, httpx.ReadError, self.request):
            while True:
                chunk = self.response.read1(self.CHUNK) if not self.response.isclosed() else b""
                if not chunk:
                    if self.response.length:  # read1 ends quietly where read() would raise
                        raise _CutShort(self.received, self.received + self.response.length)
                    self.done = True
                    return
                self.received += len(chunk)
                yield chunk

    def close(self) -> None:
        connection, self.connection = self.connection, None
        if connection is None:
            return
        reusable = self.done and not self.response.will_close  # read to the end, kept alive
        self.response.close()  # its buffer only: the socket is the connection's
        if reusable:
            self.transport._give_back(self.where, connection)
        else:
            connection.close()
        self.transport._open.release()
