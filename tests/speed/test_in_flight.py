"""boardcert.speed.in_flight: requests side by side inside a test process (gather, the exchanges
kept aside until a test adopts them), how many (in_flight), and for which tests (companions);
and boardcert.pytest.together's plain way without it (one at a time, each test alone)."""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from faults.harness import LAUNCHER
from samples import late_client

from boardcert.errors import ConfigError, ExchangeError
from boardcert.paths import ROOT, SUITES
from boardcert.pytest import together
from boardcert.settings import workers
from boardcert.speed import distribution
from boardcert.speed.in_flight import FixtureInJob, SideBySide, Wide, pytest_fixture_setup


def test_gather_sends_side_by_side_and_keeps_each_jobs_exchanges_aside():
    """Eight jobs of two requests at width 8 are all in flight at once; each Done holds its
    own two exchanges, the client's log none until a test adopts them."""
    client, most = late_client(0.1)

    def job(n: int) -> Any:
        return lambda: [client.request("GET", f"/{n}/{i}").json()["path"] for i in range(2)]

    done = together.gather(client, [job(n) for n in range(8)], Wide(8))
    assert most[0] == 8  # all eight in flight at once at the server (one at a time: 1)
    assert [d.result() for d in done] == [[f"/{n}/0", f"/{n}/1"] for n in range(8)]
    assert all([e.url.rsplit("9", 1)[1] for e in d.exchanges] == d.value for d in done)
    assert client.log == []
    client.adopt(done[3].exchanges)
    assert client.log == done[3].exchanges
    client.request("GET", "/after")  # outside aside: to the log again
    assert len(client.log) == 3


@pytest.mark.parametrize("lanes", [together.PLAIN, Wide(1)], ids=["plain", "width 1"])
def test_gather_at_width_one_is_one_at_a_time_and_keeps_errors_as_data(lanes):
    """The plain lanes (no speed plugin) and width 1 run the jobs in order in this thread; a
    job's exception (a failed request, a pytest skip) is its Done's error, raised again by
    result(), with the exchange it made."""
    client, most = late_client(0.0)
    threads: set[int] = set()

    def fine() -> int | None:
        threads.add(threading.get_ident())
        return client.request("GET", "/fine").status

    done = together.gather(client, [lambda: client.request("GET", "/broken"),
                                    lambda: pytest.skip("not assessed: x"), fine], lanes)
    assert most[0] == 1 and threads == {threading.get_ident()}
    assert isinstance(done[0].error, ExchangeError) and len(done[0].exchanges) == 1
    with pytest.raises(pytest.skip.Exception):
        done[1].result()
    assert done[2].result() == 200 and client.log == []


def test_between_is_side_by_side_only_with_the_speed_plugin_and_kept_only_as_expected():
    """The plain lanes send nothing between readings (each request goes one at a time, as its
    test makes it); the speed plugin's reads, sends side by side, reads again, and the batch
    is as expected only when every request got a 4xx and the reading did not change."""
    client, most = late_client(0.05)

    def reading() -> int:
        return client.request("GET", "/state").status or 0

    refused = [lambda: SimpleNamespace(status=404)] * 3
    assert together.between(client, reading, refused, together.PLAIN) is None
    assert client.log == [] and most[0] == 0
    kept = together.between(client, reading, refused, Wide(4))
    assert kept is not None and kept.as_expected and kept.before.value == 200
    accepted = [*refused, lambda: client.request("GET", "/accepted")]
    assert not together.between(client, reading, accepted, Wide(4)).as_expected
    assert together.between(client, reading, refused, Wide(4), lambda state: False) is None


def test_in_flight_is_chosen_from_the_round_trip_and_shared_by_the_rate_limit():
    """One at a time for the bundled server and within 3 ms; eight beyond; no more than the
    process's share of --rate-limit keeps busy."""
    assert workers.in_flight(None) == 1
    assert workers.in_flight(0.001) == workers.in_flight(0.0029) == 1
    assert workers.in_flight(0.004) == workers.in_flight(0.03) == workers.in_flight(0.1) \
        == workers.MAX_IN_FLIGHT == 8
    assert workers.in_flight(0.1, rate_limit=20, workers=4) == 1
    assert workers.in_flight(0.1, rate_limit=200, workers=4) == 5


