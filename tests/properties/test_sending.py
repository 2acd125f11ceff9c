"""boardcert.properties.sending and the key check: every request of the property tests goes
through boardcert.http.client (the key sent but masked in the evidence, the exact bytes, 429
retries, pacing, the body cap), over an httpx MockTransport (no server, no network)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from functools import cache
from typing import Any

import httpx
import pytest

from boardcert.errors import ExchangeError
from boardcert.http.client import Client
from boardcert.properties import load_schema
from boardcert.properties.schemathesis_checks import key_required
from boardcert.properties.sending import Answer, send
from boardcert.settings.config import resolve

KEY = "sending-test-key-5f0c2e"
URL = "http://127.0.0.1:9"


def client(handler: Callable[[httpx.Request], httpx.Response], **flags: Any) -> Client:
    return Client(resolve({"base_url": URL, "api_key": KEY, **flags}, {}),
                  transport=httpx.MockTransport(handler))


@cache
def renaming() -> Any:
    return load_schema()["/projects/{projectId}/cards/{cardId}"]["PATCH"]


def rename(name: Any) -> Any:
    """A case of op 16 (PATCH a card's name), as schemathesis makes them."""
    return renaming().Case(path_parameters={"projectId": "p1", "cardId": "c1"},
                          body={"name": name}, media_type="application/json")


def test_a_case_is_sent_with_the_key_which_the_evidence_masks():
    """The server gets the key and the case's JSON; the answer is schemathesis's Response,
    whose exchange shows the same bytes, the key as *** and a curl line without the key."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"id": "c1", "name": "é"})

    answer = send(client(handler), rename("é"))
    assert isinstance(answer, Answer) and answer.status_code == 200
    assert answer.json() == {"id": "c1", "name": "é"}
    (request,) = seen
    assert request.headers["x-api-key"] == KEY
    assert request.url == f"{URL}/projects/p1/cards/c1" and request.method == "PATCH"
    assert json.loads(request.content) == {"name": "é"}
    exchange = answer.exchange
    assert exchange.request_body == request.content
    assert exchange.request_headers["x-api-key"] == "***"
    assert "-H 'x-api-key: ***'" in exchange.curl and KEY not in exchange.curl
    assert KEY not in json.dumps(exchange.as_dict())


def test_a_429_is_retried_and_requests_are_paced_by_the_client():
    """A 429 with Retry-After 0 is sent again (the test sees the 200); at --rate-limit 20 three
    cases take at least 0.1 s: generated requests keep the client's manners."""
    statuses = iter([429, 200, 200, 200])

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(next(statuses), headers={"Retry-After": "0"}, json={})

    paced = client(handler, rate_limit=20)
    started = time.monotonic()
    answers = [send(paced, rename(f"n{i}")) for i in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert answers[0].exchange.attempt == 2
    assert time.monotonic() - started >= 0.09


def test_a_body_over_the_cap_is_not_read():
    """An answer larger than --max-body fails as the explicit suites' requests do, with the
    exchange as evidence (and no traceback through schemathesis), rather than being read whole."""
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"x" * 5000)

    with pytest.raises(ExchangeError) as raised:
        send(client(handler, max_body=1000), rename("big"))
    assert raised.value.exchanges[0]["failure"] == "too large"
    assert raised.value.traceback is False  # the message and evidence say it all


@pytest.mark.parametrize(("keyless", "wrong", "fails"), [(401, 403, False), (200, 401, True),
                                                         (401, 200, True), (404, 429, False)])
def test_the_key_check_resends_the_request_without_and_with_a_wrong_key(keyless, wrong, fails):
    """After a 2xx, the same request goes out again through the client without X-API-Key and
    with a wrong one; any 4xx to both passes, a 2xx to either fails with its exchange kept."""
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        key = request.headers.get("x-api-key")
        status = 200 if key == KEY else keyless if key is None else wrong
        return httpx.Response(status, headers={"Retry-After": "0"}, json={})

    through, case = client(handler), rename("k")
    answer = send(through, case)
    check = key_required(through)
    if fails:
        with pytest.raises(AssertionError, match="the same request"):
            check(None, answer, case)
        assert check.probes[id(answer)][0] is answer
    else:
        check(None, answer, case)
        assert not check.probes
    probes = [r for r in sent[1:] if r.headers.get("x-api-key") != KEY]
    assert probes and probes[0].headers.get("x-api-key") is None
    assert all(r.content == sent[0].content and r.url == sent[0].url for r in probes)


@pytest.mark.parametrize(("keyless", "fails"), [(401, False), (200, True)])
def test_with_requests_in_flight_the_key_check_sends_both_at_once_and_judges_as_serially(
        keyless, fails):
    """Given two lanes (the speed plugin's), the two requests go out at once; refused both,
    they are the test's own; else they are thrown away and sent again one at a time, judged as
    serially (the first that is not refused fails, and only the serial requests are the
    test's)."""
    import threading

    from boardcert.speed.in_flight import Wide

    busy, most, lock = [0], [0], threading.Lock()

    def handler(request: httpx.Request) -> httpx.Response:
        key = request.headers.get("x-api-key")
        with lock:
            busy[0] += 1
            most[0] = max(most[0], busy[0])
        time.sleep(0.05 if key != KEY else 0)
        with lock:
            busy[0] -= 1
        status = 200 if key == KEY else keyless if key is None else 403
        return httpx.Response(status, json={})

    through, case = client(handler), rename("k")
    answer = send(through, case)
    check = key_required(through, Wide(2))
    if fails:
        with pytest.raises(AssertionError, match="without X-API-Key answered 200"):
            check(None, answer, case)
    else:
        check(None, answer, case)
    assert most[0] == 2
    shown = [e.request_headers.get("x-api-key") for e in through.log]
    assert shown == (["***", None] if fails else ["***", None, shown[2]]) and \
        (fails or shown[2] not in (None, "***"))
