"""Plugins are attached to and removed from a project (ops 23, 24); a plugin stores data per
entity under a key (ops 25-27).

Plugin records and plugin data answers have no shown shape, so the suite asks only whether the
plugin id or the stored value is mentioned anywhere in them (`boardcert.http.api.mentions`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from boardcert.for_suites import (
    Api,
    Entry,
    Exchange,
    Ledger,
    Made,
    NotAssessed,
    Profile,
    expect,
    fill,
    mentions,
    together,
    unique,
)


@dataclass
class Plugins:
    """The calls of this module, with the profile's plugin id, entity ids and bodies."""

    api: Api
    profile: Profile
    ledger: Ledger

    @property
    def plugin_id(self) -> str:
        return self.profile.get("plugin_id")

    def entity_id(self, card: Made) -> str:
        ids = card.entry.params
        values = {"card_id": card.id, "project_id": ids["projectId"],
                  "plugin_id": self.plugin_id}
        return fill(self.profile.get("entity_id"), values, "entity_id")

    def project(self, project: Made) -> tuple[Exchange, Any]:
        """A fresh operation 3 and its plugins property."""
        exchange = self.api.call(3, projectId=project.id)
        body = expect.success(exchange, 3)
        if not isinstance(body, dict) or "plugins" not in body:
            raise NotAssessed("the Project's plugins (operation 3 answered no plugins property)")
        return exchange, body["plugins"]

    def attach(self, project: Made) -> Exchange:
        body = self.api.body("attach_plugin", plugin_id=self.plugin_id, project_id=project.id)
        exchange = self.api.call(23, projectId=project.id, pluginId=self.plugin_id, json=body)
        if exchange.status == 200:
            self.ledger.created("plugin", project.entry, projectId=project.id,
                                pluginId=self.plugin_id)
        return exchange

    def remove(self, project: Made) -> Exchange:
        exchange = self.api.call(24, projectId=project.id, pluginId=self.plugin_id)
        if exchange.status == 200:
            for entry in self._entries("plugin", projectId=project.id):
                self.ledger.forget(entry)
        return exchange

    def put(self, card: Made, key: str, value: str) -> Exchange:
        entity_id = self.entity_id(card)
        body = self.api.body("put_plugin_data", value=value, key=key, plugin_id=self.plugin_id,
                             entity_id=entity_id, card_id=card.id)
        path = {"pluginId": self.plugin_id, "entityId": entity_id, "key": key}
        exchange = self.api.call(25, path_params=path, json=body)
        if exchange.status == 200:
            self.ledger.created("plugin_data", **path)
        return exchange

    def read(self, card: Made, key: str) -> Exchange:
        params, headers = self.api.plugin_data_location(self.entity_id(card))
        return self.api.call(27, path_params={"pluginId": self.plugin_id, "key": key},
                             params=params, headers=headers)

    def delete(self, card: Made, key: str) -> Exchange:
        path = {"pluginId": self.plugin_id, "entityId": self.entity_id(card), "key": key}
        exchange = self.api.call(26, path_params=path)
        if exchange.status == 200:
            for entry in self._entries("plugin_data", **path):
                self.ledger.forget(entry)
        return exchange

    def _entries(self, kind: str, **params: str) -> list[Entry]:
        return [e for e in self.ledger.entries if e.kind == kind and not e.deleted
                and all(e.params.get(k) == v for k, v in params.items())]


@pytest.fixture(scope="module")
def plugins(api, profile, ledger) -> Plugins:
    return Plugins(api, profile, ledger)


@pytest.fixture
def project(make_project, request) -> Made:
    return together.own(request, make_project)


@pytest.fixture(scope="module")
def cards(make_project, make_row, make_column, make_card) -> list[Made]:
    """Two cards, each an entity for plugin data."""
    project = make_project()
    column = make_column(project, make_row(project))
    return [make_card(project, column), make_card(project, column)]


def attached(plugins: Plugins, project: Made) -> Exchange:
    exchange = plugins.attach(project)
    if exchange.status != 200:
        raise NotAssessed(f"set-up (attaching plugin_id {plugins.plugin_id!r} by operation 23 "
                          f"answered {exchange.status})")
    return exchange


def stored(plugins: Plugins, card: Made, value: str | None = None) -> tuple[str, str]:
    key, value = unique("key"), value or unique("value")
    exchange = plugins.put(card, key, value)
    if exchange.status != 200:
        raise NotAssessed(f"set-up (storing plugin data by operation 25 answered "
                          f"{exchange.status})")
    return key, value


# --- PLUGINS-PROPERTY ----------------------------------------------------------------------

@pytest.mark.requirement("PLUGINS-PROPERTY", op=23)
def test_attach_answers_plugins(plugins, project):
    """Operation 23 answers an object with a plugins property."""
    expect.shaped(plugins.attach(project), 23)


