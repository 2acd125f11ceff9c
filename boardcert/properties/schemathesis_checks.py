"""The checks a generated request's answer is judged by: which of schemathesis's run and why,
boardcert's own checks (`boardcert.workbench.checks.CHECKS`) registered as schemathesis
checks, and the key check that sends the request again without the key."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any
from urllib.parse import quote

import schemathesis
from schemathesis.core.failures import ServerError

from boardcert.errors import ExchangeError
from boardcert.http.api import card_names
from boardcert.http.client import Client, Exchange
from boardcert.interface import conditions as when
from boardcert.interface import spec
from boardcert.properties.schema import EXACT_BODY_OP, operation_number
from boardcert.properties.sending import resend
from boardcert.pytest.together import PLAIN, Lanes, gather
from boardcert.workbench import checks
from boardcert.workbench.board import unique

# --- checks and the requirements they prove ------------------------------------------------
#
# Built-in checks used, and why they cannot false-alarm on a conformant server:
#   not_a_server_error           NO-SERVER-ERROR: a 5xx to client input is always a failure.
#   status_code_conformance      SUCCESS-STATUS-200: every operation documents 200, 4XX and 5XX,
#                                so only 1xx, 3xx and 2xx-but-not-200 are undocumented; 1xx and
#                                3xx are dropped (the interface names no status for them).
#   response_schema_conformance  the requirement of the 200 schema (workbench.checks'
#                                SCHEMA_REQUIREMENT); a body that does not parse is JSON-RESPONSES.
#   boardcert_json_payload       JSON-RESPONSES on every 2xx: no body, or one that parses as JSON
#                                ("All payloads are JSON" speaks of the bytes).
#   boardcert_key_required       AUTH-KEY-REQUIRED, in place of schemathesis's ignored_auth (which
#                                wants 401 or 403): after a 2xx of a listed operation, the same
#                                request without the key and with a wrong key must get a 4xx,
#                                any 4xx (the interface names no status); a 5xx is NO-SERVER-ERROR.
#                                Operations whose security is optional are INFO (not probed).
#   boardcert_name_as_sent       CARD-NAME-AS-SENT on op 16's 2xx to a positive case: the name
#                                answered, and the one a fresh op 3 lists, is the name sent.
#   negative_data_rejection      only where the interface is exact: op 16's body (name required,
#                                a string, at most 25000) and request bodies that are not JSON.
# Excluded:
#   positive_data_acceptance     bodies the interface does not show are open, so `{}` or `[]` is
#                                "schema-valid" and a 4xx to it is a fair answer; op 7 may accept
#                                only one of name and rowName.
#   negative_data_rejection      (elsewhere) open schemas: nothing generated is invalid by the
#                                interface; content-type probes: the interface says nothing of
#                                request content types.
#   missing_required_header      the only header is the key, judged by boardcert_key_required.
#   unsupported_method, allow_header_conformance   expect 405 and an Allow header; the interface
#                                names no error status, 404 or 501 to an unknown method is fine.
#   use_after_free, ensure_resource_availability   reason over link lineage and expect 404/200;
#                                "gone" is any 4xx and links take the first row of a shape the
#                                interface does not show; the explicit suites judge *-GONE and
#                                *-CREATE with real reads.
#   object_level_authorization   needs several identities; the interface has one key.
#   response_headers_conformance no response headers are declared.
#   content_type_conformance     the label is JSON-MEDIA-TYPE, a SHOULD judged once per operation
#                                by suites/test_general.py: failing a property item on it would
#                                leave the item's MUSTs unchecked on that operation.


class CheckFailed(AssertionError):
    """A boardcert check's failure, naming the check (schemathesis keeps the exception on its
    CustomFailure: the judge reads the name there, not in the failure's title), and what makes
    it (boardcert.interface.conditions), which a reproduction judges again."""

    def __init__(self, check: str, message: str,
                 conditions: list[when.Condition] | None = None) -> None:
        super().__init__(message)
        self.check = check
        self.conditions = conditions or []


def _register(check: checks.Check) -> Callable[..., None]:
    """One of boardcert's checks as a schemathesis check, scoped to the operations whose 200
    schema it applies to (the very function the explicit suites call)."""
    def run(ctx: Any, response: Any, case: Any) -> None:
        number = operation_number(case)
        if number is None or check not in checks.checks_for(number):
            return
        if not 200 <= response.status_code < 300:
            return
        try:
            body = response.json()
        except ValueError:
            return  # not JSON: boardcert_json_payload judges it
        found = check.problems(body)
        if found:
            raise CheckFailed(run.__name__, "\n".join(found))

    run.__name__ = run.__qualname__ = f"boardcert_{check.name}"
    run.__doc__ = f"{check.requirement}: boardcert.workbench.checks {check.name} on 2xx bodies."
    return schemathesis.check(run)


def key_required(client: Client, lanes: Lanes = PLAIN) -> Callable[..., None]:
    """AUTH-KEY-REQUIRED, as a schemathesis check: a request that succeeded with the key, sent
    again (through the client) without it and with a wrong one, is refused with a 4xx each time
    (any 4xx); a 5xx is NO-SERVER-ERROR. With more than one request in flight (`lanes`,
    boardcert.pytest.together) the two go side by side; judged in order, as one at a time."""
    def check(ctx: Any, response: Any, case: Any) -> None:
        if not 200 <= response.status_code < 300:
            return
        for what, probe in _probes(client, response.request, lanes):
            if probe is None:
                return  # no answer proves nothing either way
            status = probe.status or 0
            if not 400 <= status < 500:  # the evidence: this request, not the one with the key
                check.probes[id(response)] = (response, probe)  # type: ignore[attr-defined]
            if status >= 500:
                raise ServerError(operation=case.operation.label, status_code=status,
                                  message=f"the same request {what} answered {status}")
            if not 400 <= status < 500:
                raise CheckFailed(KEY_CHECK, f"the same request {what} answered {status}; "
                                  "the operation carries the X-API-Key scheme, so it must be "
                                  "refused with a 4xx")

    check.__name__ = check.__qualname__ = KEY_CHECK
    check.probes = {}  # type: ignore[attr-defined]  # id(response) -> (it, the probe's exchange)
    return check


def _probes(client: Client, request: Any, lanes: Lanes) -> Iterator[tuple[str, Exchange | None]]:
    """The request again without the key, then with a wrong one (None: no answer), each sent
    once the one before was judged. With more than one lane, both go at once first, and are
    kept when both were refused with a 4xx; anything else, and they are thrown away and sent
    again one at a time (a server that copes badly with two at once is not blamed for it)."""
    keys = (("without X-API-Key", None), ("with a wrong X-API-Key", unique("no")))
    if lanes.width > 1:
        done = gather(client, [partial(resend, client, request, key=key) for _, key in keys],
                      lanes)
        if all(job.error is None and 400 <= (job.value.status or 0) < 500 for job in done):
            for (what, _), job in zip(keys, done, strict=True):
                client.adopt(job.exchanges)  # the test shows them as its own, in order
                yield what, job.value
            return
    for what, key in keys:
        try:
            yield what, resend(client, request, key=key)
        except ExchangeError:
            yield what, None


KEY_CHECK = "boardcert_key_required"


def name_as_sent(client: Client) -> Callable[..., None]:
    """CARD-NAME-AS-SENT, as a schemathesis check: op 16 answered 2xx to a name, so the Card
    it answers and a fresh op 3 (the Project's cards, read through the client) carry exactly
    that name. A name not shown there (another shape) proves nothing either way."""
    def check(ctx: Any, response: Any, case: Any) -> None:
        sent = case.body.get("name") if isinstance(case.body, dict) else None
        if operation_number(case) != EXACT_BODY_OP or not isinstance(sent, str) \
                or not 200 <= response.status_code < 300:
            return
        try:
            answered = response.json()
        except ValueError:
            return  # not JSON: JSON-RESPONSES judges it
        if isinstance(answered, dict) and isinstance(answered.get("name"), str) \
                and answered["name"] != sent:
            raise CheckFailed(NAME_CHECK, f"op 16 answered the name "
                              f"{_differs(answered['name'], sent)}",
                              _exchanged(response, lambda x: [when.value(x, ["name"], sent)]))
        path = case.path_parameters or {}
        try:
            reading = client.request("GET", spec.operation(3).path.format(
                projectId=quote(str(path.get("projectId")), safe="")))
            stored = card_names(reading.json()).get(str(path.get("cardId")))
        except (ExchangeError, AssertionError):
            return  # no fresh read to judge: other checks and tests judge op 3
        if reading.status == 200 and isinstance(stored, str) and stored != sent:
            check.readings[id(response)] = reading  # type: ignore[attr-defined]
            raise CheckFailed(NAME_CHECK, f"a fresh op 3 lists the card's name as "
                              f"{_differs(stored, sent)}",
                              _stored_name(reading, str(path.get("cardId")), sent))

    check.__name__ = check.__qualname__ = NAME_CHECK
    check.readings = {}  # type: ignore[attr-defined]  # id(response) -> the fresh op 3
    return check


def _exchanged(response: Any, make: Callable[[Exchange], list[when.Condition]]
               ) -> list[when.Condition]:
    """Conditions on the exchange an answer came from (none when it has none)."""
    exchange = getattr(response, "exchange", None)
    return make(exchange) if exchange is not None else []


def _stored_name(reading: Exchange, card_id: str, sent: str) -> list[when.Condition]:
    """A fresh op 3 still lists the card under another name than the one sent: the value at
    its record in the Project's `cards` is not `sent`."""
    try:
        cards = reading.json().get("cards")
    except (ValueError, AttributeError):
        return []
    found = when.locate(cards, card_id)
    if not found or found[-1] != "id":
        return []
    return [when.value(reading, ["cards", *found[:-1], "name"], sent)]


def _differs(got: str, sent: str) -> str:
    """`got`, not the name sent, and where they first differ."""
    at = next((i for i, (a, b) in enumerate(zip(got, sent, strict=False)) if a != b),
              min(len(got), len(sent)))
    return f"{_shown(got)}, not the name sent, {_shown(sent)} (first difference at character {at})"


def _shown(name: str) -> str:
    return repr(name) if len(name) <= 80 else f"{name[:60]!r}... ({len(name)} characters)"


NAME_CHECK = "boardcert_name_as_sent"


def json_payload(ctx: Any, response: Any, case: Any) -> None:
    """JSON-RESPONSES: "All payloads are JSON", so a 2xx body, if there is one, parses as JSON
    (whatever its Content-Type says: the label is JSON-MEDIA-TYPE's)."""
    content = response.content or b""
    if not 200 <= response.status_code < 300 or not content.strip():
        return
    try:
        json.loads(content)
    except (ValueError, RecursionError):
        kind = response.headers.get("content-type", ["no content type"])[0]
        raise CheckFailed(JSON_CHECK, f"the body ({kind}) is not JSON: All payloads are "
                          "JSON", _exchanged(response, lambda x: [when.not_json(x)])) from None


JSON_CHECK = "boardcert_json_payload"
json_payload.__name__ = json_payload.__qualname__ = JSON_CHECK
CHECK_REQUIREMENT = {KEY_CHECK: "AUTH-KEY-REQUIRED", JSON_CHECK: "JSON-RESPONSES",
                     NAME_CHECK: "CARD-NAME-AS-SENT"}
BOARDCERT_CHECKS = {f"boardcert_{c.name}": (_register(c), c.requirement) for c in checks.CHECKS}
