"""The one seam for HTTP: a keep-alive httpx client that records every exchange, key redacted."""

from __future__ import annotations

import json
import shlex
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from boardcert.config import Target
from boardcert.errors import ExchangeError

KEY_HEADER = "X-API-Key"
REDACTED = "***"
SHOWN = 1500  # characters of a body shown in evidence
MAX_RETRIES = 3  # on 429
MAX_RETRY_WAIT = 5.0
DEFAULT = object()  # "send the configured key"


@dataclass
class Exchange:
    """One request and its response, as evidence (the key already redacted)."""

    method: str
    url: str
    request_headers: dict[str, str]
    request_body: bytes | None
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    content: bytes = b""
    elapsed: float = 0.0
    error: str | None = None

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    def json(self) -> Any:
        """The body as JSON; a body that is not JSON fails the test with the evidence."""
        try:
            return json.loads(self.content)
        except ValueError:
            raise AssertionError(f"response body is not JSON\n{self.evidence()}") from None

    @property
    def curl(self) -> str:
        parts = ["curl", "-sS", "-X", self.method]
        for name, value in self.request_headers.items():
            if name.lower() in ("host", "accept-encoding", "connection", "user-agent",
                                "content-length", "accept"):
                continue
            parts += ["-H", f"{name}: {value}"]
        if self.request_body is not None:
            parts += ["--data-raw", _shorten(self.request_body.decode("utf-8", "replace"))]
        parts.append(self.url)
        return " ".join(shlex.quote(p) for p in parts)

    def evidence(self) -> str:
        lines = [f"request: {self.method} {self.url}"]
        if self.request_body is not None:
            lines.append(f"  body: {_shorten(self.request_body.decode('utf-8', 'replace'))}")
        if self.error:
            lines.append(f"response: none ({self.error})")
        else:
            lines.append(f"response: {self.status} ({self.content_type or 'no content type'}, "
                         f"{len(self.content)} bytes, {self.elapsed * 1000:.0f} ms)")
            lines.append(f"  body: {_shorten(self.text)}")
        lines.append(f"reproduce: {self.curl}")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "url": self.url,
            "request_headers": self.request_headers,
            "request_body": _shorten(self.request_body.decode("utf-8", "replace"))
            if self.request_body is not None else None,
            "status": self.status,
            "response_headers": self.headers,
            "response_body": _shorten(self.text),
            "elapsed_ms": round(self.elapsed * 1000, 1),
            "error": self.error,
            "curl": self.curl,
        }


def _shorten(text: str) -> str:
    if len(text) <= SHOWN:
        return text
    return f"{text[:SHOWN]}…[{len(text)} characters in all]"


class Client:
    """Sends requests to the target; every exchange is appended to `log`."""

    def __init__(self, target: Target, transport: httpx.BaseTransport | None = None) -> None:
        self.target = target
        self.log: list[Exchange] = []
        self._http = httpx.Client(
            base_url=target.base_url,
            timeout=target.timeout,
            follow_redirects=False,
            transport=transport,
            limits=httpx.Limits(max_keepalive_connections=4, max_connections=8),
        )
        self._lock = threading.Lock()
        self._next_slot = 0.0

    def close(self) -> None:
        self._http.close()

    def redact(self, text: str) -> str:
        key = self.target.api_key
        return text.replace(key, REDACTED) if key else text

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
        for attempt in range(MAX_RETRIES + 1):
            exchange = self._send(method, path, content, params, sent)
            if exchange.status != 429 or attempt == MAX_RETRIES:
                return exchange
            time.sleep(_retry_after(exchange.headers.get("retry-after")))
        return exchange

    def _send(self, method, path, content, params, headers) -> Exchange:
        self._pace()
        request = self._http.build_request(method, path, content=content, params=params,
                                           headers=headers)
        exchange = Exchange(
            method=method,
            url=self.redact(str(request.url)),
            request_headers={k: self._show(k, v) for k, v in request.headers.items()},
            request_body=content if content is not None else None,
        )
        if content is not None:
            exchange.request_body = self.redact(content.decode("utf-8", "replace")).encode()
        self.log.append(exchange)
        started = time.perf_counter()
        try:
            response = self._http.send(request, stream=True)
            try:
                exchange.status = response.status_code
                exchange.headers = {k.lower(): self.redact(v) for k, v in response.headers.items()}
                exchange.content = self._read(response).replace(
                    self.target.api_key.encode() or b"\0", REDACTED.encode())
            finally:
                response.close()
        except httpx.TimeoutException:
            exchange.error = f"no response within the {self.target.timeout:g} s timeout"
        except httpx.HTTPError as exc:
            exchange.error = f"{type(exc).__name__}: {self.redact(str(exc)) or 'transport error'}"
        exchange.elapsed = time.perf_counter() - started
        if exchange.error:
            raise ExchangeError(f"request failed\n{exchange.evidence()}")
        return exchange

    def _read(self, response: httpx.Response) -> bytes:
        body = bytearray()
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > self.target.max_body:
                raise httpx.DecodingError(
                    f"response body larger than the {self.target.max_body} byte cap")
        return bytes(body)

    def _show(self, name: str, value: str) -> str:
        if name.lower() == KEY_HEADER.lower() and value == self.target.api_key:
            return REDACTED
        return self.redact(value)

    def _pace(self) -> None:
        if not self.target.rate_limit:
            return
        with self._lock:
            now = time.monotonic()
            wait = self._next_slot - now
            self._next_slot = max(now, self._next_slot) + 1.0 / self.target.rate_limit
        if wait > 0:
            time.sleep(wait)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _retry_after(value: str | None) -> float:
    try:
        return min(max(float(value or 1), 0.0), MAX_RETRY_WAIT)
    except ValueError:
        return 1.0
