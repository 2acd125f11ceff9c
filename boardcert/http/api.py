"""The interface's operations by number, over the client, with the profile's request bodies."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any
from urllib.parse import quote

from boardcert.http.client import DEFAULT, Client, Exchange
from boardcert.interface import spec
from boardcert.settings.config import NotAssessed, Profile, ProfileBody

# Independent requests side by side: given the jobs (each sends its requests and answers an
# Exchange), each one's answer, or the exception it raised, and the exchanges it sent, kept
# aside (Client.aside) for the caller to adopt; None where they go one at a time.
SideBySide = Callable[[Sequence[Callable[[], Exchange]]],
                      list[tuple[Exchange | None, BaseException | None, list[Exchange]]] | None]


class Api:
    """Calls operation N with path parameters by name: `api.call(16, projectId=p, cardId=c)`."""

    def __init__(self, client: Client, profile: Profile) -> None:
        self.client = client
        self.profile = profile
        # How readings that depend on nothing but what came before go (the board model's
        # looks): set by the pytest plugin from boardcert.pytest.together's lanes; None: one
        # at a time.
        self.side_by_side: SideBySide | None = None

    def path(self, number: int, **params: str) -> str:
        template = spec.operation(number).path
        return template.format(**{k: quote(str(v), safe="") for k, v in params.items()})

    def call(self, number: int, *, json: Any = None, content: bytes | str | None = None,
             params: dict[str, str] | None = None, headers: dict[str, str] | None = None,
             key: Any = DEFAULT, path_params: dict[str, str] | None = None,
             **path: str) -> Exchange:
        """`key` is the X-API-Key (DEFAULT, None or a value); a path parameter named `key`
        (ops 22, 25-27) goes in `path_params`."""
        op = spec.operation(number)
        path = {**(path_params or {}), **path}
        exchange = self.client.request(op.method, self.path(number, **path), json=json,
                                       content=content, params=params, headers=headers, key=key)
        supplied = self.supplied(number, path)
        if key is DEFAULT and (isinstance(json, ProfileBody) or supplied):
            body = json if isinstance(json, ProfileBody) else None
            exchange.profile_body = (number, body, supplied, self.accepted(supplied, exchange))
        return exchange

    def accepted(self, supplied: dict[str, str], exchange: Exchange) -> set[str]:
        """The profile keys whose values a request of this test (or of this batch job) carried
        and got a 2xx for before `exchange`: the server knows them."""
        found: set[str] = set()
        for earlier in self.client.current():
            marked = earlier.profile_body
            if earlier is exchange or marked is None or not 200 <= (earlier.status or 0) < 300:
                continue
            found |= {k for k, v in marked[2].items() if supplied.get(k) == v}
        return found

    def supplied(self, number: int, path: dict[str, str]) -> dict[str, str]:
        """The profile's own values the request carries where its path names a plugin (ops
        23-28): the plugin id, the entity, op 28's code (profile key -> value); empty when
        the path's plugin is not the profile's."""
        plugin = self.profile.data.get("plugin_id")
        if not plugin or path.get("pluginId") != str(plugin):
            return {}
        found = {"plugin_id": str(plugin)}
        if "entityId" in path:
            found["entity_id"] = str(path["entityId"])
        if number == 28 and self.profile.data.get("exchange_code"):
            found["exchange_code"] = str(self.profile.data["exchange_code"])
        return found

    def body(self, body_name: str, /, **values: Any) -> ProfileBody:
        """The profile's `bodies.<body_name>` filled from `values` (which may hold `name`)."""
        return self.profile.body(body_name, **values)

    def plugin_data_location(self, entity_id: str) -> tuple[dict[str, str], dict[str, str]]:
        """(query params, headers) that carry entityId for op 27, as the profile places it."""
        place = self.profile.get("plugin_data_entity_id")
        if place["in"] == "query":
            return {place["name"]: entity_id}, {}
        return {}, {place["name"]: entity_id}


