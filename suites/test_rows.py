"""Rows (ops 6-10): listed, created with name or rowName, renamed, reordered and deleted.

Row records are "not shown": a row is found by its unique name (`find_named`), and a structure
the suite cannot read leaves the requirement not assessed rather than failed.
"""

from __future__ import annotations

from typing import Any

import pytest

from boardcert.conformance import (
    ORDERS,
    Exchange,
    NotAssessed,
    checks,
    expect,
    find_named,
    ids_in_order,
    mentions,
    modelled,
    together,
    unique,
)


def _listed_rows(api, project_id: str, requirement: str) -> tuple[Any, Exchange]:
    exchange = api.call(6, projectId=project_id)
    return expect.rows(expect.success(exchange, 6, requirement), "op 6"), exchange


@pytest.fixture
@together.owned("make_project")
def project(make_project):
    """A project of the test's own, without rows."""
    return make_project


@pytest.fixture
@together.owned("make_project", "make_row")
def project_with_rows(make_project, make_row):
    """A project of the test's own with two rows."""
    def build() -> tuple[Any, list[Any]]:
        project = make_project()
        return project, [make_row(project), make_row(project)]
    return build


@pytest.mark.read_only
@pytest.mark.requirement("ROWS-PROPERTY-REQUIRED")
def test_rows_answer_is_an_object_with_rows(api, board):
    """GET /projects/{projectId}/rows answers an object with the required property rows."""
    exchange = api.call(6, projectId=board.project.id)
    if exchange.status != 200:
        raise NotAssessed(f"op 6 answer (it answered {exchange.status}; see "
                          "OPERATION-IMPLEMENTED)")
    expect.shaped(exchange, 6, "ROWS-PROPERTY-REQUIRED")


@pytest.mark.parametrize("history", ["never-given-a-row", "every-row-deleted"])
@pytest.mark.requirement("ROWS-PROPERTY-REQUIRED")
def test_rows_answer_has_rows_when_the_project_has_none(api, make_project, make_row, history):
    """Op 6 answers an object with rows also for a project that has no rows: one never given a
    row, and one whose rows were all deleted (op 9)."""
    project = make_project()
    if history == "every-row-deleted":
        make_row(project)
        rows, _ = _listed_rows(api, project.id, "ROWS-PROPERTY-REQUIRED")
        for row_id in ids_in_order(rows, "rows of op 6"):
            deleted = api.call(9, projectId=project.id, rowId=row_id)
            if deleted.status != 200:
                raise NotAssessed(f"a project whose rows were deleted (op 9 answered "
                                  f"{deleted.status}; see ROW-DELETE-RETURNS-PROJECT)")
    exchange = api.call(6, projectId=project.id)
    if exchange.status != 200:
        raise NotAssessed(f"op 6 answer (it answered {exchange.status}; see "
                          "OPERATION-IMPLEMENTED)")
    expect.shaped(exchange, 6, "ROWS-PROPERTY-REQUIRED")


@pytest.mark.read_only
@pytest.mark.requirement("ROWS-LIST-CREATED")
def test_created_row_is_listed(api, board):
    """A row created by op 7 is listed in the rows of op 6."""
    rows, exchange = _listed_rows(api, board.project.id, "ROWS-LIST-CREATED")
    row = board.row
    if find_named(rows, row.name) != row.id and not mentions(rows, row.id):
        expect.fail("ROWS-LIST-CREATED", f"row {row.id} ({row.name!r}) among the rows of op 6",
                    exchange, got="rows without it")


@pytest.mark.requirement("ROWS-LIST-CREATED")
def test_row_created_after_a_listing_is_listed(api, project, make_row):
    """A row created after op 6 was read is listed by the next op 6 (no stale listing)."""
    _listed_rows(api, project.id, "ROWS-LIST-CREATED")
    row = make_row(project)
    rows, exchange = _listed_rows(api, project.id, "ROWS-LIST-CREATED")
    if find_named(rows, row.name) != row.id and not mentions(rows, row.id):
        expect.fail("ROWS-LIST-CREATED", f"row {row.id} ({row.name!r}) among the rows of op 6 "
                    "read after its creation", exchange, got="the rows listed before it")


@pytest.mark.requirement("ROW-NAME-PROPERTY")
def test_row_is_created_with_name_or_row_name(api, project, profile):
    """Op 7 accepts the row name under at least one of name and rowName."""
    chosen = profile.data.get("row_name_property")
    order = ["rowName", "name"] if chosen == "rowName" else ["name", "rowName"]
    statuses = []
    for prop in order:
        exchange = api.call(7, projectId=project.id, json={prop: unique("row")})
        if exchange.status == 200:
            return
        statuses.append(f"{prop}: status {exchange.status}")
    expect.fail("ROW-NAME-PROPERTY", "op 7 to accept the row name as name or as rowName",
                exchange, got="; ".join(statuses))


