"""A second Board Project Service server, written from interface.md alone, on FastAPI.

Where the interface is silent it chooses differently from boardcert's reference server (see
README.md beside this file): FastAPI's 422 errors, 422 for a missing key and 404 for a wrong
one, UUID ids, epoch-millisecond timestamps, embedded organization records, anchors required
on moves, and request bodies of its own naming. Everything lives in memory behind one lock.
"""

from __future__ import annotations

import json
import math
import secrets
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, FastAPI, Header, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, StrictBool, StrictStr

NAME_LIMIT = 25000
PLUGINS = {"time-tracker": "Time tracker", "calendar": "Calendar", "github": "GitHub"}
EXCHANGE_CODES = {"indep-code"}


def now() -> int:
    """Epoch milliseconds: this server's timestamp form."""
    return time.time_ns() // 1_000_000


def new_id() -> str:
    return str(uuid.uuid4())


# --- the records ---------------------------------------------------------------------------

@dataclass
class Named:
    name: str
    id: str = field(default_factory=new_id)
    created: int = field(default_factory=now)
    updated: int = 0

    def __post_init__(self) -> None:
        self.updated = self.created

    def touch(self) -> None:
        self.updated = max(now(), self.updated)

    def stamp(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "createdAt": self.created,
                "updatedAt": self.updated}


@dataclass
class Column(Named):
    pass


@dataclass
class Row(Named):
    columns: list[Column] = field(default_factory=list)


@dataclass
class Entry:
    key: str
    value: str
    id: str = field(default_factory=new_id)


@dataclass
class Card(Named):
    column_ids: list[str] = field(default_factory=list)  # its own column first, then aliases
    aliases: list[str] = field(default_factory=list)
    metadata: list[Entry] = field(default_factory=list)
    flair: str = "fresh"


@dataclass
class Project(Named):
    organization: Named | None = None
    rows: list[Row] = field(default_factory=list)
    cards: list[Card] = field(default_factory=list)  # in board order
    plugins: dict[str, int] = field(default_factory=dict)  # plugin id -> attached at

    def column(self, column_id: str) -> tuple[Row, Column] | None:
        for row in self.rows:
            for column in row.columns:
                if column.id == column_id:
                    return row, column
        return None

    def card(self, card_id: str) -> Card:
        for card in self.cards:
            if card.id == card_id:
                return card
        raise HTTPException(404, f"card {card_id} not found")


class Store:
    """All state of one server, guarded by one lock (handlers run in a thread pool)."""

    def __init__(self, api_key: str) -> None:
        self.api_key = api_key
        self.lock = threading.RLock()
        self.organization = Named("Independent organization")
        self.projects: dict[str, Project] = {}
        self.current: str | None = None
        self.plugin_data: dict[tuple[str, str, str], Any] = {}

    def project(self, project_id: str) -> Project:
        project = self.projects.get(project_id)
        if project is None:
            raise HTTPException(404, f"project {project_id} not found")
        return project


# --- what the server answers ---------------------------------------------------------------

def project_summary(project: Project) -> dict[str, Any]:
    assert project.organization is not None
    return {**project.stamp(), "organization": project.organization.stamp()}


def plugin_records(project: Project) -> list[dict[str, Any]]:
    return [{"id": p, "name": PLUGINS[p], "attachedAt": at} for p, at in project.plugins.items()]


def card_view(project: Project, card: Card) -> dict[str, Any]:
    columns = [c for c in (project.column(i) for i in card.column_ids) if c is not None]
    return {
        **card.stamp(),
        "url": f"https://board.invalid/projects/{project.id}/cards/{card.id}",
        "createdFlair": card.flair,
        "columns": [{"id": column.id, "name": column.name} for _, column in columns],
        "metadata": [{"id": e.id, "key": e.key, "value": e.value} for e in card.metadata],
        "aliases": list(card.aliases),
        "plugins": plugin_records(project),
        "projects": [project_summary(project)],
    }


def project_view(project: Project) -> dict[str, Any]:
    rows = [{**row.stamp(), "columns": [
        {**column.stamp(), "cardIds": [c.id for c in project.cards if column.id in c.column_ids]}
        for column in row.columns]} for row in project.rows]
    return {
        **project_summary(project),
        "organizationId": project.organization.id if project.organization else None,
        "rows": rows,
        "cards": [card_view(project, card) for card in project.cards],
        "plugins": plugin_records(project),
    }


# --- request bodies (the interface shows only ops 7, 16, 18 and 19) -------------------------

class CreateProject(BaseModel):
    projectName: StrictStr


class Rename(BaseModel):
    newName: StrictStr


