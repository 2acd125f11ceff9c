"""One exchange as the traffic showed it (`Seen`): the request as the client sent it and the
answer as the server gave it, bytes and headers, and what the judges read of it (which
operation or former path it is, the bodies as JSON). Garbage on either side is data here,
never an exception: a body that does not parse is `NOT_JSON`, an unknown path no operation."""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from boardcert.http.exchange import Exchange, recorded_body
from boardcert.http.redact import Redactor
from boardcert.interface import removed
from boardcert.interface.removed import RemovedPath
from boardcert.reproduce.index import route

MAX_PARSED = 4 * 1024 * 1024  # bytes of a body read as JSON; a longer one is judged unread
NOT_JSON = object()  # a non-empty body whose bytes do not parse as JSON
EMPTY = object()  # no body
TOO_LONG = object()  # a body over MAX_PARSED (or one that inflates past it)
FORMER = {r.test_id: r for r in removed.REMOVED}  # "PATCH /card/{cardId}" -> its RemovedPath


@dataclass
class Seen:
    """One request and its answer, as they passed."""

    method: str
    target: str  # the path as sent (percent-encoded), without the query
    query: str = ""
    request_headers: list[tuple[str, str]] = field(default_factory=list)  # names lower-case
    request_body: bytes = b""
    status: int | None = None  # None: no answer (`error` says why)
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    response_body: bytes = b""  # as it came (compressed, if it was)
    elapsed: float = 0.0  # seconds the server took
    error: str | None = None
    # time.perf_counter() as the request went on to the server, and as its answer's status
    # came back: a reading sent on after a write was answered must show that write
    # (boardcert.traffic.boards); one under way meanwhile may show either board
    sent_at: float = 0.0
    answered_at: float = 0.0

    def header(self, name: str) -> str | None:
        """A request header (the first of that name), or None."""
        return _first(self.request_headers, name)

    def answer_header(self, name: str) -> str | None:
        return _first(self.response_headers, name)

    @cached_property
    def _route(self) -> tuple[Any, dict[str, str]]:
        method = "GET" if self.method == "HEAD" else self.method
        return route(method, self.target)

    @property
    def operation(self) -> int | None:
        """The operation of section 4 the request is, or None."""
        return self._route[0].number if self._route[0] else None

    @property
    def former(self) -> RemovedPath | None:
        """The former path of section 9 the request calls, or None."""
        found = self._route[0]
        return FORMER.get(found.label) if found and found.number is None else None

    @property
    def params(self) -> dict[str, str]:
        return self._route[1]

    @property
    def label(self) -> str:
        """How the report names what was called: the operation's or former path's template,
        else the method and path as sent."""
        found = self._route[0]
        if found is None:
            return f"{self.method} {self.target}"
        return f"op {found.number} {found.label}" if found.number else f"former {found.label}"

    @cached_property
    def sent(self) -> Any:
        """The request body as JSON, or EMPTY, NOT_JSON, TOO_LONG."""
        return _parsed(self.request_body)

    @cached_property
    def content(self) -> bytes | None:
        """The answer's body, inflated when it came gzip- or deflate-encoded; None when it
        does not inflate (or past MAX_PARSED)."""
        coding = (self.answer_header("content-encoding") or "").strip().lower()
        wbits = {"gzip": 47, "x-gzip": 47, "deflate": 15}.get(coding)
        if wbits is None:
            return self.response_body
        try:  # at most one byte past MAX_PARSED: a body that inflates further is TOO_LONG
            return zlib.decompressobj(wbits).decompress(self.response_body, MAX_PARSED + 1)
        except zlib.error:
            return None

    @cached_property
    def answer(self) -> Any:
        """The answer's body as JSON, or EMPTY, NOT_JSON, TOO_LONG."""
        return NOT_JSON if self.content is None else _parsed(self.content)

    def exchange(self, base_url: str, redactor: Redactor) -> Exchange:
        """The exchange as the reports show evidence (boardcert.http.exchange), the key
        masked wherever it stands in the request, the URL the server's."""
        query = f"?{redactor.text(self.query)}" if self.query else ""
        headers: dict[str, str] = {}
        for name, value in self.request_headers:
            if name != "host":
                shown = redactor.header(value)
                headers[name] = f"{headers[name]}, {shown}" if name in headers else shown
        return Exchange(
            self.method, f"{base_url.rstrip('/')}{redactor.text(self.target)}{query}", headers,
            recorded_body(self.request_body, redactor) if self.request_body else None,
            self.status, dict(self.response_headers),
            self.content if self.content is not None else self.response_body,
            self.elapsed, self.error, redactor=redactor)


def _first(headers: list[tuple[str, str]], name: str) -> str | None:
    return next((v for n, v in headers if n == name), None)


def _parsed(content: bytes) -> Any:
    if len(content) > MAX_PARSED:
        return TOO_LONG
    if not content.strip():
        return EMPTY
    try:
        return json.loads(content)
    except (ValueError, RecursionError):
        return NOT_JSON
