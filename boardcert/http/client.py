"""The one seam for HTTP: a keep-alive httpx client that records every exchange, key redacted.

Manners toward the server (docs/policy.md, section 6) and robustness against one that
misbehaves live here:

- every request has a deadline (`Target.timeout`, also across a body that trickles in);
- a body is read up to a cap (`Target.max_body`), never further;
- redirects are never followed: a 3xx is the status the test sees;
- a 429 is retried after its `Retry-After`, a bounded number of times;
- `Target.rate_limit` paces requests; `Target.read_only` refuses any request but a read.

A request that gets no usable answer raises `ExchangeError` (an AssertionError: the test
fails) carrying the evidence: the request, whatever arrived, and a curl line with the key
as `***`. The request side of an exchange is recorded with the key masked; the response is
kept as it came (the tests judge it) and masked when shown (`boardcert.http.redact`).
"""

from __future__ import annotations

import functools
import json
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from email.utils import parsedate_to_datetime
from typing import Any

import httpcore  # noqa: F401 - see below
import httpx

from boardcert.errors import ExchangeError
from boardcert.http import at_once
from boardcert.http.exchange import (  # noqa: F401 (imported from here by the suites and others)
    BROKEN,
    CONNECT,
    CURL_OWN,
    MAX_RETRIES,
    TIMEOUT,
    TLS,
    TOO_LARGE,
    Exchange,
    recorded_body,
)
from boardcert.http.redact import MASK, Redactor, for_key  # noqa: F401 (MASK: for reproduce)
from boardcert.interface import conditions as when
from boardcert.settings.config import NotAssessed, Target

# httpx imports httpcore on its first client and keeps httpcore's exception classes from
# then on; imported here, at start-up, a pytester in-process run (which drops the modules it
# imported) cannot leave a second httpcore whose errors httpx no longer translates.

KEY_HEADER = "X-API-Key"
MAX_RETRY_WAIT = 5.0  # seconds, per retry, whatever Retry-After asks
GONE_AFTER = 3  # requests in a row refused or unanswered: the target may have gone away
READS = frozenset({"GET", "HEAD", "OPTIONS"})  # what --read-only lets through
DEFAULT = object()  # "send the configured key"
URLS_KEPT = 4096  # URLs a client remembers (`Client._build`)


class _Failed(Exception):
    """Why reading a response stopped (inside `_send` only)."""

    def __init__(self, failure: str, message: str) -> None:
        super().__init__(message)
        self.failure = failure


def send_plain(http: httpx.Client, request: httpx.Request) -> httpx.Response:
    """A built request sent as httpx sends it (`Client.send`: no redirect followed, no auth,
    streamed: `_read` reads the body up to the cap). The requests are built here, never from
    the client's cookie jar: a cookie a server sets is never sent back."""
    return http.send(request, stream=True, auth=_as_built)


def _as_built(request: httpx.Request) -> httpx.Request:
    return request  # not httpx's default: it would add Basic auth from a URL's user and password


