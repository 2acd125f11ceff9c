"""Which exchange of a test process made each id it uses (for boardcert.reproduce.recipe): the
operation a request is (`route`: section 4's, or a removed path of section 9), and the ids the
answers of the creating operations and of op 1 brought (`Index`, one per client, following its
history of every exchange it completed)."""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from urllib.parse import unquote, urlsplit

from boardcert.http.client import Client, Exchange
from boardcert.interface import removed, resources, spec

# A name the run made (board.unique), also right after a JSON escape such as \t
NAME = re.compile(r"bc-[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*-[0-9a-f]{10}(?![0-9a-f])")


# --- which operation a request is -----------------------------------------------------------

@dataclass(frozen=True)
class Route:
    label: str
    number: int | None  # None: a removed path of section 9
    pattern: re.Pattern[str]
    names: tuple[str, ...]


@cache
def _routes() -> list[Route]:
    found = [(op.method, op.path, op.number) for op in spec.operations().values()]
    found += [(r.method, r.path, None) for r in removed.REMOVED]
    routes = []
    for method, path, number in found:
        regex = re.sub(r"\\\{\w+\\\}", "([^/]+)", re.escape(path))
        routes.append(Route(f"{method} {path}", number, re.compile(f"^{method} {regex}$"),
                            tuple(re.findall(r"\{(\w+)\}", path))))
    # literal segments first: /cards/move before /cards/{cardId}
    return sorted(routes, key=lambda r: -len([s for s in r.label.split("/") if "{" not in s]))


def route(method: str, path: str) -> tuple[Route | None, dict[str, str]]:
    """The operation (or removed path) a request is, and its path parameters."""
    for found in _routes():
        match = found.pattern.match(f"{method.upper()} {path}")
        if match:
            return found, {n: unquote(v) for n, v in zip(found.names, match.groups(),
                                                        strict=True)}
    return None, {}


# --- which exchange made each id --------------------------------------------------------------

@dataclass(eq=False)
class Made:
    """An id an answer brought: where it stands there, of what kind, the names around it."""

    exchange: Exchange
    at: list[str | int]
    kind: str
    value: Any
    names: dict[str, str] = field(default_factory=dict)  # fields of its record holding names