@pytest.mark.requirement("ROW-NAME-PROPERTY-CHOICE")
def test_row_name_property_choice_is_recorded(api, project, observe):
    """Whether op 7 accepts name, rowName or both is recorded (both: most compatible)."""
    accepted, seen = [], []
    for prop in ("name", "rowName"):
        name = unique("row")
        exchange = api.call(7, projectId=project.id, json={prop: name})
        created = exchange.status == 200 and find_named(_body(exchange), name) is not None
        seen.append(f"{prop}: {exchange.status}{'' if created else ' (row not found)'}")
        if created:
            accepted.append(prop)
    if len(accepted) == 2:
        verdict = "accepts both name and rowName (the most compatible choice)"
    elif accepted:
        verdict = f"accepts only {accepted[0]}"
    else:
        verdict = "accepts neither name nor rowName"
    observe("ROW-NAME-PROPERTY-CHOICE", f"op 7 {verdict} [{'; '.join(seen)}]")


@pytest.mark.requirement("ROWS-LIST-CREATED")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=7)
def test_created_row_joins_the_others(api, wide_board, row_name_property, ledger):
    """A row created by op 7 in a project of three rows is listed with its name, and nothing
    else on the board changed (the whole board read back against its model)."""
    oracle, project = modelled(api, wide_board), wide_board.project
    name = unique("row")
    exchange = api.call(7, projectId=project.id, json={row_name_property: name})
    body = expect.success(exchange, 7, "ROWS-LIST-CREATED")
    entry = ledger.created("row", project.entry, answer=expect.rows(body, "op 7"), name=name,
                           projectId=project.id)
    if entry is None:
        raise NotAssessed("the created row's id (op 7's Project shows no record with its name)")
    oracle.check(oracle.board.create_row(project.id, entry.id, name), exchange, project.id)


@pytest.mark.requirement("ROW-RENAME")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=10)
def test_rename_renames_the_row(api, wide_board):
    """After op 10 the middle row of three carries the new name, in the Project returned, in
    op 3 and in op 6, and nothing else on the board changed."""
    oracle, project, row = modelled(api, wide_board), wide_board.project.id, wide_board.rows[1]
    new = unique("renamed")
    exchange = api.call(10, projectId=project, rowId=row.id,
                        json=api.body("rename_row", name=new))
    act, _ = expect.written(oracle, exchange, 10, "ROW-RENAME",
                            lambda board: board.rename_row(project, row.id, new))
    oracle.check(act, exchange, project)


@pytest.mark.requirement("ROW-ORDER")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=8)
@pytest.mark.parametrize("order", ORDERS.values(), ids=ORDERS.keys())
def test_rows_can_be_reordered(api, wide_board, order):
    """Op 8 with the profile's body puts three rows in the order asked for (the last first, and
    all three turned round: one move, then two), as the Project returned, op 3 and op 6 list
    them, and nothing else on the board changed."""
    oracle, project, rows = modelled(api, wide_board), wide_board.project.id, wide_board.rows
    wanted = [rows[n].id for n in order]
    exchange = api.call(8, projectId=project, json=api.body("order_rows", row_ids=wanted))
    act, _ = expect.written(oracle, exchange, 8, "ROW-ORDER",
                            lambda board: board.order_rows(project, wanted))
    oracle.check(act, exchange, project)


@pytest.mark.requirement("ROW-DELETE-RETURNS-PROJECT")
def test_row_delete_answers_the_project(api, project_with_rows):
    """Op 9 answers 200 with the updated Project."""
    project, (row, _) = project_with_rows
    exchange = api.call(9, projectId=project.id, rowId=row.id)
    body = expect.success(exchange, 9, "ROW-DELETE-RETURNS-PROJECT")
    _is_the_project(body, project.id, 9, "ROW-DELETE-RETURNS-PROJECT", exchange)


@pytest.mark.parametrize("which", [1, 2], ids=["middle", "last"])
@pytest.mark.requirement("ROW-DELETE-GONE")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=9)
def test_deleted_row_is_gone(api, wide_board, ledger, which):
    """After op 9 the row (the middle or the last of three, with its columns) is absent from
    the Project it returned, from op 3 and from op 6; the other rows, their columns and cards
    are as they were (what becomes of the deleted row's cards is open)."""
    oracle, project, row = modelled(api, wide_board), wide_board.project.id, \
        wide_board.rows[which]
    exchange = api.call(9, projectId=project, rowId=row.id)
    act, _ = expect.written(oracle, exchange, 9, "ROW-DELETE-GONE",
                            lambda board: board.delete_row(project, row.id))
    ledger.forget(row.entry)
    oracle.check(act, exchange, project)


def _is_the_project(body: Any, project_id: str, number: int, requirement: str,
                    exchange: Exchange) -> None:
    found = [problem for _, problem in checks.problems(number, body)]
    if found:
        expect.fail(requirement, "the updated Project", exchange, got="; ".join(found),
                    conditions=[c for p in found for c in checks.conditions(p, exchange)])
    expect.equal(requirement, "the Project's id", project_id, str(body["id"]), exchange)


def _body(exchange: Exchange) -> Any:
    try:
        return exchange.json()
    except AssertionError:
        return None
