"""What makes a failure, as data that a reproduction judges again.

A check that fails (boardcert.workbench.expect, boardcert.workbench.checks, the client, the
property tests) gives
its `Violation` the conditions under which its failure is there, each reading one exchange's
answer (`on`: the Exchange itself, until boardcert.reproduce.recipe turns it into a step):

    status      the status is not `want` ("200", "2xx", "4xx", "not 5xx")
    status-was  the status is the one the failing run got (`was`): a check that said no more
    not-json    a non-empty body that does not parse as JSON
    media-type  a non-empty body without a JSON media type
    missing     nothing at `at` (a path of keys, indexes and {"id": ...}: the record of a list
                that has that id)
    present     something at `at` (a removed property)
    type        the value at `at` has none of the JSON types `want`
    value       the value at `at` is not `want` (or is missing)
    order       the ids of the list at `at` (items that are ids or records with one), those
                of `want` among them, are not in `want`'s order
    mentions    a string equal to `value` occurs in what is at `at` (a plugin still attached,
                a deleted datum still answered)
    lacks       no string equal to `value` occurs in what is at `at` (an entry gone)
    longer      the list at `at` has more than `than` items (something nobody created)
    same-value  the value at `at` is still `value`
    same-as     the value at `at` is the one at `at` of an earlier answer (`as`: its
                exchange), read `pause` seconds or more before the requests in between
    changed     what a reading shows changed across the request (beyond what changes on its
                own between two readings): "a rejected request changes nothing"
    listed      a creation of `made` answered 2xx whose name (`names`, in the same order) the
                reading does not show: "what was created is there afterwards"
    answer      the failing run's answer (status and body), for a failure that says no
                more: shown again beside the new one (ids, names and times aside), never
                judged, since what failed in it is not known
    no-answer   no usable answer (none in time, a broken connection, a body over the cap)

A reproduction says "reproduced" when any of its conditions holds, and "not reproduced" only
when each was judged again and none holds: the condition that failed now holds as the interface
wants it, nothing else (a server may answer with other ids, names, times, extra fields). This
module imports nothing from boardcert: checks anywhere may use it."""

from __future__ import annotations

from typing import Any

Condition = dict[str, Any]
Path = list[str | int]


def status(exchange: Any, want: str) -> Condition:
    return {"kind": "status", "on": exchange, "want": want}


def status_was(exchange: Any) -> Condition:
    return {"kind": "status-was", "on": exchange, "was": exchange.status}


def not_json(exchange: Any) -> Condition:
    return {"kind": "not-json", "on": exchange}


def media_type(exchange: Any) -> Condition:
    return {"kind": "media-type", "on": exchange}


def missing(exchange: Any, at: Path) -> Condition:
    return {"kind": "missing", "on": exchange, "at": list(at)}


def present(exchange: Any, at: Path) -> Condition:
    return {"kind": "present", "on": exchange, "at": list(at)}


def wrong_type(exchange: Any, at: Path, want: str | list[str]) -> Condition:
    return {"kind": "type", "on": exchange, "at": list(at),
            "want": [want] if isinstance(want, str) else list(want)}


def value(exchange: Any, at: Path, want: Any) -> Condition:
    return {"kind": "value", "on": exchange, "at": list(at), "want": want}


def order(exchange: Any, at: Path, want: list[str]) -> Condition:
    return {"kind": "order", "on": exchange, "at": list(at), "want": list(want)}


def mentions(exchange: Any, at: Path, value: str) -> Condition:
    return {"kind": "mentions", "on": exchange, "at": list(at), "value": value}


def lacks(exchange: Any, at: Path, value: str) -> Condition:
    return {"kind": "lacks", "on": exchange, "at": list(at), "value": value}


def longer(exchange: Any, at: Path, than: int) -> Condition:
    return {"kind": "longer", "on": exchange, "at": list(at), "than": than}


def same_value(exchange: Any, at: Path, found: Any) -> Condition:
    return {"kind": "same-value", "on": exchange, "at": list(at), "value": found}


def same_as(exchange: Any, at: Path, earlier: Any, pause: float = 0.0) -> Condition:
    return {"kind": "same-as", "on": exchange, "at": list(at), "as": earlier, "pause": pause}


def listed(reading: Any, made: list[Any], names: list[str]) -> Condition:
    return {"kind": "listed", "on": reading, "made": list(made), "names": list(names)}


def changed(exchange: Any) -> Condition:
    return {"kind": "changed", "on": exchange}


def answer(exchange: Any) -> Condition:
    return {"kind": "answer", "on": exchange}


def no_answer(exchange: Any) -> Condition:
    return {"kind": "no-answer", "on": exchange, "failure": exchange.failure}


def locate(body: Any, wanted: Any, path: Path | None = None) -> Path | None:
    """Where in a JSON body `wanted` stands (the first place, depth first; a string also
    matches the number it spells, as ids are compared): None when nowhere. In a list of
    records with ids the step is the record's id, `{"id": ...}`, not its position: another
    server may list them in another order, or more of them."""
    path = path or []
    if body == wanted and type(body) is type(wanted) or \
            isinstance(wanted, str) and isinstance(body, int | float) and \
            not isinstance(body, bool) and str(body) == wanted:
        return path
    if isinstance(body, dict):
        items = list(body.items())
    elif isinstance(body, list):
        items = [({"id": inner["id"]} if isinstance(inner, dict) and
                  isinstance(inner.get("id"), str | int) else n, inner)
                 for n, inner in enumerate(body)]
    else:
        return None
    for key, inner in items:
        found = locate(inner, wanted, [*path, key])
        if found is not None:
            return found
    return None