class Index:
    """The ids the process's exchanges made (the answers of the creating operations and of
    op 1), in the order they completed; updated as the client's history grows."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.seen = 0
        self.pos: dict[int, int] = {}  # id(exchange) -> its place in the history
        self.made: dict[str, list[Made]] = {}  # the id as text -> what made it
        self.by_exchange: dict[int, list[Made]] = {}  # id(exchange) -> the ids it made
        self.known: set[tuple[str, str]] = set()
        self.named: dict[str, Exchange] = {}  # a name -> the first write that sent it
        self.written: dict[str, list[Exchange]] = {}  # a path -> the POSTs and PUTs to it

    def update(self, history: list[Exchange]) -> None:
        for n in range(self.seen, len(history)):
            self.pos[id(history[n])] = n
            self._scan(history[n])
        self.seen = len(history)

    def place(self, exchange: Exchange) -> int:
        return self.pos.get(id(exchange), self.seen)

    def producer(self, value: str, kind: str | None, before: Exchange) -> Made | None:
        """What made `value` for `before`: of `kind` when the request says which, else of a
        known kind, else seen in another answer ("other"); the last one completed before it,
        else the first."""
        found = [m for m in self.made.get(value, ()) if m.exchange is not before]
        typed = [m for m in found if (m.kind == kind if kind else m.kind != "other")]
        found = typed or [m for m in found if m.kind == "other"]
        earlier = [m for m in found if self.place(m.exchange) < self.place(before)]
        return earlier[-1] if earlier else (found[0] if found else None)

    def writer(self, exchange: Exchange) -> Exchange | None:
        """The last POST or PUT to the path a GET, PATCH or DELETE names, answered 2xx before
        it (a plugin attached, plugin data stored: what it reads, changes or removes)."""
        if exchange.method not in ("GET", "PATCH", "DELETE"):
            return None
        found = [x for x in self.written.get(path_of(exchange, self.base_url)[0], ())
                 if self.place(x) < self.place(exchange)]
        return found[-1] if found else None

    def introducer(self, name: str, before: Exchange) -> Exchange | None:
        """The write that first sent a name (a metadata key, plugin data's key, a new name)."""
        found = self.named.get(name)
        return None if found is None or found is before else found

    def _scan(self, exchange: Exchange) -> None:
        if not 200 <= (exchange.status or 0) < 300:
            return
        if exchange.method not in ("GET", "HEAD", "OPTIONS"):
            for name in NAME.findall(f"{exchange.url} {text_of(exchange.request_body)}"):
                self.named.setdefault(name, exchange)
        if exchange.method in ("POST", "PUT"):
            self.written.setdefault(path_of(exchange, self.base_url)[0], []).append(exchange)
        found, _ = route(exchange.method, path_of(exchange, self.base_url)[0])
        number = found.number if found else None
        if number != 1 and number not in resources.CREATED_BY:
            return
        try:
            body = json.loads(exchange.content)
        except (ValueError, RecursionError):
            return
        sent = set(sent_values(exchange, self.base_url))
        names = set(NAME.findall(text_of(exchange.request_body)))
        for at, record in _records(body):
            value = record["id"]
            if str(value) in sent:
                continue
            kind = _kind(number, at, record, names)
            if (kind, str(value)) in self.known:
                continue
            self.known.add((kind, str(value)))
            held = {k: v for k, v in record.items() if isinstance(v, str) and NAME.search(v)}
            made = Made(exchange, [*at, "id"], kind, value, held)
            self.made.setdefault(str(value), []).append(made)
            self.by_exchange.setdefault(id(exchange), []).append(made)


def _kind(number: int | None, at: list[Any], record: dict[str, Any], names: set[str]) -> str:
    if number == 1:  # the records op 1 shows themselves, not those inside them
        top = {("currentProject",): "project", ("currentOrganization",): "organization"}
        if len(at) == 2 and at[0] == "organizations" and isinstance(at[1], int):
            return "organization"
        return top.get(tuple(at), "other")
    named = any(isinstance(v, str) and v in names for v in record.values())
    return resources.CREATED_BY[number].name if named or not at else "other"


def _records(body: Any, at: list[Any] | None = None) -> Iterable[tuple[list[Any], dict]]:
    """Every JSON object with a scalar id, depth first, and where it stands."""
    at = at or []
    if isinstance(body, dict):
        if isinstance(body.get("id"), str | int) and not isinstance(body.get("id"), bool):
            yield at, body
        for key, inner in body.items():
            yield from _records(inner, [*at, key])
    elif isinstance(body, list):
        for n, inner in enumerate(body):
            yield from _records(inner, [*at, n])


_INDEXES: weakref.WeakKeyDictionary[Client, Index] = weakref.WeakKeyDictionary()


def index(client: Client) -> Index:
    """The client's index, brought up to date with every exchange it completed (its history:
    a set-up made aside joins the log only when a test adopts it, if ever)."""
    found = _INDEXES.get(client)
    if found is None:
        found = _INDEXES[client] = Index(client.target.base_url)
    found.update(client.history)
    return found


# --- what a request holds ---------------------------------------------------------------------

def path_of(exchange: Exchange, base_url: str) -> tuple[str, str]:
    """The request's path (after the base URL's own) and query."""
    url = exchange.url
    rest = url[len(base_url.rstrip("/")):] if url.startswith(base_url.rstrip("/")) else \
        urlsplit(url).path + (f"?{urlsplit(url).query}" if urlsplit(url).query else "")
    path, _, query = rest.partition("?")
    return path or "/", query


def sent_values(exchange: Exchange, base_url: str) -> Iterable[str]:
    """Every value a request sends: path segments, query values, the body's strings and
    numbers."""
    path, query = path_of(exchange, base_url)
    yield from (unquote(s) for s in path.split("/") if s)
    yield from (unquote(pair.partition("=")[2]) for pair in query.split("&") if pair)
    yield from scalars(json_of(exchange.request_body))


def scalars(value: Any) -> Iterable[str]:
    if isinstance(value, dict):
        for inner in value.values():
            yield from scalars(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from scalars(inner)
    elif isinstance(value, str | int) and not isinstance(value, bool):
        yield str(value)


def json_of(body: bytes | None) -> Any:
    try:
        return json.loads(body) if body else None
    except (ValueError, RecursionError):
        return None


def text_of(body: bytes | None) -> str:
    return body.decode("utf-8", "replace") if body else ""
