"""Requests side by side inside one test process, for a target far away (issue 16): the speed
plugin's way of doing what boardcert.pytest.together names (the plain way is one at a time).

Against a server 100 ms away a test process spends its time waiting for answers one at a
time. `SideBySide`, put into the stash by the speed plugin (together.TOGETHER), gives:
- `lanes()`: how many requests a test process may have in flight at once: 1 for the bundled
  server and any target within workers.IN_FLIGHT_FROM; `--in-flight N` (env BOARDCERT_IN_FLIGHT,
  which `boardcert run` sets from the round trip of its preflight) decides instead. Its lanes
  run up to that many jobs at once, each in a thread of its own;
- `companions(item)`: the tests this process will run together with `item` (the same module
  in a serial run; the same unit of the speed plugin's scheduling on a worker of it; only
  `item` under another `--dist`): what may be computed ahead, and nothing else;
- `ahead(...)`: set-ups built ahead (boardcert.speed.ahead).

A job must not set up a pytest fixture (fixtures, and the plugins that watch their set-up,
Allure's among them, belong to pytest's thread): `pytest_fixture_setup` raises FixtureInJob.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest

from boardcert.http.client import Client, Exchange
from boardcert.pytest import together
from boardcert.pytest.together import Between, Done, Job, Lanes, Plan
from boardcert.settings import roles, workers
from boardcert.settings.run import in_session

T = TypeVar("T")


class FixtureInJob(RuntimeError):
    """A job of `gather` set up a pytest fixture: fixtures (and the plugins that watch their
    set-up, Allure's among them) belong to pytest's thread. A bug in boardcert."""


_JOB = threading.local()  # .running: this thread runs a job of gather


@pytest.hookimpl(tryfirst=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[Any]) -> None:
    """No fixture is set up inside a job (FixtureInJob, a bug in boardcert, else silent)."""
    if getattr(_JOB, "running", False):
        raise FixtureInJob(f"the fixture {fixturedef.argname!r} was set up inside a batch of "
                           "requests (together.gather): resolve it before the batch")


class Wide(Lanes):
    """Up to `width` jobs at once, each in a thread of its own (in order, in this thread, for a
    width of 1)."""

    def __init__(self, width: int) -> None:
        self.width = width

    def gather(self, client: Client, jobs: Sequence[Job[T]]) -> list[Done[T]]:
        def run(job: Job[T]) -> Done[T]:
            _JOB.running = True
            try:
                return together.run(client, job)
            finally:
                _JOB.running = False

        if self.width <= 1 or len(jobs) <= 1:
            found = [run(job) for job in jobs]
        else:
            with ThreadPoolExecutor(min(self.width, len(jobs)),
                                    thread_name_prefix="boardcert") as pool:
                found = list(pool.map(run, jobs))
        for done in found:
            if isinstance(done.error, FixtureInJob):
                raise done.error
        return found

    def between(self, client: Client, read: Callable[[], Any],
                sends: Sequence[Callable[[], Exchange]],
                answered: Callable[[Any], bool]) -> Between | None:
        """One reading, the requests side by side, one reading after, each kept aside; None
        (nothing sent) if the reading before raised or was not `answered`. As expected when
        every request got a 4xx (no 5xx, no transport failure) and the reading after was
        made, `answered` and equals the one before; else the module throws the batch away and
        sends those requests again one at a time (a fault gets the serial verdict)."""
        before = self.gather(client, [read])[0]
        if before.error is not None or not answered(before.value):
            return None
        sent = self.gather(client, sends)
        after = self.gather(client, [read])[0]
        rejected = all(d.error is None and 400 <= (d.value.status or 0) < 500 for d in sent)
        return Between(before, sent, after, rejected and after.error is None
                       and answered(after.value) and after.value == before.value)


class SideBySide:
    """The speed plugin's `together.Together`: lanes as wide as the target's distance calls for,
    the tests a process runs together, set-ups built ahead."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.wide: Wide | None = None  # decided at first use; again as answers come (adapt)
        self.unit_of: dict[str, str] | None = None
        self.decided_at = 0  # the length of the process's log when last decided

    def lanes(self) -> Lanes:
        if self.wide is None:
            self.wide = Wide(_decide(self.config))
            self.decided_at = len(_log(self.config))
        elif (log := _log(self.config)) and len(log) - self.decided_at >= workers.ADAPT_EVERY:
            self.decided_at = len(log)
            if (width := _adapted(self.config, log)) is not None:
                self.wide.width = width
        return self.wide

    def companions(self, item: pytest.Item) -> list[pytest.Item]:
        from boardcert.pytest.stash import UNITS

        items = item.session.items
        if roles.reporting(item.config):  # one process runs everything
            module = _module(item.nodeid)
            return [i for i in items if _module(i.nodeid) == module]
        units_of = item.config.stash.get(UNITS, None)  # the speed plugin's scheduling, if on
        if units_of is None:
            return [item]
        if self.unit_of is None:
            self.unit_of = units_of([i.nodeid for i in items])
        mine = self.unit_of.get(item.nodeid)
        return [i for i in items if self.unit_of.get(i.nodeid) == mine] if mine else [item]

    def ahead(self, request: pytest.FixtureRequest, kind: str, job: Job[T], plan: Plan,
              accept: Callable[[T], bool] | None, key: Hashable | None = None) -> T:
        from boardcert.speed import ahead

        return ahead.ahead(request, kind, job, plan, accept, self.lanes(), key)


def _decide(config: pytest.Config) -> int:
    from boardcert.pytest.stash import CLIENT, TARGET
    from boardcert.pytest.target import users_server

    given = in_session(config).in_flight
    if given is not None:
        return given
    target, client = config.stash.get(TARGET, None), config.stash.get(CLIENT, None)
    if target is None or client is None or not users_server(config):
        return 1  # the bundled server answers within a millisecond
    return workers.in_flight(_round_trip(client), target.rate_limit)


def _log(config: pytest.Config) -> list[Exchange]:
    from boardcert.pytest.stash import CLIENT

    client = config.stash.get(CLIENT, None)
    return client.log if client is not None else []


def _adapted(config: pytest.Config, log: list[Exchange]) -> int | None:
    """The width again, from the round trip of the process's last workers.ADAPT_EVERY
    answers, where the run chose it (from the preflight's few answers, or this process's
    first ones) rather than --in-flight: a server that answered those few fast (a random
    delay, a cold cache, a busy machine) and the rest slowly gets requests side by side from
    then on, and the converse one at a time. None: the width stays (given, the bundled
    server, nothing answered). Only the time a run takes depends on it: what goes side by
    side and comes back unexpected goes again one at a time."""
    from boardcert.pytest.stash import TARGET
    from boardcert.pytest.target import users_server

    run, target = in_session(config), config.stash.get(TARGET, None)
    if (run.in_flight is not None and not run.in_flight_chosen) or target is None \
            or not users_server(config):
        return None
    recent = [e.elapsed for e in log[-workers.ADAPT_EVERY:] if e.status is not None]
    rtt = workers.round_trip(recent) if len(recent) >= workers.ADAPT_EVERY // 2 else None
    return None if rtt is None else workers.in_flight(rtt, target.rate_limit)


def _round_trip(client: Client) -> float | None:
    """The round trip of this process's answers so far (workers.round_trip), else of two GET
    /users/me sent aside."""
    from boardcert.http import preflight

    answered = [e.elapsed for e in client.log if e.status is not None]
    if not answered:
        with client.aside() as sent:
            for _ in range(2):
                preflight.reachable(client)
        answered = [e.elapsed for e in sent if e.status is not None]
    return workers.round_trip(answered)


def _module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]
