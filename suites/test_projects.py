"""Projects (ops 2-5) and the Project record that project, row and column operations return:
its fields, its cards, and its updatedAt, which moves on an update (judged last in this module,
on projects read when the session started: boardcert.pytest.early)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from boardcert.conformance import (
    Exchange,
    NotAssessed,
    Oracle,
    Watched,
    checks,
    early,
    expect,
    ids_in_order,
    modelled,
    per_operation,
    together,
    unique,
    when,
)

PROJECT_OPS = (2, 3, 5, 7, 8, 9, 10, 11, 12, 13, 14)


class Maker:
    """The factories, reached from a module-scoped fixture."""

    def __init__(self, fixture: Callable[[str], Any]) -> None:
        self.fixture = fixture
        self.api = self.fixture("api")

    def project(self, rows: int = 0, columns: int = 0) -> tuple[Any, list[Any], list[Any]]:
        """A new project with `rows` rows and `columns` columns in its first row."""
        project = self.fixture("make_project")()
        made_rows = [self.fixture("make_row")(project) for _ in range(rows)]
        made_columns = [self.fixture("make_column")(project, made_rows[0])
                        for _ in range(columns)]
        return project, made_rows, made_columns


def _create(m: Maker) -> Exchange:
    exchange = m.api.call(2, organizationId=m.fixture("organization_id"),
                          json=m.api.body("create_project", name=unique("project")))
    if exchange.status == 200:
        m.fixture("ledger").created("project", answer=exchange.json())
    return exchange


def _rename(m: Maker) -> Exchange:
    p, _, _ = m.project()
    return m.api.call(5, projectId=p.id, json=m.api.body("rename_project", name=unique("p")))


def _create_row(m: Maker) -> Exchange:
    p, _, _ = m.project()
    return m.api.call(7, projectId=p.id, json={m.fixture("row_name_property"): unique("row")})


def _order_rows(m: Maker) -> Exchange:
    p, rows, _ = m.project(rows=2)
    return m.api.call(8, projectId=p.id,
                      json=m.api.body("order_rows", row_ids=[rows[1].id, rows[0].id]))


def _rename_row(m: Maker) -> Exchange:
    p, rows, _ = m.project(rows=1)
    return m.api.call(10, projectId=p.id, rowId=rows[0].id,
                      json=m.api.body("rename_row", name=unique("row")))


def _create_column(m: Maker) -> Exchange:
    p, rows, _ = m.project(rows=1)
    return m.api.call(11, projectId=p.id, rowId=rows[0].id,
                      json=m.api.body("create_column", name=unique("column")))


def _order_columns(m: Maker) -> Exchange:
    p, rows, cols = m.project(rows=1, columns=2)
    return m.api.call(12, projectId=p.id, rowId=rows[0].id,
                      json=m.api.body("order_columns", column_ids=[cols[1].id, cols[0].id]))


def _rename_column(m: Maker) -> Exchange:
    p, _, cols = m.project(rows=1, columns=1)
    return m.api.call(13, projectId=p.id, columnId=cols[0].id,
                      json=m.api.body("rename_column", name=unique("column")))


def _delete_row(m: Maker) -> Exchange:
    p, rows, _ = m.project(rows=1, columns=1)
    return m.api.call(9, projectId=p.id, rowId=rows[0].id)


def _delete_column(m: Maker) -> Exchange:
    p, _, cols = m.project(rows=1, columns=2)
    return m.api.call(14, projectId=p.id, columnId=cols[0].id)


FIXTURES = ("api", "make_project", "make_row", "make_column", "organization_id", "ledger",
            "row_name_property")  # what CALLS reach, resolved before a batch
CALLS: dict[int, Callable[[Maker], Exchange]] = {
    2: _create, 3: lambda m: m.api.call(3, projectId=m.project()[0].id), 5: _rename,
    7: _create_row, 8: _order_rows, 9: _delete_row, 10: _rename_row, 11: _create_column,
    12: _order_columns, 13: _rename_column, 14: _delete_column,
}


@pytest.fixture(scope="module")
def _answers() -> dict[int, Exchange]:
    return {}


@pytest.fixture
def answer(number: int, _answers: dict[int, Exchange],
                   request: pytest.FixtureRequest) -> Exchange:
    """The answer of Project-returning op `number`, called once (in set-up) with real ids and
    shared by the tests that only read it; with more than one request in flight, those of the
    tests that follow side by side, each kept if it answered 200 (together.ahead)."""
    def job(other: int) -> Callable[[], Exchange] | None:
        if other == 2:  # op 2 needs nothing made: made where it is needed
            return None
        fixture = together.fixtures(request, FIXTURES)  # here: pytest's fixtures are not for jobs
        return lambda: CALLS[other](Maker(fixture))

    exchange = together.answered_once(request, _answers, number, "project answers",
                                      lambda: CALLS[number](Maker(request.getfixturevalue)), job)
    if exchange.status != 200:
        raise NotAssessed(f"the Project of op {number} (it answered {exchange.status}; "
                          "see OPERATION-IMPLEMENTED)")
    return exchange


@pytest.fixture
@together.owned("make_project")
def project(make_project):
    """A project of the test's own."""
    return make_project


