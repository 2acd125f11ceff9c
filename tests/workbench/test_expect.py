"""boardcert.workbench.expect: the suites' assertions fail with a Violation carrying the requirement
and the exchange as data, and pass what the interface allows."""

from __future__ import annotations

import json
from typing import Any

import pytest

from boardcert.errors import NotAssessed, Violation
from boardcert.http.client import Exchange
from boardcert.settings.config import ProfileBody
from boardcert.workbench import expect


def exchange(status: int, body: Any = None, content_type: str = "application/json") -> Exchange:
    content = b"" if body is None else json.dumps(body).encode()
    return Exchange("GET", "http://server/users/me", {"X-API-Key": "***"}, None, status=status,
                    headers={"content-type": content_type}, content=content)


def test_success_returns_the_body_of_a_200():
    """A 200 with JSON passes and gives its body."""
    assert expect.success(exchange(200, {"id": "u1"}), 1) == {"id": "u1"}


def test_success_fails_another_status_with_its_requirement_and_exchange():
    """A 201 fails SUCCESS-STATUS-200, carrying the exchange as data."""
    with pytest.raises(Violation) as failed:
        expect.success(exchange(201, {"id": "u1"}), 1)
    assert failed.value.requirements == ("SUCCESS-STATUS-200",)
    assert [e["status"] for e in failed.value.exchanges] == [201]
    assert "expected status 200 from operation 1; got status 201" in str(failed.value)


def test_success_fails_a_body_that_is_not_json():
    """A 200 whose bytes do not parse fails JSON-RESPONSES, naming the content type."""
    html = Exchange("GET", "http://server/users/me", {}, None, status=200,
                    headers={"content-type": "text/html"}, content=b"<html>ok</html>")
    with pytest.raises(Violation) as failed:
        expect.success(html, 1)
    assert failed.value.requirements == ("JSON-RESPONSES",)
    assert "not JSON (text/html)" in str(failed.value)


def test_the_label_is_judged_apart_from_the_bytes():
    """JSON labelled text/plain passes `success` (the bytes are JSON: the MUST) and fails
    `labelled` (JSON-MEDIA-TYPE, a SHOULD); application/json, a +json type with parameters
    and an empty body pass both."""
    plain = exchange(200, {"id": "u1"}, content_type="text/plain")
    assert expect.success(plain, 1) == {"id": "u1"}
    with pytest.raises(Violation) as failed:
        expect.labelled(plain, 1)
    assert failed.value.requirements == ("JSON-MEDIA-TYPE",)
    assert "Content-Type text/plain" in str(failed.value)
    for content_type in ("application/json", "application/vnd.board+json; charset=utf-8",
                         "Application/JSON"):
        expect.labelled(exchange(200, {"id": "u1"}, content_type=content_type), 1)
    expect.labelled(exchange(200, None, content_type=""), 4)


@pytest.mark.parametrize("status", [400, 404, 409, 422])
def test_rejected_accepts_any_4xx(status: int):
    """Any 4xx is a rejection: the interface names no error status."""
    expect.rejected(exchange(status), "CARD-NAME-MAX-REJECTED", "a long name")


@pytest.mark.parametrize("status", [200, 302])
def test_rejected_fails_anything_else(status: int):
    """A 2xx or 3xx to forbidden input fails the requirement, saying what came."""
    with pytest.raises(Violation) as failed:
        expect.rejected(exchange(status), "CARD-NAME-MAX-REJECTED", "a long name")
    assert failed.value.requirements == ("CARD-NAME-MAX-REJECTED",)
    assert f"status {status}" in str(failed.value)


@pytest.mark.parametrize(("requirement", "blamed"), [
    ("CARD-NAME-MAX-REJECTED", ("NO-SERVER-ERROR",)),
    ("REJECT-MALFORMED-JSON", ("NO-SERVER-ERROR", "REJECT-MALFORMED-JSON"))])
