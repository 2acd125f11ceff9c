"""Assertions of the suites. Each fails with a `Violation` that names the requirement and
carries the exchange (request, response, curl line with the key as ***) as data; the message
says what was expected and what came back."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from boardcert.errors import NotAssessed, Violation
from boardcert.http.api import misfit
from boardcert.http.client import Exchange
from boardcert.interface import conditions as when
from boardcert.interface import requirements
from boardcert.model import Act, Board, Oracle
from boardcert.workbench import checks


def fail(requirement: str, expected: str, exchange: Exchange | None = None, got: str = "",
         conditions: list[when.Condition] | None = None) -> None:
    """Fail with the evidence; unless the exchange is a profile body the server refused, which
    is the profile's misfit, not the server's fault (reported not assessed). `conditions`:
    what makes the failure (boardcert.interface.conditions); by default, for a failure about
    the status only, the status it got."""
    refused = misfit(exchange) if exchange is not None and not got else None
    if refused is not None:  # a failure about the status only
        raise refused
    message = f"[{requirement}] expected {expected}"
    if got or exchange is not None:
        message += f"; got {got or _status(exchange)}"
    if conditions is None:
        conditions = [when.status_was(exchange)] if exchange is not None and not got else []
    raise Violation(message, [requirement], [exchange] if exchange is not None else [],
                    conditions)


def _status(exchange: Exchange | None) -> str:
    return "no response" if exchange is None else f"status {exchange.status}"


def rows(body: Any, where: str) -> Any:
    """The rows property of a Project or of op 6's answer (`where` answered it); none there:
    not assessed (ROWS-PROPERTY-REQUIRED judges that)."""
    if not isinstance(body, dict) or "rows" not in body:
        raise NotAssessed(f"rows ({where} answered no object with rows to read them from)")
    return body["rows"]


def success(exchange: Exchange, number: int, requirement: str = "SUCCESS-STATUS-200") -> Any:
    """Operation `number` answered 200 with JSON (or no body); returns the body (checks not
    applied). The bytes decide, not the label: that is JSON-MEDIA-TYPE's (`labelled`)."""
    if exchange.status != 200:
        fail(requirement, f"status 200 from operation {number}", exchange,
             conditions=[when.status(exchange, "200")])
    if not exchange.content.strip():
        return None
    try:
        return json.loads(exchange.content)
    except (ValueError, RecursionError):
        fail("JSON-RESPONSES", f"a JSON body from operation {number}", exchange,
             got=f"a body that is not JSON ({exchange.content_type or 'no content type'})",
             conditions=[when.not_json(exchange)])


def written(oracle: Oracle, exchange: Exchange, number: int, requirement: str,
            write: Callable[[Board], Act], body: bool = True) -> tuple[Act, Any]:
    """`success` for a write on items the board model holds (`write` applies it to a board;
    `body` False: the status alone is judged, for an answer the interface does not show):
    the act applied to the oracle's board, and the body. A failure reads the whole board
    first, and adds what changed outside the write's address (`Oracle.besides`)."""
    answer = None
    try:
        if body:
            answer = success(exchange, number, requirement)
        elif exchange.status != 200:
            fail(requirement, f"status 200 from operation {number}", exchange)
    except (Violation, NotAssessed) as refused:
        raise oracle.besides(refused, write) from None
    return write(oracle.board), answer


