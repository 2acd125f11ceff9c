"""The client rules (spec/client-rules.yaml) and the judges of the traffic: each rule rests on
words of the interface, each can be broken, and a request of a compatible client breaks none;
an answer is judged with the requirement ids `boardcert run` uses."""

from __future__ import annotations

import gzip
import json
import re

import pytest

from boardcert.interface import requirements
from boardcert.paths import SPEC
from boardcert.traffic import answered, rules, sent
from boardcert.traffic.seen import NOT_JSON, TOO_LONG, Seen

INTERFACE = " ".join((SPEC / "interface.md").read_text(encoding="utf-8").split())
KEY = ("x-api-key", "k-123456789")
JSON = ("content-type", "application/json")


def request(method: str, path: str, body: object = None, headers: tuple = (KEY, JSON),
            query: str = "", raw: bytes | None = None, status: int | None = 200,
            answer: object = None, answer_headers: tuple = (JSON,)) -> Seen:
    content = raw if raw is not None else b"" if body is None else json.dumps(body).encode()
    out = b"" if answer is None else answer if isinstance(answer, bytes) else \
        json.dumps(answer).encode()
    return Seen(method, path, query, list(headers), content, status, list(answer_headers), out)


def broken(seen: Seen, key: str | None = None) -> list[str]:
    return [f.rule for f in sent.judge(seen, key)]


def test_every_rule_rests_on_words_of_the_interface_and_names_a_real_requirement():
    """Each rule's quote is in interface.md, its requirement in the catalogue, its level one
    of MUST, SHOULD, INFO; a reading is marked where the policy's words are the ground."""
    for rule in rules.catalogue().values():
        assert " ".join(rule.quote.split()) in INTERFACE, rule.id
        assert rule.level in requirements.LEVELS, rule.id
        assert re.fullmatch(r"CLIENT(-[A-Z0-9]+)+", rule.id)
        assert rule.requirement is None or rule.requirement in requirements.catalogue(), rule.id
        assert not rule.server_refuses or rule.requirement, rule.id


CASES = {
    "CLIENT-FORMER-PATH": request("POST", "/projects/3/row", {"name": "a"}),
    "CLIENT-UNKNOWN-OPERATION": request("GET", "/projects/3/cards"),
    "CLIENT-API-KEY-HEADER": request("GET", "/users/me", headers=()),
    "CLIENT-API-KEY-ELSEWHERE": request("GET", "/projects/3",
                                        headers=(("authorization", "Bearer k-123456789"),)),
    "CLIENT-BODY-JSON": request("PATCH", "/projects/3/cards/4", raw=b"{name: 'x'}"),
    "CLIENT-JSON-MEDIA-TYPE": request("POST", "/projects/3/rows", {"name": "a"},
                                      headers=(KEY, ("content-type", "text/plain"))),
    "CLIENT-CARD-NAME-REQUIRED": request("PATCH", "/projects/3/cards/4", {"title": "x"}),
    "CLIENT-CARD-NAME-STRING": request("PATCH", "/projects/3/cards/4", {"name": ["x"]}),
    "CLIENT-CARD-NAME-MAX": request("PATCH", "/projects/3/cards/4", {"name": "é" * 25001}),
    "CLIENT-MOVE-IDS": request("PATCH", "/projects/3/cards/move",
                               {"cardIds": ["4"], "afterCardId": "5"}),
    "CLIENT-MOVE-ANCHOR": request("PATCH", "/projects/3/cards/move-by-metadata", {"key": "k"}),
    "CLIENT-ROW-NAME": request("POST", "/projects/3/rows", {"title": "a"}),
    "CLIENT-ROW-NAME-CHOICE": request("POST", "/projects/3/rows", {"rowName": "a"}),
}


def test_every_rule_has_a_case_that_breaks_it():
    """The cases below cover the catalogue."""
    assert set(CASES) == set(rules.catalogue())


@pytest.mark.parametrize("rule", CASES)
def test_each_rule_is_broken_by_its_request(rule):
    """A request that breaks the rule is found breaking it (and the MUST rules alone)."""
    found = broken(CASES[rule])
    assert rule in found
    assert all(rules.rule(r).level != "MUST" or r == rule for r in found), found


@pytest.mark.parametrize("seen", [
    request("GET", "/users/me"),
    request("POST", "/organizations/1/projects", {"name": "p"}),
    request("POST", "/projects/3/rows", {"name": "a", "rowName": "a"}),
    request("PATCH", "/projects/3/cards/4", {"name": "é" * 25000}),
    request("PATCH", "/projects/3/cards/4", {"name": ""}),
    request("PATCH", "/projects/3/cards/move", {"ids": ["4"], "beforeCardId": "5",
                                                "columnId": "9"}),
    request("GET", "/projects/3/rows", headers=()),  # op 6: no key listed
    request("GET", "/plugins/boardcert/data/k", query="entityId=4", headers=()),
    request("DELETE", "/projects/3/cards/4/metadata/k", headers=(KEY,)),
    request("OPTIONS", "/anything", headers=()),
    request("HEAD", "/users/me"),
    request("POST", "/projects/3/rows", {"name": "a", "rowName": "a"},
            headers=(KEY, ("content-type", "application/merge-patch+json"))),
], ids=lambda s: f"{s.method} {s.target}")
def test_what_a_compatible_client_sends_breaks_no_rule(seen):
    """Current operations with the key in X-API-Key and the bodies the interface shows: no
    finding (an empty name is the server's to refuse or not; op 6 has no listed key)."""
    assert broken(seen) == []