@pytest.mark.parametrize("value", ["0", "9", "x", "-1", "1.5"])
def test_a_wrong_in_flight_is_a_configuration_error_naming_the_flag(value):
    """--in-flight (or BOARDCERT_IN_FLIGHT) outside 1..8 is refused with a message that names
    both; the flag wins over the variable; neither given is None."""
    with pytest.raises(ConfigError, match="--in-flight .*BOARDCERT_IN_FLIGHT"):
        workers.given_in_flight(value, {})
    with pytest.raises(ConfigError, match="--in-flight"):
        workers.given_in_flight(None, {"BOARDCERT_IN_FLIGHT": value})
    assert workers.given_in_flight("3", {"BOARDCERT_IN_FLIGHT": value}) == 3
    assert workers.given_in_flight(None, {}) is None


def _items(nodeids: list[str], workerinput: dict[str, Any] | None) -> list[Any]:
    config = SimpleNamespace(stash=pytest.Stash())
    if workerinput is not None:
        config.workerinput = workerinput
        distribution.pytest_configure(config)  # as the speed plugin sets a worker up
    session = SimpleNamespace(items=[])
    session.items = [SimpleNamespace(nodeid=n, config=config, session=session) for n in nodeids]
    return session.items


ERRORS = [f"suites/test_errors.py::test_bad[op{n}]" for n in range(1, 41)]
COLLECTION = ["suites/test_cards.py::test_a", "suites/test_cards.py::test_b", *ERRORS,
              "suites/test_properties.py::test_operation[GET /users/me]"]


def test_companions_serially_are_the_modules_selected_tests():
    """In one process, a test's companions are its module's tests that were selected."""
    items = _items(COLLECTION, None)
    assert SideBySide(items[1].config).companions(items[1]) == items[:2]
    items[1].config.stash[together.TOGETHER] = SideBySide(items[1].config)
    assert together.pending(items[1], lambda item: True) == [items[1]]


def test_companions_on_a_worker_are_its_unit_of_the_speed_plugins_distribution():
    """On a worker of boardcert's scheduling, a test's companions are its unit (a part of a
    large module; with requests in flight the whole module); under another --dist, only
    itself."""
    items = _items(COLLECTION, {distribution.UNITS: 1, "workercount": 4})
    units = distribution.units(COLLECTION, 4)
    first = items[2]
    unit = SideBySide(first.config).companions(first)
    assert first in unit and len(unit) < len(ERRORS)
    assert {units[i.nodeid] for i in unit} == {units[first.nodeid]}
    assert SideBySide(first.config).companions(items[-1]) == [items[-1]]
    elsewhere = _items(COLLECTION, {distribution.UNITS: 0, "workercount": 4})
    assert SideBySide(elsewhere[2].config).companions(elsewhere[2]) == [elsewhere[2]]
    in_flight = _items(COLLECTION, {distribution.UNITS: 8, "workercount": 4})
    assert SideBySide(in_flight[2].config).companions(in_flight[2]) == in_flight[2:-1]  # the module


def test_without_the_speed_plugin_each_test_is_alone_and_makes_its_own_set_up():
    """The plain way (nothing in the stash): one request in flight, a test's companions are
    itself, and a set-up job is made where it is asked for, once per ask, plans unread."""
    item = _items(COLLECTION, None)[1]
    request = SimpleNamespace(config=item.config, node=item, fixturename="fresh_board")
    made: list[int] = []

    def plan(other: Any) -> Any:
        raise AssertionError("the plain way plans nothing ahead")

    assert together.in_flight(item.config) == 1 and together.lanes(item.config) is together.PLAIN
    assert together.companions(item) == [item]
    assert together.pending(item, lambda other: True) == [item]
    assert together.ahead(request, "boards", lambda: made.append(1) or len(made), plan) == 1
    assert together.own(request, lambda: made.append(2) or len(made)) == 2