@pytest.mark.requirement("PLUGINS-PROPERTY", op=24)
def test_remove_answers_plugins(plugins, project):
    """Operation 24 answers an object with a plugins property."""
    attached(plugins, project)
    expect.shaped(plugins.remove(project), 24)


# --- PLUGIN-ATTACH and PLUGIN-REMOVE -------------------------------------------------------

@pytest.mark.requirement("PLUGIN-ATTACH", op=[23, 3])
def test_attached_plugin_shows_in_the_project(plugins, project):
    """After operation 23 the plugin id appears in the plugins it answers and in the Project's."""
    _, before = plugins.project(project)
    if mentions(before, plugins.plugin_id):
        raise NotAssessed("PLUGIN-ATTACH (a new project's plugins already mention the plugin "
                          "id, so its attachment cannot be seen)")
    exchange = attached(plugins, project)
    answer = exchange.json()
    if not mentions(answer.get("plugins") if isinstance(answer, dict) else None,
                    plugins.plugin_id):
        expect.fail("PLUGIN-ATTACH", f"the plugins answered by operation 23 to mention "
                    f"{plugins.plugin_id!r}", exchange, got="plugins without it")
    read, after = plugins.project(project)
    if not mentions(after, plugins.plugin_id):
        expect.fail("PLUGIN-ATTACH", f"the Project's plugins (fresh operation 3) to mention "
                    f"{plugins.plugin_id!r}", read, got=f"plugins {after!r}")


@pytest.mark.requirement("PLUGIN-REMOVE", op=[24, 3])
def test_removed_plugin_is_gone_from_the_project(plugins, project):
    """After operation 24 the plugin id no longer appears in the Project's plugins."""
    _, before = plugins.project(project)
    attached(plugins, project)
    exchange = plugins.remove(project)
    if exchange.status != 200:
        expect.fail("PLUGIN-REMOVE", "status 200 from operation 24", exchange)
    read, after = plugins.project(project)
    if after != before and mentions(after, plugins.plugin_id):
        expect.fail("PLUGIN-REMOVE", f"the Project's plugins (fresh operation 3) not to "
                    f"mention {plugins.plugin_id!r} (they were {before!r} before it was "
                    f"attached)", read, got=f"plugins {after!r}")


# --- PLUGIN-DATA-ROUND-TRIP and PLUGIN-DATA-DELETE -----------------------------------------

@pytest.mark.requirement("PLUGIN-DATA-ROUND-TRIP")
def test_stored_value_reads_back(plugins, cards):
    """A value stored by operation 25 under a key is answered by operation 27."""
    key, value = stored(plugins, cards[0])
    exchange = plugins.read(cards[0], key)
    body = expect.success(exchange, 27, "PLUGIN-DATA-ROUND-TRIP")
    if not mentions(body, value):
        expect.fail("PLUGIN-DATA-ROUND-TRIP", f"operation 27 to answer the stored value "
                    f"{value!r}", exchange, got="an answer without it")


@pytest.mark.requirement("PLUGIN-DATA-ROUND-TRIP")
def test_data_is_kept_per_entity(plugins, cards):
    """Values stored under one key for two entities each read back for their own entity."""
    if plugins.entity_id(cards[0]) == plugins.entity_id(cards[1]):
        raise NotAssessed("entity_id (the profile's template gives two cards the same entity)")
    key, first = stored(plugins, cards[0])
    second = unique("value")
    exchange = plugins.put(cards[1], key, second)
    if exchange.status != 200:
        raise NotAssessed(f"set-up (storing plugin data by operation 25 answered "
                          f"{exchange.status})")
    for card, own, other in ((cards[0], first, second), (cards[1], second, first)):
        read = plugins.read(card, key)
        body = expect.success(read, 27, "PLUGIN-DATA-ROUND-TRIP")
        if not mentions(body, own) or mentions(body, other):
            expect.fail("PLUGIN-DATA-ROUND-TRIP", f"operation 27 for entity "
                        f"{plugins.entity_id(card)!r} to answer its own value {own!r} and not "
                        f"the other entity's {other!r}", read, got="another answer")


@pytest.mark.requirement("PLUGIN-DATA-DELETE")
def test_deleted_value_is_gone(plugins, cards):
    """After operation 26 operation 27 no longer answers the value."""
    key, value = stored(plugins, cards[0])
    deleted = plugins.delete(cards[0], key)
    if deleted.status != 200:
        expect.fail("PLUGIN-DATA-DELETE", "status 200 from operation 26", deleted)
    exchange = plugins.read(cards[0], key)
    status = exchange.status or 0
    if 400 <= status < 500:
        return
    if status != 200 or (exchange.content and mentions(exchange.json(), value)):
        expect.fail("PLUGIN-DATA-DELETE", f"a 4xx, or a 200 without the value {value!r}, "
                    f"from operation 27 after operation 26", exchange)