def test_the_key_found_by_its_value_when_the_server_s_key_is_known():
    """With the server's key known (serve), a key in any header, the query or the body is
    found; without it, by the name of the header or parameter."""
    custom = request("GET", "/users/me", headers=(("x-token-of-mine", "secret-value-42"),))
    assert broken(custom) == ["CLIENT-API-KEY-HEADER"]
    assert broken(custom, "secret-value-42") == ["CLIENT-API-KEY-ELSEWHERE"]
    assert broken(request("GET", "/users/me", headers=(), query="apiKey=x")) == \
        ["CLIENT-API-KEY-ELSEWHERE"]
    assert broken(request("GET", "/users/me", headers=(("x-api-key", " "),))) == \
        ["CLIENT-API-KEY-HEADER"]


def test_garbage_is_judged_not_raised():
    """Bytes that are not JSON, not UTF-8, too deep, too long, or a path of no operation:
    findings, never an exception."""
    deep = b"[" * 100_000 + b"]" * 100_000
    assert request("PATCH", "/projects/3/cards/4", raw=deep).sent is NOT_JSON
    assert broken(request("PATCH", "/projects/3/cards/4", raw=b"\xff\xfe\x00")) == \
        ["CLIENT-BODY-JSON"]
    assert request("PUT", "/x", raw=b"1" * (5 * 2**20)).sent is TOO_LONG
    assert broken(request("GET", "/%ff/../\x00")) == ["CLIENT-UNKNOWN-OPERATION"]


def judged(seen: Seen) -> dict[str, bool]:
    return {j.requirement: j.failed for j in answered.judge(seen, sent.judge(seen))}


def test_an_answer_is_judged_with_the_checks_of_boardcert_run():
    """A wrapped Project fails PROJECT-NOT-WRAPPED and PROJECT-TOP-LEVEL; a good one passes
    them; a 201 fails SUCCESS-STATUS-200; a 5xx fails NO-SERVER-ERROR; text fails
    JSON-RESPONSES."""
    project = {"id": "3", "name": "p", "createdAt": "t", "updatedAt": "t", "rows": [],
               "cards": [], "plugins": []}
    assert judged(request("GET", "/projects/3", answer={"project": project})) | {} == {
        "NO-SERVER-ERROR": False, "SUCCESS-STATUS-200": False, "JSON-RESPONSES": False,
        "JSON-MEDIA-TYPE": False, "PROJECT-TOP-LEVEL": True, "PROJECT-NOT-WRAPPED": True}
    assert not any(judged(request("GET", "/projects/3", answer=project)).values())
    assert judged(request("POST", "/organizations/1/projects", {"name": "p"}, status=201,
                          answer=project))["SUCCESS-STATUS-200"]
    assert judged(request("GET", "/projects/3", status=503, answer=b"busy")) == \
        {"NO-SERVER-ERROR": True}
    assert judged(request("GET", "/projects/3", answer=b"<html>",
                          answer_headers=(("content-type", "text/html"),)))["JSON-RESPONSES"]


def test_a_compressed_answer_is_judged_inflated():
    """gzip is the server's choice: the answer is judged as the client reads it."""
    body = gzip.compress(json.dumps({"rows": []}).encode())
    seen = request("GET", "/projects/3/rows", answer=body,
                   answer_headers=(JSON, ("content-encoding", "gzip")))
    assert judged(seen) == {"NO-SERVER-ERROR": False, "SUCCESS-STATUS-200": False,
                            "JSON-RESPONSES": False, "JSON-MEDIA-TYPE": False,
                            "ROWS-PROPERTY-REQUIRED": False}
    bomb = request("GET", "/projects/3/rows", answer=gzip.compress(b" " * (8 * 2**20)),
                   answer_headers=(JSON, ("content-encoding", "gzip")))
    assert bomb.answer is TOO_LONG


def test_a_request_the_interface_rules_out_fails_its_requirement_when_served():
    """A former path, a keyless listed operation, an over-long card name answered 2xx fail
    REMOVED-PATH-NOT-SERVED, AUTH-KEY-REQUIRED, CARD-NAME-MAX-REJECTED; refused with a 4xx
    they pass (a refusal of a current operation counting once it is seen to succeed)."""
    former = request("POST", "/projects/3/row", {"name": "a"}, answer={})
    assert judged(former) == {"REMOVED-PATH-NOT-SERVED": True}
    assert judged(request("GET", "/users/me", headers=(), answer={}))["AUTH-KEY-REQUIRED"]
    long = request("PATCH", "/projects/3/cards/4", {"name": "x" * 25001}, answer={})
    assert judged(long)["CARD-NAME-MAX-REJECTED"]
    refused = request("PATCH", "/projects/3/cards/4", {"name": "x" * 25001}, status=422,
                      answer={"error": "too long"})
    [judgement] = [j for j in answered.judge(refused, sent.judge(refused))
                   if j.requirement == "CARD-NAME-MAX-REJECTED"]
    assert not judgement.failed and judgement.if_it_works