def test_a_job_that_sets_up_a_fixture_is_a_bug_in_boardcert_said_at_once():
    """A pytest fixture set up inside a job (Allure keeps fixture containers per thread: the
    test after it broke) raises FixtureInJob from gather, not a silent fallback; outside a
    job, set-ups go on."""
    client, _ = late_client(0.0)
    fixture = SimpleNamespace(argname="make_project")
    with pytest.raises(FixtureInJob, match="'make_project'"):
        together.gather(client, [lambda: 1, lambda: pytest_fixture_setup(fixture)], Wide(2))
    pytest_fixture_setup(fixture)


MODULES = sorted(p.name for p in SUITES.glob("test_*.py") if p.name != "test_read_only.py")


def test_each_module_alone_with_requests_in_flight_sets_up_its_fixtures_in_pytest_s_thread():
    """Each suite module run alone (its fixtures set up first by its own batches) with 4
    requests in flight against the bundled server, Allure on: every test passes, no error.
    Each run a fork of the launcher's zygote (tests/faults/launcher.py: the libraries imported
    once for all the runs, the run otherwise as `python -m pytest` has it)."""
    failed, scratch = {}, Path(tempfile.mkdtemp())
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")  # compiled once, for all the runs
    for module in MODULES:
        done = LAUNCHER.run(
            [str(SUITES / module), "--in-flight", "4", "-q", "--budget", "quick",
             "-p", "no:cacheprovider", "-k", "not test_operation",
             "--alluredir", str(scratch / module / "allure")],
            env, ROOT, scratch / f"{module}.txt", 300)
        if done.returncode != 0:
            failed[module] = done.stdout[-1500:]
    assert not failed, failed


def _adapting(in_flight: int | None, chosen: bool, bundled: bool = False) -> Any:
    """A test process's config as the speed plugin sees it: its Run, target and client."""
    from boardcert.http.exchange import Exchange
    from boardcert.pytest.stash import CLIENT, TARGET
    from boardcert.settings.run import resolve_run, stash_key

    run = resolve_run({} if bundled else {"base_url": "http://127.0.0.1:9", "api_key": "k" * 12},
                      {})
    config = SimpleNamespace(stash=pytest.Stash(), workerinput={})
    config.stash[stash_key()] = SimpleNamespace(**{**run.__dict__, "in_flight": in_flight,
                                                   "in_flight_chosen": chosen})
    config.stash[TARGET] = run.target
    log: list[Any] = []
    config.stash[CLIENT] = SimpleNamespace(log=log)

    def answers(seconds: float, count: int = workers.ADAPT_EVERY) -> None:
        log.extend(Exchange("GET", "/users/me", {}, None, 200, elapsed=seconds)
                   for _ in range(count))
    return config, answers


def test_a_chosen_width_follows_the_answers_as_they_come():
    """Where the run chose the requests in flight (from a few answers), a process decides again
    every ADAPT_EVERY answers from the round trip of the last ones: one at a time chosen, then
    answers 20 ms late, eight; then answers within a millisecond, one again."""
    config, answers = _adapting(1, chosen=True)
    side = SideBySide(config)
    assert side.lanes().width == 1
    answers(0.0002, workers.ADAPT_EVERY - 1)
    assert side.lanes().width == 1  # not yet a window of answers
    answers(0.02)
    assert side.lanes().width == workers.MAX_IN_FLIGHT
    answers(0.0004)
    assert side.lanes().width == 1


def test_a_given_width_and_the_bundled_server_never_change():
    """--in-flight N stays N whatever the answers; the bundled server stays one at a time."""
    for config, answers, width in [(*_adapting(1, chosen=False), 1),
                                   (*_adapting(4, chosen=False), 4),
                                   (*_adapting(None, chosen=False, bundled=True), 1)]:
        side = SideBySide(config)
        assert side.lanes().width == width
        answers(0.05 if width == 1 else 0.0002)
        assert side.lanes().width == width


