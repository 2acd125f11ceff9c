"""One request and its response as evidence (`Exchange`): the request as sent with the key
masked, the response as it came (masked when shown), a curl line that sends it again."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from typing import Any

from boardcert.errors import Violation
from boardcert.http.evidence import exchange_text
from boardcert.http.redact import Redactor
from boardcert.interface import conditions as when

SHOWN = 1500  # characters of a body shown in evidence
# Headers curl sends of its own accord (or that would change its output): not repeated.
CURL_OWN = frozenset({"host", "accept-encoding", "connection", "user-agent", "content-length",
                      "accept"})
MAX_RETRIES = 3  # on 429 (boardcert.http.client retries; the evidence says how many it may)

# Why an exchange failed (Exchange.failure); only "connect" means the target is unreachable;
# "tls": a TLS handshake that failed (https:// to a plain-HTTP server, a certificate refused).
CONNECT, TIMEOUT, BROKEN, TOO_LARGE, TLS = "connect", "timeout", "broken", "too large", "tls"


@dataclass
class Exchange:
    """One request and its response, as evidence: the request with the key masked, the
    response as it came (`redactor` masks it when shown)."""

    method: str
    url: str
    request_headers: dict[str, str]
    request_body: bytes | None
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    content: bytes = b""
    elapsed: float = 0.0
    error: str | None = None
    failure: str | None = None  # CONNECT, TIMEOUT, BROKEN, TOO_LARGE or TLS when error is set
    attempt: int = 1  # > 1: a retry after a 429
    retried: bool = False  # answered 429 and sent again: the next attempt is the answer
    together: int | None = None  # sent with others at the same moment (boardcert.http.at_once)
    redactor: Redactor = field(default_factory=Redactor, repr=False, compare=False)
    profile_body: Any = None  # (op, ProfileBody or None, {profile key: value its path or
    # body carries}, {those keys seen accepted earlier in the test}): api.misfit

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
        except (ValueError, RecursionError):
            raise Violation("response body is not JSON", exchanges=[self],
                            conditions=[when.not_json(self)]) from None

    @property
    def curl(self) -> str:
        """A curl command that sends this request again: the same method, URL, headers (the
        key as *** where one was sent, none where none was) and the body's exact bytes."""
        parts = ["curl", "-sS", "-X", self.method]
        for name, value in self.request_headers.items():
            if name.lower() not in CURL_OWN:
                parts += ["-H", f"{name}: {value}"]
        body = self.request_body
        if body is not None and not any(n.lower() == "content-type"
                                        for n in self.request_headers):
            parts += ["-H", "Content-Type:"]  # curl would add a form content type
        if body is not None and _plain(body):
            parts += ["--data-raw", body.decode("utf-8")]
        elif body is not None:
            parts += ["--data-binary", "@-"]
        parts.append(self.url)
        line = " ".join(shlex.quote(p) for p in parts)
        if body is not None and not _plain(body):  # bytes a shell argument cannot carry
            line = f"printf '{_printf_escaped(body)}' | {line}"
        return line

    def evidence(self) -> str:
        """The exchange as text (request, response, curl line), as the reports show it."""
        return exchange_text(self.as_dict())

    def as_dict(self) -> dict[str, Any]:
        """The exchange as data: what a failure carries to the report (key already ***)."""
        return {
            "method": self.method,
            "url": self.url,
            "request_headers": self.request_headers,
            "request_body": _shorten(self.request_body.decode("utf-8", "replace"))
            if self.request_body is not None else None,
            "status": self.status,
            "response_headers": {k: self.redactor.header(v) for k, v in self.headers.items()},
            "response_body": _shorten(self.redactor.body(self.text)),
            "response_bytes": len(self.content),
            "elapsed_ms": round(self.elapsed * 1000, 1),
            "error": self.error,
            "failure": self.failure,
            "attempt": self.attempt,
            "max_retries": MAX_RETRIES,
            "curl": self.curl,
        }


def recorded_body(content: bytes, redactor: Redactor) -> bytes:
    """A request body as an exchange keeps it: the exact bytes (the curl line sends them
    again), unless the key is in them: then as text with the key masked."""
    text = content.decode("utf-8", "replace")
    shown = redactor.body(text)
    return content if shown == text else shown.encode()


def _plain(body: bytes) -> bool:
    """UTF-8 text without control characters (but tab and line breaks): a shell word."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not any(ord(c) < 32 and c not in "\t\n\r" or ord(c) == 127 for c in text)


def _printf_escaped(body: bytes) -> str:
    """The bytes as a printf format inside single quotes: printable ASCII as it is, every
    other byte (and ', \\, %) as a three-digit octal escape, which any POSIX printf turns
    back into that byte."""
    return "".join(chr(b) if 32 <= b < 127 and chr(b) not in "'\\%" else f"\\{b:03o}"
                   for b in body)


def _shorten(text: str) -> str:
    if len(text) <= SHOWN:
        return text
    return f"{text[:SHOWN]}…[{len(text)} characters in all]"
