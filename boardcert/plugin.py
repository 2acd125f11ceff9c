"""The boardcert pytest plugin: target options, the client, the ledger, requirement markers,
factories and each test's exchanges (boardcert.failures turns a test's exception into data).

Loaded by the root conftest.py. Reads top-down: options, configuration, collection, fixtures,
reporting.
"""

from __future__ import annotations

import os
import secrets
import signal
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import pytest

from boardcert import plan, preflight, requirements, spec
from boardcert.api import Api, find_named, misfit
from boardcert.client import Client, Exchange
from boardcert.config import ENV, FLAGS, NotAssessed, Profile, Target, resolve
from boardcert.discovery import Discovery, Finding, discover, organization_of
from boardcert.errors import ConfigError, UnreachableError, Violation
from boardcert.ledger import Entry, Ledger

TARGET = pytest.StashKey[Target]()
LEDGERS = pytest.StashKey[list[Ledger]]()
LEFT_BEHIND = pytest.StashKey[list[str]]()  # what clean-up could not delete
WORKER_TARGET = "boardcert_target"  # workerinput key: the controller's reference server
LOG_START = pytest.StashKey[tuple[Client | None, int]]()  # the client's log length at set-up
READ_ONLY_SKIP = "not assessed: --read-only (this test changes the server)"
CLIENT = pytest.StashKey[Client]()  # the session's client, once made
PREFLIGHT_NOTES = pytest.StashKey[list[str]]()
pytest_plugins = ["boardcert.failures",  # a test's exception as data (requirements, evidence)
                  "boardcert.results",  # the compliance report
                  "boardcert.allure_results",  # what allure shows: identity, labels, environment
                  "boardcert.junit",  # junit.xml: xunit1 (testcase properties), one-line messages
                  "boardcert.properties"]  # --budget, the Hypothesis seed, schemathesis items


# --- options ------------------------------------------------------------------------------

def pytest_load_initial_conftests(early_config: pytest.Config, args: list[str]) -> None:
    """pytest-xdist starts the workers of `boardcert run -- -n N` with pytest's original
    arguments, without the suites the controller added (cli.SuitesUnlessPathsGiven): they add
    them the same way, else they collect their working directory (boardcert's own tests)."""
    if early_config.known_args_namespace.boardcert_command is not None:
        from boardcert.cli import SuitesUnlessPathsGiven

        SuitesUnlessPathsGiven().pytest_load_initial_conftests(early_config, args)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("boardcert", "boardcert: the server under test")
    group.addoption("--base-url", help="base URL of the server under test "
                    "(env BOARDCERT_BASE_URL; default: start the bundled reference server)")
    group.addoption("--api-key", help="the X-API-Key value (env BOARDCERT_API_KEY)")
    group.addoption("--profile", help="implementation profile YAML (env BOARDCERT_PROFILE; "
                    "default spec/profiles/reference.yaml)")
    group.addoption("--request-timeout", type=float, default=None,
                    help="seconds before a request times out (env BOARDCERT_TIMEOUT; "
                    "default 10)")
    group.addoption("--rate-limit", type=float, default=None,
                    help="at most this many requests per second, over all test workers")
    group.addoption("--max-body", type=int, default=None, metavar="BYTES",
                    help="largest response body read (default 8 MiB); a larger one fails "
                    "the test")
    group.addoption("--read-only", action="store_true", default=False,
                    help="run only what changes nothing on the server: no request but GET, "
                    "nothing created")
    group.addoption("--project-id", default=None, metavar="ID",
                    help="with --read-only: an existing project to read with ops 3 and 6 "
                    "(default: the currentProject of GET /users/me)")
    group.addoption("--plan", action="store_true", default=False,
                    help="list what the run would call and create, and how it cleans up; "
                    "call nothing")
    group.addoption("--budget", default=None,
                    help="schemathesis budget: quick, standard, thorough or an examples count")
    group.addoption("--no-preflight", action="store_true", default=False,
                    help="skip the check that GET /users/me answers JSON for the key before "
                    "any test (only a refused connection still stops the run)")


# --- configuration ------------------------------------------------------------------------

