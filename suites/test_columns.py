"""Columns (ops 11-14): created in their row, renamed, reordered and deleted.

Row and column records are "not shown": they are found by their unique names, and a structure
the suite cannot read leaves the requirement not assessed rather than failed.
"""

from __future__ import annotations

from typing import Any

import pytest

from boardcert.for_suites import (
    Exchange,
    NotAssessed,
    checks,
    expect,
    find_named,
    together,
    unique,
    walk,
)


def _rows(body: Any, where: str) -> Any:
    if not isinstance(body, dict) or "rows" not in body:
        raise NotAssessed(f"rows ({where} answered no Project with rows to read them from)")
    return body["rows"]


def _record(value: Any, record_id: str, name: str) -> dict[str, Any] | None:
    """The record with this id and name anywhere in `value`."""
    for record in walk(value):
        if str(record.get("id")) == record_id and name in record.values():
            return record
    return None


def _fresh_rows(api, project_id: str, requirement: str) -> tuple[Any, Exchange]:
    exchange = api.call(3, projectId=project_id)
    return _rows(expect.success(exchange, 3, requirement), "op 3"), exchange


@pytest.fixture
def project_with_rows(make_project, make_row, request):
    """A project of the test's own with two rows and no columns."""
    def build() -> tuple[Any, list[Any]]:
        project = make_project()
        return project, [make_row(project), make_row(project)]
    return together.own(request, build)


@pytest.fixture
def row_with_columns(make_project, make_row, make_column, request):
    """A project of the test's own with one row holding two columns."""
    def build() -> tuple[Any, Any, list[Any]]:
        project = make_project()
        row = make_row(project)
        return project, row, [make_column(project, row), make_column(project, row)]
    return together.own(request, build)


@pytest.mark.requirement("COLUMN-CREATE")
def test_created_column_is_in_its_row(api, project_with_rows):
    """A column created by op 11 appears in the returned Project, inside its row."""
    project, (other, row) = project_with_rows
    name = unique("column")
    exchange = api.call(11, projectId=project.id, rowId=row.id,
                        json=api.body("create_column", name=name))
    rows = _rows(expect.success(exchange, 11, "COLUMN-CREATE"), "op 11")
    column = find_named(rows, name)
    if column is None:
        expect.fail("COLUMN-CREATE", f"the column {name!r} in op 11's Project", exchange,
                    got="no record with that name")
    home, elsewhere = _record(rows, row.id, row.name), _record(rows, other.id, other.name)
    if home is not None and name in _names(home):
        return
    if elsewhere is not None and name in _names(elsewhere):
        expect.fail("COLUMN-CREATE", f"the column inside row {row.id}", exchange,
                    got=f"it sits in row {other.id}")
    raise NotAssessed("the column's row (op 11's Project does not show which row holds it)")


@pytest.mark.requirement("COLUMN-RENAME")
def test_rename_renames_the_column(api, row_with_columns):
    """After op 13 the column carries the new name in the Project returned."""
    project, _, (column, _) = row_with_columns
    new = unique("renamed")
    exchange = api.call(13, projectId=project.id, columnId=column.id,
                        json=api.body("rename_column", name=new))
    rows = _rows(expect.success(exchange, 13, "COLUMN-RENAME"), "op 13")
    expect.equal("COLUMN-RENAME", f"the id of the column named {new!r} in op 13's Project",
                 column.id, find_named(rows, new), exchange)


@pytest.mark.requirement("COLUMN-ORDER")
def test_columns_can_be_reordered(api, row_with_columns):
    """Op 12 with the profile's body puts the columns of a row in the order asked for."""
    project, row, columns = row_with_columns
    wanted = [columns[1].id, columns[0].id]
    exchange = api.call(12, projectId=project.id, rowId=row.id,
                        json=api.body("order_columns", column_ids=wanted))
    expect.success(exchange, 12, "COLUMN-ORDER")
    rows, reading = _fresh_rows(api, project.id, "COLUMN-ORDER")
    record = _record(rows, row.id, row.name)
    order = _order_of(record, set(wanted)) if record is not None else None
    if order is None:
        raise NotAssessed("column order (op 3 shows no list of the row's columns with ids)")
    expect.equal("COLUMN-ORDER", "the order of the row's columns in op 3", wanted, order,
                 reading)


@pytest.mark.requirement("COLUMN-DELETE-RETURNS-PROJECT")
def test_column_delete_answers_the_project(api, row_with_columns):
    """Op 14 answers 200 with the updated Project."""
    project, _, (column, _) = row_with_columns
    exchange = api.call(14, projectId=project.id, columnId=column.id)
    body = expect.success(exchange, 14, "COLUMN-DELETE-RETURNS-PROJECT")
    found = [problem for _, problem in checks.problems(14, body)]
    if found:
        expect.fail("COLUMN-DELETE-RETURNS-PROJECT", "the updated Project", exchange,
                    got="; ".join(found))
    expect.equal("COLUMN-DELETE-RETURNS-PROJECT", "the Project's id", project.id,
                 str(body["id"]), exchange)


@pytest.mark.requirement("COLUMN-DELETE-GONE")
def test_deleted_column_is_gone(api, row_with_columns, ledger):
    """After op 14 the column is absent from the Project it returned and from a fresh op 3."""
    project, _, (column, kept) = row_with_columns
    exchange = api.call(14, projectId=project.id, columnId=column.id)
    rows = _rows(expect.success(exchange, 14, "COLUMN-DELETE-GONE"), "op 14")
    ledger.forget(column.entry)
    _absent(rows, column.name, kept.name, "op 14's Project", exchange)
    rows, reading = _fresh_rows(api, project.id, "COLUMN-DELETE-GONE")
    _absent(rows, column.name, kept.name, "op 3", reading)


def _names(record: dict[str, Any]) -> set[Any]:
    """Names of the records inside a record (the record's own name excluded)."""
    return {inner.get("name") for inner in walk(record) if inner is not record}


def _order_of(record: dict[str, Any], ids: set[str]) -> list[str] | None:
    """Ids of the first list inside `record` whose items carry all of `ids`, in order."""
    for inner in walk(record):
        for value in inner.values():
            if isinstance(value, list):
                found = [str(item["id"]) for item in value
                         if isinstance(item, dict) and "id" in item]
                if ids <= set(found):
                    return [i for i in found if i in ids]
    return None


def _absent(rows: Any, gone: str, kept: str, where: str, exchange: Exchange) -> None:
    if find_named(rows, kept) is None:
        raise NotAssessed(f"columns of {where} (the column that was kept is not found by name)")
    if find_named(rows, gone) is not None:
        expect.fail("COLUMN-DELETE-GONE", f"the deleted column {gone!r} to be absent from "
                    f"{where}", exchange, got="it is still there")
