"""Before any test: does the target answer GET /users/me (operation 1) with JSON for the key?

A misconfigured run (a wrong key, a base URL without its path prefix, a web page instead of
the API, nothing listening) then stops within seconds with one message naming the flag to
check, instead of minutes of failures that blame the server. Used by `boardcert run` before
pytest starts and by the plugin when pytest is run directly with --base-url.

    ConfigError (exit 2)       the answer says the configuration is wrong
    UnreachableError (exit 3)  no usable answer: nothing listening, no answer in time, a 5xx

A request without a key is sent too: a 4xx is what the interface asks for; anything else is
a note, not a stop (the auth tests report it, with evidence).

The target is checked once a run: the run `boardcert run` hands its pytest session says it
found the target answering (`Run.checked`), and the plugin then checks nothing again, in no
xdist worker either.
"""

from __future__ import annotations

from boardcert.errors import ConfigError, ExchangeError, UnreachableError
from boardcert.http.client import BROKEN, CONNECT, TIMEOUT, TLS, TOO_LARGE, Client, Exchange
from boardcert.interface import spec
from boardcert.settings.config import Target

PREFIX_HINT = "check --base-url: is there a path prefix?"
KEY_HINT = "the API key was refused: check --api-key"
SHOWN = 120  # characters of a body quoted in a message


def check(target: Target) -> list[str]:
    """Run the preflight against the target; its notes, or ConfigError/UnreachableError."""
    client = Client(target)
    try:
        return examine(client)
    finally:
        client.close()


def examine(client: Client) -> list[str]:
    """The preflight over an open client: GET /users/me with the key, then without."""
    base = client.redact(client.target.base_url)
    _judge(_send(client, key_given=True), base, client.target.timeout)
    bare = _send(client, key_given=False)
    if bare.status is not None and not 400 <= bare.status < 500:
        return [f"GET {base}{spec.operation(1).path} answered {bare.status} without a key "
                f"too (the interface asks for a refusal): the auth tests will report it"]
    return []


def reachable(client: Client) -> str | None:
    """Why the target cannot be reached at all (None when it answers anything, however badly:
    what is wrong with an answer is for the preflight or the tests to say). A TLS handshake
    that fails is the configuration's fault: ConfigError."""
    exchange = _send(client, key_given=True)
    if exchange.failure == TLS:
        raise ConfigError(_tls_message(exchange, client.redact(client.target.base_url)))
    return exchange.error if exchange.failure == CONNECT else None


def silent(client: Client) -> str | None:
    """Why the target answers nothing now (a refused connection, or no answer in time); None
    when it answers anything. Asked when requests in a row got no answer: a server that hangs
    on one operation only still answers this, and the run goes on."""
    exchange = _send(client, key_given=True)
    return exchange.error if exchange.failure in (CONNECT, TIMEOUT) else None


def _send(client: Client, key_given: bool) -> Exchange:
    try:
        return client.request("GET", spec.operation(1).path,
                              **({} if key_given else {"key": None}))
    except ExchangeError:
        return client.log[-1]


def _judge(exchange: Exchange, base: str, timeout: float) -> None:
    """Raise the error that names what is wrong with the keyed answer, if anything is."""
    status, where = exchange.status, f"GET {base}{spec.operation(1).path}"
    if exchange.failure == CONNECT:
        raise UnreachableError(f"the target {base} cannot be reached: {exchange.error}")
    if exchange.failure == TLS:
        raise ConfigError(_tls_message(exchange, base))
    if exchange.failure == TIMEOUT:
        raise UnreachableError(f"the target {base} cannot be reached: {where} got no answer "
                               f"within the {timeout:g} s request timeout (--request-timeout)")
    if exchange.failure == BROKEN:
        raise ConfigError(f"{where} got no HTTP answer ({exchange.error}): check --base-url: "
                          f"http or https, and the right port?")
    if exchange.failure == TOO_LARGE:
        raise ConfigError(f"{where}: {exchange.error}: {PREFIX_HINT}")
    assert status is not None
    said = _said(exchange)
    if status in (401, 403):
        raise ConfigError(f"{KEY_HINT} ({where} answered {status}{said})")
    if status in (404, 405, 410):
        raise ConfigError(f"{where} answered {status}{said}: {PREFIX_HINT}")
    if 300 <= status < 400:
        raise ConfigError(f"{where} answered {status}, a redirect to "
                          f"{exchange.headers.get('location', '(no Location)')}: check "
                          f"--base-url (boardcert follows no redirect)")
    if status == 429:
        raise UnreachableError(f"{where} answered 429 Too Many Requests after "
                               f"{exchange.attempt - 1} retries: try later, or --rate-limit")
    if status >= 500:
        raise UnreachableError(f"the target answers {where} with {status}{said}: the server "
                               f"(or a proxy in front of it) is failing")
    if status >= 400:
        raise ConfigError(f"{where} answered {status}{said}: check --base-url and --api-key")
    if _is_html(exchange):
        raise ConfigError(f"{where} answered an HTML page, not JSON: {PREFIX_HINT} (the API's "
                          f"address, not a web site's)")
    if not _is_json(exchange):
        raise ConfigError(f"{where} answered {status} with a body that is not JSON{said}: "
                          f"{PREFIX_HINT}")


def _tls_message(exchange: Exchange, base: str) -> str:
    """What a failed TLS handshake says about --base-url: a server that speaks plain HTTP
    where https:// was given (the common case), or a certificate this machine does not trust."""
    where = f"GET {base}{spec.operation(1).path}"
    if "CERTIFICATE_VERIFY_FAILED" in (exchange.error or ""):
        return (f"{where}: the server's TLS certificate was not accepted ({exchange.error}): "
                f"check --base-url's host name, or set SSL_CERT_FILE to the authority that "
                f"signed it")
    return (f"{where}: the TLS handshake failed ({exchange.error}): check --base-url: http or "
            f"https? (a server that speaks plain HTTP answers https:// like this)")


def _said(exchange: Exchange) -> str:
    """`: <the body's start>` for a message, or `` for an empty body."""
    text = " ".join(exchange.text.split())
    if not text:
        return ""
    if _is_html(exchange):
        return " (an HTML page)"
    return f": {text[:SHOWN]}{'…' if len(text) > SHOWN else ''}"


def _is_html(exchange: Exchange) -> bool:
    start = exchange.content.lstrip()[:15].lower()
    return "html" in exchange.content_type.lower() or start.startswith((b"<!doctype", b"<html"))


def _is_json(exchange: Exchange) -> bool:
    try:
        exchange.json()
    except AssertionError:
        return False
    return True