class Client:
    """Sends requests to the target; every exchange is appended to `log` (or, inside `aside()`,
    to that thread's own list, until a test `adopt`s it). Threads may share a client."""

    # How a built request reaches the server: as httpx.Client.send sends it, or, set by the
    # speed plugin once it checked httpx's internals, straight to the transport send would
    # use (send's auth, redirect, cookie and event-hook machinery cost a fifth of a request's
    # CPU, none of it used): the same bytes either way (tests/http/test_client_sending.py).
    dispatch: Callable[[httpx.Client, httpx.Request], httpx.Response] = staticmethod(send_plain)
    # What each request passes through on its way (a pytest-xdist worker's: it waits while
    # another worker has the server to itself, boardcert.pytest.quiet); None: nothing.
    gate: Callable[[], AbstractContextManager[Any]] | None = None
    # The transport a client given none makes for itself: None, httpx's own; set by the speed
    # plugin, boardcert.speed.lean_http's (http.client for http://, httpx's own for https://).
    # (It may make none: httpx's own, then.)
    make_transport: Callable[[httpx.Limits, Callable[[], ssl.SSLContext]],
                             httpx.BaseTransport | None] | None = None

    def __init__(self, target: Target, transport: httpx.BaseTransport | None = None) -> None:
        self.target = target
        self.log: list[Exchange] = []
        # Every exchange as it completes, those made aside too (what made an id a failing
        # request uses: boardcert.reproduce.index); the same objects as the log's.
        self.history: list[Exchange] = []
        # The httpx.Client sets up what a request goes through (the connection pool and its
        # limits, or the transport given; proxies from the environment; the base URL, default
        # headers and timeout) and closes it; requests go to its transport directly (`_build`).
        # The TLS settings (_tls) only where httpx makes the transport: given one, httpx.Client
        # does not use them; the lean transport asks for them at its first https:// request.
        limits = httpx.Limits(max_keepalive_connections=8, max_connections=8)
        if transport is None and self.make_transport is not None:
            transport = self.make_transport(limits, _tls)
        self._http = httpx.Client(
            base_url=target.base_url,
            timeout=target.timeout,
            follow_redirects=False,
            transport=transport,
            limits=limits,
            verify=True if transport is not None else _tls(),
        )
        self._timeout = self._http.timeout.as_dict()
        self._urls: dict[str, httpx.URL] = {}  # path -> the URL requested (`_build`)
        self._lock = threading.Lock()
        self._local = threading.local()  # .sink: where this thread's exchanges go, inside aside()
        self._next_slot = 0.0
        self.unanswered = 0  # requests in a row refused or timed out: the target may be gone
        self.test_start = 0  # where the running test's exchanges start in `log` (begin_test)

    @property
    def gone(self) -> str | None:
        """Why the target seems to have gone away (GONE_AFTER requests in a row refused or
        unanswered in time)."""
        if self.unanswered < GONE_AFTER:
            return None
        return next((e.error for e in reversed(self.log) if e.failure in (CONNECT, TIMEOUT)),
                    None)

    def close(self) -> None:
        self._http.close()

    @contextmanager
    def aside(self) -> Iterator[list[Exchange]]:
        """The exchanges this thread sends inside the block go to the list it gives, not to
        `log`: requests made ahead for a test, which `adopt`s them when it runs."""
        kept: list[Exchange] = []
        before, self._local.sink = getattr(self._local, "sink", None), kept
        try:
            yield kept
        finally:
            self._local.sink = before

    def begin_test(self) -> None:
        """A test starts: its exchanges are those `log` gets from now on."""
        self.test_start = len(self.log)

    def current(self) -> list[Exchange]:
        """This thread's exchanges so far: inside `aside()` its list, else the running test's."""
        sink = getattr(self._local, "sink", None)
        return sink if sink is not None else self.log[self.test_start:]

    def adopt(self, exchanges: list[Exchange]) -> None:
        """Exchanges made aside for the running test join the log, as if it had sent them (or,
        in a thread that is itself inside `aside()`, that thread's list)."""
        sink = getattr(self._local, "sink", None)
        (self.log if sink is None else sink).extend(exchanges)

    @property
    def redactor(self) -> Redactor:
        """The process's one Redactor of the target's key (boardcert.http.redact.for_key)."""
        return for_key(self.target.api_key)

    def redact(self, text: str) -> str:
        return self.redactor.text(text)

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        content: bytes | str | None = None,
        params: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        key: Any = DEFAULT,
    ) -> Exchange:
        """Send one request; `key` is DEFAULT (the configured key), None (no header) or a value."""
        __tracebackhide__ = True  # pytest shows a frame's arguments: these hold the key
        if self.target.read_only and method.upper() not in READS:
            raise NotAssessed(f"--read-only (the test would send {method.upper()} {path})",
                              read_only=True)
        sent = dict(headers or {})
        if key is DEFAULT:
            sent[KEY_HEADER] = self.target.api_key
        elif key is not None:
            sent[KEY_HEADER] = key
        if json is not None:
            content = _dumps(json)
            sent.setdefault("Content-Type", "application/json")
        if isinstance(content, str):
            content = content.encode("utf-8")
        for attempt in range(1, MAX_RETRIES + 2):
            exchange = self._send(method, path, content, params, sent, attempt)
            if exchange.status != 429 or attempt > MAX_RETRIES:
                return exchange
            exchange.retried = True
            time.sleep(retry_after(exchange.headers.get("retry-after")))
        return exchange

    def _send(self, method, path, content, params, headers, attempt=1) -> Exchange:
        __tracebackhide__ = True
        self._pace()
        exchange = Exchange(method=method, url=self.redact(f"{self.target.base_url}{path}"),
                            request_headers={}, request_body=None, attempt=attempt,
                            redactor=self.redactor, together=at_once.group())
        sink = getattr(self._local, "sink", None)
        (self.log if sink is None else sink).append(exchange)
        started = time.perf_counter()
        try:
            if self._http.is_closed:
                raise _Failed(BROKEN, "the client was closed before this request")
            request = self._build(method, path, content, params, headers)
            exchange.url = self.redact(str(request.url))
            exchange.request_headers = {k: self.redactor.header(v)
                                        for k, v in request.headers.items()}
            if content is not None:
                exchange.request_body = recorded_body(content, self.redactor)
            if self.gate is None:
                self._exchange(request, exchange, started)
            else:
                with self.gate():  # the round trip counts from when it passed
                    started = time.perf_counter()
                    self._exchange(request, exchange, started)
        except _Failed as failed:
            exchange.failure, exchange.error = failed.failure, self.redact(str(failed))
        except httpx.TimeoutException as exc:
            exchange.failure = CONNECT if isinstance(exc, httpx.ConnectTimeout) else TIMEOUT
            exchange.error = f"no response within the {self.target.timeout:g} s timeout"
        except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError, OSError) as exc:
            exchange.failure = _failure(exc)
            exchange.error = f"{type(exc).__name__}: {self.redact(str(exc)) or 'transport error'}"
        finally:
            exchange.elapsed = time.perf_counter() - started
            silent = exchange.failure in (CONNECT, TIMEOUT)
            self.unanswered = self.unanswered + 1 if silent else 0
            self.history.append(exchange)
        if exchange.error:
            raise ExchangeError(f"request failed: {exchange.error}", exchanges=[exchange],
                                conditions=[when.no_answer(exchange)])
        return exchange

    def _build(self, method: str, path: str, content: bytes | None,
               params: dict[str, str] | None, headers: dict[str, str]) -> httpx.Request:
        """The request `httpx.Client.build_request` makes, byte for byte (the path appended to
        the base URL as `Client._merge_url` does, the client's default headers, the timeout),
        without the cookie jar: the interface authenticates by key, never by cookie."""
        url = self._urls.get(path)
        if url is None:  # parsing a URL is a tenth of a request's CPU; paths come back often
            base, url = self._http.base_url, httpx.URL(path)
            if url.is_relative_url:
                url = base.copy_with(raw_path=base.raw_path + url.raw_path.lstrip(b"/"))
            if len(self._urls) >= URLS_KEPT:
                self._urls.clear()
            self._urls[path] = url
        merged = httpx.Headers(self._http.headers)
        merged.update(headers)
        return httpx.Request(method, url, content=content, params=params, headers=merged,
                             extensions={"timeout": self._timeout})

    def _exchange(self, request: httpx.Request, exchange: Exchange, started: float) -> None:
        __tracebackhide__ = True
        response = self.dispatch(self._http, request)
        response.request = request
        try:
            exchange.status = response.status_code
            exchange.headers = {k.lower(): v for k, v in response.headers.items()}
            self._read(response, exchange, started)
        finally:
            response.close()  # unread bytes close the connection, never reused

    def _read(self, response: httpx.Response, exchange: Exchange, started: float) -> None:
        """Read the body into the exchange, up to the cap and the deadline."""
        cap, deadline = self.target.max_body, started + self.target.timeout
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise _Failed(TOO_LARGE, f"body of {declared} bytes (Content-Length) is larger "
                          f"than the {cap} byte cap; not read")
        body = bytearray()
        try:
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > cap:
                    raise _Failed(TOO_LARGE, f"body larger than the {cap} byte cap; "
                                  f"stopped reading after {len(body)} bytes")
                if time.perf_counter() > deadline:
                    raise _Failed(TIMEOUT, f"body not complete within the "
                                  f"{self.target.timeout:g} s timeout ({len(body)} bytes read)")
        except httpx.TimeoutException:
            raise _Failed(TIMEOUT, f"body not complete within the {self.target.timeout:g} s "
                          f"timeout ({len(body)} bytes read)") from None
        except httpx.HTTPError as exc:
            raise _Failed(BROKEN, f"{type(exc).__name__} after {len(body)} bytes of the body: "
                          f"{exc}") from None
        finally:
            exchange.content = bytes(body[:cap])

    def _pace(self) -> None:
        if not self.target.rate_limit:
            return
        with self._lock:
            now = time.monotonic()
            wait = self._next_slot - now
            self._next_slot = max(now, self._next_slot) + 1.0 / self.target.rate_limit
        if wait > 0:
            time.sleep(wait)


def _failure(exc: Exception) -> str:
    """What kind of failure an exception of the transport is (Exchange.failure)."""
    if not isinstance(exc, httpx.ConnectError):
        return BROKEN
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, ssl.SSLError):
        cause = cause.__cause__ or cause.__context__
    return TLS if cause is not None else CONNECT


@functools.cache
def _tls() -> ssl.SSLContext:
    """The TLS settings httpx.Client makes by default (certifi, SSL_CERT_FILE/DIR), made once
    a process and only when asked for: making them takes 20 to 35 ms of CPU."""
    return httpx.create_ssl_context()


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def retry_after(value: str | None) -> float:
    """Seconds to wait before a retry: Retry-After as seconds or an HTTP date, within
    [0, MAX_RETRY_WAIT]; 1 s when absent or unreadable."""
    if value is None or not value.strip():
        return 1.0
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError, IndexError, OverflowError):
            return 1.0
    if seconds != seconds:  # NaN
        return 1.0
    return min(max(seconds, 0.0), MAX_RETRY_WAIT)
