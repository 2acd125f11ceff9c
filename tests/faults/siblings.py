"""Faults where one case is treated unlike its siblings (issue 24's policy: at least two faults
per MUST and one per SHOULD): an operation unlike the others of its kind, a field left out when
its list is empty or kept empty when it was removed, the record next to the one asked for, the
last character, a PATCH that keeps what it is not given."""

from __future__ import annotations

from typing import Any

from .asgi import Forward, Handler, Request, Response, json_response
from .edges import without_empty
from .edits import (
    CARD_OPS,
    edit_answers,
    edit_requests,
    error,
    named,
    on,
    read_card,
    read_project,
    refuse,
    send,
)
from .variant import Variant, fault

LAST = 25000  # op 16's limit

# --- records answered: the wrong one, or one field short ------------------------------------


def _answers_record(param: str) -> Handler:
    """Ops 9 and 14 delete, then answer the deleted row (or the row that held the column)."""
    async def fn(request: Request, forward: Forward) -> Response:
        before = await read_project(request, forward)
        response = await forward(request)
        if response.status != 200 or before.status != 200:
            return response
        rows = before.json()["rows"]
        held = request.params[param]
        row = next((r for r in rows if r["id"] == held or named(r["columns"], held)), None)
        return json_response(row) if row else response
    return fn


async def _answers_next_card(request: Request, forward: Forward) -> Response:
    """Op 17 removes the card from the list, then answers the card now at its index."""
    before = await read_project(request, forward)
    response = await forward(request)
    if response.status != 200 or before.status != 200:
        return response
    cards = before.json()["cards"]
    at = next((i for i, c in enumerate(cards) if c["id"] == request.params["cardId"]), None)
    return json_response(cards[at + 1]) if at is not None and at + 1 < len(cards) else response


def _card_without(key: str, ops: set[int]) -> Handler:
    def edit(body: Any) -> Any:
        if isinstance(body, dict) and "createdFlair" in body:
            body.pop(key, None)
        return body
    return edit_answers(ops, edit)


def _card_empty_plugins_left_out(body: Any) -> Any:
    return without_empty("plugins")(body) if isinstance(body, dict) and "createdFlair" in body \
        else body


RECORDS = [
    fault("row-delete-answers-row", "ROW-DELETE-RETURNS-PROJECT",
          "op 9 deletes the row, then answers the deleted row record",
          on(9, _answers_record("rowId"))),
    fault("column-delete-answers-row", "COLUMN-DELETE-RETURNS-PROJECT",
          "op 14 deletes the column, then answers the row that held it",
          on(14, _answers_record("columnId"))),
    fault("card-delete-answers-next-card", "CARD-DELETE-RETURNS-CARD",
          "op 17 answers the card that followed the deleted one (index after removal)",
          on(17, _answers_next_card)),
    fault("card-rename-without-url", "CARD-URL-FLAIR",
          "op 16's Card (its own serializer) lacks url", _card_without("url", {16})),
    fault("card-plugins-omitted-when-empty", "CARD-PLUGINS-PROJECTS",
          "Card answers leave out plugins when the project has none (omit-empty)",
          edit_answers(CARD_OPS, _card_empty_plugins_left_out)),
    fault("plugins-omitted-when-empty", "PLUGINS-PROPERTY",
          "op 24 answers without plugins once the last plugin is removed (omit-empty)",
          edit_answers(24, without_empty("plugins"))),
]

# --- /users/me and exchange-code ----------------------------------------------------------------


def _one_organization_implied(body: Any) -> Any:
    if isinstance(body, dict) and len(body.get("organizations") or []) == 1:
        del body["organizations"]
    return body


USER_AND_TOKENS = [
    fault("users-me-single-organization-implied", "USERS-ME-PROPERTIES",
          "/users/me leaves out organizations when the user has just one (currentOrganization)",
          edit_answers(1, _one_organization_implied)),
    fault("users-me-empty-access-tokens", "USERS-ME-NO-ACCESS-TOKENS",
          "/users/me still carries the removed accessTokens, as an empty list",
          edit_answers(1, lambda body: {**body, "accessTokens": []})),
    fault("exchange-access-token-null", "EXCHANGE-NO-ACCESS-TOKEN",
          "exchange-code still answers the removed accessToken, as null",
          edit_answers(28, lambda body: {**body, "accessToken": None})),
]