def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "requirement(*ids, op=None): requirement ids checked")
    config.addinivalue_line("markers", "read_only: changes nothing on the server")
    config.addinivalue_line("markers", "read_only_check: a check of the --read-only smoke "
                            "run (deselected otherwise: a full run checks the same)")
    for number in spec.operations():
        config.addinivalue_line("markers", f"op{number}: touches operation {number}")
    for req_id in requirements.catalogue():
        config.addinivalue_line("markers", f"{req_id}: checks requirement {req_id}")
    try:
        config.stash[TARGET] = resolve_target(config)
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[LEDGERS] = []
    config.stash[LEFT_BEHIND] = []
    if config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(SharedReference(config), "boardcert-shared-reference")
    config.pluginmanager.register(ReadOnlySummary(config), "boardcert-read-only-summary")
    config.pluginmanager.register(LeftBehind(config), "boardcert-left-behind")


def resolve_target(config: pytest.Config) -> Target:
    """`config.resolve` over the options and the environment; a worker tests the controller's
    reference server, if it started one. An empty base URL means the bundled reference server,
    started when a test first needs it."""
    flags = {name: getattr(config.option, name, None) for name in FLAGS}
    worker = getattr(config, "workerinput", {})
    if worker.get(WORKER_TARGET) and not (flags["base_url"] or os.environ.get(ENV["base_url"])):
        flags["base_url"], flags["api_key"] = worker[WORKER_TARGET]
    return resolve(flags, os.environ, workers=int(worker.get("workercount", 1)))


class SharedReference:
    """Under pytest-xdist with no base URL: the controller starts one reference server and
    every worker tests it (one target per run, as with a real server), stopped at the end."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.server: Any = None

    def pytest_configure_node(self, node: Any) -> None:
        target = self.config.stash[TARGET]
        if not target.base_url:
            from boardcert.reference.server import start

            key = secrets.token_urlsafe(24)
            self.server = start(api_key=key, timeout=30)  # workers wait: no hurry
            target = replace(target, base_url=self.server.base_url, api_key=key)
            self.config.stash[TARGET] = target
        if self.server is not None:
            node.workerinput[WORKER_TARGET] = (target.base_url, target.api_key)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.server is not None:
            self.server.stop()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Clean up even when the session ends early (Ctrl-C, -x, pytest.exit)."""
    for ledger in list(session.config.stash.get(LEDGERS, [])):
        _clean_up(session.config, ledger)


