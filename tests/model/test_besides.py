"""A write the server failed at still has the whole board read (boardcert.model.Oracle.besides,
through `expect.written`): what it did not address must read as before, or as the write would
have left it; else the failure names WRITE-ONLY-ADDRESSED too. Against the reference server,
over HTTP: the write's failure is handed in, and the server is made to do each case."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from boardcert.errors import NotAssessed, Violation
from boardcert.http.api import Api
from boardcert.http.client import Client
from boardcert.reference.server import start
from boardcert.settings.config import Target, load_profile
from boardcert.workbench import expect
from boardcert.workbench.board import unique

from .test_readings_side_by_side import board

KEY = "besides-key-8e2a"


@pytest.fixture(scope="module")
def api() -> Iterator[Api]:
    server = start(KEY)
    client = Client(Target(server.base_url, KEY, load_profile()), httpx.HTTPTransport())
    yield Api(client, client.target.profile)
    client.close()
    server.stop()


def refused(number: int, requirement: str) -> Violation:
    return Violation(f"[{requirement}] expected status 200 from operation {number}; got status "
                     "404", [requirement])


@pytest.mark.parametrize("done", [False, True], ids=["undone", "done"])
def test_a_failed_write_that_touched_nothing_else_fails_alone(api: Api, done: bool):
    """A rename of the middle row answered an error, whether the server renamed it or not:
    the failure is the write's own, as it was handed in."""
    oracle, project, rows = board(api)
    name = unique("row")
    if done:
        api.call(10, projectId=project, rowId=rows[1], json={"name": name})
    failure = refused(10, "ROW-RENAME")
    assert oracle.besides(failure, lambda b: b.rename_row(project, rows[1], name)) is failure


def test_a_failed_delete_that_deleted_fails_alone(api: Api):
    """A delete of the last row that was done (its columns and cards gone with it) yet
    answered an error: only the write's own requirement."""
    oracle, project, rows = board(api)
    api.call(9, projectId=project, rowId=rows[2])
    failure = refused(9, "ROW-DELETE-GONE")
    assert oracle.besides(failure, lambda b: b.delete_row(project, rows[2])) is failure


def test_a_failed_write_that_changed_another_item_fails_both(api: Api):
    """A rename of the middle row answered an error, and the first row was renamed: the
    failure names the write's requirement and WRITE-ONLY-ADDRESSED, with the reading as
    evidence."""
    oracle, project, rows = board(api)
    api.call(10, projectId=project, rowId=rows[0], json={"name": unique("row")})
    shown = len(api.client.log)
    found = oracle.besides(refused(10, "ROW-RENAME"),
                           lambda b: b.rename_row(project, rows[1], unique("row")))
    assert found.requirements == ("ROW-RENAME", "WRITE-ONLY-ADDRESSED")
    assert "row 1 of 3" in str(found) and str(found).startswith("[ROW-RENAME]")
    assert {id(e) for e in found.sent} <= {id(e) for e in api.client.log[shown:]}


def test_written_gives_the_act_and_the_body_of_a_write_that_succeeded(api: Api):
    """`expect.written` on a 200: the act applied to the model, and the answer's body; the
    board then checks as usual."""
    oracle, project, rows = board(api)
    name = unique("row")
    exchange = api.call(10, projectId=project, rowId=rows[1], json={"name": name})
    act, body = expect.written(oracle, exchange, 10, "ROW-RENAME",
                               lambda b: b.rename_row(project, rows[1], name))
    assert act.op == 10 and body["id"] == project
    oracle.check(act, exchange, project)


def test_written_reads_the_board_after_a_failure(api: Api):
    """`expect.written` on an error status: the write's own failure, joined by what changed
    elsewhere (a row deleted beside a rename answered 404)."""
    oracle, project, rows = board(api)
    api.call(9, projectId=project, rowId=rows[0])
    exchange = api.call(10, projectId=project, rowId="no-such-row", json={"name": "x"})
    assert exchange.status == 404
    with pytest.raises(Violation) as failed:
        expect.written(oracle, exchange, 10, "ROW-RENAME",
                       lambda b: b.rename_row(project, rows[1], "x"))
    assert failed.value.requirements == ("ROW-RENAME", "WRITE-ONLY-ADDRESSED")


def test_a_write_not_assessed_is_still_held_to_the_rest_of_the_board(api: Api):
    """A write whose failure is not held against its own requirement (a set-up, a profile
    misfit): not assessed as it was where nothing else changed, else WRITE-ONLY-ADDRESSED
    alone."""
    oracle, project, rows = board(api)
    unheld = NotAssessed("set-up (operation 10 answered 404)")
    assert oracle.besides(unheld, lambda b: b.rename_row(project, rows[1], "x")) is unheld
    api.call(10, projectId=project, rowId=rows[2], json={"name": unique("row")})
    found = oracle.besides(unheld, lambda b: b.rename_row(project, rows[1], "x"))
    assert isinstance(found, Violation) and found.requirements == ("WRITE-ONLY-ADDRESSED",)
    assert str(found).startswith("[WRITE-ONLY-ADDRESSED] not assessed: set-up (operation 10 ")
