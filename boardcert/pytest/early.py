"""Set-ups made when a session's first test runs, for tests that judge them late (a pytest
plugin module): the projects whose updatedAt PROJECT-UPDATED-AT reads before an update and
again after it. The update must come at least a second after the reading before it, so that a
server whose clock ticks once a second is not failed; read at the start, the second passes
while the other tests run, and the test sleeps only what is left of it, if anything.

Made in the first test's set-up on each process that has the test among its items (under
pytest-xdist every worker does: none knows which will get it); the requests go aside
(`Client.aside`), and each judging test adopts those of its own project. A set-up that fails
fails the judging test as any factory does (SetUpError: not assessed), never the first test.
The first test's fixture request is pytest's own (boardcert.compat_fallbacks.fixture_request):
when it does not fit, the watch is made when the judging test asks, which then waits.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from boardcert.compat_fallbacks import fixture_request
from boardcert.errors import NotAssessed
from boardcert.http.api import Api
from boardcert.http.client import Client, Exchange
from boardcert.pytest import together
from boardcert.pytest.stash import TARGET
from boardcert.workbench.board import Made

FIXTURE = "updated_at_watch"
SECOND = 1.05  # between the reading before and the update (a little over one clock tick)
WATCHED = {5: 0, 7: 0, 9: 1, 11: 1}  # the updates judged -> rows their project needs first
TRIED = pytest.StashKey[bool]()


@dataclass
class Watched:
    """A project made for one update, and its updatedAt as a fresh op 3 read it."""

    project: Made
    rows: list[Made]
    before: Any  # updatedAt, as op 3 answered it
    read_at: float  # time.monotonic() when that answer came
    exchanges: list[Exchange] = field(default_factory=list)  # its set-up, aside

    def wait(self) -> float:
        """Sleep what is left of SECOND since the reading; the seconds since it, after."""
        left = self.read_at + SECOND - time.monotonic()
        if left > 0:
            time.sleep(left)
        return time.monotonic() - self.read_at


@dataclass
class Watch:
    """The watched projects by update, or why one could not be made (raised when asked)."""

    made: dict[int, Watched | Exception]

    def get(self, number: int, client: Client) -> Watched:
        found = self.made[number]
        if isinstance(found, Exception):
            raise found
        client.adopt(found.exchanges)  # the judging test shows the set-up of its project
        return found


def _watched(api: Api, make: Callable[[], Made], make_row: Callable[[Made], Made] | None,
             rows: int) -> Watched:
    with api.client.aside() as kept:
        project = make()
        made = [make_row(project) for _ in range(rows)] if make_row else []
        exchange = api.call(3, projectId=project.id)
        read_at = time.monotonic()
    try:
        body = exchange.json() if exchange.status == 200 else None
    except AssertionError:  # not JSON: JSON-RESPONSES judges op 3
        body = None
    if not isinstance(body, dict) or "updatedAt" not in body:
        raise NotAssessed(f"updatedAt before the update (op 3 answered {exchange.status} "
                          "without it; see PROJECT-TOP-LEVEL)")
    return Watched(project, made, body["updatedAt"], read_at, kept)


@pytest.fixture(scope="session")
def updated_at_watch(api: Api, make_project, request: pytest.FixtureRequest) -> Watch:
    """A project per watched update, its updatedAt read (made early: see the module); side
    by side where the process's lanes are wide (each its own requests in order); one that
    failed side by side is made again alone (a server busy with the others: as serially)."""
    made: dict[int, Watched | Exception] = {}
    make_row = None
    if any(WATCHED.values()):
        try:
            make_row = request.getfixturevalue("make_row")
        except (AssertionError, NotAssessed) as exc:  # a SetUpError is an AssertionError
            made = {number: exc for number, rows in WATCHED.items() if rows}
    numbers = [number for number in WATCHED if number not in made]
    jobs = [lambda rows=WATCHED[number]: _watched(api, make_project, make_row, rows)
            for number in numbers]
    found = together.gather(api.client, jobs, together.lanes(request.config))
    for number, job, done in zip(numbers, jobs, found, strict=True):
        if done.error is not None and len(jobs) > 1:  # made again alone, as a serial run would
            done = together.gather(api.client, [job], together.PLAIN)[0]
        made[number] = done.error if isinstance(done.error, AssertionError | NotAssessed) \
            else done.result()
    return Watch(made)


@pytest.hookimpl(trylast=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """At the first test set up, the watch, if a test of this session will judge it."""
    session = item.session
    if session.stash.get(TRIED, False) or item.config.stash[TARGET].read_only:
        return
    session.stash[TRIED] = True
    wanted = any(FIXTURE in getattr(other, "fixturenames", ()) for other in session.items)
    request = fixture_request(item)  # None: made when the judging test asks (run facts say so)
    if wanted and request is not None:
        with contextlib.suppress(Exception):  # the judging test gets the same error, reports it
            request.getfixturevalue(FIXTURE)
