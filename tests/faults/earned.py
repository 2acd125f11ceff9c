"""Faults of passes that must be earned (issue 24): a check that could pass without looking
(a keyless request refused for another reason, a field changing on its own hiding a real
change, a 404 that is the profile's and not the server's) must still catch these. Each breaks
one requirement, as those of catalogue.py do."""

from __future__ import annotations

from typing import Any

from .asgi import Forward, Handler, Request, Response, json_response
from .edits import acts_then_401, at, error, former, on, read_project, refuse, send
from .variant import Variant, fault, keyed_fault

# --- a field that changes on its own beside one a rejected request changes ------------------


def _first_row_read_time(body: Any) -> Any:
    """Only the first row carries a read time, new on every read."""
    rows = body.get("rows") if isinstance(body, dict) else None
    if rows and isinstance(rows[0], dict):
        rows[0] = {**rows[0], "readAt": _clock()}
    return body


_TICKS = [0]


def _clock() -> int:
    _TICKS[0] += 1
    return _TICKS[0]


def _volatile_then(make: Any) -> Any:
    """`make`'s fault behind Project answers whose first row has a field new on every read."""
    def wrapped(key: str) -> Handler:
        inner = make(key)

        async def handler(request: Request, forward: Forward) -> Response:
            response = await inner(request, forward)
            body = response.json()
            if response.status != 200 or request.op != 3 or not isinstance(body, dict):
                return response
            return json_response(_first_row_read_time(body))
        return handler
    return wrapped


# --- former paths still routed ------------------------------------------------------------


async def _old_alias(request: Request, forward: Forward) -> Response:
    """The former alias route, strict about its body: today's alias body is carried out
    (through op 20), anything else refused with 400."""
    body = request.json()
    if not (isinstance(body, dict) and set(body) == {"columnId"}):
        return error(400, "unexpected body: expected {columnId}")
    parts = request.path.strip("/").split("/")
    return await forward(send(request, "POST", f"/projects/{parts[1]}/cards/{parts[5]}/alias",
                              body))


async def _old_row_refuses(request: Request, forward: Forward) -> Response:
    return json_response({"detail": [{"loc": ["body", "title"], "msg": "Field required",
                                      "type": "missing"}]}, 422)


async def _redirected(request: Request, forward: Forward) -> Response:
    parts = request.path.strip("/").split("/")
    return Response(308, b"", {"location": f"/projects/{parts[1]}/cards/{parts[3]}"})


# --- the valid key refused in some case only ---------------------------------------------


def _negative_cache(key: str) -> Handler:
    """Op 3 hides a refused key as 404 and remembers the 404 by path, whatever the key."""
    missing: set[str] = set()

    async def fn(request: Request, forward: Forward) -> Response:
        if request.path in missing:
            return error(404, "project not found")
        if request.headers.get("x-api-key") != key:
            missing.add(request.path)
            return error(404, "project not found")
        return await forward(request)
    return on(3, fn)


async def _owner_join(request: Request, forward: Forward) -> Response:
    """Op 5 looks the key's owner up through a join over the project's card metadata: once a
    card has metadata it finds none and answers 404 to the valid key."""
    project = await read_project(request, forward)
    cards = (project.json() or {}).get("cards") or [] if project.status == 200 else []
    if any(card.get("metadata") for card in cards if isinstance(card, dict)):
        return error(404, "project not found")
    return await forward(request)


# --- 404s: a route missing, whatever ids its path holds ----------------------------------

NOT_FOUND = refuse(404, "Not Found")

FAULTS: list[Variant] = [
    fault("column-rename-not-routed", "OPERATION-IMPLEMENTED",
          "op 13 is not routed (404 to a path of the run's own ids)", on(13, NOT_FOUND)),
    fault("plugin-remove-not-routed", "OPERATION-IMPLEMENTED",
          "op 24 is not routed: 404 \"Not Found\" at a path of the profile's plugin, after op "
          "23 accepted that plugin in the same test", on(24, NOT_FOUND)),
    keyed_fault("auth-negative-cache-op3", "AUTH-VALID-KEY-ACCEPTED",
                "op 3 answers 404 to a missing or wrong key and caches that 404 by path, so the "
                "valid key gets it too for a project once read without it",
                _negative_cache),
    fault("auth-op5-owner-join", "AUTH-VALID-KEY-ACCEPTED",
          "op 5 answers 404 to the valid key for a project one of whose cards has metadata "
          "(its owner lookup joins the metadata)", on(5, _owner_join)),

    fault("removed-alias-route-served", "REMOVED-PATH-NOT-SERVED",
          "POST .../columns/{columnId}/cards/{cardId}/alias still gives an alias when sent "
          "today's alias body; any other body it refuses with 400",
          at("POST", former("projects/*/columns/*/cards/*/alias"), _old_alias)),
    fault("removed-row-path-refuses-422", "REMOVED-PATH-GONE",
          "POST /projects/{id}/row is still routed and refuses every body with 422 (title "
          "required): a route no longer served would answer 404, 405 or 410",
          at("POST", former("projects/*/row"), _old_row_refuses)),
    fault("removed-archive-redirects", "REMOVED-PATH-GONE",
          "PATCH .../cards/{cardId}/archive answers 308 to the card's current path",
          at("PATCH", former("projects/*/cards/*/archive"), _redirected)),

    keyed_fault("auth-row-rename-acts-beside-read-time", "AUTH-REJECTED-CHANGES-NOTHING",
                "a row rename without a valid key is carried out, then answered 401; the first "
                "row carries a read time new on every read (left out as changing on its own, "
                "the renamed name beside it is not)",
                _volatile_then(acts_then_401({10}))),
]
