"""The speed plugin's HTTP transport (boardcert.speed.lean_http, http.client underneath) and
httpx's own give the client the same exchange: the status, headers and body, or the same kind
of failure with the same words, whatever the server does (tests/hostile's misbehaviours, a
gzipped body, a chunked one, a close after each answer); and it keeps its connections alive
as httpx's does (one for many requests, a new one once the server closed the old)."""

from __future__ import annotations

import gzip
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hostile import apps, raw
from hostile.servers import Servers, read_request

from boardcert.errors import ExchangeError
from boardcert.http.client import Client
from boardcert.settings.config import Target, load_profile
from boardcert.speed import lean_http

pytest_plugins = ["hostile.fixtures"]

KEY = "lean-test-key-5c1d29"
BODY = b'{"rows": [1, 2, 3], "name": "\xc3\xa9"}'


def _chunked(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                 b"Transfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n3\r\n 1}\r\n0\r\n\r\n")


def _chunked_cut(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":")


def _gzipped(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
    packed = gzip.compress(BODY)
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip"
                 b"\r\nContent-Length: %d\r\nX-Twice: 1\r\nX-Twice: 2\r\n\r\n" % len(packed) +
                 packed)


def _until_close(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
    conn.sendall(b"HTTP/1.0 404 Not Found\r\nContent-Type: application/json\r\n\r\n" + BODY)


def _latin1_header(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
    conn.sendall(b"HTTP/1.1 201 Made\r\nX-Name: caf\xe9\r\nContent-Length: 2\r\n\r\n{}")


def _spaced_headers(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type:  application/json \t\r\nX-Empty:\r\n"
                 b"X-Inner: a  b\r\nContent-Length: 2\r\n\r\n{}")


def _early_hints(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
    conn.sendall(b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
                 b"HTTP/1.1 102 Processing\r\n\r\n"
                 b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d"
                 b"\r\n\r\n" % len(BODY) + BODY)


RAW = {"truncated": raw.truncated, "reset": raw.reset, "hang": raw.hang,
       "hang after headers": raw.hang_after_headers, "trickle": raw.trickle,
       "not HTTP": raw.not_http, "silent close": raw.silent_close, "chunked": _chunked,
       "chunked, cut short": _chunked_cut, "gzipped, a header twice": _gzipped,
       "HTTP/1.0 until close": _until_close, "a latin-1 header": _latin1_header,
       "informational answers first": _early_hints, "white space around values": _spaced_headers}
# h11 waits for a whole head before it judges a status line; http.client judges the first
# line as it comes: "Server disconnected without sending a response." there, this here.
WORDED_OTHERWISE = {"not HTTP": "illegal status line: b'SSH-2.0-OpenSSH_9.6'"}
ASGI = {"fixed 422": lambda: apps.fixed(422, '{"error": {"code": "x"}}'),
        "204": lambda: apps.fixed(204, ""),
        "oversized, declared": lambda: apps.oversized(4096, True),
        "oversized, not declared": lambda: apps.oversized(4096, False)}


PROXIES = ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")


@pytest.fixture
def lean(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Clients made from here on use the lean transport (as under the speed plugin, with no
    proxy in the environment, which would keep httpx's own)."""
    for name in PROXIES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(Client, "make_transport", staticmethod(lean_http.make_transport))
    yield


def _made(base_url: str, lean_too: bool, monkeypatch: pytest.MonkeyPatch,
          **settings: Any) -> Client:
    """A client with the lean transport or httpx's own (no proxy from the environment: it
    would keep httpx's own both ways)."""
    with monkeypatch.context() as patch:
        for name in PROXIES:
            patch.delenv(name, raising=False)
        patch.setattr(Client, "make_transport",
                      staticmethod(lean_http.make_transport) if lean_too else None)
        return Client(Target(base_url, KEY, load_profile(), **settings))


def _outcome(base_url: str, lean_too: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    client = _made(base_url, lean_too, monkeypatch, timeout=0.5, max_body=1024)
    try:
        client.request("PATCH", "/x", json={"name": "é"})
    except ExchangeError:
        pass
    finally:
        client.close()
    exchange = client.history[-1]
    return (exchange.status, exchange.headers, exchange.content, exchange.failure,
            exchange.error)


@pytest.mark.parametrize("name", [*RAW, *ASGI])
def test_the_same_exchange_both_ways(name, servers: Servers, monkeypatch: pytest.MonkeyPatch):
    """Whatever the server does, the exchange the client records is the one httpx's own
    transport gives: status, headers (a repeated one, a latin-1 one), the body decoded, or the
    failure's kind and words."""
    url = servers.raw(RAW[name]) if name in RAW else servers.asgi(ASGI[name]())
    plain = _outcome(url, False, monkeypatch)
    ours = _outcome(url, True, monkeypatch)
    if name in WORDED_OTHERWISE:  # the same kind of failure, said in http.client's words
        assert ours[:4] == plain[:4] and ours[4].split(":")[0] == plain[4].split(":")[0]
        assert WORDED_OTHERWISE[name] in ours[4], ours
    else:
        assert ours == plain
    assert plain[0] is not None or plain[3], plain  # the server answered, or it failed


class _Counted:
    """A server answering keep-alive, counting its connections; `close_idle()` closes every
    connection it holds, as a server does with an idle one."""

    def __init__(self) -> None:
        self.connections = 0
        self.open: list[socket.socket] = []
        self.ended = threading.Semaphore(0)  # released as each connection's handler returns

    def __call__(self, conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
        self.connections += 1
        self.open.append(conn)
        try:
            while True:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
                try:
                    if not read_request(conn):
                        return
                except OSError:
                    return
        finally:
            self.ended.release()

    def close_idle(self) -> None:
        """Every connection closed by the server, and the client's side told (its handler has
        seen the close; the FIN is on its way: a moment more for it to arrive)."""
        for conn in self.open:
            conn.shutdown(socket.SHUT_RDWR)
        for _ in self.open:
            assert self.ended.acquire(timeout=5)
        self.open.clear()
        time.sleep(0.05)


def test_one_connection_serves_many_requests_and_a_closed_one_is_never_reused(
        servers: Servers, lean: None):
    """Ten requests one after another go over one connection; once the server closed it while
    it was idle, the next request opens another and is answered."""
    counted = _Counted()
    client = Client(Target(servers.raw(counted), KEY, load_profile(), timeout=2))
    try:
        assert [client.request("GET", "/users/me").status for _ in range(10)] == [200] * 10
        assert counted.connections == 1
        counted.close_idle()
        assert client.request("GET", "/users/me").status == 200
        assert counted.connections == 2
    finally:
        client.close()


def test_an_idle_connection_is_kept_no_longer_than_its_expiry(servers: Servers):
    """As httpx.Limits's keepalive_expiry: a connection idle for longer is not used again."""
    counted = _Counted()
    transport = lean_http.LeanTransport(expiry=0.2)
    client = Client(Target(servers.raw(counted), KEY, load_profile(), timeout=2), transport)
    try:
        assert [client.request("GET", "/users/me").status for _ in range(3)] == [200] * 3
        assert counted.connections == 1
        time.sleep(0.3)
        assert client.request("GET", "/users/me").status == 200
        assert counted.connections == 2
    finally:
        client.close()


def test_a_proxy_from_the_environment_leaves_the_transport_to_httpx(monkeypatch):
    """Given a transport, httpx.Client would not read proxies from the environment: where one
    is set, the lean transport is not made (httpx's own, and its proxy, take the request)."""
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    assert lean_http.make_transport(_limits(), httpx.create_ssl_context) is None
    for name in PROXIES:
        monkeypatch.delenv(name, raising=False)
    made = lean_http.make_transport(_limits(), httpx.create_ssl_context)
    assert isinstance(made, lean_http.LeanTransport)
    made.close()


def _limits() -> httpx.Limits:
    return httpx.Limits(max_keepalive_connections=8, max_connections=8)


def test_https_goes_to_httpx_s_transport_made_when_first_needed(servers: Servers):
    """http:// never makes httpx's transport (its TLS settings cost 20 ms of CPU a process);
    the first https:// request makes it, once, and it takes every https:// request."""
    made: list[Any] = []

    class Fallback(httpx.BaseTransport):
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            return httpx.Response(299, request=request)

    def fallback() -> httpx.BaseTransport:
        made.append(Fallback())
        return made[-1]

    transport = lean_http.LeanTransport(fallback)
    client = Client(Target(servers.raw(_Counted()), KEY, load_profile(), timeout=2), transport)
    try:
        assert client.request("GET", "/users/me").status == 200 and not made
        for _ in range(2):
            answer = transport.handle_request(httpx.Request("GET", "https://board.example/"))
            assert answer.status_code == 299
        assert len(made) == 1
    finally:
        client.close()


def _early_413(conn: socket.socket, head: bytes, stopping: threading.Event) -> None:
    """Answers 413 once it has the head and closes: the rest of a large body meets a closed
    connection."""
    conn.sendall(b"HTTP/1.1 413 Content Too Large\r\nConnection: close\r\n"
                 b"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
    conn.shutdown(socket.SHUT_WR)


def test_an_answer_before_the_body_was_sent_is_the_answer(servers: Servers, monkeypatch):
    """A server that answers 413 before it read a 16 MiB body and closes: the exchange is that
    413 both ways (httpcore reads what came after a failed write; before this, the lean
    transport failed the request: broken pipe)."""
    url = servers.raw(_early_413, body=False)
    outcomes = []
    for lean_too in (False, True):
        client = _made(url, lean_too, monkeypatch, timeout=5)
        try:
            client.request("POST", "/projects", content=b"x" * (16 << 20))
        except ExchangeError:
            pass
        finally:
            client.close()
        exchange = client.history[-1]
        outcomes.append((exchange.status, exchange.failure, exchange.content))
    assert outcomes == [(413, None, b"{}")] * 2
