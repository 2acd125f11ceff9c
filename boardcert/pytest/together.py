"""What tests may do together, and the plain way to do it: one request at a time.

A suite names what is independent; how it is done is not its business:
- `lanes(config)`: how this process sends independent jobs (`Lanes.width` requests in flight,
  `gather(client, jobs, lanes)` runs them): plain, one after another in the test's thread;
- `ahead(request, kind, job, plan)` / `own(request, job)`: this test's set-up job: plain, made
  where it is needed;
- `pending(item, wanted)`, `upcoming`, `pending_values`: the tests this process runs together
  with this one, from this one on (their cases): plain, this test alone;
- `side_by_side(config, client)`: the same lanes for an Api's readings (the board model's);
- `alone(config)`: a block whose requests are the only ones of the run the server gets (under
  pytest-xdist the other workers wait: boardcert.pytest.quiet), for a reading that shows
  whatever the server did last; in one process, nothing to do;
- `between` and `Outcomes`: requests sent side by side between one reading before and one
  after, and the bookkeeping that keeps a batch's outcomes only when everything went as
  expected (else each case is made one at a time, so a fault gets the serial verdict and
  evidence). With one request in flight no batch is made at all: `between` sends nothing.

The speed plugin (boardcert.speed.in_flight) supplies the side-by-side way: it puts a
`Together` into the stash (TOGETHER), and these functions use it; without it (--no-speed, or
`-p no:boardcert.speed`) a run sends exactly the requests, in the same order, it always did one
at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import pytest

from boardcert.http.api import SideBySide
from boardcert.http.client import Client, Exchange

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)
Job = Callable[[], T]
Plan = Callable[[pytest.Item],
                "tuple[Hashable, Job[Any]] | list[tuple[Hashable, Job[Any]]] | None"]


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


def run(client: Client, job: Job[T]) -> Done[T]:
    """One job, its requests kept aside (`Client.aside`) for the test they were made for to
    adopt; its exception kept, not raised (pytest's skip and fail too)."""
    done: Done[T] = Done()
    with client.aside() as done.exchanges:
        try:
            done.value = job()
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # noqa: BLE001 - pytest's skip/fail are BaseExceptions
            done.error = exc
    return done


class Lanes:
    """How a test process sends independent jobs: the plain way, one at a time, in order."""

    width = 1  # requests in flight at once

    def gather(self, client: Client, jobs: Sequence[Job[T]]) -> list[Done[T]]:
        """Each job run in turn, in this thread."""
        return [run(client, job) for job in jobs]

    def between(self, client: Client, read: Callable[[], Any],
                sends: Sequence[Callable[[], Exchange]],
                answered: Callable[[Any], bool]) -> Between | None:
        """Nothing side by side on one lane: the caller sends each request one at a time."""
        return None


class Together(Protocol):
    """What the speed plugin supplies (config.stash[TOGETHER]): side-by-side lanes, the tests
    a process runs together, set-ups built ahead."""

    def lanes(self) -> Lanes: ...

    def companions(self, item: pytest.Item) -> list[pytest.Item]: ...

    def ahead(self, request: pytest.FixtureRequest, kind: str, job: Job[T], plan: Plan,
              accept: Callable[[T], bool] | None, key: Hashable | None = None) -> T: ...


TOGETHER = pytest.StashKey[Together]()  # set by the speed plugin; absent: the plain way
PLAIN = Lanes()


def lanes(config: pytest.Config) -> Lanes:
    """How this process sends independent jobs."""
    found = config.stash.get(TOGETHER, None)
    return PLAIN if found is None else found.lanes()


def in_flight(config: pytest.Config) -> int:
    """Requests a test process may have in flight at once (1: one at a time)."""
    return lanes(config).width


def alone(config: pytest.Config) -> AbstractContextManager[None]:
    """A block whose requests are the only ones of this run the server gets (the other
    pytest-xdist workers wait; one process: nothing to do)."""
    from boardcert.pytest import quiet  # a plugin module: imported by pytest first

    return quiet.alone(config)


def side_by_side(config: pytest.Config, client: Client) -> SideBySide:
    """How an Api sends readings that depend on nothing but what came before (the board
    model's looks, `Api.side_by_side`): this process's lanes, each job's answer, error and
    exchanges kept aside; None where the lanes are one wide (the plain way)."""
    def send(jobs: Sequence[Job[Exchange]]
             ) -> list[tuple[Exchange | None, BaseException | None, list[Exchange]]] | None:
        found = lanes(config)
        if found.width <= 1:
            return None
        return [(done.value, done.error, done.exchanges) for done in gather(client, jobs, found)]
    return send


def gather(client: Client, jobs: Sequence[Job[T]], lanes: Lanes) -> list[Done[T]]:
    """The jobs run as `lanes` sends them; each `Done` keeps its value or error and its
    exchanges, aside until the test they were made for `client.adopt`s them."""
    return lanes.gather(client, jobs)


def ahead(request: pytest.FixtureRequest, kind: str, job: Job[T], plan: Plan,
          accept: Callable[[T], bool] | None = None, key: Hashable | None = None) -> T:
    """This test's set-up `job`. `plan(item)` gives the key and job of a test's set-up among
    those of this `kind` (None: it needs none; or a list of them, this test's then named by
    `key`), for the speed plugin to build those of the pending companions ahead, side by side
    (a value `accept` refuses is made again here)."""
    found = request.config.stash.get(TOGETHER, None)
    return job() if found is None else found.ahead(request, kind, job, plan, accept, key)


def own(request: pytest.FixtureRequest, job: Job[T]) -> T:
    """The value of the running fixture, made by `job` for each test (built ahead for the
    pending companions that use the same fixture, by the speed plugin)."""
    name = request.fixturename or ""

    def plan(item: pytest.Item) -> tuple[Hashable, Job[Any]] | None:
        return (item.nodeid, job) if name in getattr(item, "fixturenames", ()) else None

    return ahead(request, f"fixture {name}", job, plan)


Maker = Callable[..., Job[Any]]
OWNED: dict[tuple[str, str], tuple[tuple[str, ...], Maker]] = {}  # (module, name) -> needs, maker
SHARED = "boardcert.pytest.fixtures"  # where the suites' shared fixtures are declared


def owned(*needs: str) -> Callable[[Maker], Callable[[pytest.FixtureRequest], Any]]:
    """Declares a fixture (put @pytest.fixture above it) whose value is a set-up of the test's
    own: the decorated function takes the session fixtures `needs` and returns the job that
    makes it. Declared so, the speed plugin builds, the first time a test of a unit needs
    one, the set-ups of every such fixture its pending companions use, side by side in one
    batch (a module's boards of every kind at once, not one kind after another, each of which
    waits for the longest board of its batch); the plain way, each test makes its own."""
    def declare(maker: Maker) -> Callable[[pytest.FixtureRequest], Any]:
        def fixture(request: pytest.FixtureRequest) -> Any:
            return _owned(request, maker(*map(request.getfixturevalue, needs)), maker)
        fixture.__name__ = fixture.__qualname__ = maker.__name__
        fixture.__doc__, fixture.__module__ = maker.__doc__, maker.__module__
        OWNED[(maker.__module__, maker.__name__)] = needs, maker
        return fixture
    return declare


def _owned(request: pytest.FixtureRequest, job: Job[T], maker: Maker) -> T:
    """The running `owned` fixture's value; keyed by the fixture, the maker that declared it
    (a fixture of the same name declared elsewhere is not taken for it) and the test."""
    name = request.fixturename or ""

    def plan(item: pytest.Item) -> list[tuple[Hashable, Job[Any]]]:
        module = getattr(getattr(item, "module", None), "__name__", "")
        found = []
        for fixture in getattr(item, "fixturenames", ()):
            declared = OWNED.get((module, fixture)) or OWNED.get((SHARED, fixture))
            if declared is not None:
                needs, other = declared
                found.append(((fixture, other, item.nodeid),
                              other(*map(request.getfixturevalue, needs))))
        return found

    return ahead(request, "owned fixtures", job, plan, key=(name, maker, request.node.nodeid))


def answered_once(request: pytest.FixtureRequest, answers: dict[int, Exchange], number: int,
                  kind: str, here: Job[Exchange],
                  job: Callable[[int], Job[Exchange] | None]) -> Exchange:
    """The answer of op `number` for the tests that only read it (a module's `answer`
    fixture, parametrized by `number`): made once, by `here` (in this test's set-up), and kept
    in `answers` (a module-scoped dict); `job(n)` makes op n's for the pending tests, built
    ahead side by side (`ahead`: in other threads, so with no pytest fixture asked), each kept
    only if it answered 200 (None: that one is made where it is needed)."""
    def plan(item: pytest.Item) -> tuple[int, Job[Exchange]] | None:
        other = param(item, "answer", "number")
        made = None if other is None or other in answers else job(other)
        return None if made is None else (other, made)

    if number not in answers:
        answers[number] = ahead(request, kind, here, plan,
                                accept=lambda exchange: exchange.status == 200)
    return answers[number]


def fixtures(request: pytest.FixtureRequest, names: tuple[str, ...],
             **given: Callable[[], Any]) -> Callable[[str], Any]:
    """A lookup of the session fixtures `names`, resolved now (pytest's fixtures are for its own
    thread), for jobs that run in others; `given` makes the named values on each lookup."""
    found = {name: request.getfixturevalue(name) for name in names}
    return lambda name: given[name]() if name in given else found[name]


def param(item: pytest.Item, fixture: str, name: str) -> Any:
    """The parameter `name` of a test that uses `fixture` (None otherwise)."""
    if fixture not in getattr(item, "fixturenames", ()):
        return None
    return getattr(item, "callspec", None) and item.callspec.params.get(name)


def companions(item: pytest.Item) -> list[pytest.Item]:
    """The tests this process runs together with `item` (itself included), in order."""
    found = item.config.stash.get(TOGETHER, None)
    return [item] if found is None else found.companions(item)


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


def pending_values(request: pytest.FixtureRequest, parameter: str) -> list[Any]:
    """The values of `parameter` of this test and the companions after it (`pending`) of its
    module that are not skipped, in order, once each: the cases a module's batch makes."""
    found: list[Any] = []
    for _, given in upcoming(request):
        if parameter in given and given[parameter] not in found:
            found.append(given[parameter])
    return found


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
            lanes: Lanes, answered: Callable[[Any], bool] = lambda _: True) -> Between | None:
    """The requests `sends` make, side by side between one reading by `read` before and one
    after, each kept aside, and whether that went as expected (the speed plugin's lanes:
    boardcert.speed.in_flight); None when nothing was sent side by side (one lane; the reading
    before failed or was not `answered`): the caller sends each request one at a time."""
    return lanes.between(client, read, sends, answered)


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