# --- op 16's name: PATCH semantics, the last character -----------------------------------------


async def _kept_unless_named(request: Request, forward: Forward) -> Response:
    """PATCH merge: a body that is not empty but has no name (or name null) keeps the name."""
    body = request.json()
    if isinstance(body, dict) and body and body.get("name") is None:
        return await read_card(request, forward)
    return await forward(request)


async def _no_null_name(request: Request, forward: Forward) -> Response:
    body = request.json()
    if isinstance(body, dict) and "name" in body and body["name"] is None:
        return await read_card(request, forward)
    return await forward(request)


def _cut_to(length: int) -> Any:
    def edit(body: dict[str, Any]) -> dict[str, Any]:
        if isinstance(body.get("name"), str):
            body["name"] = body["name"][:length]
        return body
    return edit


NAMES = [
    fault("name-missing-keeps-name", "CARD-NAME-REQUIRED",
          "op 16 merges like a PATCH: a body with other fields but no name answers 200, the "
          "name kept", on(16, _kept_unless_named)),
    fault("name-null-keeps-name", "CARD-NAME-STRING",
          "op 16 takes name: null for 'leave the name' and answers 200", on(16, _no_null_name)),
    fault("name-stored-cut-at-24999", "CARD-NAME-MAX-ACCEPTED",
          "op 16 accepts 25000 characters but stores (and answers) the first 24999",
          edit_requests(16, _cut_to(LAST - 1))),
]

# --- routes and bodies: one operation unlike its siblings ------------------------------------


def _rows_under(name: str) -> Handler:
    async def fn(request: Request, forward: Forward) -> Response:
        body = request.json()
        if not isinstance(body, dict) or not isinstance(body.get(name), str):
            return error(422, f"{name} is required")
        return await forward(request.but(json_body={"name": body[name]}))
    return on(7, fn)


async def _no_json_delete(request: Request, forward: Forward) -> Response:
    if "json" in request.headers.get("content-type", ""):
        return error(415, "a DELETE request takes no application/json content")
    return await forward(request)


async def _before_refused(request: Request, forward: Forward) -> Response:
    body = request.json()
    if isinstance(body, dict) and "beforeCardId" in body:
        return error(422, "beforeCardId is not supported; use afterCardId")
    return await forward(request)


async def _column_in_first_row(request: Request, forward: Forward) -> Response:
    """Op 11 checks that the row exists, then adds the column to the project's first row."""
    project = await read_project(request, forward)
    rows = project.json()["rows"] if project.status == 200 else []
    if not rows or not named(rows, request.params["rowId"]):
        return await forward(request)
    first = f"/projects/{request.params['projectId']}/rows/{rows[0]['id']}/columns"
    return await forward(send(request, "POST", first, request.json()))


ROUTES = [
    fault("rows-list-not-routed", "OPERATION-IMPLEMENTED",
          "GET /projects/{projectId}/rows answers 405 (only POST is routed there)",
          on(6, refuse(405, "method not allowed"))),
    fault("row-name-snake-case", "ROW-NAME-PROPERTY",
          "op 7 takes the row name as row_name and refuses name and rowName",
          _rows_under("row_name")),
    fault("metadata-remove-refuses-json", "CARD-METADATA-REMOVE-BODY",
          "op 22 answers 415 to a DELETE that carries JSON", on(22, _no_json_delete)),
    fault("move-by-metadata-refuses-before", "CARD-MOVE-ORDERING-ACCEPTED",
          "op 19 implements afterCardId only and refuses beforeCardId",
          on(19, _before_refused)),
    fault("column-create-in-first-row", "COLUMN-CREATE",
          "op 11 adds the column to the project's first row, whichever row it names",
          on(11, _column_in_first_row)),
]

SIBLINGS: list[Variant] = [*RECORDS, *USER_AND_TOKENS, *NAMES, *ROUTES]
