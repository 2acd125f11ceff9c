"""The oracle's readings side by side (boardcert.model.observe.Observer.look): with lanes, one
look sends op 3 and op 6 of every project and op 27 of every datum at once, and the test shows
them as if sent one by one; a look whose answers are not those the model expects, or that the
model finds fault with, is dropped and the board read again one request at a time, whose
verdict and evidence are those of a run without lanes."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from boardcert.errors import Violation
from boardcert.http.api import Api
from boardcert.http.client import Client
from boardcert.model import Oracle
from boardcert.pytest import together
from boardcert.reference.server import start
from boardcert.settings.config import Target, load_profile
from boardcert.workbench.board import unique

KEY = "side-by-side-key-4c1d"


class Lanes(together.Lanes):
    """Four requests at once, each job in a thread of its own."""

    width = 4

    def gather(self, client, jobs):
        with ThreadPoolExecutor(4) as pool:
            return list(pool.map(lambda job: together.run(client, job), jobs))


class Busy(httpx.BaseTransport):
    """The server's transport, but a 503 to every request sent from a lane (a thread other than
    the test's): a server that copes badly with readings at once."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if threading.current_thread() is not threading.main_thread():
            return httpx.Response(503, json={"detail": "busy"})
        return self.inner.handle_request(request)


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    server = start(KEY)
    yield server.base_url
    server.stop()


def api_of(base_url: str, lanes: bool = True, busy: bool = False) -> Api:
    transport = httpx.HTTPTransport()
    client = Client(Target(base_url, KEY, load_profile()), Busy(transport) if busy else transport)
    api = Api(client, client.target.profile)

    def side_by_side(jobs):
        return [(d.value, d.error, d.exchanges) for d in together.gather(client, jobs, Lanes())]
    api.side_by_side = side_by_side if lanes else None
    return api


def board(api: Api) -> tuple[Oracle, str, list[str]]:
    """Two projects, the first with three rows, told to the model and read once."""
    oracle = Oracle(api)
    projects = []
    for _ in range(2):
        name = unique("project")
        made = api.call(2, organizationId=api.call(1).json()["currentOrganization"]["id"],
                        json={"name": name}).json()
        oracle.board.create_project(made["id"], name)
        projects.append(made["id"])
    rows = []
    for _ in range(3):
        name = unique("row")
        listed = api.call(7, projectId=projects[0], json={"name": name}).json()["rows"]
        rows.append(next(r["id"] for r in listed if name in r.values()))
        oracle.board.create_row(projects[0], rows[-1], name)
    oracle.baseline()
    return oracle, projects[0], rows


def test_a_look_side_by_side_shows_what_one_by_one_shows(base_url: str):
    """The same readings, in the same order, in the test's log, with or without lanes; and
    they went at once."""
    shown = {}
    for lanes in (False, True):
        api = api_of(base_url, lanes)
        oracle, project, rows = board(api)
        start_of_check = len(api.client.log)
        name = unique("row")
        exchange = api.call(10, projectId=project, rowId=rows[1], json={"name": name})
        oracle.check(oracle.board.rename_row(project, rows[1], name), exchange, project)
        shown[lanes] = [e.method for e in api.client.log[start_of_check:]]
    assert shown[True] == shown[False] == ["PATCH", "GET", "GET", "GET", "GET"]


def test_a_look_the_server_answers_badly_at_once_is_made_again_one_by_one(base_url: str):
    """Readings at once that get a 503 are dropped and made again one at a time: the check
    passes, and the test shows only the readings one by one."""
    api = api_of(base_url, busy=True)
    oracle, project, rows = board(api)
    before, sent = len(api.client.log), len(api.client.history)
    name = unique("row")
    exchange = api.call(10, projectId=project, rowId=rows[0], json={"name": name})
    oracle.check(oracle.board.rename_row(project, rows[0], name), exchange, project)
    assert [e.status for e in api.client.log[before:]] == [200] * 5
    assert [e.status for e in api.client.history[sent:]].count(503) == 4  # sent, dropped


def test_a_fault_is_judged_on_readings_one_by_one(base_url: str):
    """Where the model finds fault with a look side by side, the board is read again one
    request at a time and the failure rests on that reading."""
    api = api_of(base_url)
    oracle, project, rows = board(api)
    name = unique("row")
    exchange = api.call(10, projectId=project, rowId=rows[0], json={"name": name})
    api.call(10, projectId=project, rowId=rows[2], json={"name": unique("row")})  # unasked
    shown = len(api.client.log)
    with pytest.raises(Violation, match="WRITE-ONLY-ADDRESSED") as failed:
        oracle.check(oracle.board.rename_row(project, rows[0], name), exchange, project)
    after = api.client.log[shown:]
    assert [e.method for e in after] == ["GET"] * 4  # only the look one by one was kept
    assert {id(e) for e in failed.value.sent} - {id(exchange)} <= {id(e) for e in after}
