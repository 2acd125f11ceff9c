"""The fault catalogue: realistic implementation bugs, each breaking one named requirement.

Every fault wraps the reference server in one handler (see asgi.py); the server's own code is
never touched. Names say the bug; the requirement is the one the suite must report as failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from boardcert.workbench.checks import PROJECT_FIELDS

from .addressed import ADDRESSED
from .asgi import Forward, Handler, Request, Response, json_response
from .dropped import DROPPED
from .earned import FAULTS as EARNED
from .edges import EDGES
from .edits import (
    CARD_OPS,
    LISTED_OPS,
    PROJECT_OPS,
    acts_then_401,
    at,
    drop,
    edit_answers,
    edit_requests,
    error,
    former,
    get,
    named,
    on,
    read_card,
    read_project,
    refuse,
    send,
    without,
)
from .moments import FAULTS as MOMENTS
from .overlooked import OVERLOOKED
from .siblings import SIBLINGS
from .unlisted import UNLISTED
from .variant import Variant, fault, keyed_fault

NAME_MAX = 25000

# --- Project and the other response shapes -------------------------------------------------


def _wrapped(body: Any) -> Any:
    return {"project": body}


def _missing_project_field(name: str) -> Variant:
    return fault(f"project-missing-{name}", "PROJECT-TOP-LEVEL",
                 f"the Project serializer forgets {name!r}",
                 edit_answers(PROJECT_OPS, without(name)))


def _half_wrapped(body: Any) -> Any:
    """Only id and name stay at the top level; the rest moved under "project"."""
    return {"id": body["id"], "name": body["name"],
            "project": {k: v for k, v in body.items() if k not in ("id", "name")}}


def _rows_other_key(body: Any) -> Any:
    return {"items": body["rows"]}


def _stale_rows() -> Handler:
    """Op 6 answers from a cache filled by its first call per project (never invalidated)."""
    cache: dict[str, Response] = {}

    async def fn(request: Request, forward: Forward) -> Response:
        project_id = request.params["projectId"]
        if project_id not in cache:
            cache[project_id] = await forward(request)
        return cache[project_id]
    return on(6, fn)


def _access_tokens(body: Any) -> Any:
    body.setdefault("user", {})["accessTokens"] = [{"id": "t1", "token": "legacy"}]
    return body


def _access_token(body: Any) -> Any:
    return {**body, "accessToken": body["userToken"]}


def _token_renamed(body: Any) -> Any:
    return {"token": body.pop("userToken"), **body}


SHAPES = [
    fault("project-wrapped", "PROJECT-NOT-WRAPPED",
          "Project answers keep the pre-2024-05-19 shape {\"project\": {...}}",
          edit_answers(PROJECT_OPS, _wrapped)),
    fault("project-half-wrapped", "PROJECT-NOT-WRAPPED",
          "Project answers keep id and name at the top level and the rest under \"project\"",
          edit_answers(PROJECT_OPS, _half_wrapped)),
    *[_missing_project_field(name) for name in PROJECT_FIELDS],
    fault("rows-bare-list", "ROWS-PROPERTY-REQUIRED", "op 6 answers the bare list of rows",
          edit_answers(6, lambda body: body["rows"])),
    fault("rows-other-key", "ROWS-PROPERTY-REQUIRED", "op 6 answers {\"items\": [...]}",
          edit_answers(6, _rows_other_key)),
    fault("rows-stale-cache", "ROWS-LIST-CREATED",
          "op 6 answers from a per-project cache that creating a row does not invalidate",
          _stale_rows()),
    fault("users-me-access-tokens", "USERS-ME-NO-ACCESS-TOKENS",
          "the user record of /users/me still carries accessTokens",
          edit_answers(1, _access_tokens)),
    fault("users-me-no-current-project", "USERS-ME-PROPERTIES",
          "/users/me leaves out currentProject", edit_answers(1, without("currentProject"))),
    fault("exchange-access-token", "EXCHANGE-NO-ACCESS-TOKEN",
          "exchange-code still answers accessToken beside userToken",
          edit_answers(28, _access_token)),
    fault("exchange-no-user-token", "EXCHANGE-USER-TOKEN",
          "exchange-code answers the token as 'token', not userToken",
          edit_answers(28, _token_renamed)),
    fault("exchange-user-token-null", "EXCHANGE-USER-TOKEN",
          "exchange-code answers userToken: null (a token that was never minted)",
          edit_answers(28, lambda body: {**body, "userToken": None})),
    fault("plugins-property-missing", "PLUGINS-PROPERTY",
          "plugin removal answers {\"removed\": id} instead of an object with plugins",
          edit_answers(24, lambda body: {"removed": True})),
]

# --- Card fields ------------------------------------------------------------------------------


def _card_edit(edit_card: Any) -> Handler:
    def edit(body: Any) -> Any:
        if isinstance(body, dict) and "createdFlair" in body:
            edit_card(body)
        return body
    return edit_answers(CARD_OPS, edit)


def _json_decoded_metadata(card: dict[str, Any]) -> None:
    """Metadata values stored in a JSON column and decoded on the way out: "7" becomes 7."""
    for entry in card["metadata"]:
        with contextlib.suppress(ValueError):
            entry["value"] = json.loads(entry["value"])


def _set(key: str, value: Any) -> Any:
    return lambda card: card.__setitem__(key, value)


def _columns_without_name(card: dict[str, Any]) -> None:
    card["columns"] = [{"id": column["id"]} for column in card["columns"]]


def _integer_id(card: dict[str, Any]) -> None:
    card["id"] = int(card["id"])


CARDS = [
    fault("card-flair-missing", "CARD-URL-FLAIR", "Card answers lack createdFlair",
          _card_edit(lambda card: card.pop("createdFlair"))),
    fault("card-without-plugins-projects", "CARD-PLUGINS-PROJECTS",
          "Card answers lack the plugins and projects properties",
          _card_edit(lambda card: [card.pop("plugins"), card.pop("projects")])),
    fault("card-url-null", "CARD-FIELD-TYPES", "Card answers carry url: null",
          _card_edit(_set("url", None))),
    fault("card-metadata-value-number", "CARD-FIELD-TYPES",
          "metadata values that look like JSON numbers are answered as numbers",
          _card_edit(_json_decoded_metadata)),
    fault("card-column-without-name", "CARD-FIELD-TYPES",
          "the columns of a Card are answered as {id} without name",
          _card_edit(_columns_without_name)),
    fault("card-id-integer", "CARD-FIELD-TYPES", "the Card id is answered as a JSON integer",
          _card_edit(_integer_id)),
]

# --- The card name of operation 16 ------------------------------------------------------------


def _name_rule(rejects: Any) -> Handler:
    """Op 16 rejects a string name for which `rejects(name)` holds (a wrong length rule)."""
    async def fn(request: Request, forward: Forward) -> Response:
        body = request.json()
        name = body.get("name") if isinstance(body, dict) else None
        if isinstance(name, str) and rejects(name):
            return error(422, "name is too long")
        return await forward(request)
    return on(16, fn)


def _long_name(answer_status: int | None, accepts_up_to: int, answer_full: bool = False) -> Handler:
    """Op 16 stores a name of 25001..`accepts_up_to` characters cut to 25000, then answers
    200 (with the cut name, or the full one) or `answer_status`."""
    async def fn(request: Request, forward: Forward) -> Response:
        body = request.json()
        name = body.get("name") if isinstance(body, dict) else None
        if not isinstance(name, str) or not NAME_MAX < len(name) <= accepts_up_to:
            return await forward(request)
        response = await forward(request.but(json_body={**body, "name": name[:NAME_MAX]}))
        if response.status != 200:
            return response
        if answer_status is not None:
            return error(answer_status, "name must be at most 25000 characters")
        return json_response({**response.json(), "name": name}) if answer_full else response
    return on(16, fn)


async def _name_optional(request: Request, forward: Forward) -> Response:
    body = request.json()
    if isinstance(body, dict) and "name" not in body:
        project = await read_project(request, forward)
        card = named(project.json().get("cards"), request.params["cardId"]) \
            if project.status == 200 else None
        return json_response(card) if card else error(404, "no such card")
    return await forward(request)


def _number_name(body: dict[str, Any]) -> dict[str, Any]:
    name = body.get("name")
    if isinstance(name, int | float) and not isinstance(name, bool):
        body["name"] = str(name)
    return body


NAMES = [
    fault("name-limit-24999", "CARD-NAME-MAX-ACCEPTED",
          "op 16 rejects names longer than 24999 characters (off by one)",
          _name_rule(lambda name: len(name) > NAME_MAX - 1)),
    fault("name-limit-25001", "CARD-NAME-MAX-REJECTED",
          "op 16 accepts 25001 characters (off by one, `<=` for `<`)",
          _long_name(None, NAME_MAX + 1, answer_full=True)),
    fault("name-limit-bytes", "CARD-NAME-MAX-MULTIBYTE",
          "op 16 counts the limit in UTF-8 bytes",
          _name_rule(lambda name: len(name.encode()) > NAME_MAX)),
    fault("name-limit-utf16", "CARD-NAME-MAX-ASTRAL",
          "op 16 counts the limit in UTF-16 code units (emoji count twice)",
          _name_rule(lambda name: len(name.encode("utf-16-le")) // 2 > NAME_MAX)),
    fault("name-truncated-200", "CARD-NAME-MAX-REJECTED",
          "op 16 cuts a longer name to 25000 characters and answers 200",
          _long_name(None, 10**9)),
    fault("name-truncated-422", "REJECTED-CHANGES-NOTHING",
          "op 16 answers 422 to 25001 characters but has already stored the name cut to 25000",
          _long_name(422, 10**9)),
    fault("name-optional", "CARD-NAME-REQUIRED",
          "op 16 without name answers 200 with the unchanged card", on(16, _name_optional)),
    fault("name-number-coerced", "CARD-NAME-STRING",
          "op 16 turns a number name into a string and accepts it",
          edit_requests(16, _number_name)),
]

# --- Removed paths (section 9) ----------------------------------------------------------------


def _reroute(method: str, path_of: Any, default_body: Any = None) -> Any:
    """Serve a former path by sending the request on to the current operation."""
    async def fn(request: Request, forward: Forward) -> Response:
        body = request.json() or default_body
        parts = request.path.strip("/").split("/")
        return await forward(send(request, method, path_of(parts), body))
    return fn


def _acts_then(status: int, method: str, path_of: Any) -> Any:
    """Do what the former path did (through the current operation), then answer `status`."""
    async def fn(request: Request, forward: Forward) -> Response:
        parts = request.path.strip("/").split("/")
        await forward(send(request, method, path_of(parts)))
        return error(status, f"{request.method} {request.path} is no longer served")
    return fn


async def _old_project_rename(request: Request, forward: Forward) -> Response:
    body = request.json() if isinstance(request.json(), dict) else {}
    project_id = body.get("id") or body.get("projectId")
    if not project_id:
        return error(422, "id is required")
    return await forward(send(request, "PATCH", f"/projects/{project_id}/rename",
                              {"name": body.get("name", "renamed")}))


async def _old_exchange_code(request: Request, forward: Forward) -> Response:
    return json_response({"accessToken": "legacy-token", "userToken": "legacy-token"})


async def _old_move(request: Request, forward: Forward) -> Response:
    return json_response({"id": request.path.rsplit("/", 1)[-1], "moved": True})


REMOVED = [
    fault("removed-row-path-creates", "REMOVED-PATH-NOT-SERVED",
          "POST /projects/{id}/row still creates a row",
          at("POST", former("projects/*/row"),
             _reroute("POST", lambda p: f"/projects/{p[1]}/rows", {"name": "row"}))),
    fault("removed-column-path-creates", "REMOVED-PATH-NOT-SERVED",
          "POST /projects/{id}/rows/{rowId}/column still creates a column",
          at("POST", former("projects/*/rows/*/column"),
             _reroute("POST", lambda p: f"/projects/{p[1]}/rows/{p[3]}/columns",
                      {"name": "column"}))),
    fault("removed-card-path-creates", "REMOVED-PATH-NOT-SERVED",
          "POST /projects/{id}/columns/{columnId}/card still creates a card",
          at("POST", former("projects/*/columns/*/card"),
             _reroute("POST", lambda p: f"/projects/{p[1]}/columns/{p[3]}/cards",
                      {"name": "card"}))),
    fault("removed-project-rename", "REMOVED-PATH-NOT-SERVED",
          "PATCH /projects (body id and name) still renames the project",
          at("PATCH", former("projects"), _old_project_rename)),
    fault("removed-exchange-code", "REMOVED-PATH-NOT-SERVED",
          "POST /exchange-code still answers a token", at("POST", former("exchange-code"),
                                                          _old_exchange_code)),
    fault("removed-move-path", "REMOVED-PATH-NOT-SERVED",
          "PATCH /card/{cardId} still answers 200", at("PATCH", former("card/*"), _old_move)),
    fault("removed-card-archive-acts", "REMOVED-PATH-NO-EFFECT",
          "PATCH .../cards/{cardId}/archive answers 404 but deletes the card first",
          at("PATCH", former("projects/*/cards/*/archive"),
             _acts_then(404, "DELETE", lambda p: f"/projects/{p[1]}/cards/{p[3]}"))),
    fault("removed-row-archive-acts", "REMOVED-PATH-NO-EFFECT",
          "PATCH or DELETE .../rows/{rowId}/archive answers 404 but deletes the row first",
          at("PATCH|DELETE", former("projects/*/rows/*/archive"),
             _acts_then(404, "DELETE", lambda p: f"/projects/{p[1]}/rows/{p[3]}"))),
    fault("removed-column-archive-acts", "REMOVED-PATH-NO-EFFECT",
          "PATCH or DELETE .../columns/{columnId}/archive answers 405 but deletes the column",
          at("PATCH|DELETE", former("projects/*/columns/*/archive"),
             _acts_then(405, "DELETE", lambda p: f"/projects/{p[1]}/columns/{p[3]}"))),
]

# --- Authentication (section 5) ---------------------------------------------------------------


def _key_fix(ops: set[int], needs_fixing: Any) -> Any:
    """Requests to `ops` whose key `needs_fixing(given)` are let through with the valid key."""
    def make(key: str) -> Handler:
        async def fn(request: Request, forward: Forward) -> Response:
            given = request.headers.get("x-api-key")
            if given != key and needs_fixing(given):
                request = request.but(headers={**request.headers, "x-api-key": key})
            return await forward(request)
        return on(ops, fn)
    return make


def _bearer_only(key: str) -> Handler:
    """The key is read from Authorization: Bearer only; X-API-Key is ignored."""
    async def handler(request: Request, forward: Forward) -> Response:
        headers = {k: v for k, v in request.headers.items() if k != "x-api-key"}
        if headers.get("authorization") == f"Bearer {key}":
            headers["x-api-key"] = key
        return await forward(request.but(headers=headers))
    return handler


def _open(op: int, what: str) -> Variant:
    return keyed_fault(f"auth-open-op{op}", "AUTH-KEY-REQUIRED",
                       f"op {op} ({what}) forgets the key check", _key_fix({op}, lambda g: True))


AUTH = [
    _open(1, "GET /users/me"),
    _open(4, "DELETE a project"),
    _open(11, "POST a column"),
    _open(16, "PATCH a card"),
    keyed_fault("auth-any-key", "AUTH-KEY-REQUIRED", "any non-empty X-API-Key is accepted",
                _key_fix(LISTED_OPS, lambda given: bool(given))),
    keyed_fault("auth-empty-key", "AUTH-KEY-REQUIRED", "an empty X-API-Key is accepted",
                _key_fix(LISTED_OPS, lambda given: given == "")),
    keyed_fault("auth-acts-then-401", "AUTH-REJECTED-CHANGES-NOTHING",
                "a request with a missing or wrong key is carried out, then answered 401",
                acts_then_401(LISTED_OPS - {1, 3})),
    keyed_fault("auth-bearer-only", "AUTH-VALID-KEY-ACCEPTED",
                "the key is only read from Authorization: Bearer, so X-API-Key is refused",
                _bearer_only),
]

# --- Statuses, deletes and the records they answer ----------------------------------------


def _status(op: int, status: int, empty: bool = False) -> Handler:
    async def fn(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if response.status != 200:
            return response
        return Response(status, b"", {}) if empty else Response(status, response.body,
                                                                 response.headers)
    return on(op, fn)


_card_kept = read_card  # the Card as it is, nothing done


def _record_kept(param: str) -> Any:
    """Ops 9/14 answer the Project as if the row/column were gone, but keep it."""
    async def fn(request: Request, forward: Forward) -> Response:
        project = await read_project(request, forward)
        if project.status != 200:
            return project
        body, record_id = project.json(), request.params[param]
        if not named(body["rows"], record_id):
            return error(404, f"no such {param}")
        return json_response(drop(body, record_id))
    return fn


async def _project_kept(request: Request, forward: Forward) -> Response:
    project = await read_project(request, forward)
    if project.status != 200:
        return project
    return json_response({"id": request.params["projectId"], "deleted": True})


def _acknowledged(op: int) -> Handler:
    return edit_answers(op, lambda body: {"deleted": True})


STATUSES_AND_DELETES = [
    fault("create-project-201", "SUCCESS-STATUS-200", "op 2 answers 201 Created",
          _status(2, 201)),
    fault("alias-201", "SUCCESS-STATUS-200", "op 20 answers 201 Created", _status(20, 201)),
    fault("delete-project-204", "SUCCESS-STATUS-200", "op 4 answers 204 No Content",
          _status(4, 204, empty=True)),
    fault("card-delete-keeps-card", "CARD-DELETE-GONE",
          "op 17 answers the Card but does not delete it", on(17, _card_kept)),
    fault("row-delete-keeps-row", "ROW-DELETE-GONE",
          "op 9 answers the Project without the row but does not delete it",
          on(9, _record_kept("rowId"))),
    fault("column-delete-keeps-column", "COLUMN-DELETE-GONE",
          "op 14 answers the Project without the column but does not delete it",
          on(14, _record_kept("columnId"))),
    fault("project-delete-keeps-project", "PROJECT-DELETE",
          "op 4 answers 200 but does not delete the project", on(4, _project_kept)),
    fault("row-delete-answers-ack", "ROW-DELETE-RETURNS-PROJECT",
          "op 9 deletes, then answers {\"deleted\": true} instead of the Project",
          _acknowledged(9)),
    fault("column-delete-answers-ack", "COLUMN-DELETE-RETURNS-PROJECT",
          "op 14 deletes, then answers {\"deleted\": true} instead of the Project",
          _acknowledged(14)),
    fault("card-delete-answers-ack", "CARD-DELETE-RETURNS-CARD",
          "op 17 deletes, then answers {\"deleted\": true} instead of the Card",
          _acknowledged(17)),
]

# --- Moves, metadata, renames and orders ------------------------------------------------------


def _drop_keys(*keys: str) -> Any:
    def edit(body: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in body.items() if k not in keys}
    return edit


async def _anchors_rejected(request: Request, forward: Forward) -> Response:
    body = request.json()
    if isinstance(body, dict) and {"afterCardId", "beforeCardId"} & set(body):
        return error(422, "unknown field")
    return await forward(request)


async def _body_rejected(request: Request, forward: Forward) -> Response:
    if request.body.strip():
        return error(400, "a DELETE request must not have a body")
    return await forward(request)


async def _metadata_not_stored(request: Request, forward: Forward) -> Response:
    return await _card_kept(request, forward)


async def _metadata_kept(request: Request, forward: Forward) -> Response:
    response = await _card_kept(request, forward)
    card, key = response.json(), request.params["key"]
    if response.status != 200 or not any(e["id"] == key for e in card["metadata"]):
        return response if response.status != 200 else error(404, "no such metadata")
    return json_response({**card, "metadata": [e for e in card["metadata"] if e["id"] != key]})


def _undone(op: int, old_body: Any, path: Any) -> Handler:
    """Op `op` is validated and carried out, then silently undone; the undo's answer is sent.

    `old_body(project, request)` gives the body that restores the state before the request."""
    async def fn(request: Request, forward: Forward) -> Response:
        before = await read_project(request, forward)
        response = await forward(request)
        if response.status != 200 or before.status != 200:
            return response
        return await forward(send(request, request.method, path(request),
                                  old_body(before.json(), request)))
    return on(op, fn)


def _old_name(param: str) -> Any:
    def body(project: dict[str, Any], request: Request) -> dict[str, str]:
        if param == "projectId":
            return {"name": project["name"]}
        items = project["cards"] if param == "cardId" else project["rows"]
        return {"name": named(items, request.params[param])["name"]}
    return body


def _old_row_order(project: dict[str, Any], request: Request) -> dict[str, list[str]]:
    return {"ids": [row["id"] for row in project["rows"]]}


def _old_column_order(project: dict[str, Any], request: Request) -> dict[str, list[str]]:
    row = named(project["rows"], request.params["rowId"])
    return {"ids": [column["id"] for column in row["columns"]]}


def _same_path(request: Request) -> str:
    return request.path


CARD_WORK = [
    fault("move-ignores-after", "CARD-MOVE-PLACES", "op 18 ignores afterCardId",
          edit_requests(18, _drop_keys("afterCardId"))),
    fault("move-ignores-before", "CARD-MOVE-PLACES", "op 18 ignores beforeCardId",
          edit_requests(18, _drop_keys("beforeCardId"))),
    fault("move-by-metadata-ignores-anchor", "CARD-MOVE-BY-METADATA-PLACES",
          "op 19 ignores afterCardId and beforeCardId",
          edit_requests(19, _drop_keys("afterCardId", "beforeCardId"))),
    fault("move-rejects-anchors", "CARD-MOVE-ORDERING-ACCEPTED",
          "op 18 rejects afterCardId and beforeCardId as unknown fields",
          on(18, _anchors_rejected)),
    fault("alias-not-routed", "CARD-ALIAS", "op 20 is not routed (404)",
          on(20, refuse(404, "not found"))),
    fault("metadata-remove-rejects-body", "CARD-METADATA-REMOVE-BODY",
          "op 22 answers 400 to a DELETE that carries a body", on(22, _body_rejected)),
    fault("metadata-add-not-stored", "CARD-METADATA-ADD",
          "op 21 answers the Card but does not store the entry", on(21, _metadata_not_stored)),
    fault("metadata-remove-keeps-entry", "CARD-METADATA-REMOVE",
          "op 22 answers the Card without the entry but does not remove it",
          on(22, _metadata_kept)),
    fault("card-rename-not-saved", "CARD-RENAME",
          "op 16 validates the new name but does not save it",
          _undone(16, _old_name("cardId"), _same_path)),
    fault("project-rename-not-saved", "PROJECT-RENAME",
          "op 5 validates the new name but does not save it",
          _undone(5, _old_name("projectId"), _same_path)),
    fault("row-rename-not-saved", "ROW-RENAME",
          "op 10 validates the new name but does not save it",
          _undone(10, _old_name("rowId"), _same_path)),
    fault("column-rename-not-saved", "COLUMN-RENAME",
          "op 13 validates the new name but does not save it",
          _undone(13, _old_name("columnId"), _same_path)),
    fault("row-order-not-saved", "ROW-ORDER", "op 8 validates the order but does not save it",
          _undone(8, _old_row_order, _same_path)),
    fault("column-order-not-saved", "COLUMN-ORDER",
          "op 12 validates the order but does not save it",
          _undone(12, _old_column_order, _same_path)),
]

# --- Plugins and plugin data ------------------------------------------------------------------


async def _plugin_not_attached(request: Request, forward: Forward) -> Response:
    return await read_project(request, forward)


async def _plugin_kept(request: Request, forward: Forward) -> Response:
    project = await read_project(request, forward)
    if project.status != 200:
        return project
    body, plugin_id = project.json(), request.params["pluginId"]
    plugins = [p for p in body["plugins"] if p.get("id") != plugin_id]
    if len(plugins) == len(body["plugins"]):
        return error(404, "plugin not attached")
    return json_response({**body, "plugins": plugins})


async def _data_not_stored(request: Request, forward: Forward) -> Response:
    body = request.json()
    if not isinstance(body, dict) or "value" not in body:
        return error(422, "value is required")
    return json_response({**request.params, "value": body["value"]})


async def _data_kept(request: Request, forward: Forward) -> Response:
    p = request.params
    found = await forward(get(request, f"/plugins/{p['pluginId']}/data/{p['key']}",
                              f"entityId={p['entityId']}"))
    return json_response({**p, "deleted": True}) if found.status == 200 else found


PLUGINS = [
    fault("plugin-attach-not-stored", "PLUGIN-ATTACH",
          "op 23 answers the Project but does not attach the plugin",
          on(23, _plugin_not_attached)),
    fault("plugin-remove-keeps-plugin", "PLUGIN-REMOVE",
          "op 24 answers the Project without the plugin but keeps it attached",
          on(24, _plugin_kept)),
    fault("plugin-data-not-stored", "PLUGIN-DATA-ROUND-TRIP",
          "op 25 echoes the value but does not store it", on(25, _data_not_stored)),
    fault("plugin-data-delete-keeps-value", "PLUGIN-DATA-DELETE",
          "op 26 answers 200 but does not delete the value", on(26, _data_kept)),
    fault("plugin-data-delete-missing", "OPERATION-IMPLEMENTED",
          "op 26 is not routed (405)",
          on(26, refuse(405, "method not allowed"))),
]

# --- Errors and creation ----------------------------------------------------------------------


async def _malformed_500(request: Request, forward: Forward) -> Response:
    if request.body.strip() and request.json() is None and request.body.strip() != b"null":
        return Response(500, b"Internal Server Error", {"content-type": "text/plain"})
    return await forward(request)


async def _wrong_type_500(request: Request, forward: Forward) -> Response:
    """A 500 to a JSON body whose name is not a string; NaN and Infinity are not JSON at all
    (the reference rejects them as malformed), so they are forwarded."""
    body = request.json()
    if isinstance(body, dict) and "name" in body and not isinstance(body["name"], str) \
            and "NaN" not in request.body.decode("utf-8", "replace") \
            and "Infinity" not in request.body.decode("utf-8", "replace"):
        return Response(500, b"TypeError: object of type int has no len()",
                        {"content-type": "text/plain"})
    return await forward(request)


async def _creates_before_validating(request: Request, forward: Forward) -> Response:
    response = await forward(request)
    if 400 <= response.status < 500:
        await forward(request.but(json_body={"name": "untitled"}))
    return response


async def _text_plain(request: Request, forward: Forward) -> Response:
    response = await forward(request)
    return Response(response.status, response.body, {"content-type": "text/plain"})


async def _unlabelled(request: Request, forward: Forward) -> Response:
    response = await forward(request)
    return Response(response.status, response.body, {})


async def _python_repr(request: Request, forward: Forward) -> Response:
    response = await forward(request)
    if response.status != 200:
        return response
    return Response(200, repr(response.json()).encode(), {"content-type": "application/json"})


def _answers_text(text: str, content_type: str = "text/plain") -> Any:
    """The operation is carried out, and its 200 answer is `text`, not JSON."""
    async def fn(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if response.status != 200:
            return response
        return Response(200, text.encode(), {"content-type": content_type})
    return fn


ERRORS_AND_CREATION = [
    fault("malformed-json-500", "REJECT-MALFORMED-JSON",
          "a body that is not JSON crashes the server (500)", _malformed_500),
    fault("project-rename-wrong-type-500", "NO-SERVER-ERROR",
          "op 5 answers 500 to a name that is not a string", on(5, _wrong_type_500)),
    fault("card-create-wrong-type-500", "NO-SERVER-ERROR",
          "op 15 answers 500 to a card name that is not a string", on(15, _wrong_type_500)),
    fault("card-rename-wrong-type-500", "NO-SERVER-ERROR",
          "op 16 answers 500 to a card name that is not a string", on(16, _wrong_type_500)),
    fault("card-create-rejected-but-created", "REJECTED-CHANGES-NOTHING",
          "op 15 creates an 'untitled' card before it validates the body, then answers 4xx",
          on(15, _creates_before_validating)),
    fault("project-text-plain", "JSON-MEDIA-TYPE",
          "op 3 serves its JSON as text/plain", on(3, _text_plain)),
    fault("card-create-no-content-type", "JSON-MEDIA-TYPE",
          "op 15 answers its JSON Card with no Content-Type header", on(15, _unlabelled)),
    fault("card-rename-answers-repr", "JSON-RESPONSES",
          "op 16 answers the Card as Python's repr (single quotes), labelled application/json",
          on(16, _python_repr)),
    fault("metadata-add-answers-text", "JSON-RESPONSES",
          "op 21 (response not shown) answers the plain text 'metadata saved'",
          on(21, _answers_text("metadata saved"))),
    fault("plugin-data-put-answers-html", "JSON-RESPONSES",
          "op 25 (response not shown) answers an HTML page", on(25, _answers_text(
              "<html><body>stored</body></html>", "text/html"))),
    fault("project-create-ignores-name", "PROJECT-CREATE",
          "op 2 names every project 'Untitled project'",
          edit_requests(2, lambda body: {**body, "name": "Untitled project"})),
    fault("card-create-without-column", "CARD-CREATE",
          "op 15 answers the new Card with an empty columns list",
          edit_answers(15, lambda card: {**card, "columns": []})),
    fault("row-name-title-only", "ROW-NAME-PROPERTY",
          "op 7 takes the row name as 'title' and rejects name and rowName",
          edit_requests(7, lambda body: {"name": body["title"]} if "title" in body
                        else {"bad": 1})),
]

FAULTS: list[Variant] = [*SHAPES, *CARDS, *NAMES, *REMOVED, *AUTH, *STATUSES_AND_DELETES,
                         *CARD_WORK, *PLUGINS, *ERRORS_AND_CREATION, *EDGES, *EARNED, *MOMENTS,
                         *SIBLINGS, *OVERLOOKED, *ADDRESSED, *DROPPED,
                         *UNLISTED]


# --- Not a fault of a requirement: a server that copes badly with requests side by side -----


def _one_at_a_time(_key: str) -> Handler:
    """A server that answers 503 to a request while it is busy with another."""
    busy = [0]

    async def handler(request: Request, forward: Forward) -> Response:
        if busy[0]:
            return error(503, "busy: one request at a time")
        busy[0] += 1
        try:
            await asyncio.sleep(0.001)
            return await forward(request)
        finally:
            busy[0] -= 1
    return handler


# Not in FAULTS: one request at a time it is the reference (tests of --in-flight use it).
ONE_AT_A_TIME = Variant("one-at-a-time", "503 to a request while another is answered", None,
                        _one_at_a_time)
