"""Faults of the edge-state kind (issue 24): a field missing only when its list is empty, the
first or last item treated differently, one operation unlike its siblings, an input form that
a simple test does not send. Each breaks one requirement, as those of catalogue.py do."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Any

from .asgi import Forward, Handler, Request, Response, json_response
from .edits import PROJECT_OPS, edit_answers, edit_requests, error, on
from .variant import Variant, fault


def fresh(name: str, requirement: str, description: str,
          handler: Callable[[], Handler]) -> Variant:
    """A fault whose handler keeps state: a new handler (new state) for each server started."""
    return Variant(name, description, requirement, lambda _key: handler())


# --- op 6 of a project without rows ---------------------------------------------------------


def without_empty(key: str) -> Callable[[Any], Any]:
    def edit(body: Any) -> Any:
        if isinstance(body, dict) and body.get(key) == []:
            del body[key]
        return body
    return edit


def _rows_dropped_after_deletes() -> Handler:
    """A project whose rows were deleted keeps rows as null, which op 6 does not serialize."""
    emptied: set[str] = set()

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if response.status != 200 or request.op not in (6, 9):
            return response
        project_id = request.params["projectId"]
        if request.op == 9:
            emptied.add(project_id)
        elif project_id in emptied and (response.json() or {}).get("rows") == []:
            return json_response({})
        return response
    return handler


ROWS = [
    fault("rows-omitted-when-empty", "ROWS-PROPERTY-REQUIRED",
          "op 6 leaves out rows when the project has none (an omit-empty serializer)",
          edit_answers(6, without_empty("rows"))),
    fresh("rows-omitted-after-rows-deleted", "ROWS-PROPERTY-REQUIRED",
          "op 6 answers {} for a project whose rows were all deleted (stored as null)",
          _rows_dropped_after_deletes),
]

# --- op 18's stated ids -----------------------------------------------------------------------


def _cards_under(name: str, one: bool = False) -> Handler:
    """Op 18 takes its cards under `name` (one id, with `one`) and refuses ids."""
    async def fn(request: Request, forward: Forward) -> Response:
        body = request.json()
        if not isinstance(body, dict) or "ids" in body or name not in body:
            return error(422, f"{name} is required; unknown field ids")
        cards = body.pop(name)
        return await forward(request.but(json_body={**body, "ids": [cards] if one else cards}))
    return on(18, fn)


MOVES = [
    fault("move-takes-card-ids-only", "CARD-MOVE-IDS",
          "op 18 takes its cards under cardIds and refuses ids", _cards_under("cardIds")),
    fault("move-takes-one-card-id", "CARD-MOVE-IDS",
          "op 18 moves one card, named by cardId, and refuses ids", _cards_under("cardId", True)),
]

# --- op 16's name, stored as sent ---------------------------------------------------------------


def _stored(change: Callable[[str], str]) -> Callable[[Any], Any]:
    """Op 16's request body with the name as the server stores it."""
    def edit(body: dict[str, Any]) -> dict[str, Any]:
        if isinstance(body.get("name"), str):
            body["name"] = change(body["name"])
        return body
    return edit


async def _trimmed_on_store(request: Request, forward: Forward) -> Response:
    """The name is trimmed where it is stored, but the answer echoes the name sent."""
    body = request.json()
    if not isinstance(body, dict) or not isinstance(body.get("name"), str):
        return await forward(request)
    response = await forward(request.but(json_body={**body, "name": body["name"].strip()}))
    if response.status != 200:
        return response
    return json_response({**response.json(), "name": body["name"]})


NAMES = [
    fault("card-rename-trimmed", "CARD-NAME-AS-SENT",
          "op 16 trims surrounding whitespace from the name (and answers the trimmed name)",
          edit_requests(16, _stored(str.strip))),
    fault("card-rename-trimmed-on-store", "CARD-NAME-AS-SENT",
          "op 16 answers the name sent but stores it trimmed", on(16, _trimmed_on_store)),
    fault("card-rename-collapses-whitespace", "CARD-NAME-AS-SENT",
          "op 16 turns each run of whitespace in the name into one space",
          edit_requests(16, _stored(lambda name: re.sub(r"\s+", " ", name)))),
    fault("card-rename-normalized-nfc", "CARD-NAME-AS-SENT",
          "op 16 stores the name in Unicode normal form C (e + combining accent becomes é)",
          edit_requests(16, _stored(lambda name: unicodedata.normalize("NFC", name)))),
]

# --- the Project's cards ---------------------------------------------------------------------


def _cards_where(keep: Callable[[dict[str, Any], int, dict[str, Any]], bool]) -> Handler:
    """Project answers list only the cards for which `keep(card, index, project)` holds."""
    def edit(body: Any) -> Any:
        if isinstance(body, dict) and isinstance(body.get("cards"), list):
            body["cards"] = [c for i, c in enumerate(body["cards"]) if keep(c, i, body)]
        return body
    return edit_answers(PROJECT_OPS, edit)


def _in_first_column(card: dict[str, Any], index: int, project: dict[str, Any]) -> bool:
    first = next((row["columns"][0]["id"] for row in project["rows"][:1] if row["columns"]), None)
    return any(column["id"] == first for column in card["columns"])


def _cards_cached() -> Handler:
    """Op 3 answers the cards a project had when op 3 first read it (a cache never refreshed)."""
    cache: dict[str, Any] = {}

    async def fn(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        body = response.json()
        if response.status != 200 or not isinstance(body, dict):
            return response
        body["cards"] = cache.setdefault(request.params["projectId"], body.get("cards"))
        return json_response(body)
    return on(3, fn)


def _deleted_cards_kept() -> Handler:
    """Op 17 takes the card out of its column but the project's card list keeps it."""
    deleted: dict[str, list[Any]] = {}

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        body = response.json()
        if response.status != 200 or not isinstance(body, dict):
            return response
        if request.op == 17:
            deleted.setdefault(request.params["projectId"], []).append(body)
        elif request.op in PROJECT_OPS and "cards" in body:
            body["cards"] = [*body["cards"], *deleted.get(str(body.get("id")), [])]
            return json_response(body)
        return response
    return handler


CARDS = [
    fault("project-cards-first-column-only", "PROJECT-CARDS-LISTED",
          "the Project lists only the cards of the first column of its first row",
          _cards_where(_in_first_column)),
    fault("project-cards-first-only", "PROJECT-CARDS-LISTED",
          "the Project lists only its first card", _cards_where(lambda c, i, p: i == 0)),
    fresh("project-cards-cached", "PROJECT-CARDS-LISTED",
          "op 3 lists the cards of a cache filled by its first read of the project",
          _cards_cached),
    fresh("project-cards-keep-deleted", "PROJECT-CARDS-LISTED",
          "a card deleted by op 17 stays in its Project's cards", _deleted_cards_kept),
]

EDGES: list[Variant] = [*ROWS, *MOVES, *NAMES, *CARDS]
