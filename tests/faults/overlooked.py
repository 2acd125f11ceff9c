"""Faults that checks could not see before issue 31: a forbidden card name stored by a request
answered 500 (item 6: read back after every refusal, whatever its status)."""

from __future__ import annotations

from typing import Any

from .asgi import Forward, Request, Response, json_response
from .edits import on
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

OVERLOOKED: list[Variant] = [*STORED_THEN_500]