def test_a_server_error_breaks_a_must_only_by_serving(requirement: str, blamed: tuple[str, ...]):
    """A 5xx to forbidden input is NO-SERVER-ERROR; a MUST breaks only on a 2xx (policy,
    section 2), a SHOULD that asks for a 4xx breaks too."""
    with pytest.raises(Violation) as failed:
        expect.rejected(exchange(500), requirement, "bad input")
    assert failed.value.requirements == blamed
    assert "status 500 (a server error)" in str(failed.value)


def test_a_refused_profile_body_is_not_assessed():
    """A 422 to an unproven profile body is the profile's misfit: NotAssessed, not a failure."""
    refused = exchange(422, {"detail": "name is required"})
    refused.profile_body = (15, ProfileBody("create_card", {"title": "x"}), {}, set())
    with pytest.raises(NotAssessed, match="bodies.create_card"):
        expect.success(refused, 15)


def test_equal_names_both_values():
    """equal fails with the expected and the actual value."""
    expect.equal("ROW-RENAME", "the name", "a", "a")
    with pytest.raises(Violation, match=r"\[ROW-RENAME\] expected the name to be 'a'; got 'b'"):
        expect.equal("ROW-RENAME", "the name", "a", "b")


def test_unchanged_says_where_a_value_changed():
    """unchanged fails naming the changed paths: a field, a reordering of records."""
    before = {"name": "p", "rows": [{"id": "r1"}, {"id": "r2"}]}
    expect.unchanged("REJECTED-CHANGES-NOTHING", "the project", before, dict(before))
    after = {"name": "q", "rows": [{"id": "r2"}, {"id": "r1"}], "extra": 1}
    with pytest.raises(Violation) as failed:
        expect.unchanged("REJECTED-CHANGES-NOTHING", "the project", before, after)
    message = str(failed.value)
    assert "name: 'p' -> 'q'" in message
    assert "rows: ids ['r1', 'r2'] -> ['r2', 'r1']" in message
    assert "extra added (1)" in message


def test_changes_nothing_leaves_out_what_changes_on_its_own():
    """A field that differs between two readings with nothing in between (a request id at the
    top, a read time in each row) is left out of the comparison; a change beside it in the same
    row still fails, and the failure names what was left out."""
    reads = iter(range(100))

    def project(row_name: str = "a") -> dict[str, Any]:
        tick = next(reads)
        return {"id": "p", "requestId": f"r{tick}",
                "rows": [{"id": "1", "name": row_name, "readAt": tick}, {"id": "2", "name": "b"}]}

    calm = expect.Outcome(exchange(401), project(), project(), read=project)
    expect.changes_nothing("AUTH-REJECTED-CHANGES-NOTHING", "the project", calm)
    acted = expect.Outcome(exchange(401), project(), project("renamed"), read=project)
    with pytest.raises(Violation) as failed:
        expect.changes_nothing("AUTH-REJECTED-CHANGES-NOTHING", "the project", acted)
    message = str(failed.value)
    assert "rows[0].name: 'a' -> 'renamed'" in message
    assert "readAt" not in message.split("(left out")[0]
    assert "requestId, rows[*].readAt" in message
    unread = expect.Outcome(exchange(401), project(), project())
    with pytest.raises(Violation):  # no way to read it again: no field can be left out
        expect.changes_nothing("AUTH-REJECTED-CHANGES-NOTHING", "the project", unread)


@pytest.fixture
def fresh_memory(monkeypatch):
    """changes_nothing's memory of which fields move on their own, empty; no real pause."""
    monkeypatch.setattr(expect, "_SEEN_STILL", set())
    monkeypatch.setattr(expect, "_SEEN_MOVING", set())
    pauses: list[float] = []
    monkeypatch.setattr(expect.time, "sleep", pauses.append)
    return pauses


