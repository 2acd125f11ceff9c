"""`boardcert serve --vary [SEED]`: the bundled server makes, where the interface is open, other
choices than its own, so that a client that assumes too much fails in its own tests (`Vary`,
an ASGI layer in front of the reference app, which stays as it is). The choices come from the
seed alone (`choose`) and the client report lists them:

- the row name of operation 7: only one of name and rowName is taken (section 4: "which of
  the two is current not shown"), a body with only the other one refused;
- refusals: another 4xx for a key refused (401 or 403) and for a body refused (400 or 422),
  and another error body (section 7: "Error statuses, codes and bodies: not shown");
- ids in another form (uuid, prefixed, a long number), mapped back when the client sends them;
- createdAt and updatedAt in another form (ISO 8601 with an offset, whole seconds, epoch
  seconds or milliseconds);
- extra fields on every record, the keys of objects in another order, another JSON media type;
- gzip-compressed answers (to a client that accepts gzip), connections closed after each answer.
"""

from __future__ import annotations

import gzip
import json
import random
import secrets
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode

from boardcert.reproduce.index import route
from boardcert.traffic import varied
from boardcert.traffic.seen import MAX_PARSED
from boardcert.traffic.sent import one_of as row_name_choices
from boardcert.traffic.watch import Message, Scope, decoded, read_ahead, target

MEDIA_TYPES = ("application/json", "application/json; charset=utf-8",
               "application/vnd.board+json")
CLIENT_DATA = (25, 26, 27)  # plugin data: the client's own values, passed as they are


@dataclass(frozen=True)
class Choices:
    """What the varied server chose, where the interface leaves the choice open."""

    seed: int
    row_name: str  # the only row-name property operation 7 takes
    key_refused: int  # the status of a request refused for its key
    body_refused: int  # the status of a body refused (400 and 422 of the reference)
    error_body: str
    ids: str
    times: str
    extra_fields: tuple[str, ...]
    key_order: str
    media_type: str
    gzip: bool
    connection: str

    def as_dict(self) -> dict[str, Any]:
        """As the client report lists them (without the seed)."""
        found = asdict(self)
        del found["seed"]
        found["extra_fields"] = list(self.extra_fields)
        return found


def new_seed() -> int:
    return secrets.randbelow(2**31)


def choose(seed: int) -> Choices:
    """The choices of a seed (the same ones for the same seed)."""
    pick = random.Random(seed)
    names = next(iter(row_name_choices().values()))
    return Choices(
        seed, pick.choice(names), pick.choice((401, 403)), pick.choice((400, 422)),
        pick.choice(varied.ERROR_BODIES), pick.choice(varied.ID_FORMS),
        pick.choice(varied.TIME_FORMS),
        tuple(sorted(pick.sample(varied.EXTRA_FIELDS, 2))), pick.choice(varied.KEY_ORDERS),
        pick.choice(MEDIA_TYPES), pick.random() < 0.75, pick.choice(("keep-alive", "close")))


class Vary:
    """ASGI middleware: the app's answers as the choices make them."""

    def __init__(self, app: Any, choices: Choices) -> None:
        self.app, self.choices = app, choices
        self.ids = varied.Ids(choices.seed, choices.ids)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        read, body = await read_ahead(receive)
        if len(body) > MAX_PARSED:  # nothing the server takes: passed on as it is
            await self.app(scope, _replay(read, receive), send)
            return
        found, _ = route(scope["method"], target(scope))
        op = found.number if found else None
        scope, body = self._request(scope, body, op)
        refused = self._row_name(body, op)
        if refused is not None:
            status, answer, headers = self.choices.body_refused, refused, []
        else:
            status, headers, answer = await _call(self.app, scope, body)
        await self._answer(send, scope, op, status, headers, answer)

    def _request(self, scope: Scope, body: bytes, op: int | None) -> tuple[Scope, bytes]:
        """The ids the client was shown, back in the server's form: in the path, the query
        and a JSON body."""
        path = "/".join(quote(self.ids.back(unquote(s)), safe="") for s in target(scope)
                        .split("/"))
        query = urlencode([(k, self.ids.back(v)) for k, v in parse_qsl(
            bytes(scope.get("query_string", b"")).decode("latin-1"), keep_blank_values=True)])
        value = _json(body)
        if value is not None and op not in CLIENT_DATA:
            body = json.dumps(varied.ids_in(value, self.ids)).encode()
        headers = [(n, v) for n, v in scope["headers"] if bytes(n).lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        return dict(scope, path=unquote(path), raw_path=path.encode(), headers=headers,
                    query_string=query.encode()), body

    def _row_name(self, body: bytes, op: int | None) -> Any:
        """The refusal of a row name sent only under the property not chosen, or None."""
        names = row_name_choices().get(op or 0)
        value = _json(body)
        if not names or not isinstance(value, dict) or self.choices.row_name in value:
            return None
        if not any(n in value for n in names):
            return None  # the server's own refusal
        return {"error": {"code": "invalid_body", "message": f"the row name goes in "
                          f"{self.choices.row_name}"}}

    async def _answer(self, send: Any, scope: Scope, op: int | None, status: int,
                      headers: list[tuple[str, str]], content: Any) -> None:
        choices = self.choices
        value = content if not isinstance(content, bytes) else _json(content)
        media = dict(headers).get("content-type", "application/json")
        if status in (401, 400, 422):
            status = {401: choices.key_refused}.get(status, choices.body_refused)
        if value is not None and 400 <= status < 500:
            value, media = varied.error_body(value, status, choices.error_body)
        elif value is not None and op not in CLIENT_DATA:
            value = varied.ids_out(value, self.ids)
            value = varied.times_out(value, choices.times)
            value = varied.extras_out(value, choices.extra_fields)
            value = varied.ordered(value, choices.key_order)
            media = choices.media_type
        out = content if value is None else json.dumps(value).encode()
        extra = [("content-type", media)]
        accepted = dict(decoded(scope["headers"])).get("accept-encoding", "")
        if choices.gzip and out and "gzip" in accepted:
            out = gzip.compress(out, mtime=0)
            extra += [("content-encoding", "gzip"), ("vary", "accept-encoding")]
        if choices.connection == "close":
            extra.append(("connection", "close"))
        kept = [(n, v) for n, v in headers if n not in ("content-type", "content-length",
                                                           "content-encoding", "connection")]
        out_headers = kept + extra + [("content-length", str(len(out)))]
        await send({"type": "http.response.start", "status": status,
                    "headers": [(n.encode("latin-1"), v.encode("latin-1"))
                                for n, v in out_headers]})
        await send({"type": "http.response.body", "body": out})


async def _call(app: Any, scope: Scope, body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
    """The app's answer to the request, whole."""
    given = False
    start: Message = {}
    chunks: list[bytes] = []

    async def receive() -> Message:
        nonlocal given
        if given:
            return {"type": "http.disconnect"}
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return start.get("status", 500), decoded(start.get("headers", ())), b"".join(chunks)


def _replay(read: list[Message], receive: Any) -> Any:
    async def again() -> Message:
        return read.pop(0) if read else await receive()
    return again


def _json(content: bytes) -> Any:
    """A body as JSON, or None (no body, or not JSON)."""
    try:
        return json.loads(content) if content.strip() else None
    except (ValueError, RecursionError):
        return None
