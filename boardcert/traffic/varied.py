"""The rewriting `vary.Vary` does, as pure functions of a JSON value: ids shown in another form
(and mapped back when a client sends them), times in another form, extra fields, another order
of keys, other refusal bodies. Each choice is one the interface leaves open (conformance
policy, sections 2 and 3: ids any string, timestamps any sensible form, extra fields allowed
everywhere, error bodies not shown)."""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

ID_FORMS = ("uuid", "prefixed", "long number")
TIME_FORMS = ("offset", "seconds", "epoch seconds", "epoch milliseconds", "local offset")
EXTRA_FIELDS = ("etag", "archived", "position", "color", "_links", "version")
KEY_ORDERS = ("as sent", "reversed", "sorted")
ERROR_BODIES = ("as sent", "message", "detail", "problem+json")
TIME_KEYS = ("createdAt", "updatedAt")
UNTOUCHED_LISTS = ("metadata",)  # entries whose id is the client's own key, not a board id


class Ids:
    """The server's ids and the form a client is shown them in, both ways."""

    def __init__(self, seed: int, form: str) -> None:
        self.seed, self.form = seed, form
        self.shown: dict[str, str] = {}
        self.real: dict[str, str] = {}

    def show(self, real: str) -> str:
        if real not in self.shown:
            digest = hashlib.sha256(f"{self.seed}:{real}".encode()).digest()
            shown = str(uuid.UUID(bytes=digest[:16], version=4)) if self.form == "uuid" else \
                f"b_{digest[:8].hex()}" if self.form == "prefixed" else \
                str(10**17 + int.from_bytes(digest[:7], "big"))  # past 2**53: not a float
            self.shown[real], self.real[shown] = shown, real
        return self.shown[real]

    def back(self, value: str) -> str:
        """A value a client sent: the server's id when it is one it was shown."""
        return self.real.get(value, value)


def server_id(value: Any) -> bool:
    """An id as the bundled server hands them out (a decimal number as a string)."""
    return isinstance(value, str) and value.isdigit()


def ids_out(value: Any, ids: Ids, key: str = "") -> Any:
    """Every board id of an answer in the shown form: the `id` of each record, `...Id`
    and `ids`/`...Ids` values; the entries of `metadata` (their id is the client's key) kept."""
    if isinstance(value, dict):
        return {k: v if k in UNTOUCHED_LISTS else ids_out(v, ids, k) for k, v in value.items()}
    if isinstance(value, list):
        return [ids_out(v, ids, key) for v in value]
    if server_id(value) and (key in ("id", "ids") or key.endswith(("Id", "Ids"))):
        return ids.show(value)
    return value


def ids_in(value: Any, ids: Ids) -> Any:
    """Every id a client sent in a body back in the server's form."""
    if isinstance(value, dict):
        return {k: ids_in(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [ids_in(v, ids) for v in value]
    return ids.back(value) if isinstance(value, str) else value


def times_out(value: Any, form: str) -> Any:
    """createdAt and updatedAt in another form."""
    if isinstance(value, dict):
        return {k: _time(v, form) if k in TIME_KEYS else times_out(v, form)
                for k, v in value.items()}
    if isinstance(value, list):
        return [times_out(v, form) for v in value]
    return value


def _time(value: Any, form: str) -> Any:
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        return value
    if form == "epoch seconds":
        return int(moment.timestamp())
    if form == "epoch milliseconds":
        return int(moment.timestamp() * 1000)
    if form == "seconds":
        return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    zone = timezone(timedelta(hours=5, minutes=30)) if form == "local offset" else UTC
    return moment.astimezone(zone).isoformat(timespec="milliseconds")


def extras_out(value: Any, names: tuple[str, ...], top: bool = True) -> Any:
    """Extra fields on the answer's object and on every record in it (one with an id)."""
    if isinstance(value, list):
        return [extras_out(v, names, False) for v in value]
    if not isinstance(value, dict):
        return value
    inner = {k: extras_out(v, names, False) for k, v in value.items()}
    if not (top or "id" in value):
        return inner
    seed = hashlib.sha256(repr(value.get("id")).encode()).hexdigest()
    made = {"etag": f'W/"{seed[:12]}"', "archived": False, "position": int(seed[:4], 16),
            "color": f"#{seed[:6]}", "_links": {"self": {"href": f"/records/{seed[:8]}"}},
            "version": 1}
    return inner | {n: made[n] for n in names if n not in inner}


def ordered(value: Any, order: str) -> Any:
    """The keys of every object in another order (JSON objects are unordered)."""
    if isinstance(value, list):
        return [ordered(v, order) for v in value]
    if not isinstance(value, dict) or order == "as sent":
        return value
    keys = sorted(value) if order == "sorted" else list(reversed(value))
    return {k: ordered(value[k], order) for k in keys}


def error_body(body: Any, status: int, form: str) -> tuple[Any, str]:
    """A refusal's body in another form, and its media type; the reference's form is
    {"error": {"code", "message"}}."""
    error = body.get("error") if isinstance(body, dict) else None
    if form == "as sent" or not isinstance(error, dict):
        return body, "application/json"
    code, message = error.get("code", "error"), error.get("message", "")
    if form == "message":
        return {"message": message, "code": code}, "application/json"
    if form == "detail":
        return {"detail": message}, "application/json"
    return {"type": "about:blank", "title": code, "status": status, "detail": message}, \
        "application/problem+json"