def misfit(exchange: Exchange) -> NotAssessed | None:
    """The conformance policy's rule for a profile that does not fit the server: a 4xx other
    than 404/405 (those mean "not implemented") to a body the profile gave, unless discovery
    saw the server accept that body, says nothing about the server: the tests that needed it
    are not assessed, with the server's own words and the profile key to set. Likewise a 404
    at a path that names the profile's plugin (ops 23-28: its plugin id, entity, code): an
    unknown plugin or entity, whatever its message says, not a missing route, unless the test
    saw the server accept those values already (a 404 after them, or at a path of ids the run
    made itself, is the server's)."""
    if exchange.profile_body is None:
        return None
    number, body, supplied, accepted = exchange.profile_body
    status, said = exchange.status or 0, server_message(exchange)
    unproven = {k: v for k, v in supplied.items() if k not in accepted}
    if status == 404 and unproven:
        given = " and ".join(f"{key} {value!r}" for key, value in unproven.items())
        keys = " or ".join(unproven)
        return NotAssessed(f"op {number} answered 404{f' {said}' if said else ''} to the "
                           f"profile's {given}; set {keys} in your profile", misfit=unproven)
    if body is None or body.proven or not 400 <= status < 500 or status in (404, 405):
        return None
    return NotAssessed(f"op {number} refused the profile's body {_short_json(body)} with "
                       f"{status}{f' {said}' if said else ''}; set bodies.{body.key} in "
                       f"your profile", misfit=[f"bodies.{body.key}"])


def server_message(exchange: Exchange, limit: int = 160) -> str:
    """The server's own error message, quoted: the first text under a usual error key of a
    JSON answer (FastAPI's detail list included), else the start of the body."""
    try:
        found = _message_in(json.loads(exchange.content)) if exchange.content else None
    except (ValueError, RecursionError):
        found = exchange.text.strip()
    if not found:
        return ""
    found = " ".join(found.split())
    return json.dumps(found if len(found) <= limit else found[:limit] + "…", ensure_ascii=False)


MESSAGE_KEYS = ("detail", "message", "error", "msg", "title", "errors", "description")


def _message_in(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return next((m for m in map(_message_in, value) if m), None)
    if isinstance(value, dict):
        if isinstance(value.get("msg"), str) and isinstance(value.get("loc"), list):
            return ".".join(map(str, value["loc"])) + ": " + value["msg"]  # FastAPI's shape
        return next((m for k in MESSAGE_KEYS if k in value
                     for m in [_message_in(value[k])] if m), None)
    return None


def _short_json(body: Any, limit: int = 120) -> str:
    text = json.dumps(body, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "…"


def find_named(body: Any, name: str, within: str | None = None) -> str | None:
    """The id of the record named `name` anywhere in a response (row and column shapes are
    not shown, so the suite looks for an object that carries both an id and that name);
    `within`: inside the record of that id first (a new column in its own row, not a copy of
    it another row holds), anywhere else only where that record does not hold it."""
    if within is not None:
        scope = next((r for r in walk(body) if str(r.get("id")) == within), None)
        found = find_named([v for k, v in scope.items() if k != "id"], name) \
            if scope is not None else None
        if found is not None:
            return found
    for record in walk(body):
        if "id" in record and name in record.values():
            return str(record["id"])
    return None


def walk(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for inner in value.values():
            yield from walk(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from walk(inner)


def card_names(project: Any) -> dict[str, Any]:
    """The names a Project lists its cards under, by id (the first record of each id): how a
    card's stored name is read back (no operation reads one card)."""
    found: dict[str, Any] = {}
    for record in walk(project.get("cards") if isinstance(project, dict) else None):
        if "name" in record:
            found.setdefault(str(record.get("id")), record["name"])
    return found


def ids_in_order(items: Any, where: str) -> list[str]:
    """Ids of a list whose items are ids or objects with an id; NotAssessed otherwise."""
    if not isinstance(items, list):
        raise NotAssessed(f"{where} (not a list, so its order cannot be read)")
    found = []
    for item in items:
        if isinstance(item, str | int):
            found.append(str(item))
        elif isinstance(item, dict) and "id" in item:
            found.append(str(item["id"]))
        else:
            raise NotAssessed(f"{where} (items carry no id, so its order cannot be read)")
    return found


def mentions(value: Any, text: str) -> bool:
    """Whether a string equal to `text` occurs anywhere in a JSON value."""
    if isinstance(value, dict):
        return any(mentions(v, text) for v in value.values()) or text in value
    if isinstance(value, list):
        return any(mentions(v, text) for v in value)
    return str(value) == text if isinstance(value, str | int) else False
