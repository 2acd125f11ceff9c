"""Faults that checks could not see before issue 31: a forbidden card name stored by a request
answered 500 (item 6: read back after every refusal, whatever its status); a body that is not
JSON taken by an operation other than the five it was sent to, op 19's beforeCardId, a
createdAt that moves (item 8)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from .asgi import Forward, Request, Response, json_response
from .edits import PROJECT_OPS, edit_requests, on
from .variant import Variant, keyed_fault

LIMIT = 25000  # op 16's limit

# --- a forbidden name stored, then a 500 (item 6) --------------------------------------------

CRASH = Response(500, b"Internal Server Error", {"content-type": "text/plain"})


class _LongNameStored:
    """Op 16 saves a name over the limit in a text column with no length check, then its
    response validator raises (500); every later answer shows the stored name. (The reference
    store refuses such a name: it keeps a name cut to the limit, and this server's answers show
    the whole one in its place.)"""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}  # card id -> the over-long name stored

    async def __call__(self, request: Request, forward: Forward) -> Response:
        body = request.json()
        name = body.get("name") if request.op == 16 and isinstance(body, dict) else None
        if isinstance(name, str) and len(name) > LIMIT:
            saved = await forward(request.but(json_body={**body, "name": name[:LIMIT]}))
            if saved.status != 200:
                return saved
            self.names[request.params["cardId"]] = name
            return CRASH
        response = await forward(request)
        if request.op == 16 and response.status == 200:
            self.names.pop(request.params["cardId"], None)  # renamed again
        if not self.names or response.status != 200 or response.json() is None:
            return response
        return json_response(self._shown(response.json()), response.status)

    def _shown(self, value: Any) -> Any:
        """The answer with each stored card's whole name (a card record: id and createdFlair)."""
        if isinstance(value, list):
            return [self._shown(v) for v in value]
        if not isinstance(value, dict):
            return value
        shown = {k: self._shown(v) for k, v in value.items()}
        card = str(value.get("id"))
        if "createdFlair" in value and card in self.names:
            shown["name"] = self.names[card]
        return shown


async def _number_name_stored(request: Request, forward: Forward) -> Response:
    """Op 16 saves a number name as its text ("5"), then its response serializer, which expects
    the name it was given to be a string, raises (500)."""
    body = request.json()
    name = body.get("name") if isinstance(body, dict) else None
    if not isinstance(name, int | float) or isinstance(name, bool):
        return await forward(request)
    saved = await forward(request.but(json_body={**body, "name": str(name)}))
    return CRASH if saved.status == 200 else saved


STORED_THEN_500: list[Variant] = [
    keyed_fault("name-over-limit-stored-500", "CARD-NAME-MAX-REJECTED",
                "op 16 stores a name over 25000 characters, then answers 500 (the length is "
                "checked after the save)", lambda _key: _LongNameStored()),  # a store per server
    keyed_fault("name-number-stored-500", "CARD-NAME-STRING",
                "op 16 stores a number name as its text, then answers 500",
                lambda _key: on(16, _number_name_stored)),
]

# --- bodies that are not JSON, op 19's beforeCardId, createdAt (item 8) -----------------------


async def _body_never_read(request: Request, forward: Forward) -> Response:
    """Op 22 never reads the body of its DELETE (a body is accepted, and ignored): bytes that
    are not JSON are not refused."""
    return await forward(request.but(body=b""))


async def _raw_value(request: Request, forward: Forward) -> Response:
    """Op 25 stores a body that does not parse as JSON as its text (a "raw" fallback)."""
    if request.body.strip() and request.json() is None:
        text = request.body.decode("utf-8", "replace")
        return await forward(request.but(json_body={"value": text}))
    return await forward(request)


def _before_as_after(body: dict[str, Any]) -> dict[str, Any]:
    """Op 19 reads beforeCardId into its afterCardId (one anchor field, copied twice)."""
    if "beforeCardId" in body and "afterCardId" not in body:
        body["afterCardId"] = body.pop("beforeCardId")
    return body


WRITES = PROJECT_OPS - {2, 3}  # the operations that change a project (5, 7-14)


class _CreatedOnSave:
    """Every write to a project sets its createdAt to the time of the write, as updatedAt (the
    model's created_at column says "now on every save" where it should say "on insert")."""

    def __init__(self) -> None:
        self.created: dict[str, str] = {}  # project id -> createdAt as this server keeps it

    async def __call__(self, request: Request, forward: Forward) -> Response:
        response = await forward(request)
        project = request.params.get("projectId")
        if request.op in WRITES and response.status == 200 and project is not None:
            self.created[project] = datetime.now(UTC).isoformat(timespec="microseconds")
        body = response.json() if response.status == 200 else None
        if request.op in PROJECT_OPS and isinstance(body, dict) and \
                str(body.get("id")) in self.created:
            return json_response({**body, "createdAt": self.created[str(body["id"])]})
        return response


MOVED_AND_MALFORMED: list[Variant] = [
    keyed_fault("metadata-remove-ignores-body", "REJECT-MALFORMED-JSON",
                "op 22 never reads its DELETE's body: one that is not JSON is not refused",
                lambda _key: on(22, _body_never_read)),
    keyed_fault("plugin-data-stores-raw-body", "REJECT-MALFORMED-JSON",
                "op 25 stores a body that is not JSON as its text",
                lambda _key: on(25, _raw_value)),
    keyed_fault("move-by-metadata-before-as-after", "CARD-MOVE-BY-METADATA-PLACES",
                "op 19 places the card after the card beforeCardId names",
                lambda _key: edit_requests(19, _before_as_after)),
    keyed_fault("created-at-on-every-save", "WRITE-ONLY-ADDRESSED",
                "createdAt becomes the time of the last write to the project (ops 5, 7-14)",
                lambda _key: _CreatedOnSave()),  # a record per server
]

OVERLOOKED: list[Variant] = [*STORED_THEN_500, *MOVED_AND_MALFORMED]