class CreateRow(BaseModel):
    rowName: StrictStr


class OrderRows(BaseModel):
    rowIds: list[StrictStr]


class CreateColumn(BaseModel):
    columnName: StrictStr


class OrderColumns(BaseModel):
    columnIds: list[StrictStr]


class CreateCard(BaseModel):
    cardName: StrictStr


class RenameCard(BaseModel):
    name: Annotated[StrictStr, Field(max_length=NAME_LIMIT)]


class Anchored(BaseModel):
    afterCardId: StrictStr | None = None
    beforeCardId: StrictStr | None = None


class MoveCards(Anchored):
    ids: Annotated[list[StrictStr], Field(min_length=1)]


class MoveByMetadata(Anchored):
    metaKey: StrictStr
    metaValue: StrictStr


class Alias(BaseModel):
    name: StrictStr


class AddMetadata(BaseModel):
    metaKey: StrictStr
    metaValue: StrictStr


class RemoveMetadata(BaseModel):
    confirm: StrictBool | None = None


class PluginSettings(BaseModel):
    settings: dict[str, Any] | None = None


class PluginData(BaseModel):
    data: Any


class ExchangeCode(BaseModel):
    oneTimeCode: StrictStr


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"{text} is out of range")
    return number


def _refuse_constant(text: str) -> None:
    raise ValueError(f"{text} is not JSON")


async def strict_json(request: Request) -> None:
    """Python's parser takes NaN, Infinity and 1e400; JSON has none of them: 422."""
    body = await request.body()
    if not body.strip():
        return
    try:
        json.loads(body, parse_constant=_refuse_constant, parse_float=_finite)
    except (ValueError, RecursionError) as exc:
        raise HTTPException(422, [{"loc": ["body"], "msg": f"JSON decode error: {exc}"[:200],
                                   "type": "json_invalid"}]) from None


def unprocessable(field_name: str, message: str) -> HTTPException:
    """A 422 in FastAPI's own shape, for checks the models cannot express."""
    return HTTPException(422, [{"loc": ["body", field_name], "msg": message,
                                "type": "value_error"}])


# --- the application -----------------------------------------------------------------------

def create_app(api_key: str) -> FastAPI:
    """The server, demanding `api_key` in X-API-Key on operations 1-5, 7-13 and 15-19."""
    store = Store(api_key)
    app = FastAPI(title="independent board service", redirect_slashes=False,
                  dependencies=[Depends(strict_json)],
                  openapi_url=None, docs_url=None, redoc_url=None)

    def keyed(x_api_key: Annotated[str, Header()]) -> None:
        """A missing key fails validation (422); a wrong one hides what exists (404)."""
        if not secrets.compare_digest(x_api_key.encode(), store.api_key.encode()):
            raise HTTPException(404, "Not Found")

    locked = APIRouter(dependencies=[Depends(keyed)])
    open_ = APIRouter()
    _removed_paths(open_)
    _user_and_projects(locked, open_, store)
    _rows_and_columns(locked, open_, store)
    _cards(locked, open_, store)
    _plugins(open_, store)
    app.include_router(locked)
    app.include_router(open_)

    @app.exception_handler(RecursionError)
    def too_deep(request: Request, exc: RecursionError) -> JSONResponse:
        return JSONResponse({"detail": [{"loc": ["body"], "msg": "JSON nested too deeply",
                                         "type": "value_error"}]}, status_code=422)

    return app


def _removed_paths(router: APIRouter) -> None:
    """The former paths of section 9 answer 405 to every method, before any other route."""
    former = ["/card/{cardId}", "/cards/move-by-metadata",
              "/projects/{projectId}/cards/{cardId}/archive",
              "/projects/{projectId}/columns/{columnId}/archive",
              "/projects/{projectId}/rows/{rowId}/archive",
              "/projects/{projectId}/columns/{columnId}/card", "/projects/{projectId}/row",
              "/projects/{projectId}/rows/{rowId}/column", "/projects",
              "/projects/{projectId}/columns/{columnId}/cards/{cardId}/alias", "/exchange-code"]
    methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]

    def gone() -> JSONResponse:
        return JSONResponse({"detail": "Method Not Allowed"}, status_code=405,
                            headers={"Allow": ""})

    for path in former:
        router.add_api_route(path, gone, methods=methods, include_in_schema=False)


