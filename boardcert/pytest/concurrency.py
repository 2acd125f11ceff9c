"""Requests side by side inside one test process, for a target far away (issue 16).

Against a server 100 ms away a test process spends its time waiting for answers one at a
time. Where tests are independent (a rejected request between two readings of what it could
change; a board of a test's own), a module computes what the tests of its unit need in one
`gather` and each test adopts its own part when it runs:

- `in_flight(config)`: how many requests a test process may have in flight at once: 1 (one at
  a time, as always) for the bundled server and any target within workers.SERIAL_BELOW, and
  whenever the speed plugin (boardcert.speed) did not run (--no-speed); `--in-flight N` (env
  BOARDCERT_IN_FLIGHT, which `boardcert run` sets from the round trip of its preflight)
  decides instead.
- `gather(client, jobs, width)`: runs zero-argument jobs (that send requests through the
  client) up to `width` at a time; each `Done` keeps its value or error and its exchanges,
  kept off the client's log until the test they were made for `client.adopt`s them (its
  evidence, Allure steps and JUnit data then show its own requests).
- `companions(item)`: the tests this process will run together with `item` (the same module
  in a serial run; the same unit of the speed plugin's scheduling on a worker of it; only
  `item` under another `--dist`): what may be computed ahead, and nothing else.

A batch is checked before it is used: if anything in it is unexpected (a request not
rejected, a state that changed, a 5xx, no answer), the module throws it away and does those
cases one at a time, so a fault gets exactly the serial verdict and evidence. `Outcomes` keeps
that bookkeeping: each case made once, a batch tried once for each, and a kept batch's
exchanges aside until the first test that judges the case adopts them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import pytest

from boardcert.http.client import Client, Exchange
from boardcert.settings import workers

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


@dataclass
class Done(Generic[T]):
    """What one job of `gather` gave (or raised), and the exchanges its requests were."""

    value: T | None = None
    error: BaseException | None = None
    exchanges: list[Exchange] = field(default_factory=list)

    def result(self) -> T:
        """The value, or the job's exception raised again."""
        if self.error is not None:
            raise self.error
        return self.value  # type: ignore[return-value]


class FixtureInJob(RuntimeError):
    """A job of `gather` set up a pytest fixture: fixtures (and the plugins that watch their
    set-up, Allure's among them) belong to pytest's thread. A bug in boardcert."""


def gather(client: Client, jobs: Sequence[Callable[[], T]], width: int) -> list[Done[T]]:
    """Run the jobs, up to `width` at a time (in order, in this thread, for a width of 1); each
    job's requests go aside (`Client.aside`), for the test they were made for to adopt. A job
    must not set up a pytest fixture (resolve them before): FixtureInJob is raised here."""
    def run(job: Callable[[], T]) -> Done[T]:
        done: Done[T] = Done()
        _JOB.running = True
        with client.aside() as done.exchanges:
            try:
                done.value = job()
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # noqa: BLE001 - pytest's skip/fail are BaseExceptions
                done.error = exc
            finally:
                _JOB.running = False
        return done

    if width <= 1 or len(jobs) <= 1:
        found = [run(job) for job in jobs]
    else:
        with ThreadPoolExecutor(min(width, len(jobs)), thread_name_prefix="boardcert") as pool:
            found = list(pool.map(run, jobs))
    for done in found:
        if isinstance(done.error, FixtureInJob):
            raise done.error
    return found


_JOB = threading.local()  # .running: this thread runs a job of gather


def refuse_fixture_in_job(name: str) -> None:
    """Called as a fixture is set up (boardcert.pytest.fixtures): FixtureInJob inside a job."""
    if getattr(_JOB, "running", False):
        raise FixtureInJob(f"the fixture {name!r} was set up inside a batch of requests "
                           f"(concurrency.gather): resolve it before the batch")


def in_flight(config: pytest.Config) -> int:
    """Requests a test process may have in flight at once (decided once per process)."""
    found = config.stash.get(IN_FLIGHT, None)
    if found is None:
        found = config.stash[IN_FLIGHT] = _decide(config)
    return found


IN_FLIGHT = pytest.StashKey[int]()


def _decide(config: pytest.Config) -> int:
    from boardcert.pytest.stash import CLIENT, SPEED, TARGET
    from boardcert.pytest.target import users_server

    speed = config.stash.get(SPEED, None)
    if speed is None or not speed.on:
        return 1  # the speed plugin did not run: the plain path, one request at a time
    given = workers.given_in_flight(config.getoption("in_flight", None))
    if given is not None:
        return given

    target, client = config.stash.get(TARGET, None), config.stash.get(CLIENT, None)
    if target is None or client is None or not users_server(config):
        return 1  # the bundled server answers within a millisecond
    return workers.in_flight(_round_trip(client), target.rate_limit)


def _round_trip(client: Client) -> float | None:
    """The fastest answer so far in this process, else of two GET /users/me sent aside."""
    from boardcert.http import preflight

    answered = [e.elapsed for e in client.log if e.status is not None]
    if not answered:
        with client.aside() as sent:
            for _ in range(2):
                preflight.reachable(client)
        answered = [e.elapsed for e in sent if e.status is not None]
    return workers.round_trip(answered)


def companions(item: pytest.Item) -> list[pytest.Item]:
    """The tests this process runs together with `item` (itself included), in order."""
    from boardcert.pytest.stash import UNITS

    items = item.session.items
    if getattr(item.config, "workerinput", None) is None:  # one process runs everything
        module = _module(item.nodeid)
        return [i for i in items if _module(i.nodeid) == module]
    units_of = item.config.stash.get(UNITS, None)  # the speed plugin's scheduling, if it ran
    if units_of is None:
        return [item]
    units = item.config.stash.get(UNIT_OF, None)
    if units is None:
        units = item.config.stash[UNIT_OF] = units_of([i.nodeid for i in items])
    mine = units.get(item.nodeid)
    return [i for i in items if units.get(i.nodeid) == mine] if mine else [item]