@pytest.mark.parametrize("number", per_operation("PROJECT-TOP-LEVEL", PROJECT_OPS))
def test_project_fields_sit_at_the_top_level(number, answer):
    """id, name, createdAt, updatedAt, rows, cards and plugins sit at the top level."""
    checks.assert_ok(number, answer.json(), answer, "PROJECT-TOP-LEVEL")


@pytest.mark.parametrize("number", per_operation("PROJECT-NOT-WRAPPED", PROJECT_OPS))
def test_project_is_not_wrapped(number, answer):
    """The Project is not wrapped in an inner property (the removed pre-2024-05-19 shape)."""
    checks.assert_ok(number, answer.json(), answer, "PROJECT-NOT-WRAPPED")


@pytest.mark.requirement("PROJECT-CREATE")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=2)
def test_created_project_can_be_read(api, ledger, organization_id, project):
    """A project created by op 2 is answered by op 3 with its id and the name it was given;
    the project made before it is as it was."""
    oracle = Oracle(api)
    oracle.board.create_project(project.id, project.name)
    oracle.baseline()
    name = unique("project")
    created = api.call(2, organizationId=organization_id,
                       json=api.body("create_project", name=name))
    entry = ledger.created("project", answer=expect.success(created, 2, "PROJECT-CREATE"))
    if entry is None:
        raise NotAssessed("the created project's id (op 2 answered no top-level id)")
    project_id = entry.id
    exchange = api.call(3, projectId=project_id)
    body = expect.success(exchange, 3, "PROJECT-CREATE")
    expect.equal("PROJECT-CREATE", "the id", project_id, str(_get(body, "id")), exchange)
    expect.equal("PROJECT-CREATE", "the name", name, _get(body, "name"), exchange)
    oracle.check(oracle.board.create_project(project_id, name), created, project_id)


def _two_projects(api, board, project) -> Any:
    """The oracle of a wide board and of another project beside it."""
    oracle = modelled(api, board, others=[project])
    return oracle, board.project.id


@pytest.mark.requirement("PROJECT-RENAME")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=5)
def test_rename_renames_the_project(api, wide_board, project):
    """After op 5 the Project it returns and a fresh op 3 carry the new name; its createdAt,
    rows and cards, and the other project, are as they were."""
    oracle, renamed = _two_projects(api, wide_board, project)
    new = unique("renamed")
    exchange = api.call(5, projectId=renamed, json=api.body("rename_project", name=new))
    act, body = expect.written(oracle, exchange, 5, "PROJECT-RENAME",
                               lambda board: board.rename_project(renamed, new))
    expect.equal("PROJECT-RENAME", "the name op 5 answers", new, _get(body, "name"), exchange)
    oracle.check(act, exchange, renamed)


@pytest.mark.requirement("PROJECT-DELETE")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=4)
def test_deleted_project_is_gone(api, wide_board, project, ledger):
    """After op 4 answers 200, op 3 on that project (read before) answers a 4xx; the other
    project is as it was."""
    oracle, deleted = _two_projects(api, wide_board, project)
    exchange = api.call(4, projectId=deleted)
    act, _ = expect.written(oracle, exchange, 4, "PROJECT-DELETE",  # op 4's body: not shown
                            lambda board: board.delete_project(deleted), body=False)
    ledger.forget(wide_board.project.entry)
    expect.rejected(api.call(3, projectId=deleted), "PROJECT-DELETE", "a deleted project")
    oracle.check(act, exchange)


def _card_ids(api, project_id: str) -> tuple[list[str], Exchange]:
    """The ids of the Project's cards, as a fresh op 3 lists them."""
    exchange = api.call(3, projectId=project_id)
    body = expect.success(exchange, 3, "PROJECT-CARDS-LISTED")
    if not isinstance(body, dict) or "cards" not in body:
        raise NotAssessed("the Project's cards (op 3 answered no cards; see PROJECT-TOP-LEVEL)")
    return ids_in_order(body["cards"], "the Project's cards"), exchange


def _all_listed(api, project_id: str, cards: list[Any], when: str) -> tuple[list[str], Exchange]:
    listed, exchange = _card_ids(api, project_id)
    missing = [f"{card.id} ({where})" for card, where in cards if card.id not in listed]
    if missing:
        expect.fail("PROJECT-CARDS-LISTED", f"every card of the project in its cards {when}",
                    exchange, got=f"cards {listed} without {', '.join(missing)}")
    return listed, exchange