def _user_and_projects(locked: APIRouter, open_: APIRouter, store: Store) -> None:
    @locked.get("/users/me")
    def users_me() -> dict[str, Any]:  # op 1
        with store.lock:
            current = store.projects.get(store.current or "")
            organization = store.organization.stamp()
            return {"user": {"id": "00000000-0000-4000-8000-000000000001", "name": "Key holder",
                             "email": "key.holder@board.invalid"},
                    "currentOrganization": organization,
                    "currentProject": project_summary(current) if current else None,
                    "organizations": [organization]}

    @locked.post("/organizations/{organizationId}/projects")
    def create_project(organizationId: str,  # noqa: N803 (the interface's name)
                       body: Annotated[CreateProject | None, Body()] = None) -> dict[str, Any]:
        with store.lock:  # op 2: no body at all makes an untitled project
            if organizationId != store.organization.id:
                raise HTTPException(404, f"organization {organizationId} not found")
            project = Project(body.projectName if body else "Untitled project",
                              organization=store.organization)
            store.projects[project.id] = project
            store.current = project.id
            return project_view(project)

    @locked.get("/projects/{projectId}")
    def read_project(projectId: str) -> dict[str, Any]:  # noqa: N803 (op 3)
        with store.lock:
            return project_view(store.project(projectId))

    @locked.delete("/projects/{projectId}")
    def delete_project(projectId: str) -> dict[str, Any]:  # noqa: N803 (op 4)
        with store.lock:
            project = store.projects.pop(store.project(projectId).id)
            if store.current == project.id:
                store.current = None
            return {"deleted": True, "project": project_summary(project)}

    @locked.patch("/projects/{projectId}/rename")
    def rename_project(projectId: str, body: Rename) -> dict[str, Any]:  # noqa: N803 (op 5)
        with store.lock:
            project = store.project(projectId)
            project.name = body.newName
            project.touch()
            return project_view(project)


def _rows_and_columns(locked: APIRouter, open_: APIRouter, store: Store) -> None:
    def row_of(project: Project, row_id: str) -> Row:
        for row in project.rows:
            if row.id == row_id:
                return row
        raise HTTPException(404, f"row {row_id} not found")

    def reordered(items: list[Any], ids: list[str], what: str) -> list[Any]:
        by_id = {item.id: item for item in items}
        if len(set(ids)) != len(ids) or any(i not in by_id for i in ids):
            raise unprocessable(what, f"must list distinct {what} of this record")
        return [by_id[i] for i in ids] + [item for item in items if item.id not in set(ids)]

    @open_.get("/projects/{projectId}/rows")
    def list_rows(projectId: str) -> dict[str, Any]:  # noqa: N803 (op 6)
        with store.lock:
            return {"rows": project_view(store.project(projectId))["rows"]}

    @locked.post("/projects/{projectId}/rows")
    def create_row(projectId: str, body: CreateRow) -> dict[str, Any]:  # noqa: N803 (op 7)
        with store.lock:
            project = store.project(projectId)
            project.rows.append(Row(body.rowName))
            project.touch()
            return project_view(project)

    @locked.patch("/projects/{projectId}/order-rows")
    def order_rows(projectId: str, body: OrderRows) -> dict[str, Any]:  # noqa: N803 (op 8)
        with store.lock:
            project = store.project(projectId)
            project.rows = reordered(project.rows, body.rowIds, "rowIds")
            project.touch()
            return project_view(project)

    @locked.delete("/projects/{projectId}/rows/{rowId}")
    def delete_row(projectId: str, rowId: str) -> dict[str, Any]:  # noqa: N803 (op 9)
        with store.lock:
            project = store.project(projectId)
            row = row_of(project, rowId)
            project.rows.remove(row)
            _drop_columns(project, {c.id for c in row.columns})
            project.touch()
            return project_view(project)

    @locked.patch("/projects/{projectId}/rows/{rowId}/rename")
    def rename_row(projectId: str, rowId: str,  # noqa: N803 (op 10)
                   body: Rename) -> dict[str, Any]:
        with store.lock:
            project = store.project(projectId)
            row = row_of(project, rowId)
            row.name = body.newName
            row.touch()
            project.touch()
            return project_view(project)

    @locked.post("/projects/{projectId}/rows/{rowId}/columns")
    def create_column(projectId: str, rowId: str,  # noqa: N803 (op 11)
                      body: CreateColumn) -> dict[str, Any]:
        with store.lock:
            project = store.project(projectId)
            row_of(project, rowId).columns.append(Column(body.columnName))
            project.touch()
            return project_view(project)

    @locked.patch("/projects/{projectId}/rows/{rowId}/order-columns")
    def order_columns(projectId: str, rowId: str,  # noqa: N803 (op 12)
                      body: OrderColumns) -> dict[str, Any]:
        with store.lock:
            project = store.project(projectId)
            row = row_of(project, rowId)
            row.columns = reordered(row.columns, body.columnIds, "columnIds")
            project.touch()
            return project_view(project)

    @locked.patch("/projects/{projectId}/columns/{columnId}/rename")
    def rename_column(projectId: str, columnId: str,  # noqa: N803 (op 13)
                      body: Rename) -> dict[str, Any]:
        with store.lock:
            project = store.project(projectId)
            found = project.column(columnId)
            if found is None:
                raise HTTPException(404, f"column {columnId} not found")
            found[1].name = body.newName
            found[1].touch()
            project.touch()
            return project_view(project)

    @open_.delete("/projects/{projectId}/columns/{columnId}")
    def delete_column(projectId: str, columnId: str) -> dict[str, Any]:  # noqa: N803 (op 14)
        with store.lock:
            project = store.project(projectId)
            found = project.column(columnId)
            if found is None:
                raise HTTPException(404, f"column {columnId} not found")
            found[0].columns.remove(found[1])
            _drop_columns(project, {columnId})
            project.touch()
            return project_view(project)