def json_media_type(content_type: str) -> bool:
    """application/json or any +json type, parameters aside."""
    media = content_type.split(";")[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


def labelled(exchange: Exchange, number: int) -> None:
    """A body (JSON, by `success`) is labelled with a JSON media type (JSON-MEDIA-TYPE)."""
    if exchange.content.strip() and not json_media_type(exchange.content_type):
        fail("JSON-MEDIA-TYPE", f"a JSON media type (application/json or +json) from "
             f"operation {number}", exchange,
             got=f"Content-Type {exchange.content_type or '(none)'}",
             conditions=[when.media_type(exchange)])


def shaped(exchange: Exchange, number: int, requirement: str | None = None,
           status_requirement: str = "SUCCESS-STATUS-200") -> Any:
    """Like `success`, then every check of the operation's response (or of one requirement)."""
    body = success(exchange, number, status_requirement)
    checks.assert_ok(number, body, exchange, requirement)
    return body


def rejected(exchange: Exchange, requirement: str, what: str) -> None:
    """The server rejected `what` with a 4xx (any 4xx: the interface names no error status)."""
    status = exchange.status or 0
    if status >= 500:  # a server error; it breaks a MUST only by serving the input (a 2xx)
        blamed = ["NO-SERVER-ERROR"]
        if requirements.catalogue()[requirement].level != "MUST":
            blamed.append(requirement)
        raise Violation(f"[{blamed[-1]}] expected a 4xx for {what}; got status {status} (a "
                        "server error)", blamed, [exchange], [when.status(exchange, "4xx")])
    if not 400 <= status < 500:
        fail(requirement, f"a 4xx for {what}", exchange,
             conditions=[when.status(exchange, "4xx")])


def stored_after_all(requirement: str, what: str, outcome: Outcome, shown: str) -> None:
    """Input the interface forbids, refused with no 4xx (a 5xx) and then read back as stored
    (`shown`, by `outcome.reading`): the server accepted it, so `requirement` fails as for a 2xx
    (policy, section 2: whatever the status, read back after a refusal)."""
    raise Violation(f"[{requirement}] expected a 4xx for {what}, and the input not stored; got "
                    f"{_status(outcome.exchange)}, after which {shown} (the input was stored)",
                    [requirement], [x for x in (outcome.exchange, outcome.reading) if x],
                    [when.changed(outcome.exchange)])


def equal(requirement: str, what: str, expected: Any, actual: Any,
          exchange: Exchange | None = None) -> None:
    if expected != actual:
        fail(requirement, f"{what} to be {_short(expected)}", exchange, got=_short(actual),
             conditions=located(exchange, expected, actual))


def located(exchange: Exchange | None, expected: Any, actual: Any) -> list[when.Condition]:
    """What makes a failure of `equal`, for its reproduction: the value compared, found in the
    answer's body, is still not `expected` there (not found, e.g. a value worked out from the
    body: the same answer again)."""
    if exchange is None:
        return []
    try:
        at = when.locate(json.loads(exchange.content), actual)
    except (ValueError, RecursionError):
        at = None
    return [when.answer(exchange) if at is None else when.value(exchange, at, expected)]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else f"{text[:200]}…({len(text)} characters)"


def unchanged(requirement: str, what: str, before: Any, after: Any,
              exchange: Exchange | None = None, ignored: str = "") -> None:
    """`after` equals `before`; a failure names where they differ (and the offending call),
    and the fields left out as changing on their own (`ignored`)."""
    if before != after:
        found = differences(before, after)
        shown = "; ".join(found[:5]) + (f"; and {len(found) - 5} more" if len(found) > 5 else "")
        fail(requirement, f"{what} to be unchanged", exchange, got=f"changed: {shown}{ignored}",
             conditions=[when.changed(exchange)] if exchange is not None else [])


@dataclass
class Outcome:
    """A request, and what it could change read before and after it (None: not read)."""

    exchange: Exchange
    before: Any = None
    after: Any = None
    created: str | None = None  # what it created after all ("a project"), to be cleaned up
    unreadable: NotAssessed | None = None  # why what it could change could not be read
    read: Callable[[], Any] | None = None  # reads it again (for a control read), if it can
    sent: list[Exchange] = field(default_factory=list)  # every request of the case, in order,
    # when it took more than one (a removed path called with two bodies: `exchange` is the one
    # that tells most)
    reading: Exchange | None = None  # the reading that showed `after`, kept as evidence

    @property
    def answers(self) -> list[Exchange]:
        """Every request of the case, in the order sent."""
        return self.sent or [self.exchange]


def observed(send: Callable[[], Exchange], read: Callable[[], Any]) -> Outcome:
    """The request `send` makes, between two readings by `read` of what it could change."""
    before = read()
    exchange = send()
    return Outcome(exchange, before, read(), read=read)


Path = tuple[str, ...]  # keys of a JSON value, "*" for any position of a list


def changes_nothing(requirement: str, what: str, outcome: Outcome) -> None:
    """The request created nothing and `what` it could change reads back as it was, but for
    the fields that change on their own (`on_their_own`: a request id, a read time, at any
    depth), left out of both readings (the failure names them)."""
    if outcome.unreadable is not None:
        raise outcome.unreadable
    if outcome.created:
        fail(requirement, f"{what} to be unchanged", outcome.exchange,
             got=f"{outcome.created} created", conditions=[when.status_was(outcome.exchange)])
    before, after, ignored = outcome.before, outcome.after, ""
    if before != after and outcome.read is not None:
        volatile = on_their_own(_paths(before, after), outcome.read)
        before, after = _without(before, volatile), _without(after, volatile)
        if volatile:
            shown = ", ".join(sorted(_dotted(p) for p in volatile))
            ignored = (f" (left out as changing on their own between readings with "
                       f"nothing in between: {shown})")
    unchanged(requirement, what, before, after, outcome.exchange, ignored)


# A clock that ticks once a second moves within LATE: a read time to the second differs between
# readings a request apart now and then, and between two readings in a row almost never.
LATE = 1.1
_SEEN_STILL: set[Path] = set()  # held still for LATE once: not a coarse clock (this process)
_SEEN_MOVING: set[Path] = set()  # moved on its own once


def on_their_own(differing: set[Path], read: Callable[[], Any]) -> set[Path]:
    """Which of the `differing` paths change on their own: those that differ between two
    readings with nothing in between, and, for the others, between a reading and one LATE
    seconds after it (nothing in between either): a read time that ticks once a second. What
    a wait shows is remembered, of every field of the reading (one that held still for LATE
    is no clock), so a run waits at most once for a field."""
    first, second = read(), read()
    moving = _paths(first, second) | (differing & _SEEN_MOVING)
    unknown = differing - moving - _SEEN_STILL
    if unknown:
        time.sleep(LATE)
        late = _paths(second, read())
        moving |= late
        _SEEN_MOVING.update(late & unknown)
        _SEEN_STILL.update(unknown - late)
        _SEEN_STILL.update(p for p in _nodes(second)
                           if not any(p[:len(q)] == q or q[:len(p)] == p for q in moving))
    return moving


def _nodes(value: Any, at: Path = ()) -> set[Path]:
    """The path of a reading and of every value in it (list positions as "*")."""
    if isinstance(value, dict):
        return {at}.union(*(_nodes(v, (*at, str(k))) for k, v in value.items()))
    if isinstance(value, list):
        return {at}.union(*(_nodes(v, (*at, "*")) for v in value))
    return {at}


def _paths(first: Any, second: Any, at: Path = ()) -> set[Path]:
    """Where two readings differ: key paths, list positions as "*" (a field that changes on
    its own in one row changes in the others too)."""
    if isinstance(first, dict) and isinstance(second, dict):
        found: set[Path] = set()
        for key in {*first, *second}:
            if key in first and key in second:
                found |= _paths(first[key], second[key], (*at, str(key)))
            else:
                found.add((*at, str(key)))
        return found
    if isinstance(first, list) and isinstance(second, list) and len(first) == len(second):
        return {p for a, b in zip(first, second, strict=True) for p in _paths(a, b, (*at, "*"))}
    return set() if first == second else {at}


def _without(value: Any, paths: set[Path]) -> Any:
    """`value` without what lies at those paths."""
    if not paths:
        return value
    if () in paths:
        return None
    if isinstance(value, dict):
        return {k: _without(v, {p[1:] for p in paths if p[0] == str(k)})
                for k, v in value.items() if (str(k),) not in paths}
    if isinstance(value, list):
        inner = {p[1:] for p in paths if p[0] == "*"}
        return [_without(v, inner) for v in value]
    return value


def _dotted(path: Path) -> str:
    return ".".join(path).replace(".*", "[*]") or "the whole reading"


def differences(before: Any, after: Any, where: str = "") -> list[str]:
    """Where two JSON values differ, as 'path: before -> after' sentences."""
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in [*before, *(k for k in after if k not in before)]:
            inner = f"{where}.{key}" if where else str(key)
            if key not in after:
                found.append(f"{inner} removed")
            elif key not in before:
                found.append(f"{inner} added ({_short(after[key])})")
            else:
                found += differences(before[key], after[key], inner)
        return found
    if isinstance(before, list) and isinstance(after, list):
        ids = _ids(before), _ids(after)
        if ids[0] is not None and ids[1] is not None and ids[0] != ids[1]:
            return [f"{where or 'value'}: ids {ids[0]} -> {ids[1]}"]
        if len(before) == len(after):
            return [d for i, (b, a) in enumerate(zip(before, after, strict=True))
                    for d in differences(b, a, f"{where}[{i}]")]
        return [f"{where or 'value'}: {len(before)} items -> {len(after)} items"]
    if before != after:
        return [f"{where or 'value'}: {_short(before)} -> {_short(after)}"]
    return []


def _ids(items: list[Any]) -> list[Any] | None:
    """The ids of a list of records, in order, if every item has one."""
    if all(isinstance(item, dict) and "id" in item for item in items):
        return [item["id"] for item in items]
    return None
