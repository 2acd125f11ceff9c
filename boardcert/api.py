"""The interface's operations by number, over the client, with the profile's request bodies."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

from boardcert import spec
from boardcert.client import DEFAULT, Client, Exchange
from boardcert.config import NotAssessed, Profile, fill


class Api:
    """Calls operation N with path parameters by name: `api.call(16, projectId=p, cardId=c)`."""

    def __init__(self, client: Client, profile: Profile) -> None:
        self.client = client
        self.profile = profile

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
        return self.client.request(op.method, self.path(number, **path), json=json,
                                   content=content, params=params, headers=headers, key=key)

    def body(self, body_name: str, /, **values: Any) -> dict[str, Any]:
        """The profile's `bodies.<body_name>` filled from `values` (which may hold `name`)."""
        return fill(self.profile.get(f"bodies.{body_name}"), values, f"bodies.{body_name}")

    def plugin_data_location(self, entity_id: str) -> tuple[dict[str, str], dict[str, str]]:
        """(query params, headers) that carry entityId for op 27, as the profile places it."""
        place = self.profile.get("plugin_data_entity_id")
        if place["in"] == "query":
            return {place["name"]: entity_id}, {}
        return {}, {place["name"]: entity_id}


def find_named(body: Any, name: str) -> str | None:
    """The id of the record named `name` anywhere in a response (row and column shapes are
    not shown, so the suite looks for an object that carries both an id and that name)."""
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
