"""boardcert.http.client sends straight through httpx's transport (not httpx.Client.send): the
request is the one httpx.Client would build, byte for byte, odd paths included; the transport
the client would pick (proxies from the environment), its 8 connections, its timeouts and its
decoding of the body are kept; no cookie jar. (Misbehaving servers: test_robustness.py.)"""

from __future__ import annotations

import gzip
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hostile.servers import Servers

from boardcert.errors import ExchangeError
from boardcert.http.client import BROKEN, Client
from boardcert.settings.config import Target, load_profile

pytest_plugins = ["hostile.fixtures"]

KEY = "client-test-key-3b9e51"
OK = b'{"ok": true}'
CLOSING = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: %d\r\n\r\n"

# (path, params, headers, json, content): what the suites and the property tests send,
# and paths no test sends today but a future one might.
SENT: list[tuple[str, Any, Any, Any, Any]] = [
    ("/users/me", None, None, None, None),
    ("/projects/3/rows", None, {"Content-Type": "application/json"}, {"name": "é"}, None),
    ("/plugins/bc/data/k", {"entityId": "8"}, None, None, None),
    ("/plugins/bc/data/k?entityId=8", {"other": "é &="}, None, None, None),
    ("/x?q=a b&r=%zz", {}, None, None, None),
    ("/projects/a b/é/%zz/%2F/~!$&'()*+,;=:@", None, None, None, None),
    ("/projects/%2e%2e/x", None, None, None, None),
    ("/a/../b/./c", None, None, None, None),
    ("//double/slash", None, None, None, None),
    ("/x#fragment", None, None, None, None),
    ("relative", None, None, None, None),
    ("", None, None, None, None),
    ("/x", None, {"content-type": "text/plain", "Accept": "text/html", "X-Other": "1"}, None,
     b"\x00\xff raw bytes"),
    ("/x", None, {"Content-Length": "3"}, None, b"abc"),
    ("http://127.0.0.1:9/elsewhere", None, None, None, None),
]


def as_sent(request: httpx.Request) -> tuple[Any, ...]:
    """What goes on the wire for a request (and its timeouts)."""
    return (request.method, str(request.url), request.url.raw_path, request.headers.raw,
            request.read(),
            request.extensions.get("timeout"))


@pytest.mark.parametrize("base_url", ["http://127.0.0.1:9", "http://127.0.0.1:9/api/v1"])
def test_requests_are_the_ones_httpx_client_builds(base_url):
    """For each way the suites call the client, the transport gets the request
    httpx.Client.build_request makes (URL, percent-encoding, headers in their order, body,
    timeouts), the first time a path is sent and again."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=OK)

    ours = Client(Target(base_url, KEY, load_profile(), timeout=7.5),
                  transport=httpx.MockTransport(handler))
    theirs = httpx.Client(base_url=base_url, timeout=7.5, follow_redirects=False)
    for path, params, headers, body, content in SENT * 2:
        expected = theirs.build_request(
            "POST" if body or content else "GET", path, params=params,
            headers={**(headers or {}), "X-API-Key": KEY},
            content=content if body is None else json.dumps(body, ensure_ascii=False).encode())
        seen.clear()
        exchange = ours.request(expected.method, path, params=params, headers=headers,
                                json=body, content=content)
        assert [as_sent(r) for r in seen] == [as_sent(expected)], path
        assert exchange.url == str(expected.url) and exchange.status == 200


def test_a_path_httpx_cannot_parse_is_a_broken_exchange():
    """A path httpx refuses (as httpx.Client would) is a BROKEN exchange; nothing is sent."""
    seen: list[httpx.Request] = []
    ours = Client(Target("http://127.0.0.1:9", KEY, load_profile()),
                  transport=httpx.MockTransport(lambda r: seen.append(r) or httpx.Response(200)))
    with pytest.raises(httpx.InvalidURL):
        httpx.Client(base_url="http://127.0.0.1:9").build_request("GET", "/x\x00y")
    with pytest.raises(ExchangeError, match="InvalidURL"):
        ours.request("GET", "/x\x00y")
    assert ours.log[-1].failure == BROKEN and seen == []


def test_cookies_a_server_sets_are_never_sent_back():
    """The interface authenticates by key alone: a Set-Cookie never comes back as a Cookie
    (httpx.Client's jar would have sent it, and a server keeping sessions could pass a
    request made without the key)."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, headers={"set-cookie": "session=abc; Path=/"}, content=OK)

    ours = Client(Target("http://127.0.0.1:9", KEY, load_profile()),
                  transport=httpx.MockTransport(handler))
    ours.request("GET", "/users/me")
    ours.request("GET", "/users/me", key=None)
    assert [r.headers.get("cookie") for r in seen] == [None, None]
    assert "x-api-key" not in seen[1].headers


