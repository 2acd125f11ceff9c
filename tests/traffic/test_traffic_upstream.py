"""The proxy's way to the server (boardcert.traffic.upstream): keep-alive connections, a kept
connection the server closed tried once more, every framing of an answer (Content-Length,
chunked, to the connection's end, none for HEAD and 204), a long body streamed both ways."""

from __future__ import annotations

import asyncio
import socket
import threading

import httpx
from hostile.servers import Servers

from boardcert.traffic.upstream import Upstream
from traffic.running import KEY, proxied, reference


def fetch(url: str, *requests: tuple[str, bytes]) -> tuple[list[tuple[int, bytes]], int]:
    """The answers (status, body) to requests sent one after the other on one Upstream, and
    the connections it opened."""
    async def go() -> tuple[list[tuple[int, bytes]], int]:
        upstream, opened = Upstream(url), []
        connect = upstream._connect

        async def counted():  # type: ignore[no-untyped-def]
            opened.append(1)
            return await connect()
        upstream._connect = counted  # type: ignore[method-assign]
        found = []
        for method, target in requests:
            answer = await upstream.send(method, target, [(b"x-api-key", KEY.encode())], b"")
            found.append((answer.status, b"".join([c async for c in answer.body])))
        await upstream.aclose()
        return found, len(opened)
    return asyncio.run(go())


def test_one_connection_is_kept_for_the_requests_that_follow():
    with reference() as url:
        answers, opened = fetch(url, *[("GET", b"/users/me")] * 3)
    assert [s for s, _ in answers] == [200] * 3 and opened == 1


def answering(*answers: bytes):  # type: ignore[no-untyped-def]
    """A raw handler that sends `answers` in turn, one a connection, and closes."""
    given = iter(answers * 10)

    def handle(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
        conn.sendall(next(given))
    return handle


def test_a_kept_connection_the_server_closed_is_tried_again():
    """The server answers without Connection: close and closes: the next request goes on a
    new connection, answered."""
    with Servers() as servers:
        url = servers.raw(answering(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
        answers, opened = fetch(url, ("GET", b"/a"), ("GET", b"/b"))
    assert answers == [(200, b"ok"), (200, b"ok")] and opened == 2


def test_every_framing_of_an_answer():
    """Chunked, to the connection's end, HEAD with a length, 204 with none."""
    with Servers() as servers:
        chunked = servers.raw(answering(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                        b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"))
        to_close = servers.raw(answering(b"HTTP/1.1 200 OK\r\n\r\nuntil the end"))
        head = servers.raw(answering(b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n"))
        empty = servers.raw(answering(b"HTTP/1.1 204 No Content\r\n\r\n"))
        assert fetch(chunked, ("GET", b"/"))[0] == [(200, b"abcde")]
        assert fetch(to_close, ("GET", b"/"))[0] == [(200, b"until the end")]
        assert fetch(head, ("HEAD", b"/"))[0] == [(200, b"")]
        assert fetch(empty, ("DELETE", b"/"))[0] == [(204, b"")]


def test_a_long_body_is_streamed_through_the_proxy_with_its_length():
    """A request body past what the proxy reads ahead goes on as it comes, with the client's
    Content-Length; the server gets every byte."""
    got: list[bytes] = []

    def echo_length(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
        got.append(request)
        size = str(len(request.partition(b"\r\n\r\n")[2])).encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(size), size))

    body = b"x" * (6 * 2**20)
    with Servers() as servers:
        upstream = servers.raw(echo_length)
        with proxied(upstream) as (base_url, _book):
            answer = httpx.post(f"{base_url}/upload", content=body, timeout=30)
    assert answer.status_code == 200 and answer.text == str(len(body))
    assert b"content-length: 6291456" in got[0].lower()