UNIT_OF = pytest.StashKey[dict[str, str]]()


def _module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def pending(item: pytest.Item, wanted: Callable[[pytest.Item], Any]) -> list[pytest.Item]:
    """`item` and the companions after it that will run and for which `wanted` is true: what a
    batch made for `item` may compute ahead (earlier ones have run already)."""
    found = companions(item)
    start = next((i for i, other in enumerate(found) if other is item), 0)
    return [other for other in found[start:]
            if (other is item or will_run(other)) and wanted(other)]


def will_run(item: pytest.Item) -> bool:
    """Not skipped before set-up by a skip mark (a --read-only run marks them so)."""
    if item.get_closest_marker("skip") is not None:
        return False
    return not any(mark.args and all(arg is True for arg in mark.args)
                   for mark in item.iter_markers("skipif"))


def upcoming(request: pytest.FixtureRequest) -> list[tuple[pytest.Item, dict[str, Any]]]:
    """This test and the companions of its module that run after it (`pending`), with their
    parameters: what a module's batch is made for."""
    return [(item, item.callspec.params if hasattr(item, "callspec") else {})
            for item in pending(request.node,
                                lambda item: getattr(item, "module", None) is request.module)]


@dataclass
class Between:
    """Requests sent side by side between one reading of what they could change before and one
    after (`between`)."""

    before: Done[Any]
    sent: list[Done[Exchange]]
    after: Done[Any]
    as_expected: bool  # every request answered 4xx; the reading after made, and the same

    def shown(self, index: int, readings: bool = True) -> list[Exchange]:
        """What the test that judges request `index` adopts: its request, between the readings
        its outcome rests on (if `readings`)."""
        own = self.sent[index].exchanges
        return [*self.before.exchanges, *own, *self.after.exchanges] if readings else list(own)


def between(client: Client, read: Callable[[], Any], sends: Sequence[Callable[[], Exchange]],
            width: int, answered: Callable[[Any], bool] = lambda _: True) -> Between | None:
    """One reading by `read`, the requests `sends` make side by side, one reading after, each
    kept aside; None (nothing sent) if the reading before raised or was not `answered`. The
    batch is as expected when every request got a 4xx (no 5xx, no transport failure) and the
    reading after was made, `answered` and equals the one before; else a module throws it away
    and sends those requests again one at a time (a fault gets the serial verdict)."""
    before = gather(client, [read], 1)[0]
    if before.error is not None or not answered(before.value):
        return None
    sent = gather(client, sends, width)
    after = gather(client, [read], 1)[0]
    rejected = all(d.error is None and 400 <= (d.value.status or 0) < 500 for d in sent)
    return Between(before, sent, after, rejected and after.error is None
                   and answered(after.value) and after.value == before.value)


def pending_values(request: pytest.FixtureRequest, parameter: str) -> list[Any]:
    """The values of `parameter` of this test and the companions after it (`pending`) of its
    module that are not skipped, in order, once each: the cases a module's batch makes."""
    found: list[Any] = []
    for _, given in upcoming(request):
        if parameter in given and given[parameter] not in found:
            found.append(given[parameter])
    return found


class Outcomes(Generic[K, T]):
    """Each case's outcome, made once for every test that judges it (`get`). With more than one
    request in flight the first test to ask for a case neither made nor tried runs a batch
    that takes the pending tests' cases (`fresh`: each tried once) and keeps their outcomes
    only if it went as expected (`keep`, `keep_between`); the rest, and everything serially,
    are made one at a time. A kept outcome's exchanges wait aside until the first test that
    judges it adopts them (its evidence, Allure steps and JUnit data)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.made: dict[K, T] = {}
        self.tried: set[K] = set()  # cases a batch was made for
        self.unadopted: dict[K, list[Exchange]] = {}  # a kept batch's, for the first to judge

    def get(self, request: pytest.FixtureRequest, key: K, one: Callable[[], T],
            batch: Callable[[], object]) -> T:
        """The outcome of `key`: made before, or kept from a batch (its exchanges adopted now),
        or made now by `one`. With more than one request in flight, `batch` runs first for a
        case neither made nor tried."""
        if key not in self.made and key not in self.tried and in_flight(request.config) > 1:
            batch()
        if key not in self.made:
            self.made[key] = one()
        self.client.adopt(self.unadopted.pop(key, []))
        return self.made[key]

    def fresh(self, keys: Iterable[K]) -> list[K]:
        """The keys neither made nor tried, in order, once each: a batch's cases (now tried)."""
        found = [key for key in dict.fromkeys(keys)
                 if key not in self.made and key not in self.tried]
        self.tried.update(found)
        return found

    def keep(self, key: K, value: T, exchanges: list[Exchange]) -> None:
        """A batch's outcome of `key` (as expected), with the exchanges its first test adopts."""
        self.made[key], self.unadopted[key] = value, list(exchanges)

    def keep_between(self, keys: Sequence[K], batch: Between | None, value: Callable[[int], T],
                     shown: Callable[[int], list[Exchange]] | None = None) -> bool:
        """Whether `batch` (`between`, a request for each key, in order) went as expected; if
        so each key's outcome is `value(i)` and its first test adopts `shown(i)` (by default
        its request between the readings)."""
        if batch is None or not batch.as_expected:
            return False
        for index, key in enumerate(keys):
            self.keep(key, value(index), (shown or batch.shown)(index))
        return True