def _drop_columns(project: Project, gone: set[str]) -> None:
    """Cards leave deleted columns; a card whose own column is gone goes with it."""
    project.cards = [c for c in project.cards if c.column_ids and c.column_ids[0] not in gone]
    for card in project.cards:
        card.column_ids = [i for i in card.column_ids if i not in gone]


def anchor_of(body: Anchored) -> str:
    """The card a move places its cards next to: one of the two is required."""
    anchor = body.afterCardId or body.beforeCardId
    if anchor is None:
        raise unprocessable("afterCardId", "afterCardId or beforeCardId is required")
    return anchor


def _cards(locked: APIRouter, open_: APIRouter, store: Store) -> None:
    def placed(project: Project, moved: list[Card], body: Anchored) -> None:
        """Moves `moved` next to the anchor the body names; one anchor is required."""
        anchor = project.card(anchor_of(body))
        if anchor in moved:
            raise unprocessable("afterCardId", "a card cannot be placed next to itself")
        rest = [c for c in project.cards if c not in moved]
        at = rest.index(anchor) + (1 if body.afterCardId else 0)
        project.cards = rest[:at] + moved + rest[at:]
        for card in moved:
            card.touch()
        project.touch()

    @locked.patch("/projects/{projectId}/cards/move")
    def move_cards(projectId: str, body: MoveCards) -> dict[str, Any]:  # noqa: N803 (op 18)
        with store.lock:
            project = store.project(projectId)
            moved = [project.card(i) for i in dict.fromkeys(body.ids)]
            placed(project, moved, body)
            return card_view(project, moved[0])

    @locked.patch("/projects/{projectId}/cards/move-by-metadata")
    def move_by_metadata(projectId: str,  # noqa: N803 (op 19)
                         body: MoveByMetadata) -> dict[str, Any]:
        with store.lock:
            project = store.project(projectId)
            moved = [c for c in project.cards
                     if any(e.key == body.metaKey and e.value == body.metaValue
                            for e in c.metadata)]
            if not moved:  # nothing carries it: nothing moves, the anchor card answers
                return card_view(project, project.card(anchor_of(body)))
            placed(project, moved, body)
            return card_view(project, moved[0])

    @locked.post("/projects/{projectId}/columns/{columnId}/cards")
    def create_card(projectId: str, columnId: str,  # noqa: N803 (op 15)
                    body: Annotated[CreateCard | None, Body()] = None) -> dict[str, Any]:
        with store.lock:  # no body at all makes an untitled card
            project = store.project(projectId)
            if project.column(columnId) is None:
                raise HTTPException(404, f"column {columnId} not found")
            card = Card(body.cardName if body else "Untitled card", column_ids=[columnId])
            project.cards.append(card)
            project.touch()
            return card_view(project, card)

    @locked.patch("/projects/{projectId}/cards/{cardId}")
    def rename_card(projectId: str, cardId: str,  # noqa: N803 (op 16)
                    body: RenameCard) -> dict[str, Any]:
        with store.lock:
            project = store.project(projectId)
            card = project.card(cardId)
            card.name = body.name
            card.touch()
            return card_view(project, card)

    @locked.delete("/projects/{projectId}/cards/{cardId}")
    def delete_card(projectId: str, cardId: str) -> dict[str, Any]:  # noqa: N803 (op 17)
        with store.lock:
            project = store.project(projectId)
            card = project.card(cardId)
            project.cards.remove(card)
            project.touch()
            return {**card_view(project, card), "deletedAt": now()}

    @open_.post("/projects/{projectId}/cards/{cardId}/alias")
    def alias_card(projectId: str, cardId: str,  # noqa: N803 (op 20)
                   body: Alias) -> dict[str, Any]:
        with store.lock:
            project = store.project(projectId)
            card = project.card(cardId)
            if body.name not in card.aliases:
                card.aliases.append(body.name)
            card.touch()
            return card_view(project, card)

    @open_.post("/projects/{projectId}/cards/{cardId}/metadata")
    def add_metadata(projectId: str, cardId: str,  # noqa: N803 (op 21)
                     body: AddMetadata) -> dict[str, Any]:
        with store.lock:
            project = store.project(projectId)
            card = project.card(cardId)
            for entry in card.metadata:
                if entry.key == body.metaKey:
                    entry.value = body.metaValue
                    break
            else:
                entry = Entry(body.metaKey, body.metaValue)
                card.metadata.append(entry)
            card.touch()
            return {"cardId": card.id, "entry": {"id": entry.id, "key": entry.key,
                                                 "value": entry.value}}

    @open_.delete("/projects/{projectId}/cards/{cardId}/metadata/{key}")
    def remove_metadata(projectId: str, cardId: str, key: str,  # noqa: N803 (op 22)
                        body: Annotated[RemoveMetadata | None, Body()] = None) -> dict[str, Any]:
        with store.lock:
            project = store.project(projectId)
            card = project.card(cardId)
            before = len(card.metadata)
            card.metadata = [e for e in card.metadata if e.key != key]
            card.touch()
            return {"cardId": card.id, "key": key, "removed": before - len(card.metadata)}