def _clean_up(config: pytest.Config, ledger: Ledger) -> None:
    """Delete what the ledger holds, once; note what could not be deleted."""
    if ledger in config.stash[LEDGERS]:
        config.stash[LEDGERS].remove(ledger)
        config.stash[LEFT_BEHIND].extend(ledger.clean_up())


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Before pytest-xdist reads -n: --plan runs in one process (nothing runs, so nothing is
    distributed); otherwise a module's tests go to one worker (--dist loadfile, unless --dist
    is given), so its module fixtures, boards included, are made once and not per worker."""
    option = config.option
    if not getattr(option, "numprocesses", None):
        return
    if option.plan:
        option.numprocesses, option.dist = None, "no"
    elif option.dist == "no" and not getattr(option, "distload", False):
        option.dist = "loadfile"


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    """--plan: print the plan instead of running the tests (no fixture is set up)."""
    if not session.config.option.plan:
        return None
    target = session.config.stash[TARGET]
    tests = [plan.PlannedTest(
        module=item.nodeid.split("::")[0], operations=tuple(item_operations(item)),
        fixtures=frozenset(getattr(item, "fixturenames", ())),
        read_only=item.get_closest_marker("read_only") is not None,
        requirements=tuple(requirement_ids(item))) for item in session.items]
    text = plan.render(tests, target.base_url, target.read_only)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line("")
        for line in text.splitlines():
            reporter.write_line(line)
    return True


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    """With --base-url: the preflight, once per run (on the xdist controller), before
    collection; a misconfigured run stops here with its message (exit 2, or 3 for a target
    that cannot be reached). Not in pytest_sessionstart: pytest would print the message
    twice."""
    config = session.config
    option, target = config.option, config.stash[TARGET]
    if not target.base_url or option.no_preflight or option.plan or option.collectonly \
            or hasattr(config, "workerinput"):
        return
    try:
        config.stash[PREFLIGHT_NOTES] = preflight.check(target)
    except UnreachableError as exc:
        pytest.exit(str(exc), returncode=3)
    except ConfigError as exc:
        pytest.exit(str(exc), returncode=2)


def pytest_report_header(config: pytest.Config) -> list[str]:
    target = config.stash[TARGET]
    notes = [f"boardcert: note: {note}" for note in config.stash.get(PREFLIGHT_NOTES, [])]
    manners = [f"request timeout {target.timeout:g} s", f"body cap {target.max_body} bytes"]
    if config.option.rate_limit:
        manners.append(f"at most {config.option.rate_limit:g} requests/s")
    if target.read_only:
        manners.append("read-only")
    where = target.base_url or "the bundled reference server"
    return [f"boardcert: target {where}; " + ", ".join(manners), *notes]


# --- collection ---------------------------------------------------------------------------

def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    catalogue = requirements.catalogue()
    if not config.stash[TARGET].read_only:
        smoke = [i for i in items if i.get_closest_marker("read_only_check")]
        if smoke:
            config.hook.pytest_deselected(items=smoke)
            items[:] = [i for i in items if i not in smoke]
    for item in items:
        ids, ops = requirement_ids(item), item_operations(item)
        unknown = [i for i in ids if i not in catalogue]
        if unknown:
            raise pytest.UsageError(f"{item.nodeid} names unknown requirement ids {unknown}")
        for name in [*ids, *(f"op{n}" for n in ops)]:
            item.add_marker(name)
        if ids:
            item.user_properties.append(("requirements", " ".join(ids)))
            item.user_properties.append(("operations", " ".join(map(str, ops))))
        if ids and config.stash[TARGET].read_only and item.get_closest_marker("read_only") is None:
            # Skipped before set-up, so no module or session fixture creates anything for it.
            item.add_marker(pytest.mark.skip(reason=READ_ONLY_SKIP))


def requirement_ids(item: pytest.Item) -> list[str]:
    ids: list[str] = []
    for mark in item.iter_markers("requirement"):
        ids += [i for i in mark.args if i not in ids]
    return ids


def item_operations(item: pytest.Item) -> list[int]:
    """Operations a test touches: its marker's op= if given, else its requirements'."""
    ops: set[int] = set()
    for mark in item.iter_markers("requirement"):
        given = mark.kwargs.get("op")
        if given is not None:
            ops |= {given} if isinstance(given, int) else set(given)
        else:
            ops |= {n for i in mark.args
                    for n in requirements.catalogue().get(i, _NONE).operations}
    return sorted(ops)


_NONE = requirements.Requirement("", "", "", "", "", "", ())


# --- fixtures -----------------------------------------------------------------------------

@pytest.fixture(scope="session")
def target(request: pytest.FixtureRequest) -> Iterator[Target]:
    """The server under test; the bundled reference server when no base URL was given."""
    configured = request.config.stash[TARGET]
    if configured.base_url:
        yield configured
        return
    from boardcert.reference.server import start

    key = secrets.token_urlsafe(24)
    with start(api_key=key) as server:
        started = replace(configured, base_url=server.base_url, api_key=key)
        request.config.stash[TARGET] = started  # the report's facts and redaction read it
        yield started


@pytest.fixture(scope="session")
def profile(discovery: Discovery) -> Profile:
    """The profile, with what discovery found the server to accept."""
    return discovery.profile


@pytest.fixture(scope="session")
def client(target: Target, request: pytest.FixtureRequest) -> Iterator[Client]:
    """One keep-alive client per worker; stops the run (exit 3) if the target is unreachable."""
    client = Client(target)
    request.config.stash[CLIENT] = client
    why = preflight.reachable(client)  # what is wrong with an answer is for the tests
    if why:
        client.close()
        pytest.exit(f"target {target.base_url} cannot be reached: {why}", returncode=3)
    yield client
    client.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """Ctrl-C lets the running test finish, so that all it created is in the ledger, then
    stops the run, which cleans up; a second Ctrl-C stops at once. (Only for tests that can
    create something: those that use the ledger.)"""
    if "ledger" not in getattr(item, "fixturenames", ()) \
            or threading.current_thread() is not threading.main_thread():
        return (yield)
    held: list[int] = []

    def hold(signum: int, frame: object) -> None:
        if held:
            raise KeyboardInterrupt
        held.append(signum)
        sys.stderr.write("\nboardcert: stopping after this test, then deleting what the run "
                         "created (Ctrl-C again to stop at once)\n")

    previous = signal.signal(signal.SIGINT, hold)
    try:
        result = yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held:
        raise KeyboardInterrupt
    return result


def pytest_runtest_teardown(item: pytest.Item) -> None:
    """A target that stops answering during the run (requests in a row refused or timed out,
    and GET /users/me unanswered too) ends it with exit 3 after the test that found it, and
    a report that says so, rather than failing every test that follows, each after a
    timeout."""
    client = item.config.stash.get(CLIENT, None)
    if client is None or not client.gone:
        return
    why = preflight.silent(client)
    if why:
        target = item.config.stash[TARGET]
        pytest.exit(f"target {target.base_url} stopped answering during the run: {why}",
                    returncode=3)


@pytest.fixture(scope="session")
def base_api(client: Client, target: Target) -> Api:
    """The operations with the profile as given (`api` is the same, after discovery)."""
    return Api(client, target.profile)


@pytest.fixture(scope="session")
def discovery(base_api: Api, target: Target, request: pytest.FixtureRequest) -> Discovery:
    """Once per session (per xdist worker): the bodies the server accepts, probed inside a
    project of the run's own; the profile of the run from then on (boardcert.discovery)."""
    if target.read_only:
        return Discovery(target.profile, [])
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
def ledger(base_api: Api, request: pytest.FixtureRequest) -> Iterator[Ledger]:
    """Everything the run creates; deleted newest first when the session ends."""
    if request.config.stash[TARGET].read_only:
        raise NotAssessed("--read-only (the test needs resources the run would create)")
    ledger = Ledger(base_api)
    request.config.stash[LEDGERS].append(ledger)
    yield ledger
    # Done while the client is open; pytest_sessionfinish covers runs cut short.
    _clean_up(request.config, ledger)


