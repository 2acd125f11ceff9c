"""The fixtures the suites use (pytest plugin module): the operations (`api`, after discovery),
the organization, factories that create what a test needs (`make_project`, `make_row`,
`make_column`, `make_card`, each returning a `Made`; `make_board`), the shared `board`, the
test's own `fresh_board`, the project to read under --read-only, and `observe` for INFO.
(`target`, `client`: boardcert.pytest.target; `ledger`: boardcert.pytest.cleanup.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from boardcert.discovery import Discovery, Finding, discover, organization_of
from boardcert.errors import SetUpError
from boardcert.http.api import Api, misfit
from boardcert.http.client import Client, Exchange
from boardcert.interface import requirements
from boardcert.pytest import together
from boardcert.pytest.handover import run_of
from boardcert.pytest.stash import DISCOVERED, OBSERVED
from boardcert.settings.budget import Budget
from boardcert.settings.config import NotAssessed, Profile, Target
from boardcert.workbench.board import Board, Made, build, give_metadata, unique
from boardcert.workbench.ledger import Ledger


@pytest.fixture(scope="session")
def base_api(client: Client, target: Target, request: pytest.FixtureRequest) -> Api:
    """The operations with the profile as given (`api` is the same, after discovery); the
    board model's readings go side by side where this process's lanes are wide."""
    api = Api(client, target.profile)
    api.side_by_side = together.side_by_side(request.config, client)
    return api


@pytest.fixture(scope="session")
def discovery(base_api: Api, target: Target, request: pytest.FixtureRequest) -> Discovery:
    """Once per session (per xdist worker): the bodies the server accepts, probed inside a
    project of the run's own; the profile of the run from then on (boardcert.discovery)."""
    if target.read_only:
        return Discovery(target.profile, [])
    shared = _shared(request.config, target)  # the xdist controller's
    if shared is not None:
        base_api.profile = shared[0].profile
        return shared[0]
    try:
        found = discover(base_api, request.getfixturevalue("ledger"),
                         request.getfixturevalue("organization_id"))
    except NotAssessed as exc:
        return Discovery(target.profile, [Finding("organization", "not tried", None, str(exc))])
    except AssertionError as exc:  # GET /users/me gave no usable answer: the tests will say more
        why = f"discovery stopped: {str(exc).splitlines()[0]}"
        return Discovery(target.profile, [Finding("organization", "not tried", None, why)])
    base_api.profile = found.profile  # the report keeps target.profile: the profile as given
    return found


@pytest.fixture(scope="session")
def api(base_api: Api, discovery: Discovery) -> Api:
    return base_api



@pytest.fixture(scope="session")
def budget(request: pytest.FixtureRequest) -> Budget:
    """How hard the run tries (`--budget`)."""
    return run_of(request.config).budget


@pytest.fixture(scope="session")
def profile(discovery: Discovery) -> Profile:
    """The profile, with what discovery found the server to accept."""
    return discovery.profile


@pytest.fixture(scope="session")
def organization_id(base_api: Api, target: Target, request: pytest.FixtureRequest) -> str:
    """The organization to work in: from the profile, or discovered from /users/me (or
    by the xdist controller, with discovery)."""
    shared = _shared(request.config, target)
    return (shared and shared[1]) or organization_of(base_api)


def _shared(config: pytest.Config, target: Target) -> tuple[Discovery, str | None] | None:
    """The discovery and organization another process found (the speed plugin's shared
    discovery, on an xdist worker), if any."""
    read = config.stash.get(DISCOVERED, None)
    return read(target) if read is not None else None



@pytest.fixture(scope="session")
def row_name_property(api: Api, profile: Profile, make_project) -> str:
    """Which of name and rowName operation 7 accepts (the profile's, or the first that works)."""
    chosen = profile.data.get("row_name_property") or "auto"
    if chosen != "auto":
        return chosen
    project = make_project()
    for prop in ("name", "rowName"):
        exchange = api.call(7, projectId=project.id, json={prop: unique("probe")})
        if exchange.status == 200:
            return prop
    raise NotAssessed("row_name_property (op 7 accepted neither name nor rowName)")


def _created(exchange: Exchange, what: str, number: int) -> Any:
    if exchange.status != 200:
        raise misfit(exchange) or SetUpError(
            f"set-up: could not create a {what} for the test (op {number} answered "
            f"{exchange.status}, expected 200)", exchanges=[exchange])
    return exchange.json()


def _named(exchange: Exchange, name: str, what: str, number: int, ledger: Ledger,
           project: Made, row: Made | None = None) -> Made:
    """The row or column just created, its id found by its name in the Project answered
    (their shapes are not shown, so not by position; a column inside its `row` first), and
    recorded in the ledger."""
    body = _created(exchange, what, number)
    entry = ledger.created(what, project.entry, answer=body.get("rows") if isinstance(body, dict)
                           else body, name=name, within=row.id if row else None,
                           projectId=project.id)
    if entry is None:
        raise NotAssessed(f"{what} id (the created {what} is not found by name in the Project)")
    return Made(entry.id, name, body, entry, exchange)


@pytest.fixture(scope="session")
def make_project(api: Api, ledger: Ledger, organization_id: str) -> Callable[..., Made]:
    def make(name: str | None = None) -> Made:
        name = name or unique("project")
        exchange = api.call(2, organizationId=organization_id,
                            json=api.body("create_project", name=name))
        body = _created(exchange, "project", 2)
        entry = ledger.created("project", answer=body)
        if entry is None:
            raise SetUpError("set-up: op 2 answered no top-level id", exchanges=[exchange])
        return Made(entry.id, name, body, entry, exchange)
    return make