def _plugins(open_: APIRouter, store: Store) -> None:
    def known(plugin_id: str) -> str:
        if plugin_id not in PLUGINS:
            raise HTTPException(404, f"plugin {plugin_id} not found")
        return plugin_id

    @open_.post("/projects/{projectId}/plugins/{pluginId}")
    def attach_plugin(projectId: str, pluginId: str,  # noqa: N803 (op 23)
                      body: Annotated[PluginSettings | None, Body()] = None) -> dict[str, Any]:
        with store.lock:
            project = store.project(projectId)
            project.plugins.setdefault(known(pluginId), now())
            project.touch()
            return {"projectId": project.id, "plugins": plugin_records(project)}

    @open_.delete("/projects/{projectId}/plugins/{pluginId}")
    def detach_plugin(projectId: str, pluginId: str) -> dict[str, Any]:  # noqa: N803 (op 24)
        with store.lock:
            project = store.project(projectId)
            project.plugins.pop(known(pluginId), None)
            project.touch()
            return {"projectId": project.id, "plugins": plugin_records(project)}

    @open_.put("/plugins/{pluginId}/entities/{entityId}/data/{key}")
    def put_data(pluginId: str, entityId: str, key: str,  # noqa: N803 (op 25)
                 body: PluginData) -> dict[str, Any]:
        with store.lock:
            store.plugin_data[(known(pluginId), entityId, key)] = body.data
            return {"pluginId": pluginId, "entityId": entityId, "key": key, "data": body.data}

    @open_.delete("/plugins/{pluginId}/entities/{entityId}/data/{key}")
    def delete_data(pluginId: str, entityId: str, key: str) -> dict[str, Any]:  # noqa: N803
        with store.lock:  # op 26
            removed = store.plugin_data.pop((known(pluginId), entityId, key), None) is not None
            return {"pluginId": pluginId, "entityId": entityId, "key": key, "removed": removed}

    @open_.get("/plugins/{pluginId}/data/{key}")
    def read_data(pluginId: str, key: str,  # noqa: N803 (op 27: entityId is a header)
                  entity_id: Annotated[str, Header(alias="Entity-Id")]) -> dict[str, Any]:
        with store.lock:
            stored = (known(pluginId), entity_id, key)
            if stored not in store.plugin_data:
                raise HTTPException(404, f"no data under {key} for entity {entity_id}")
            return {"pluginId": pluginId, "entityId": entity_id, "key": key,
                    "data": store.plugin_data[stored]}

    @open_.post("/plugins/{pluginId}/entities/{entityId}/exchange-code")
    def exchange_code(pluginId: str, entityId: str,  # noqa: N803 (op 28)
                      body: ExchangeCode) -> dict[str, Any]:
        with store.lock:
            known(pluginId)
            if body.oneTimeCode not in EXCHANGE_CODES:
                raise unprocessable("oneTimeCode", "unknown code")
            return {"userToken": {"token": "ut_" + secrets.token_urlsafe(24),
                                  "entityId": entityId, "pluginId": pluginId,
                                  "expiresAt": now() + 3_600_000}}