@pytest.fixture(scope="session")
def organization_id(base_api: Api) -> str:
    """The organization to work in: from the profile, or discovered from /users/me."""
    return organization_of(base_api)


def unique(label: str) -> str:
    """A name no other run or test uses."""
    return f"bc-{label}-{uuid.uuid4().hex[:10]}"


@dataclass
class Made:
    """A resource the run created: its id, name, the body that answered and its ledger entry."""

    id: str
    name: str
    body: Any
    entry: Entry | None  # None: not the run's own (readable_project under --read-only)
    exchange: Exchange


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
        raise misfit(exchange) or Violation(
            f"could not create a {what} for the test (op {number} answered "
            f"{exchange.status}, expected 200)", exchanges=[exchange])
    return exchange.json()


@pytest.fixture(scope="session")
def make_project(api: Api, ledger: Ledger, organization_id: str) -> Callable[..., Made]:
    def make(name: str | None = None) -> Made:
        name = name or unique("project")
        exchange = api.call(2, organizationId=organization_id,
                            json=api.body("create_project", name=name))
        body = _created(exchange, "project", 2)
        if not isinstance(body, dict) or "id" not in body:
            raise Violation("op 2 answered no top-level id", exchanges=[exchange])
        entry = ledger.add("project", projectId=str(body["id"]))
        return Made(str(body["id"]), name, body, entry, exchange)
    return make


@pytest.fixture(scope="session")
def make_row(api: Api, ledger: Ledger, row_name_property: str) -> Callable[..., Made]:
    def make(project: Made, name: str | None = None) -> Made:
        name = name or unique("row")
        exchange = api.call(7, projectId=project.id, json={row_name_property: name})
        body = _created(exchange, "row", 7)
        row_id = find_named(body.get("rows") if isinstance(body, dict) else body, name)
        if row_id is None:
            raise NotAssessed("row id (the created row is not found by name in the Project)")
        entry = ledger.add("row", project.entry, projectId=project.id, rowId=row_id)
        return Made(row_id, name, body, entry, exchange)
    return make


@pytest.fixture(scope="session")
def make_column(api: Api, ledger: Ledger) -> Callable[..., Made]:
    def make(project: Made, row: Made, name: str | None = None) -> Made:
        name = name or unique("column")
        exchange = api.call(11, projectId=project.id, rowId=row.id,
                            json=api.body("create_column", name=name))
        body = _created(exchange, "column", 11)
        column_id = find_named(body.get("rows") if isinstance(body, dict) else body, name)
        if column_id is None:
            raise NotAssessed("column id (the created column is not found by name in the Project)")
        entry = ledger.add("column", project.entry, projectId=project.id, columnId=column_id)
        return Made(column_id, name, body, entry, exchange)
    return make


@pytest.fixture(scope="session")
def make_card(api: Api, ledger: Ledger) -> Callable[..., Made]:
    def make(project: Made, column: Made, name: str | None = None) -> Made:
        name = name or unique("card")
        exchange = api.call(15, projectId=project.id, columnId=column.id,
                            json=api.body("create_card", name=name))
        body = _created(exchange, "card", 15)
        if not isinstance(body, dict) or "id" not in body:
            raise Violation("op 15 answered no card id", exchanges=[exchange])
        entry = ledger.add("card", project.entry, projectId=project.id, cardId=str(body["id"]))
        return Made(str(body["id"]), name, body, entry, exchange)
    return make


