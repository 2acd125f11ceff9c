"""The property tests' one way to the server: a generated case, serialized as schemathesis
serializes it (`Case.call`'s bytes and headers), sent through `boardcert.http.client` (its deadline,
body cap, 429 retries, pacing and key masking), and the answer as a schemathesis Response that
keeps the exchange it came from."""

from __future__ import annotations

from typing import Any

from schemathesis.config import SanitizationConfig
from schemathesis.core.transport import Response
from schemathesis.transport.prepare import prepare_request

from boardcert.errors import ExchangeError
from boardcert.http.client import KEY_HEADER, Client, Exchange

AS_SENT = SanitizationConfig(enabled=False)  # the request itself (its key is sent, never shown)
FRAMING = frozenset({"content-length", "transfer-encoding", "host"})  # httpx sets these itself


class Answer(Response):
    """schemathesis's Response, with the client's exchange: the request as sent (the key
    masked) and the response as it came, the evidence of a failure."""

    __slots__ = ("exchange",)


def send(client: Client, case: Any) -> Answer:
    """Send a generated case with the key (unless the case leaves it out on purpose) and
    return the answer, as `Case.call` would, but through the client."""
    case.meta  # noqa: B018 - as Case.call does: what the arena changed is revalidated first,
    case.freeze_metadata()  # and frozen, so that the serialized body does not count as a change
    prepared = prepare_request(case, {KEY_HEADER: client.target.api_key}, config=AS_SENT,
                               base_url=client.target.base_url)
    try:
        exchange = resend(client, prepared, keep_key=True)
    except ExchangeError as exc:  # no usable answer: fails the test, with the exchange
        exc.traceback = False  # through schemathesis and Hypothesis: the message says it all
        raise
    answer = Answer(status_code=exchange.status or 0,
                    headers={name: [value] for name, value in exchange.headers.items()},
                    content=exchange.content, request=prepared, elapsed=exchange.elapsed,
                    verify=True, encoding=_charset(exchange.content_type))
    answer.exchange = exchange
    return answer


def resend(client: Client, prepared: Any, keep_key: bool = False,
           key: str | None = None) -> Exchange:
    """A prepared request (method, URL, headers, body) sent through the client: with the
    headers it has, or without its key (`keep_key` False) and with `key` instead, if given."""
    headers = {name: value for name, value in prepared.headers.items()
               if name.lower() not in FRAMING
               and (keep_key or name.lower() != KEY_HEADER.lower())}
    body = prepared.body
    return client.request(prepared.method, _path(client, prepared.url), headers=headers,
                          content=body if body is not None else None, key=key)


def _path(client: Client, url: str) -> str:
    """The URL relative to the target's base URL (the client prefixes it again)."""
    base = client.target.base_url.rstrip("/")
    return url[len(base):] if url.startswith(base + "/") else url


def _charset(content_type: str) -> str | None:
    for part in content_type.split(";")[1:]:
        name, _, value = part.strip().partition("=")
        if name.lower() == "charset" and value:
            return value.strip('"')
    return None
