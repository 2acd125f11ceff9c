"""Plugins are attached to and removed from a project (ops 23, 24); a plugin stores data per
entity under a key (ops 25-27).

Plugin records and plugin data answers have no shown shape, so the suite asks only whether the
plugin id or the stored value is mentioned anywhere in them (`boardcert.http.api.mentions`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from boardcert.conformance import (
    Api,
    Entry,
    Exchange,
    Ledger,
    Made,
    NotAssessed,
    Oracle,
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
@together.owned("make_project")
def project(make_project) -> Callable[[], Made]:
    """A project of the test's own."""
    return make_project


@pytest.fixture(scope="module")
def cards(make_project, make_row, make_column, make_card) -> list[Made]:
    """Three cards, each an entity for plugin data."""
    project = make_project()
    column = make_column(project, make_row(project))
    return [make_card(project, column) for _ in range(3)]


@pytest.fixture
@together.owned("make_project")
def projects(make_project) -> Callable[[], list[Made]]:
    """Three projects of the test's own."""
    return lambda: [make_project() for _ in range(3)]


def watched(api, plugins: Plugins, projects: list[Made], attach: bool = False) -> Oracle:
    """The oracle of three projects and the profile's plugin (attached to each first when
    `attach`), read once."""
    oracle = Oracle(api)
    for project in projects:
        oracle.board.create_project(project.id, project.name)
        oracle.board.watch_plugin(project.id, plugins.plugin_id)
        if attach:
            attached(plugins, project)
            oracle.board.attach_plugin(project.id, plugins.plugin_id)
    oracle.baseline()
    return oracle


def stored_data(api, plugins: Plugins, cards: list[Made]) -> tuple[Oracle, list[str]]:
    """Three keys stored for the middle entity, the second of them for the others too (each
    its own value), every datum read after each put (five writes, five readings at most):
    the oracle and the keys."""
    keys = [unique("key") for _ in range(3)]
    oracle = Oracle(api)
    for card, key in [(cards[1], k) for k in keys] + [(cards[0], keys[1]), (cards[2], keys[1])]:
        value = unique("value")
        exchange = plugins.put(card, key, value)
        if exchange.status != 200:
            raise NotAssessed(f"set-up (storing plugin data by operation 25 answered "
                              f"{exchange.status})")
        oracle.check(oracle.board.put_data(plugins.plugin_id, plugins.entity_id(card), key,
                                           value), exchange, confirm=False, last=False)
    return oracle, keys


def attached(plugins: Plugins, project: Made) -> Exchange:
    exchange = plugins.attach(project)
    if exchange.status != 200:
        raise unattached(plugins, exchange)
    return exchange


def unattached(plugins: Plugins, exchange: Exchange) -> NotAssessed:
    """An op 23 that did not answer 200: the server may not know the profile's plugin id."""
    return NotAssessed(f"set-up (attaching plugin_id {plugins.plugin_id!r} by operation 23 "
                       f"answered {exchange.status})")


def stored(plugins: Plugins, card: Made, value: str | None = None,
           key: str | None = None) -> tuple[str, str]:
    key, value = key or unique("key"), value or unique("value")
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
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=23)
def test_attached_plugin_shows_in_the_project(api, plugins, projects):
    """After operation 23 on the middle of three projects the plugin id appears in the plugins
    it answers and in that Project's; the other two projects' plugins are as they were."""
    oracle, middle = watched(api, plugins, projects), projects[1]
    if oracle.board.projects[middle.id].plugins[plugins.plugin_id] is True:
        raise NotAssessed("PLUGIN-ATTACH (a new project's plugins already mention the plugin "
                          "id, so its attachment cannot be seen)")
    exchange = plugins.attach(middle)
    if exchange.status != 200:  # not held against PLUGIN-ATTACH; the rest of the board is
        raise oracle.besides(unattached(plugins, exchange),
                             lambda board: board.attach_plugin(middle.id, plugins.plugin_id))
    answer = exchange.json()
    if not mentions(answer.get("plugins") if isinstance(answer, dict) else None,
                    plugins.plugin_id):
        expect.fail("PLUGIN-ATTACH", f"the plugins answered by operation 23 to mention "
                    f"{plugins.plugin_id!r}", exchange, got="plugins without it")
    oracle.check(oracle.board.attach_plugin(middle.id, plugins.plugin_id), exchange, middle.id)


@pytest.mark.requirement("PLUGIN-REMOVE", op=[24, 3])
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=24)
def test_removed_plugin_is_gone_from_the_project(api, plugins, projects):
    """After operation 24 on the middle of three projects that have the plugin (each seen
    there first) the plugin id no longer appears in its Project's plugins; the other two
    still have it."""
    oracle, middle = watched(api, plugins, projects, attach=True), projects[1]
    exchange = plugins.remove(middle)
    act, _ = expect.written(oracle, exchange, 24, "PLUGIN-REMOVE",
                            lambda board: board.remove_plugin(middle.id, plugins.plugin_id),
                            body=False)
    oracle.check(act, exchange, middle.id)


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


@pytest.mark.requirement("PLUGIN-DATA-ROUND-TRIP")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=25)
def test_value_stored_again_reads_back_alone(api, plugins, cards):
    """A new value stored by operation 25 under the second of an entity's three keys (a key
    the other entities have too) is answered by operation 27 there, and every other key of
    every entity still answers its own value."""
    oracle, keys = stored_data(api, plugins, cards)
    value = unique("value")
    exchange = plugins.put(cards[1], keys[1], value)
    act, _ = expect.written(oracle, exchange, 25, "PLUGIN-DATA-ROUND-TRIP",
                            lambda board: board.put_data(plugins.plugin_id,
                                                         plugins.entity_id(cards[1]), keys[1],
                                                         value))
    oracle.check(act)


@pytest.mark.requirement("PLUGIN-DATA-DELETE")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=26)
def test_deleted_value_is_gone(api, plugins, cards):
    """After operation 26 on the second of an entity's three keys (each read back first)
    operation 27 answers a 4xx or no value there; its other keys, and the same key of the
    other entities, still answer their values."""
    oracle, keys = stored_data(api, plugins, cards)
    deleted = plugins.delete(cards[1], keys[1])
    act, _ = expect.written(oracle, deleted, 26, "PLUGIN-DATA-DELETE",
                            lambda board: board.delete_data(plugins.plugin_id,
                                                            plugins.entity_id(cards[1]),
                                                            keys[1]), body=False)
    oracle.check(act)
