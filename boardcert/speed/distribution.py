"""How pytest-xdist's workers share a run's tests (a part of the speed plugin;
boardcert.settings.workers
says how many workers).

A module's tests stay on one worker, so its module fixtures (its boards) are made once; but
each schemathesis item of `suites/test_properties.py` (one operation's generated requests), the
parts of its stateful test and those of the board model's machine (`test_board_model.py`) are
units of their own: they send a third of a run's requests, and on one
worker they were the run's critical path. Each worker that runs some of them makes its own
arena (the property tests' session fixture). A module larger than a share of the run
(test_errors, test_auth: hundreds of requests each) goes out in parts. Units go out longest
first (an estimate of their requests), one more when a worker is down to its last test, so
that the last ones to finish are short (boardcert.speed.scheduler: xdist's scheduling by scope,
its internals checked first by boardcert.speed.patches). `--dist MODE` given to pytest decides
instead. Without the speed plugin, pytest-xdist distributes as it does by default.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from boardcert.settings import roles

PROPERTIES = "test_properties.py::"  # the module whose items are units of their own
STATEFUL = "::TestBoardWorkflow"  # its parts: TestBoardWorkflow, TestBoardWorkflow2, ...
MODEL = "test_board_model.py::"  # the board model's state machine: each part a unit too
# Requests a test sends one after another, roughly (a run against the reference server): what
# orders the units. With requests in flight (boardcert.speed.in_flight) the suites' modules send
# theirs in batches: "batched" per test.
COST = {"stateful": 75, "property": 25, "test": 2, "batched": 0.5, "model": 100,
        "in flight": 6,  # a property test side by side: its unit takes as long as its longest
        "unit": 20}  # each unit's own: its module's fixtures, its first batch
# With requests in flight, what a module takes is the requests it still sends one after
# another (boards built request by request, readings around batches), not how many tests it
# has: its round trips, as measured at 100 ms per answer (the seconds from a unit's first
# request to its last answer on its worker, x 10: two runs of `benchmarks/critical_path.py
# --latency 0.1 --keep DIR` at d64467b agreed within 0.7 s a unit; the whole-board checks had
# doubled some since the last measure). A module not named here: its tests, "batched".
ROUND_TRIPS = {"test_cards.py": 113, "test_auth.py": 91, "test_rows.py": 68,
               "test_plugins.py": 66, "test_projects.py": 66, "test_card_metadata.py": 50,
               "test_errors.py": 47, "test_columns.py": 43, "test_limits.py": 40,
               "test_general.py": 39, "test_concurrent_writes.py": 30,
               "test_removed_paths.py": 14, "test_exchange_code.py": 5, "test_users.py": 2,
               STATEFUL: 38,  # a part of the stateful test (5 scenarios)
               MODEL: 80,  # a part of the board model's machine (two runs, readings at once)
               "test_properties.py": 65}  # a unit of property tests side by side (8: its longest)


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config: pytest.Config) -> Any:
    """Before pytest-xdist reads -n (a wrapper: pytest-xdist's hook may be registered first):
    unless --dist is given, boardcert's own distribution (a module's tests stay together:
    --dist loadfile is what pytest-xdist falls back to without this plugin's scheduler).
    (--plan runs in one process: boardcert.pytest.plan.)"""
    from boardcert.pytest.handover import run_of

    option = config.option
    if getattr(option, "numprocesses", None) and not run_of(config).plan \
            and option.dist == "no" \
            and not getattr(option, "distload", False):
        option.dist = "loadfile"
        config.stash[OURS] = True
    return (yield)


OURS = pytest.StashKey[bool]()
UNITS = "boardcert_units"  # workerinput: the controller schedules by `units` (speed/in_flight.py)


def ours(config: pytest.Config) -> bool:
    """Whether the controller schedules by boardcert's units: its distribution, and xdist's
    internals checked (boardcert.speed.patches.xdist_scheduling)."""
    from boardcert.speed import patched

    return config.stash.get(OURS, False) and patched(config, "xdist scheduling")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Tell each worker whether its tests come in boardcert's units (what it may do ahead)."""
    node.workerinput[UNITS] = given_in_flight(node.config) if ours(node.config) else 0


def pytest_configure(config: pytest.Config) -> None:
    """On a worker whose tests come in boardcert's units: how to find them again, for the tests
    that batch what their companions need (boardcert.speed.in_flight: companions)."""
    workerinput = roles.worker_input(config)
    made_with = workerinput.get(UNITS)
    if made_with:
        from boardcert.pytest.stash import UNITS as UNITS_OF

        count = int(workerinput["workercount"])
        config.stash[UNITS_OF] = lambda nodeids: units(list(nodeids), count, int(made_with))


def given_in_flight(config: pytest.Config) -> int:
    """The requests in flight given to the run; 1 when none is (a worker may still measure
    its own)."""
    from boardcert.pytest.handover import run_of

    return run_of(config).in_flight or 1


def cost(nodeid: str, in_flight: int = 1) -> float:
    if STATEFUL in nodeid:
        return COST["stateful"]
    if MODEL in nodeid:
        return COST["model"]
    if PROPERTIES in nodeid:  # side by side, `in_flight` at a time (properties.side_by_side)
        return COST["property"] if in_flight <= 1 else COST["in flight"]
    return COST["test"] if in_flight <= 1 else COST["batched"]


def unit_cost(scope: str, tests: Any, in_flight: int = 1) -> float:
    """What a unit takes (in requests one after another): with requests in flight a module of
    the suites its measured round trips (ROUND_TRIPS), else its tests' costs."""
    if in_flight > 1:  # a module or its part ("suites/test_x.py#1"), or a stateful part
        kind = next((part for part in (STATEFUL, MODEL) if part in scope),
                    scope.split("#", 1)[0].rsplit("/", 1)[-1])
        if kind in ROUND_TRIPS:
            return ROUND_TRIPS[kind]
    return COST["unit"] + sum(cost(nodeid, in_flight) for nodeid in tests)


def units(collection: list[str], workers: int, in_flight: int = 1) -> dict[str, str]:
    """Each test's unit of work: its own for a property test (with requests in flight, a run
    of `in_flight` of them, which go side by side); else its module, or for a
    module of the suites larger than a share of the run (1 / twice the workers), a part of it:
    the tests of the same parameters (which may share what they sent) stay together, parts
    follow the order of collection, and each part makes the module's fixtures on its worker.
    With requests in flight a module stays whole: it sends its independent requests in
    batches, and each part would build its boards again. Other tests (boardcert's own, under
    `pytest -n N`) go by module, as --dist loadfile."""
    modules: dict[str, list[str]] = {}
    for nodeid in collection:
        modules.setdefault(nodeid.split("::", 1)[0], []).append(nodeid)
    share = 0 if in_flight > 1 else sum(map(cost, collection)) / (2 * max(1, workers))
    found: dict[str, str] = {}
    for module, tests in modules.items():
        if not _in_suites(module):
            found |= {nodeid: module for nodeid in tests}
            continue
        if MODEL in tests[0]:  # each part of the board model's machine on its own
            found |= {nodeid: nodeid for nodeid in tests}
            continue
        if PROPERTIES in tests[0]:  # with requests in flight, `in_flight` property tests a unit
            generated = [nodeid for nodeid in tests if STATEFUL not in nodeid]
            found |= {nodeid: nodeid for nodeid in tests}
            if in_flight > 1:
                found |= {nodeid: f"{module}#{n // in_flight}"
                          for n, nodeid in enumerate(generated)}
            continue
        size = sum(map(cost, tests))
        parts = max(1, math.ceil(size / share)) if share else 1
        by_parameters: dict[str, int] = {}
        for nodeid in tests:
            given = _parameters(nodeid)
            by_parameters[given] = by_parameters.get(given, 0) + cost(nodeid)
        part, before = {}, 0
        for given, spent in by_parameters.items():
            part[given] = f"{module}#{int(before * parts // size)}"
            before += spent
        found |= {nodeid: part[_parameters(nodeid)] for nodeid in tests}
    return found


def long_tests(found: dict[str, str]) -> set[str]:
    """The tests that take long on their own: the stateful parts (schemathesis's and the board
    model's), and the first property test of each unit of them side by side (it runs the
    others' generated requests)."""
    firsts: dict[str, str] = {}
    for nodeid, unit in found.items():
        if PROPERTIES in nodeid and "#" in unit:
            firsts.setdefault(unit, nodeid)
    return {n for n in found if STATEFUL in n or MODEL in n} | set(firsts.values())


def _in_suites(module: str) -> bool:
    return f"/{module}".rsplit("/", 2)[1] == "suites"  # suites/, boardcert/data/suites/


def _parameters(nodeid: str) -> str:
    return nodeid[nodeid.index("[") + 1:-1] if nodeid.endswith("]") and "[" in nodeid else ""


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if not ours(config):
        return None
    from boardcert.speed.scheduler import Longest

    return Longest(config, log)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """pytest-xdist says how many workers collected when the tests start: with Longest that
    is after the first; the line it prints once all have is said here."""
    config = node.config
    if ours(config):
        done = config.stash[COLLECTED] = config.stash.get(COLLECTED, 0) + 1
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if done == len(config.option.tx) and reporter is not None:
            reporter.write_line(f"{done} workers [{len(ids)} items]")


COLLECTED = pytest.StashKey[int]()
