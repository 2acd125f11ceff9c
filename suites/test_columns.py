"""Columns (ops 11-14): created in their row, renamed, reordered and deleted, each write on
a board of three rows (three columns in the middle one) read back whole against its model.

Row and column records are "not shown": they are found by their ids and unique names, and a
structure the suite cannot read leaves the requirement not assessed rather than failed.
"""

from __future__ import annotations

from typing import Any

import pytest

from boardcert.conformance import (
    ORDERS,
    checks,
    expect,
    modelled,
    together,
    unique,
)


@pytest.fixture
@together.owned("make_project", "make_row", "make_column")
def row_with_columns(make_project, make_row, make_column):
    """A project of the test's own with one row holding two columns."""
    def build() -> tuple[Any, Any, list[Any]]:
        project = make_project()
        row = make_row(project)
        return project, row, [make_column(project, row), make_column(project, row)]
    return build


@pytest.mark.requirement("COLUMN-CREATE")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=11)
def test_created_column_is_in_its_row(api, wide_board, ledger):
    """A column created by op 11 in the last of three rows appears inside that row, in the
    Project returned, op 3 and op 6, and nothing else on the board changed."""
    oracle, project, row = modelled(api, wide_board), wide_board.project, wide_board.rows[2]
    name = unique("column")
    exchange = api.call(11, projectId=project.id, rowId=row.id,
                        json=api.body("create_column", name=name))
    body = expect.success(exchange, 11, "COLUMN-CREATE")
    entry = ledger.created("column", project.entry, answer=expect.rows(body, "op 11"), name=name,
                           within=row.id, projectId=project.id)
    if entry is None:
        expect.fail("COLUMN-CREATE", f"the column {name!r} in op 11's Project", exchange,
                    got="no record with that name")
    oracle.check(oracle.board.create_column(project.id, row.id, entry.id, name), exchange,
                 project.id)


@pytest.mark.parametrize("which", ["middle", "first-row-last"])
@pytest.mark.requirement("COLUMN-RENAME")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=13)
def test_rename_renames_the_column(api, wide_board, which):
    """After op 13 the middle column of the middle row (or the last column of the first row,
    whose place the next row has too) carries the new name, in the Project returned, op 3, op
    6 and its cards' columns, and nothing else on the board changed."""
    board = wide_board
    column = board.columns[1] if which == "middle" else board.held[board.rows[0].id][-1]
    oracle, project = modelled(api, board), board.project.id
    new = unique("renamed")
    exchange = api.call(13, projectId=project, columnId=column.id,
                        json=api.body("rename_column", name=new))
    act, _ = expect.written(oracle, exchange, 13, "COLUMN-RENAME",
                            lambda board: board.rename_column(project, column.id, new))
    oracle.check(act, exchange, project)


@pytest.mark.requirement("COLUMN-ORDER")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=12)
@pytest.mark.parametrize("order", ORDERS.values(), ids=ORDERS.keys())
def test_columns_can_be_reordered(api, wide_board, order):
    """Op 12 with the profile's body puts the three columns of the middle row in the order
    asked for (the last first, and all three turned round), and nothing else on the board
    changed."""
    oracle, project, columns = modelled(api, wide_board), wide_board.project.id, \
        wide_board.columns
    wanted = [columns[n].id for n in order]
    exchange = api.call(12, projectId=project, rowId=wide_board.row.id,
                        json=api.body("order_columns", column_ids=wanted))
    act, _ = expect.written(oracle, exchange, 12, "COLUMN-ORDER",
                            lambda board: board.order_columns(project, wide_board.row.id, wanted))
    oracle.check(act, exchange, project)


@pytest.mark.requirement("COLUMN-DELETE-RETURNS-PROJECT")
def test_column_delete_answers_the_project(api, row_with_columns):
    """Op 14 answers 200 with the updated Project."""
    project, _, (column, _) = row_with_columns
    exchange = api.call(14, projectId=project.id, columnId=column.id)
    body = expect.success(exchange, 14, "COLUMN-DELETE-RETURNS-PROJECT")
    found = [problem for _, problem in checks.problems(14, body)]
    if found:
        expect.fail("COLUMN-DELETE-RETURNS-PROJECT", "the updated Project", exchange,
                    got="; ".join(found),
                    conditions=[c for p in found for c in checks.conditions(p, exchange)])
    expect.equal("COLUMN-DELETE-RETURNS-PROJECT", "the Project's id", project.id,
                 str(body["id"]), exchange)


@pytest.mark.parametrize("which", [1, 2], ids=["middle", "last"])
@pytest.mark.requirement("COLUMN-DELETE-GONE")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=14)
def test_deleted_column_is_gone(api, wide_board, ledger, which):
    """After op 14 the column (the middle or the last of three, with its cards) is absent
    from the Project it returned, op 3 and op 6; the other columns, rows and cards are as
    they were (what becomes of its own cards is open)."""
    oracle, project, column = modelled(api, wide_board), wide_board.project.id, \
        wide_board.columns[which]
    exchange = api.call(14, projectId=project, columnId=column.id)
    act, _ = expect.written(oracle, exchange, 14, "COLUMN-DELETE-GONE",
                            lambda board: board.delete_column(project, column.id))
    ledger.forget(column.entry)
    oracle.check(act, exchange, project)