class _Chunks(httpx.SyncByteStream):
    def __init__(self, data: bytes) -> None:
        self.data = data

    def __iter__(self) -> Iterator[bytes]:
        for start in range(0, len(self.data), 1000):
            yield self.data[start:start + 1000]


def test_a_compressed_body_is_read_decoded_and_capped_decoded():
    """A gzip body is what the test sees decoded (as httpx.Client gave it); the cap counts the
    decoded bytes."""
    text = b'{"rows": []}' + b" " * 50_000

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-encoding": "gzip"},
                              stream=_Chunks(gzip.compress(text)))

    for cap, failure in ((len(text), None), (len(text) - 1, "too large")):
        ours = Client(Target("http://127.0.0.1:9", KEY, load_profile(), max_body=cap),
                      transport=httpx.MockTransport(handler))
        if failure is None:
            assert ours.request("GET", "/x").content == text
        else:
            with pytest.raises(ExchangeError):
                ours.request("GET", "/x")
            assert ours.log[-1].failure == failure


def test_a_closed_client_sends_nothing():
    """After close(), a request is a BROKEN exchange that says so; nothing reaches the
    transport."""
    seen: list[httpx.Request] = []
    ours = Client(Target("http://127.0.0.1:9", KEY, load_profile()),
                  transport=httpx.MockTransport(lambda r: seen.append(r) or httpx.Response(200)))
    ours.close()
    with pytest.raises(ExchangeError, match="closed before this request"):
        ours.request("GET", "/users/me")
    assert ours.log[-1].failure == BROKEN and seen == []


def test_threads_sharing_a_client_use_at_most_eight_connections(servers: Servers):
    """Twelve threads sending at once through one client: the server never holds more than
    eight connections, and every request is answered."""
    held: list[tuple[float, float]] = []  # when each request came, when it was answered

    def slow(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
        came = time.monotonic()
        time.sleep(0.2)
        held.append((came, time.monotonic()))
        conn.sendall(CLOSING % len(OK) + OK)

    ours = Client(Target(servers.raw(slow), KEY, load_profile(), timeout=5))
    statuses: list[int | None] = []
    threads = [threading.Thread(target=lambda: statuses.append(
        ours.request("GET", "/users/me").status)) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ours.close()
    most = max(sum(came <= moment < left for came, left in held) for moment, _ in held)
    assert statuses == [200] * 12 and most == 8


def test_a_proxy_from_the_environment_is_used(servers: Servers, monkeypatch):
    """http_proxy in the environment: the request goes to the proxy, as through httpx.Client."""
    got: list[bytes] = []

    def proxy(conn: socket.socket, request: bytes, stopping: threading.Event) -> None:
        got.append(request)
        conn.sendall(CLOSING % len(OK) + OK)

    for name in ("HTTP_PROXY", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("http_proxy", servers.raw(proxy))
    ours = Client(Target("http://target.invalid", KEY, load_profile(), timeout=5))
    assert ours.request("GET", "/users/me").content == OK
    ours.close()
    assert [r.split(b"\r\n")[0] for r in got] == [b"GET http://target.invalid/users/me HTTP/1.1"]
