"""What the board model tells the proxy from the traffic alone: a rename that renamed
something else, a rename that did not take, a delete whose item is still there on the next
reading, a project still answered after its delete; and nothing against the bundled server."""

from __future__ import annotations

import contextlib
import json

import pytest
from faults import FAULTS
from faults.asgi import Forward, Request, Response
from faults.edits import on, read_project, send
from faults.variant import fault
from hostile.servers import Servers

from boardcert.traffic.boards import Boards
from boardcert.traffic.seen import Seen
from traffic import clients
from traffic.running import KEY, proxied, reference, write

FAULT = {f.name: f for f in FAULTS}
MODELLED = ("PROJECT-RENAME", "ROW-RENAME", "COLUMN-RENAME", "CARD-RENAME", "ROW-DELETE-GONE",
            "CARD-DELETE-GONE", "PROJECT-DELETE")


async def _renames_the_first_row(request: Request, forward: Forward) -> Response:
    """Op 10 renames the project's first row, whichever row it names."""
    project = await read_project(request, forward)
    rows = project.json()["rows"] if project.status == 200 else []
    if not rows:
        return await forward(request)
    first = f"/projects/{request.params['projectId']}/rows/{rows[0]['id']}/rename"
    return await forward(send(request, "PATCH", first, request.json()))


RENAMES_ANOTHER = fault("row-rename-renames-first-row", "WRITE-ONLY-ADDRESSED",
                        "op 10 renames the first row, whichever row it names",
                        on(10, _renames_the_first_row))


def judged(variant, tmp_path) -> dict[str, dict]:
    """The keeper client through the proxy in front of the variant: the compliance report's
    requirements by id."""
    with Servers() as servers:
        upstream = servers.asgi(variant.app(KEY))
        with proxied(upstream) as (base_url, book), \
                contextlib.suppress(clients.ClientBroke, KeyError, IndexError):
            clients.keeper(base_url, KEY)
    assert book.errors == []
    report = write(book, tmp_path, upstream, "proxy").compliance
    return {r["id"]: r for r in report["requirements"]}


def test_the_bundled_server_fails_nothing_the_model_judges(tmp_path):
    """Renames and deletes read back as the model says: each judged requirement passed on the
    operation that wrote."""
    with reference() as upstream, proxied(upstream) as (base_url, book):
        clients.keeper(base_url, KEY)
    report = write(book, tmp_path, upstream, "proxy").compliance
    found = {r["id"]: r for r in report["requirements"]}
    assert [i for i, r in found.items() if r["status"] == "failed"] == []
    tests = {t["nodeid"]: t["outcome"] for t in report["tests"]}
    for op, requirement in [(5, None), (10, "ROW-RENAME"), (13, "COLUMN-RENAME"),
                            (16, "CARD-RENAME"), (17, "CARD-DELETE-GONE"),
                            (9, "ROW-DELETE-GONE"), (4, "PROJECT-DELETE"),
                            (10, "WRITE-ONLY-ADDRESSED")]:
        if requirement:
            assert tests[f"traffic::op{op}::{requirement}"] == "passed", requirement


def test_a_rename_that_renamed_something_else(tmp_path):
    """Op 10 renaming the first row, not the one it names: WRITE-ONLY-ADDRESSED (the first row
    reads the new name) and ROW-RENAME (the named row does not) fail, in words."""
    found = judged(RENAMES_ANOTHER, tmp_path)
    assert found["WRITE-ONLY-ADDRESSED"]["status"] == "failed"
    assert found["ROW-RENAME"]["status"] == "failed"
    message = found["WRITE-ONLY-ADDRESSED"]["message"]
    assert "row 1 of 3" in message and "'review'" in message, message


@pytest.mark.parametrize("name, requirement", [
    ("card-delete-keeps-card", "CARD-DELETE-GONE"),
    ("row-delete-keeps-row", "ROW-DELETE-GONE"),
    ("project-delete-keeps-project", "PROJECT-DELETE"),
    ("row-rename-not-saved", "ROW-RENAME"),
    ("column-rename-not-saved", "COLUMN-RENAME"),
    ("card-rename-not-saved", "CARD-RENAME"),
])
def test_a_catalogue_fault_of_the_board_is_told_by_the_model(name, requirement, tmp_path):
    """A delete still there on the next reading, a rename that did not take: the fault's
    requirement fails, and nothing else the model judges does."""
    found = judged(FAULT[name], tmp_path)
    assert found[requirement]["status"] == "failed", found[requirement]["message"]
    others = [i for i in MODELLED if i != requirement and found[i]["status"] == "failed"]
    assert others == [], {i: found[i]["message"] for i in others}


def _project(*rows: str) -> bytes:
    return json.dumps({"id": "p1", "name": "board", "createdAt": "2026-01-01T00:00:00Z",
                       "rows": [{"id": r, "name": f"row {r}", "columns": []} for r in rows],
                       "cards": [], "plugins": []}).encode()


def _seen(method: str, path: str, answer: bytes, sent_at: float, answered_at: float,
          body: bytes = b"") -> Seen:
    return Seen(method, path, "", [("content-type", "application/json")], body, 200,
                [("content-type", "application/json")], answer, 0.0,
                sent_at=sent_at, answered_at=answered_at)


@pytest.mark.parametrize("sent_at, told", [(2.5, False), (3.5, True)])
def test_a_reading_is_held_only_to_the_writes_answered_before_it_was_sent(sent_at, told):
    """Op 8 sent while op 9 deleted row r2 (sent at 2.5, the delete answered at 3) may show
    r2 still: no judgement, the delete waits for the next reading, which must not show it.
    Sent after the delete was answered (3.5), the same answer fails ROW-DELETE-GONE."""
    boards = Boards()
    assert boards.judge(_seen("GET", "/projects/p1", _project("r1", "r2"), 0, 1)) == []
    delete = _seen("DELETE", "/projects/p1/rows/r2", _project("r1"), 2, 3)
    assert not any(j.failed for j in boards.judge(delete))
    order = _seen("PATCH", "/projects/p1/order-rows", _project("r2", "r1"), sent_at, 4,
                  json.dumps({"ids": ["r2", "r1"]}).encode())
    failed = [j.requirement for j in boards.judge(order) if j.failed]
    assert failed == (["ROW-DELETE-GONE"] if told else [])
    if not told:  # the next reading is held to the delete
        again = _seen("GET", "/projects/p1", _project("r2", "r1"), 5, 6)
        assert [j.requirement for j in boards.judge(again) if j.failed] == ["ROW-DELETE-GONE"]
        gone = Boards()
        for seen in (_seen("GET", "/projects/p1", _project("r1", "r2"), 0, 1), delete, order):
            gone.judge(seen)
        judged = gone.judge(_seen("GET", "/projects/p1", _project("r1"), 5, 6))
        assert [j.requirement for j in judged] == ["ROW-DELETE-GONE"]
        assert not judged[0].failed
