"""The probes of discovery, in order: a project of its own, then each body key of the profile
tried with the profile's value, the candidates of spec/discovery.yaml, and the fields the
server's refusals name (boardcert.discovery.refusals); the first 2xx wins."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import yaml

from boardcert.discovery.findings import FOUND, KEPT, NOT_FOUND, NOT_TRIED, Finding
from boardcert.discovery.refusals import required_fields, said
from boardcert.errors import ConfigError
from boardcert.http.api import Api, mentions
from boardcert.http.client import Exchange
from boardcert.interface import spec as interface
from boardcert.paths import DISCOVERY, read_yaml
from boardcert.settings.config import Profile, fill
from boardcert.workbench.ledger import Ledger


def candidates() -> dict[str, Any]:
    return read_yaml(DISCOVERY)


class Stop(Exception):
    """Discovery cannot go on (what the rest needs could not be made)."""


ORDER = ["create_project", "row_name_property", "rename_project", "rename_row", "create_column",
         "rename_column", "order_rows", "order_columns", "create_card", "add_card_metadata",
         "metadata_id_is_key", "move_cards", "move_cards_by_metadata", "alias_card",
         "remove_card_metadata", "attach_plugin", "put_plugin_data", "plugin_data_entity_id",
         "exchange_code"]
# profile keys besides bodies.*
OTHER_KEYS = ("row_name_property", "plugin_data_entity_id", "metadata_id_is_key")


class Probe:
    def __init__(self, api: Api, ledger: Ledger, organization_id: str,
                 data: dict[str, Any]) -> None:
        self.api, self.ledger, self.data = api, ledger, data
        self.profile = api.profile
        self.found: dict[str, Any] = copy.deepcopy(self.profile.data)
        self.proven: set[str] = set()
        self.findings: list[Finding] = []
        self.v: dict[str, Any] = {"organization_id": organization_id}
        self.entry: Any = None  # the project's ledger entry

    # --- the steps, in order ---------------------------------------------------------------

    def run(self) -> None:
        v = self.v
        made = self.body("create_project", {"organizationId": v["organization_id"]})
        self.entry = None if made is None else self.ledger.created("project", answer=made.json())
        if self.entry is None:
            raise Stop("no project to probe in (op 2 accepted no body)")
        v["project_id"] = self.entry.id
        p = {"projectId": v["project_id"]}
        v["row_ids"] = [self.row(), self.row()]
        v["row_id"] = v["row_ids"][0]
        self.body("rename_project", p)
        self.body("rename_row", p | {"rowId": v["row_id"]})
        v["column_ids"] = [self.column(), self.column()]
        v["column_id"], v["other_column_id"] = v["column_ids"]
        self.body("rename_column", p | {"columnId": v["column_id"]})
        self.body("order_rows", p, row_ids=v["row_ids"][::-1])
        self.body("order_columns", p | {"rowId": v["row_id"]}, column_ids=v["column_ids"][::-1])
        cards = [self.card() for _ in range(3)]
        meta = {"key": unique("key"), "value": unique("value")}
        added = self.body("add_card_metadata", p | {"cardId": cards[1]}, card_id=cards[1],
                          **meta)
        if added is not None:
            self.metadata_id(p | {"cardId": cards[1]}, meta)
        v |= {"card_id": cards[0], "card_ids": cards[:1]}
        self.body("move_cards", p, after_card_id=cards[2], before_card_id=cards[2])
        if added is not None:
            self.body("move_cards_by_metadata", p, after_card_id=cards[2],
                      before_card_id=cards[0], **meta)
            self.remove_metadata(p | {"cardId": cards[1], "key": meta["key"]}, meta["key"])
        else:
            for key in ("move_cards_by_metadata", "remove_card_metadata"):
                self.skip(key, "no card metadata (op 21 accepted no body)")
        self.body("alias_card", p | {"cardId": cards[0]})
        self.plugins(p)

    def row(self) -> str:
        """A row (op 7 with the row-name property found first); its id."""
        name = unique("row")
        key = "row_name_property"
        if "row_property" not in self.v:
            given = self.profile.data.get(key)
            tried = [given] if given in self.data[key] else []
            tried += [n for n in self.data[key] if n not in tried]
            for prop in tried:
                exchange = self.call(7, {"projectId": self.v["project_id"]}, {prop: name})
                if self.accepted(exchange, name):
                    self.v["row_property"] = prop
                    outcome = KEPT if prop == given else FOUND
                    self.found[key] = prop
                    self.findings.append(Finding(key, outcome, prop))
                    return self.made_row(exchange, name)
            raise Stop(f"no row to probe in (op 7 accepted neither {' nor '.join(tried)})")
        exchange = self.call(7, {"projectId": self.v["project_id"]},
                             {self.v["row_property"]: name})
        if not self.accepted(exchange, name):
            raise Stop(f"no second row (op 7 answered {exchange.status})")
        return self.made_row(exchange, name)

    def made_row(self, exchange: Exchange, name: str) -> str:
        row = self.ledger.created("row", self.entry, answer=exchange.json(), name=name,
                                  projectId=self.v["project_id"])
        if row is None:
            raise Stop("op 7 answered no row carrying the name given")
        return row.id

    def column(self) -> str:
        name = unique("column")
        made = self.body("create_column", {"projectId": self.v["project_id"],
                                           "rowId": self.v["row_id"]}, name=name)
        column = self.ledger.created("column", self.entry, answer=made.json(), name=name,
                                     within=self.v["row_id"], projectId=self.v["project_id"]
                                     ) if made is not None else None
        if column is None:
            raise Stop("no column to probe in (op 11 accepted no body)")
        return column.id

    def card(self) -> str:
        made = self.body("create_card", {"projectId": self.v["project_id"],
                                         "columnId": self.v["column_id"]})
        card = self.ledger.created("card", self.entry, answer=made.json(),
                                   projectId=self.v["project_id"]) if made is not None else None
        if card is None:
            raise Stop("no card to probe with (op 15 accepted no body)")
        return card.id

    def metadata_id(self, path: dict[str, str], meta: dict[str, str]) -> None:
        """Whether the id of the entry op 21 added is its key (read in the Card of op 16)."""
        key = "metadata_id_is_key"
        card = self.api.call(16, path_params=path, json={"name": unique("card")})
        body = card.json() if card.status == 200 and card.content else None
        entries = body.get("metadata") if isinstance(body, dict) else None
        entry = next((e for e in entries or [] if isinstance(e, dict)
                      and e.get("value") == meta["value"]), None)
        if entry is None or "id" not in entry:
            return self.skip(key, "the Card of op 16 shows no entry with the value given")
        found = str(entry["id"]) == meta["key"]
        given = self.profile.data.get(key)
        self.found[key] = found
        self.findings.append(Finding(key, KEPT if found == given else FOUND, found))
        return None

    def remove_metadata(self, path: dict[str, str], key: str) -> None:
        """Op 22 "accepts a body": a server that refuses every body but takes none is at fault,
        whatever the body's fields (the tests then fail it rather than blame the profile)."""
        if self.body("remove_card_metadata", path, key=key) is None:
            bare = self.api.call(22, path_params=path)
            if 200 <= (bare.status or 0) < 300:
                self.proven.add("remove_card_metadata")
                self.findings[-1].note += "; it accepts no body at all"

    def plugins(self, p: dict[str, str]) -> None:
        values = {k: self.profile.data.get(k) for k in ("plugin_id", "entity_id")}
        if not values["plugin_id"]:
            for key in ("attach_plugin", "put_plugin_data", "plugin_data_entity_id",
                        "exchange_code"):
                self.skip(key, "the profile names no plugin_id")
            return
        plugin = self.v["plugin_id"] = str(values["plugin_id"])
        self.body("attach_plugin", p | {"pluginId": plugin})
        if not values["entity_id"]:
            for key in ("put_plugin_data", "plugin_data_entity_id", "exchange_code"):
                self.skip(key, "the profile names no entity_id")
            return
        try:
            entity = self.v["entity_id"] = str(fill(values["entity_id"], self.v, "entity_id"))
        except (ConfigError, TypeError):
            for key in ("put_plugin_data", "plugin_data_entity_id", "exchange_code"):
                self.skip(key, "the profile's entity_id cannot be filled")
            return
        data = {"pluginId": plugin, "entityId": entity, "key": unique("data")}
        if self.body("put_plugin_data", data, key=data["key"]) is not None:
            self.ledger.created("plugin_data", **data)
            self.entity_place(data)
        else:
            self.skip("plugin_data_entity_id", "no plugin data to read (op 25)")
        code = self.profile.data.get("exchange_code")
        if code:
            self.body("exchange_code", {"pluginId": plugin, "entityId": entity}, code=code)
        else:
            self.skip("exchange_code", "the profile names no exchange_code")

    def entity_place(self, data: dict[str, str]) -> None:
        """Op 27: the first placement of entityId answered 2xx with the value stored."""
        key = "plugin_data_entity_id"
        given = self.profile.data.get(key)
        tried = ([given] if given else []) + [c for c in self.data[key] if c != given]
        first: Exchange | None = None
        for place in tried:
            where = {"params": {place["name"]: data["entityId"]}} if place["in"] == "query" \
                else {"headers": {place["name"]: data["entityId"]}}
            exchange = self.api.call(27, path_params={"pluginId": data["pluginId"],
                                                      "key": data["key"]}, **where)
            first = first or exchange
            if self.accepted(exchange, self.v["value"]):
                self.found[key] = place
                self.findings.append(Finding(key, KEPT if place == given else FOUND, place))
                return
        self.not_found(key, first, given is not None)

    # --- one body key ----------------------------------------------------------------------

    def body(self, body_key: str, path: dict[str, str], /, **extra: Any) -> Exchange | None:
        """Find the body `bodies.<body_key>` its operation answers 2xx to; the answer or None."""
        key = body_key
        spec = self.data["bodies"][key]
        given = (self.profile.data.get("bodies") or {}).get(key)
        templates = ([given] if given is not None else []) + \
            [c for c in spec["candidates"] if c != given]
        again = key in self.proven  # found already (a second column or card): no new finding
        if again:
            templates = [self.found["bodies"][key]]
        anchored = interface.operation(spec["op"]).anchored  # ops 18, 19
        anchors = self.data["anchors"] if anchored else [{}]
        self.v |= {"name": unique("name"), "alias": unique("alias"), "value": unique("value"),
                   "key": unique("key")} | extra
        first: Exchange | None = None
        wanted: list[str] = []  # fields the server's refusals name as required
        stated = spec.get("stated", [])
        for template in _and_then(templates,
                                  lambda: _learned(templates, wanted, again, stated)):
            for anchor in anchors:
                try:
                    body = fill({**template, **anchor}, self.v, f"bodies.{key}")
                except ConfigError:
                    continue
                exchange = self.call(spec["op"], path, body)
                first = first or exchange
                wanted.extend(f for f in required_fields(exchange) if f not in wanted)
                if self.accepted(exchange, self.v.get(spec.get("shows", "")), spec, path):
                    if again:
                        return exchange
                    self.found.setdefault("bodies", {})[key] = template
                    self.proven.add(key)
                    notes = ["" if template in templates else "named by the server's refusal",
                             f"with {', '.join(anchor)}" if anchor else "",
                             "" if not anchored or anchor else "without an anchor",
                             "" if given is None or template == given else
                             f"the profile's {_flow(given)} answered {said(first)}"]
                    note = "; ".join(n for n in notes if n)
                    self.findings.append(Finding(f"bodies.{key}",
                                                 KEPT if template == given else FOUND,
                                                 template, note))
                    return exchange
        if not again:
            self.not_found(f"bodies.{key}", first, given is not None)
        return None

    def call(self, number: int, path: dict[str, str], body: Any) -> Exchange:
        return self.api.call(number, path_params=path, json=body)

    def accepted(self, exchange: Exchange, shows: Any = None, spec: Any = None,
                 path: dict[str, str] | None = None) -> bool:
        """A 2xx; where the data says so, the value sent shows in the answer (or the Card)."""
        if not 200 <= (exchange.status or 0) < 300:
            return False
        try:
            answer = exchange.json() if exchange.content else None
        except AssertionError:
            return False
        if spec and spec.get("shows_in_card") and path:
            card = self.api.call(16, path_params=path, json={"name": unique("card")})
            value = self.v[spec["shows_in_card"]]
            return card.status == 200 and mentions(card.json(), value)
        return shows is None or mentions(answer, str(shows))

    def not_found(self, key: str, first: Exchange | None, given: bool = True) -> None:
        """Nothing accepted; what the server said to the first try (the profile's value)."""
        what = "the profile's value" if given else "the first candidate"
        self.findings.append(Finding(key, NOT_FOUND, None,
                                     f"nothing tried was accepted; {what} answered "
                                     f"{said(first)}" if first else "nothing tried"))

    def skip(self, key: str, why: str) -> None:
        key = key if key in OTHER_KEYS or key.startswith("bodies.") else f"bodies.{key}"
        self.findings.append(Finding(key, NOT_TRIED, None, why))

    def stopped(self, why: str) -> None:
        done = {f.key.removeprefix("bodies.") for f in self.findings}
        for key in ORDER:
            if key not in done:
                self.skip(key, why)

    def result(self) -> Profile:
        unfound = {f.key: f"discovery: {f.outcome}: {f.note}" for f in self.findings
                   if f.outcome in (NOT_FOUND, NOT_TRIED)}
        return replace(self.profile, data=self.found, proven=frozenset(self.proven),
                       unfound=unfound)


def _and_then(items: list[Any], more: Any) -> Any:
    """The items, then (once they are spent) those `more()` gives."""
    yield from list(items)
    yield from more()


def _learned(tried: list[Any], wanted: list[str], again: bool,
             stated: Sequence[str] = ()) -> list[Any]:
    """A body named by the server itself: the fields its refusals said are required, carrying
    the values of the first template in order (a missing `metaKey` and `metaValue` after
    `{key, value}` gives `{metaKey: "{key}", metaValue: "{value}"}`); a property the interface
    states (`stated`) stays as the first template has it, beside them, never renamed."""
    if again or not wanted or not tried:
        return []
    kept = {k: v for k, v in tried[0].items() if k in stated}
    fields = [f for f in wanted if f not in kept]
    values = [v for k, v in tried[0].items() if k not in kept] or list(tried[0].values()) \
        or ["{name}"]
    body = kept | {f: values[min(i, len(values) - 1)] for i, f in enumerate(fields)}
    return [] if not fields or body in tried else [body]


def unique(label: str) -> str:
    return f"bc-{label}-{uuid.uuid4().hex[:10]}"


def _flow(value: Any) -> str:
    return yaml.safe_dump(value, default_flow_style=True, width=200).strip()