@pytest.mark.requirement("PROJECT-CARDS-LISTED", op=[15, 3, 17])
def test_project_lists_its_cards(api, make_project, make_row, make_column, make_card, ledger):
    """A card created by op 15 is listed by id in its Project's cards (a fresh op 3), whichever
    row and column holds it and after the Project was read once; after op 17 it is gone from
    them, and the others are still listed."""
    project = make_project()
    rows = [make_row(project), make_row(project)]
    columns = [make_column(project, rows[0]), make_column(project, rows[0]),
               make_column(project, rows[1])]
    cards = [(make_card(project, columns[0]), "the first column of the first row")]
    _all_listed(api, project.id, cards, "after the first was created")
    cards += [(make_card(project, columns[0]), "created after op 3 read the Project"),
              (make_card(project, columns[1]), "the second column of the first row"),
              (make_card(project, columns[2]), "the column of the second row")]
    _all_listed(api, project.id, cards, "after more were created")
    gone = [cards.pop(0), cards.pop()]
    for card, _ in gone:
        deleted = api.call(17, projectId=project.id, cardId=card.id)
        if deleted.status != 200:
            raise NotAssessed(f"a deleted card (op 17 answered {deleted.status}; see "
                              "CARD-DELETE-RETURNS-CARD)")
        ledger.forget(card.entry)
    listed, exchange = _all_listed(api, project.id, cards, "after two others were deleted")
    kept = [card.id for card, _ in gone if card.id in listed]
    if kept:
        expect.fail("PROJECT-CARDS-LISTED", "the cards deleted by op 17 gone from the Project's "
                    "cards", exchange, got=f"{', '.join(kept)} still listed")


def _get(body: Any, field: str) -> Any:
    return body.get(field) if isinstance(body, dict) else None


# --- updatedAt, judged last: its projects were read at the session's start
# (boardcert.pytest.early) ---

def _update(number: int, api, watched: Watched, row_name_property: str) -> Exchange:
    """Update `number` of the watched project: a rename, a row created or deleted, a column
    created."""
    project, rows = watched.project.id, watched.rows
    if number == 5:
        return api.call(5, projectId=project, json=api.body("rename_project", name=unique("p")))
    if number == 7:
        return api.call(7, projectId=project, json={row_name_property: unique("row")})
    if number == 9:
        return api.call(9, projectId=project, rowId=rows[0].id)
    return api.call(11, projectId=project, rowId=rows[0].id,
                    json=api.body("create_column", name=unique("column")))


def _updated_at_after(number: int, api, client, watch, row_name_property: str,
                      requirement: str) -> tuple[Watched, Exchange, Any, float]:
    """The watched project's updatedAt read by a fresh op 3 after update `number`, made at
    least a second after the reading before it."""
    watched = watch.get(number, client)
    seconds = watched.wait()
    exchange = _update(number, api, watched, row_name_property)
    if exchange.status != 200:
        raise NotAssessed(f"an update by op {number} (it answered {exchange.status}; see its "
                          "own tests)")
    after = api.call(3, projectId=watched.project.id)
    body = expect.success(after, 3, requirement)
    if not isinstance(body, dict) or "updatedAt" not in body:
        raise NotAssessed("updatedAt after the update (op 3 answered none; see "
                          "PROJECT-TOP-LEVEL)")
    return watched, after, body["updatedAt"], seconds


@pytest.mark.requirement("PROJECT-UPDATED-AT", op=[5, 3])
def test_rename_moves_updated_at(api, client, updated_at_watch, row_name_property):
    """After a rename of the Project (op 5), a fresh op 3 answers another updatedAt than op 3
    read before it, at least a second earlier (a clock that ticks once a second is not
    failed)."""
    watched, after, updated_at, seconds = _updated_at_after(
        5, api, client, updated_at_watch, row_name_property, "PROJECT-UPDATED-AT")
    if updated_at == watched.before:
        expect.fail("PROJECT-UPDATED-AT", f"updatedAt to differ from {watched.before!r}, read "
                    f"{seconds:.1f} s before op 5 renamed the Project", after,
                    got="the same updatedAt", conditions=[when.same_as(
                        after, ["updatedAt"], watched.exchanges[-1], early.SECOND)])


@pytest.mark.parametrize("number", [
    pytest.param(n, marks=pytest.mark.requirement("UPDATED-AT-SCOPE", op=[n, 3]), id=f"op{n}")
    for n in early.WATCHED if n != 5])
def test_updated_at_after_a_change_inside_is_recorded(number, api, client, updated_at_watch,
                                                     row_name_property, observe):
    """Whether updatedAt moves when a row is created (op 7) or deleted (9) or a column created
    (11) is recorded: the interface does not say whether a change inside the Project is an
    update of it."""
    watched, _, updated_at, _ = _updated_at_after(
        number, api, client, updated_at_watch, row_name_property, "UPDATED-AT-SCOPE")
    moved = "moves" if updated_at != watched.before else "does not move"
    observe("UPDATED-AT-SCOPE", f"updatedAt {moved} after op {number} ({WHAT[number]})")


WHAT = {7: "a row created", 9: "a row deleted", 11: "a column created"}