def _maker(api: Api, ledger: Ledger, what: str, number: int, parents: tuple[str, ...],
           body: Callable[[str], Any]) -> Callable[..., Made]:
    """A factory of rows (op 7) or columns (op 11, inside a row): `make(project, *parents,
    name=None)`, the created one found by its name (`_named`)."""
    def make(project: Made, *within: Made, name: str | None = None) -> Made:
        assert len(within) == len(parents), f"a {what} is made inside {parents or 'nothing'}"
        name = name or unique(what)
        ids = {"projectId": project.id} | {p: m.id for p, m in zip(parents, within, strict=True)}
        exchange = api.call(number, **ids, json=body(name))
        return _named(exchange, name, what, number, ledger, project, *within)
    return make


@pytest.fixture(scope="session")
def make_row(api: Api, ledger: Ledger, row_name_property: str) -> Callable[..., Made]:
    return _maker(api, ledger, "row", 7, (), lambda name: {row_name_property: name})


@pytest.fixture(scope="session")
def make_column(api: Api, ledger: Ledger) -> Callable[..., Made]:
    return _maker(api, ledger, "column", 11, ("rowId",),
                  lambda name: api.body("create_column", name=name))


@pytest.fixture(scope="session")
def make_card(api: Api, ledger: Ledger) -> Callable[..., Made]:
    def make(project: Made, column: Made, name: str | None = None) -> Made:
        name = name or unique("card")
        exchange = api.call(15, projectId=project.id, columnId=column.id,
                            json=api.body("create_card", name=name))
        body = _created(exchange, "card", 15)
        entry = ledger.created("card", project.entry, answer=body, projectId=project.id)
        if entry is None:
            raise SetUpError("set-up: op 15 answered no card id", exchanges=[exchange])
        return Made(entry.id, name, body, entry, exchange)
    return make


@pytest.fixture(scope="session")
def make_board(api: Api, make_project, make_row, make_column, make_card) -> Callable[..., Board]:
    """`make_board(rows=1, metadata=False, wide=False)`: a Board of the caller's own
    (boardcert.workbench.board); with `metadata`, the first card gets a metadata entry (a wide
    board: the middle card three, the last one)."""
    def make(rows: int = 1, metadata: bool = False, wide: bool = False) -> Board:
        made = build(make_project, make_row, make_column, make_card, rows, wide)
        return give_metadata(api, made, wide) if metadata else made
    return make


@pytest.fixture(scope="session")
def board(make_board) -> Board:
    """Shared set-up for tests that only read: never change it in a test."""
    return make_board()


@pytest.fixture(scope="session")
def readable_project(request: pytest.FixtureRequest, target: Target, api: Api) -> Made:
    """A project to read: the shared board's; under --read-only, where nothing may be created,
    the one --project-id names, else the currentProject of GET /users/me (not assessed when
    there is none), read with op 3 (its exchange is for the tests to judge)."""
    if not target.read_only:
        return request.getfixturevalue("board").project
    project_id: Any = target.project_id
    if project_id is None:
        me = api.call(1)
        body = me.json() if me.status == 200 else None
        current = body.get("currentProject") if isinstance(body, dict) else None
        project_id = current.get("id") if isinstance(current, dict) else current
    if not isinstance(project_id, str | int) or isinstance(project_id, bool):
        raise NotAssessed("--read-only (GET /users/me reports no currentProject to read; "
                          "name one with --project-id)", read_only=True)
    exchange = api.call(3, projectId=str(project_id))
    read = exchange.json() if exchange.status == 200 and exchange.content else None
    name = read.get("name") if isinstance(read, dict) else None
    return Made(str(project_id), str(name or ""), read, None, exchange)


@pytest.fixture
@together.owned("make_board")
def fresh_board(make_board) -> Callable[[], Board]:
    """A board of the test's own, to change (built ahead, side by side with those of the tests
    that follow, when more than one request is in flight: boardcert.pytest.together)."""
    return make_board


@pytest.fixture
@together.owned("make_board")
def wide_board(make_board) -> Callable[[], Board]:
    """A wide board of the test's own, to change and check whole (boardcert.workbench.board:
    three of each kind), built ahead like `fresh_board`."""
    return lambda: make_board(wide=True)


@pytest.fixture
@together.owned("make_board")
def wide_board_with_metadata(make_board) -> Callable[[], Board]:
    """A wide board whose middle card has three metadata entries and whose last has one."""
    return lambda: make_board(metadata=True, wide=True)


@pytest.fixture
def observe(request: pytest.FixtureRequest) -> Callable[..., None]:
    """Record an observation (INFO) for the report: observe("ROW-NAME-PROPERTY-CHOICE", text);
    `security=True` flags it as one that matters for security. It is data of the test's
    record (stash.OBSERVED, which boardcert.pytest.failures puts there), not text."""
    def record(requirement: str, text: str, security: bool = False) -> None:
        if requirement not in requirements.catalogue():
            raise ValueError(f"unknown requirement {requirement}")
        kept = request.node.stash.setdefault(OBSERVED, [])
        if (requirement, text, security) not in kept:
            kept.append((requirement, text, security))
    return record