def _fast_then_late(fast: int, seconds: float) -> tuple[Any, list[int]]:
    """The reference server answering its first `fast` requests at once and every later one
    `seconds` late; the most requests it held at once (in a list, filled as it serves)."""
    import asyncio

    from faults import Variant

    state = {"served": 0, "busy": 0}
    most = [0]

    def make(_key: str) -> Any:
        async def handle(request: Any, forward: Any) -> Any:
            state["served"] += 1
            state["busy"] += 1
            most[0] = max(most[0], state["busy"])
            try:
                if state["served"] > fast:
                    await asyncio.sleep(seconds)
                return await forward(request)
            finally:
                state["busy"] -= 1
        return handle
    return Variant("fast-then-late", "fast at first, then late", None, make), most


@pytest.mark.parametrize(("given", "side_by_side"), [((), True), (("--in-flight", "1"), False)],
                         ids=["chosen", "given 1"])
def test_a_server_fast_at_first_and_late_after_gets_requests_side_by_side(tmp_path, given,
                                                                         side_by_side):
    """A process that chose one request at a time from the server's first answers (within a
    millisecond) sends side by side once its answers come 8 ms late: the server then holds
    several requests at once; given --in-flight 1, never more than one. Nothing fails either
    way (the reference server behind a delay)."""
    from faults import certify

    variant, most = _fast_then_late(30, 0.008)
    result = certify(variant, tmp_path, select="", extra=("-k", "test_errors", *given))
    assert result.statuses and not result.failed(), result.summary()
    assert (most[0] > 1) is side_by_side, (most[0], result.summary())


MADE: list[tuple[str, int]] = []  # the set-ups the owned fixtures below made, in order


@together.owned("counter")
def first_kind(counter):
    """A set-up of the test's own, of one kind."""
    return lambda: MADE.append(("first", next(counter))) or MADE[-1]


@together.owned("counter")
def second_kind(counter):
    """A set-up of the test's own, of another kind."""
    return lambda: MADE.append(("second", next(counter))) or MADE[-1]


class _Item(SimpleNamespace):
    def get_closest_marker(self, name: str) -> None:
        return None

    def iter_markers(self, name: str) -> list[Any]:
        return []


def test_owned_fixtures_of_every_kind_are_built_in_one_batch():
    """With requests in flight, the first test of a unit that needs an `owned` fixture gets
    the set-ups of every owned fixture its pending companions use built in one batch, its own
    kind's and the others' (a module's boards of every kind side by side, not one kind after
    another); each later test takes its own without making it again; asked again, a test's
    own is made again."""
    import itertools

    from boardcert.speed import ahead

    client, _ = late_client(0.0)
    counter = itertools.count()
    module = SimpleNamespace(__name__=__name__)
    names = [("first_kind",), ("second_kind",), ("first_kind", "second_kind"), ("other",)]
    items = [_Item(nodeid=f"t{n}", fixturenames=list(used), module=module)
             for n, used in enumerate(names)]
    config = SimpleNamespace(stash=pytest.Stash())
    config.stash[together.TOGETHER] = SimpleNamespace(
        companions=lambda item: items, lanes=lambda: Wide(2),
        ahead=lambda request, kind, job, plan, accept, key=None: ahead.ahead(
            request, kind, job, plan, accept, Wide(2), key))
    for item in items:
        item.config = config

    def request(item: Any, fixture: str) -> Any:
        values = {"counter": counter, "client": client}
        return SimpleNamespace(config=config, node=item, fixturename=fixture,
                               getfixturevalue=values.__getitem__)

    MADE.clear()
    assert first_kind(request(items[0], "first_kind"))[0] == "first"
    assert sorted(kind for kind, _ in MADE) == ["first", "first", "second", "second"]
    made = len(MADE)
    assert second_kind(request(items[1], "second_kind"))[0] == "second"
    assert first_kind(request(items[2], "first_kind"))[0] == "first"
    assert second_kind(request(items[2], "second_kind"))[0] == "second"
    assert len(MADE) == made  # taken from the batch, none made again
    first_kind(request(items[2], "first_kind"))  # asked again: made again, here
    assert len(MADE) == made + 1
