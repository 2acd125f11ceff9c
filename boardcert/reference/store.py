"""State and rules of the reference server, in memory: no HTTP here.

Every public method of `Store` takes values the caller has already typed (strings, lists of
strings), checks every rule before it changes anything, and answers a JSON-ready snapshot built
under the store's lock. Refusals raise `NotFound` or `Invalid`, both `StoreError`s.
"""

from __future__ import annotations

import itertools
import secrets
import threading
from collections.abc import Callable
from functools import wraps
from typing import Any, Concatenate, ParamSpec, TypeVar

from boardcert.reference.records import (
    JSON,
    Card,
    Column,
    Invalid,
    NotFound,
    Project,
    Row,
    StoreError,
    check_name,
    check_permutation,
    timestamp,
)

__all__ = ["EXCHANGE_CODES", "JSON", "PLUGIN_IDS", "Invalid", "NotFound", "Store", "StoreError"]

METADATA_KEY_MAX = 1000
METADATA_VALUE_MAX = 25000
PLUGIN_IDS = ("boardcert",)
EXCHANGE_CODES = ("boardcert-code",)

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _locked(method: Callable[Concatenate[Store, _P], _R]) -> Callable[Concatenate[Store, _P], _R]:
    @wraps(method)
    def guarded(self: Store, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self._lock:
            self._used = None
            answer = method(self, *args, **kwargs)
            if self._used is not None:  # only a request that succeeded makes a project current
                self._current_project = self._used
            return answer

    return guarded


class Store:
    """One organization, one user, their projects and the plugins' data, behind one lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._organization = {"id": self._new_id(), "name": "Boardcert Org"}
        self._user = {"id": self._new_id(), "name": "Boardcert User"}
        self._projects: dict[str, Project] = {}
        self._current_project: str | None = None
        self._used: str | None = None  # the project the running request addressed
        self._plugin_data: dict[tuple[str, str, str], Any] = {}

    def _new_id(self) -> str:
        return str(next(self._ids))

    def _project(self, project_id: str) -> Project:
        """The project, to become the current one (the last created or used) on success."""
        try:
            project = self._projects[project_id]
        except KeyError:
            raise NotFound(f"no project {project_id!r}") from None
        self._used = project_id
        return project

    @staticmethod
    def _plugin(plugin_id: str) -> str:
        if plugin_id not in PLUGIN_IDS:
            raise NotFound(f"no plugin {plugin_id!r}")
        return plugin_id

    @staticmethod
    def _changed(project: Project) -> JSON:
        project.updated_at = timestamp()
        return project.view()

    # --- users and projects (ops 1-5) ----------------------------------------------------

    @_locked
    def me(self) -> JSON:
        current = self._projects.get(self._current_project or "")
        return {
            "currentOrganization": dict(self._organization),
            "currentProject": current.view() if current else None,
            "organizations": [dict(self._organization)],
            "user": dict(self._user),
        }

    @_locked
    def create_project(self, organization_id: str, name: str) -> JSON:
        if organization_id != self._organization["id"]:
            raise NotFound(f"no organization {organization_id!r}")
        check_name(name, "project")
        now = timestamp()
        project = Project(id=self._new_id(), name=name, created_at=now, updated_at=now)
        self._projects[project.id] = project
        self._used = project.id
        return project.view()

    @_locked
    def get_project(self, project_id: str) -> JSON:
        return self._project(project_id).view()

    @_locked
    def delete_project(self, project_id: str) -> JSON:
        project = self._project(project_id)
        del self._projects[project.id]
        self._used = None
        if self._current_project == project.id:
            self._current_project = None
        return {"id": project.id, "deleted": True}

    @_locked
    def rename_project(self, project_id: str, name: str) -> JSON:
        project = self._project(project_id)
        check_name(name, "project")
        project.name = name
        return self._changed(project)

    # --- rows (ops 6-10) -----------------------------------------------------------------

    @_locked
    def list_rows(self, project_id: str) -> JSON:
        return {"rows": self._project(project_id).rows_view()}

    @_locked
    def create_row(self, project_id: str, name: str) -> JSON:
        project = self._project(project_id)
        check_name(name, "row")
        project.rows.append(Row(id=self._new_id(), name=name))
        return self._changed(project)

    @_locked
    def order_rows(self, project_id: str, ids: list[str]) -> JSON:
        project = self._project(project_id)
        check_permutation(ids, [row.id for row in project.rows], "row")
        project.rows = [project.row(row_id) for row_id in ids]
        return self._changed(project)

    @_locked
    def delete_row(self, project_id: str, row_id: str) -> JSON:
        project = self._project(project_id)
        row = project.row(row_id)
        project.rows.remove(row)
        project.drop_columns({column.id for column in row.columns})
        return self._changed(project)

    @_locked
    def rename_row(self, project_id: str, row_id: str, name: str) -> JSON:
        project = self._project(project_id)
        row = project.row(row_id)
        check_name(name, "row")
        row.name = name
        return self._changed(project)

    # --- columns (ops 11-14) -------------------------------------------------------------

    @_locked
    def create_column(self, project_id: str, row_id: str, name: str) -> JSON:
        project = self._project(project_id)
        row = project.row(row_id)
        check_name(name, "column")
        row.columns.append(Column(id=self._new_id(), name=name))
        return self._changed(project)

    @_locked
    def order_columns(self, project_id: str, row_id: str, ids: list[str]) -> JSON:
        project = self._project(project_id)
        row = project.row(row_id)
        by_id = {column.id: column for column in row.columns}
        check_permutation(ids, list(by_id), "column")
        row.columns = [by_id[column_id] for column_id in ids]
        return self._changed(project)

    @_locked
    def rename_column(self, project_id: str, column_id: str, name: str) -> JSON:
        project = self._project(project_id)
        _, column = project.column(column_id)
        check_name(name, "column")
        column.name = name
        return self._changed(project)

    @_locked
    def delete_column(self, project_id: str, column_id: str) -> JSON:
        project = self._project(project_id)
        row, column = project.column(column_id)
        row.columns.remove(column)
        project.drop_columns({column.id})
        return self._changed(project)

    # --- cards (ops 15-20) ---------------------------------------------------------------

    @_locked
    def create_card(self, project_id: str, column_id: str, name: str) -> JSON:
        project = self._project(project_id)
        project.column(column_id)
        check_name(name, "card")
        card_id = self._new_id()
        card = Card(
            id=card_id,
            name=name,
            url=f"/projects/{project.id}/cards/{card_id}",
            column_ids=[column_id],
        )
        project.cards[card_id] = card
        project.order.append(card_id)
        project.updated_at = timestamp()
        return project.card_view(card)

    @_locked
    def rename_card(self, project_id: str, card_id: str, name: str) -> JSON:
        project = self._project(project_id)
        card = project.card(card_id)
        check_name(name, "card")
        card.name = name
        project.updated_at = timestamp()
        return project.card_view(card)

    @_locked
    def delete_card(self, project_id: str, card_id: str) -> JSON:
        project = self._project(project_id)
        card = project.card(card_id)
        answer = project.card_view(card)
        del project.cards[card_id]
        project.order.remove(card_id)
        project.updated_at = timestamp()
        return answer

    @_locked
    def move_cards(
        self,
        project_id: str,
        ids: list[str],
        after_card_id: str | None = None,
        before_card_id: str | None = None,
        column_id: str | None = None,
    ) -> JSON:
        project = self._project(project_id)
        if not ids:
            raise Invalid("ids must name at least one card", "no_cards")
        if len(set(ids)) != len(ids):
            raise Invalid("ids must not repeat a card", "duplicate_ids")
        for card_id in ids:
            project.card(card_id)
        return self._move(project, ids, after_card_id, before_card_id, column_id)

    @_locked
    def move_cards_by_metadata(
        self,
        project_id: str,
        key: str,
        value: str | None = None,
        after_card_id: str | None = None,
        before_card_id: str | None = None,
        column_id: str | None = None,
    ) -> JSON:
        project = self._project(project_id)
        ids = [
            card_id
            for card_id in project.order
            if key in project.cards[card_id].metadata
            and (value is None or project.cards[card_id].metadata[key] == value)
        ]
        if not ids:
            raise NotFound(f"no card of project {project.id!r} has metadata {key!r}")
        return self._move(project, ids, after_card_id, before_card_id, column_id)

    def _move(
        self,
        project: Project,
        ids: list[str],
        after_card_id: str | None,
        before_card_id: str | None,
        column_id: str | None,
    ) -> JSON:
        """Put the cards `ids` right after / before the anchor, optionally into a column."""
        for anchor in (after_card_id, before_card_id):
            if anchor is not None:
                project.card(anchor)
                if anchor in ids:
                    raise Invalid("an anchor card cannot be one of the moved cards", "bad_anchor")
        if column_id is not None:
            project.column(column_id)
        moving = set(ids)
        rest = [card_id for card_id in project.order if card_id not in moving]
        # afterCardId decides when both are given; beforeCardId then only has to be valid.
        if after_card_id is not None:
            at: int | None = rest.index(after_card_id) + 1
        else:
            at = None if before_card_id is None else rest.index(before_card_id)
        if at is not None:
            project.order = rest[:at] + ids + rest[at:]
        if column_id is not None:
            for card_id in ids:
                project.cards[card_id].column_ids = [column_id]
        project.updated_at = timestamp()
        return project.card_view(project.cards[ids[0]])

    @_locked
    def alias_card(self, project_id: str, card_id: str, column_id: str) -> JSON:
        project = self._project(project_id)
        card = project.card(card_id)
        project.column(column_id)
        if column_id not in card.column_ids:
            card.column_ids.append(column_id)
        project.updated_at = timestamp()
        return project.card_view(card)

    # --- card metadata (ops 21-22) -------------------------------------------------------

    @_locked
    def set_card_metadata(self, project_id: str, card_id: str, key: str, value: str) -> JSON:
        project = self._project(project_id)
        card = project.card(card_id)
        if not 1 <= len(key) <= METADATA_KEY_MAX or "/" in key:
            raise Invalid(
                f"key must be 1 to {METADATA_KEY_MAX} characters without '/'", "invalid_key"
            )
        if len(value) > METADATA_VALUE_MAX:
            raise Invalid(f"value must be at most {METADATA_VALUE_MAX} characters", "invalid_value")
        card.metadata[key] = value
        project.updated_at = timestamp()
        return project.card_view(card)

    @_locked
    def delete_card_metadata(self, project_id: str, card_id: str, key: str) -> JSON:
        project = self._project(project_id)
        card = project.card(card_id)
        if key not in card.metadata:
            raise NotFound(f"card {card_id!r} has no metadata {key!r}")
        del card.metadata[key]
        project.updated_at = timestamp()
        return project.card_view(card)

    # --- plugins (ops 23-28) -------------------------------------------------------------

    @_locked
    def attach_plugin(self, project_id: str, plugin_id: str) -> JSON:
        project = self._project(project_id)
        self._plugin(plugin_id)
        if plugin_id not in project.plugins:
            project.plugins.append(plugin_id)
        return self._changed(project)

    @_locked
    def detach_plugin(self, project_id: str, plugin_id: str) -> JSON:
        project = self._project(project_id)
        if plugin_id not in project.plugins:
            raise NotFound(f"plugin {plugin_id!r} is not attached to project {project.id!r}")
        project.plugins.remove(plugin_id)
        return self._changed(project)

    @_locked
    def put_plugin_data(self, plugin_id: str, entity_id: str, key: str, value: Any) -> JSON:
        self._plugin(plugin_id)
        self._plugin_data[(plugin_id, entity_id, key)] = value
        return {"pluginId": plugin_id, "entityId": entity_id, "key": key, "value": value}

    @_locked
    def get_plugin_data(self, plugin_id: str, entity_id: str, key: str) -> JSON:
        self._plugin(plugin_id)
        try:
            value = self._plugin_data[(plugin_id, entity_id, key)]
        except KeyError:
            raise NotFound(f"no data {key!r} for entity {entity_id!r}") from None
        return {"pluginId": plugin_id, "entityId": entity_id, "key": key, "value": value}

    @_locked
    def delete_plugin_data(self, plugin_id: str, entity_id: str, key: str) -> JSON:
        self._plugin(plugin_id)
        if self._plugin_data.pop((plugin_id, entity_id, key), _MISSING) is _MISSING:
            raise NotFound(f"no data {key!r} for entity {entity_id!r}")
        return {"pluginId": plugin_id, "entityId": entity_id, "key": key, "deleted": True}

    @_locked
    def exchange_code(self, plugin_id: str, entity_id: str, code: str) -> JSON:
        self._plugin(plugin_id)
        if code not in EXCHANGE_CODES:
            raise Invalid("the code is not one this server issued", "invalid_code")
        return {"userToken": secrets.token_urlsafe(24)}


_MISSING = object()