@dataclass
class Board:
    """A project with one row, two columns and three cards in the first column."""

    project: Made
    row: Made
    columns: list[Made]
    cards: list[Made]


@pytest.fixture(scope="session")
def board(make_project, make_row, make_column, make_card) -> Board:
    """Shared set-up for tests that only read: never change it in a test."""
    project = make_project()
    row = make_row(project)
    columns = [make_column(project, row), make_column(project, row)]
    cards = [make_card(project, columns[0]) for _ in range(3)]
    return Board(project, row, columns, cards)


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
                          "name one with --project-id)")
    exchange = api.call(3, projectId=str(project_id))
    read = exchange.json() if exchange.status == 200 and exchange.content else None
    name = read.get("name") if isinstance(read, dict) else None
    return Made(str(project_id), str(name or ""), read, None, exchange)


@pytest.fixture
def fresh_board(make_project, make_row, make_column, make_card) -> Board:
    """A board of the test's own, to change."""
    project = make_project()
    row = make_row(project)
    columns = [make_column(project, row), make_column(project, row)]
    cards = [make_card(project, columns[0]) for _ in range(3)]
    return Board(project, row, columns, cards)


@pytest.fixture
def observe(request: pytest.FixtureRequest) -> Callable[..., None]:
    """Record an observation (INFO) for the report: observe("ROW-NAME-PROPERTY-CHOICE", text);
    `security=True` flags it as one that matters for security."""
    def record(requirement: str, text: str, security: bool = False) -> None:
        if requirement not in requirements.catalogue():
            raise ValueError(f"unknown requirement {requirement}")
        name = "security_observation" if security else "observation"
        request.node.user_properties.append((name, f"{requirement}: {text}"))
    return record


# --- reporting ----------------------------------------------------------------------------

class ReadOnlySummary:
    """Under --read-only, says at the end which requirements the run left not assessed
    (every test of theirs was skipped by --read-only). Reads the reports, so it works on the
    xdist controller too."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.assessed: set[str] = set()
        self.skipped: set[str] = set()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        ids = str(dict(report.user_properties).get("requirements", "")).split()
        if report.skipped and "--read-only" in str(report.longrepr):
            self.skipped.update(ids)
        elif report.when == "call" or report.failed:
            self.assessed.update(ids)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.config.stash[TARGET].read_only or self.config.option.plan \
                or hasattr(self.config, "workerinput"):
            return
        left = sorted(self.skipped - self.assessed)
        terminalreporter.write_line(
            f"boardcert --read-only: {len(left)} requirements not assessed (they need the "
            f"run to change the server): {', '.join(left) or 'none'}")


class LeftBehind:
    """Says at the end what clean-up could not delete; an xdist worker hands its list to the
    controller."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(trylast=True)  # after the session fixtures' teardown (the clean-up)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(self.config, "workeroutput"):
            self.config.workeroutput["boardcert_left_behind"] = self.config.stash[LEFT_BEHIND]

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", None) or {}
        self.config.stash[LEFT_BEHIND].extend(output.get("boardcert_left_behind", []))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        left = self.config.stash[LEFT_BEHIND]
        if left:
            terminalreporter.write_line(f"boardcert: clean-up could not delete {len(left)} "
                                        f"resources this run created:", yellow=True)
            for what in left:
                terminalreporter.write_line(f"  {what}")


@pytest.hookimpl(tryfirst=True)  # before any fixture is set up
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Under --read-only a test that may change the server is skipped (a hook, not an autouse
    fixture: Allure shows no set-up of boardcert's own); the client's log is marked."""
    target = item.config.stash[TARGET]
    if target.read_only and item.get_closest_marker("read_only") is None \
            and requirement_ids(item):
        pytest.skip(READ_ONLY_SKIP)
    client = item.config.stash.get(CLIENT, None)
    item.stash[LOG_START] = (client, len(client.log) if client is not None else 0)


def exchanges_of(item: pytest.Item) -> list[Exchange]:
    """The exchanges of the test so far (of its set-up, for a session fixture's first use)."""
    current = item.config.stash.get(CLIENT, None)
    if current is None:
        return []
    client, start = item.stash.get(LOG_START, (None, 0))
    return current.log[start if current is client else 0:]  # else: made in this set-up