def test_changes_nothing_leaves_out_a_read_time_to_the_second(fresh_memory, monkeypatch):
    """A read time that ticks once a second differs between the readings a request apart and
    not between two readings in a row: a reading LATE seconds later shows it moving on its
    own, so it is left out (once learnt, without waiting again); a rename beside it fails,
    with no wait of its own: the name held still through the first wait."""
    server = {"name": "p", "second": 0}

    def read() -> dict[str, Any]:
        return {"id": "p", "name": server["name"], "servedAt": f"10:00:{server['second']:02}"}

    def outcome(rename: str | None = None) -> expect.Outcome:
        before = read()
        server["second"] += 1  # the request straddles a tick
        server["name"] = rename or server["name"]
        return expect.Outcome(exchange(401), before, read(), read=read)

    def tick(seconds: float) -> None:
        fresh_memory.append(seconds)
        server["second"] += 1

    monkeypatch.setattr(expect.time, "sleep", tick)
    expect.changes_nothing("AUTH-REJECTED-CHANGES-NOTHING", "the project", outcome())
    assert fresh_memory == [expect.LATE]
    with pytest.raises(Violation) as failed:
        expect.changes_nothing("AUTH-REJECTED-CHANGES-NOTHING", "the project", outcome("q"))
    assert "name: 'p' -> 'q'" in str(failed.value) and "servedAt" in str(failed.value)
    assert fresh_memory == [expect.LATE]  # the name held still through the first wait
    with pytest.raises(Violation):
        expect.changes_nothing("AUTH-REJECTED-CHANGES-NOTHING", "the project", outcome("r"))
    assert fresh_memory == [expect.LATE]  # both fields known: no more waiting


def test_changes_nothing_waits_only_for_a_difference(fresh_memory):
    """Readings that agree cost no control read and no pause."""
    reads = []
    same = expect.Outcome(exchange(401), {"a": 1}, {"a": 1}, read=lambda: reads.append(1))
    expect.changes_nothing("AUTH-REJECTED-CHANGES-NOTHING", "the project", same)
    assert (reads, fresh_memory) == ([], [])


def test_a_wait_teaches_what_held_still_and_nothing_that_moved(fresh_memory, monkeypatch):
    """One wait tells every field of the reading that held still through it: a row's name,
    never waited for again. What moved is remembered only for the fields the wait was for
    (a read time that moved beside them is waited for once when it first differs), and a list
    holding a field that moved is not taken as still (a row added later is waited for)."""
    server = {"second": 0, "rows": ["a"], "name": "p"}

    def read() -> dict[str, Any]:
        rows = [{"name": n, "readAt": server["second"]} for n in server["rows"]]
        return {"id": "p", "name": server["name"], "rows": rows}

    def tick(seconds: float) -> None:
        fresh_memory.append(seconds)
        server["second"] += 1

    monkeypatch.setattr(expect.time, "sleep", tick)

    def changed(**change: Any) -> str:
        before = read()
        server.update(change)
        outcome = expect.Outcome(exchange(401), before, read(), read=read)
        with pytest.raises(Violation) as failed:
            expect.changes_nothing("AUTH-REJECTED-CHANGES-NOTHING", "the project", outcome)
        return str(failed.value)

    assert "name: 'p' -> 'q'" in changed(name="q")
    assert fresh_memory == [expect.LATE]
    assert "rows[0].name: 'a' -> 'b'" in changed(rows=["b"])
    assert fresh_memory == [expect.LATE]  # the row's name held still through the wait
    shown = changed(rows=["c"], second=5)  # a row renamed as the clock ticks
    assert "rows[0].name: 'b' -> 'c'" in shown and "rows[*].readAt" in shown.split("(left")[1]
    assert fresh_memory == [expect.LATE] * 2  # for the read time alone
    assert "rows[0].name: 'c' -> 'd'" in changed(rows=["d"], second=9)
    assert fresh_memory == [expect.LATE] * 2  # both known: no wait
    assert "rows: 1 items -> 2 items" in changed(rows=["d", "e"])
    assert fresh_memory == [expect.LATE] * 3  # the list itself was never seen still
