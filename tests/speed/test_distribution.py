"""How pytest-xdist's workers share the tests (boardcert.speed.distribution, issue 16): a module's
tests together, but each property test on its own and a large module in parts; the longest
first."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from types import SimpleNamespace
from typing import Any

import pytest
from faults.harness import TESTS

from boardcert.paths import ROOT, SUITES
from boardcert.settings.run import resolve_run, stash_key
from boardcert.speed import distribution
from boardcert.speed.scheduler import Longest

PROPERTY = "suites/test_properties.py::test_operation[{}]"
STATEFUL = "suites/test_properties.py::TestBoardWorkflow::runTest"


def _collection() -> list[str]:
    small = [f"suites/test_rows.py::test_{n}" for n in range(5)]
    large = [f"suites/test_errors.py::test_a[case{n}]" for n in range(100)]
    large += [f"suites/test_errors.py::test_b[case{n}]" for n in range(0, 100, 2)]
    large.append("suites/test_errors.py::test_c")
    props = [PROPERTY.format(f"GET /x{n}") for n in range(10)]
    return small + large + props + [STATEFUL]


def test_property_tests_are_units_of_their_own_and_modules_stay_together():
    """Each schemathesis item (and the stateful test) is a unit; a small module is one unit."""
    units = distribution.units(_collection(), 2)
    props = [n for n in units if "test_properties" in n]
    assert len({units[n] for n in props}) == len(props) == 11
    assert {units[n] for n in units if "test_rows" in n} == {"suites/test_rows.py#0"}


def test_other_tests_than_the_suites_go_by_module():
    """boardcert's own tests under `pytest -n N` are distributed by module (--dist loadfile)."""
    collection = [n.replace("suites/", "tests/") for n in _collection()]
    units = distribution.units(collection, 4)
    assert set(units.values()) == {n.split("::")[0] for n in collection}


def test_a_large_module_goes_out_in_parts_keeping_its_parameters_together():
    """A module above a share of the run is split in parts in collection order; the tests of
    the same parameters (which share what they sent) are in the same part."""
    units = distribution.units(_collection(), 4)
    errors = {n: u for n, u in units.items() if "test_errors" in n}
    assert len(set(errors.values())) >= 2
    for n in range(0, 100, 2):
        assert errors[f"suites/test_errors.py::test_a[case{n}]"] == \
            errors[f"suites/test_errors.py::test_b[case{n}]"]
    assert len(set(distribution.units(_collection(), 1).values())) < len(set(units.values()))


def test_with_requests_in_flight_a_module_stays_whole_and_each_stateful_part_is_a_unit():
    """With requests in flight a module sends its independent requests in batches: it goes
    out whole (parts would build its boards again); each part of the stateful test is a unit."""
    collection = [*_collection(), STATEFUL.replace("Workflow::", "Workflow2::")]
    units = distribution.units(collection, 4, in_flight=8)
    assert {u for n, u in units.items() if "test_errors" in n} == {"suites/test_errors.py#0"}
    assert len({units[n] for n in collection if "TestBoardWorkflow" in n}) == 2
    assert distribution.cost(collection[0], 8) < distribution.cost(collection[0], 1)


class _Config:
    def __init__(self, workers: int, in_flight: int | None = None) -> None:
        self.option = SimpleNamespace(tx=["popen"] * workers, loadscopereorder=True)
        # the run's settings: the defaults, with `in_flight` if given
        self.stash = {stash_key(): resolve_run({"in_flight": in_flight}, {})}

    def getvalue(self, name: str) -> Any:
        return getattr(self.option, name)

    def getoption(self, name: str, default: Any = None) -> Any:
        return getattr(self.option, name, default)


class _Node:
    def __init__(self, name: str) -> None:
        self.gateway, self.shutting_down, self.sent = SimpleNamespace(id=name), False, []

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.sent += indexes

    def shutdown(self) -> None:
        self.shutting_down = True


def _scheduled(collection: list[str], workers: int) -> tuple[Longest, list[_Node]]:
    """The scheduler (requests in flight) and its workers once each has collected, in turn."""
    scheduler = Longest(_Config(workers, in_flight=8), log=None)
    nodes = [_Node(f"gw{n}") for n in range(workers)]
    for node in nodes:
        scheduler.add_node(node)
    for node in nodes:  # as pytest-xdist does
        scheduler.add_node_collection(node, collection)
        scheduler.schedule()
    return scheduler, nodes


def test_the_longest_units_go_out_first_and_a_worker_gets_more_when_down_to_one():
    """The stateful test, then the property tests, then the modules by size; a worker holding
    one test still to run gets one more unit, the shortest."""
    collection = [n for n in _collection() if "test_errors" not in n]
    scheduler = Longest(_Config(2), log=None)
    nodes = [_Node("gw0"), _Node("gw1")]
    for node in nodes:
        scheduler.add_node(node)
    for node in nodes:  # as pytest-xdist does
        scheduler.add_node_collection(node, collection)
        scheduler.schedule()
    first = [collection[node.sent[0]] for node in nodes]
    assert first[0] == STATEFUL and "test_properties" in first[1], first
    # the stateful test alone, so one more unit at once, the shortest (not a long one to wait
    # behind it while another worker could run it)
    assert {collection[i].split("::")[0] for i in nodes[0].sent[1:]} == {"suites/test_rows.py"}


@pytest.mark.parametrize("late_started", [True, False], ids=["late-collecting", "late-starting"])
def test_work_starts_with_the_first_worker_that_has_collected(late_started):
    """The first worker to finish collecting starts at once: it gets the longest unit and,
    since an xdist worker runs a test only once it holds the next, the shortest (given one
    unit, it held its stateful part unrun until every worker had collected), not the
    stateful test's second part. A later one, still collecting or not even started yet, gets
    that part, the longest left, when its collection (the same) comes in."""
    second = STATEFUL.replace("Workflow::", "Workflow2::")
    collection = [n for n in _collection() if "test_errors" not in n] + [second]
    scheduler = Longest(_Config(2), log=None)
    early, late = _Node("gw0"), _Node("gw1")
    scheduler.add_node(early)
    if late_started:
        scheduler.add_node(late)
    scheduler.add_node_collection(early, collection)
    assert scheduler.collection_is_completed
    scheduler.schedule()
    sent = [collection[i] for i in early.sent]
    assert sent[0] == STATEFUL and {n.split("::")[0] for n in sent[1:]} == {"suites/test_rows.py"}
    assert late.sent == [] and not early.shutting_down
    if not late_started:
        scheduler.add_node(late)
    scheduler.add_node_collection(late, collection)
    scheduler.schedule()
    assert collection[late.sent[0]] == second and not set(late.sent) & set(early.sent)


def test_property_items_run_on_several_workers(tmp_path):
    """-n 2 over property items of several operations: both workers run some, each with its
    own arena. Each worker ends its collection once both have reached that point
    (faults.all_collected): work starts with the first to collect, and on a busy machine the
    other found none left."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOARDCERT_")}
    (tmp_path / "collected").mkdir()
    env["ALL_COLLECTED"] = f"{tmp_path / 'collected'}:2"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "faults.all_collected",
         "-v", "-n", "2",
         "--budget", "quick", "--rootdir", str(ROOT), str(SUITES / "test_properties.py"),
         "-k", "runTest or users/me or GET and rows"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    ran = re.findall(r"^\[(gw\d)\] \[[ \d]+%\] PASSED suites/test_properties", done.stdout, re.M)
    assert set(ran) == {"gw0", "gw1"}, done.stdout[-3000:]


def test_behind_a_short_test_the_longest_unit_is_queued():
    """A worker down to a test that is not long on its own gets the longest unit left, not
    the shortest (queued the shortest each time, the long units were left for the end)."""
    collection = [f"suites/test_rows.py::test_{n}" for n in range(5)]
    collection += [PROPERTY.format(f"GET /x{n}") for n in range(3)]
    scheduler = Longest(_Config(1), log=None)
    node = _Node("gw0")
    scheduler.add_node(node)
    scheduler.add_node_collection(node, collection)
    scheduler.schedule()
    assert [collection[i] for i in node.sent] == collection[5:7]  # two property tests
    assert distribution.long_tests(scheduler.units) == set()


def test_behind_a_long_test_a_unit_without_one_is_queued_before_a_long_one():
    """A worker that starts a long test (a part of the board model's machine) gets the
    shortest unit that holds no long test behind it, even where a stateful part costs less:
    queued behind another long test, a stateful part waited there 4 s at 100 ms while other
    workers had nothing left to run."""
    model = "suites/test_board_model.py::test_board_follows_its_model[1]"
    collection = [model, STATEFUL, *(f"suites/test_limits.py::test_{n}" for n in range(3))]
    scheduler = Longest(_Config(1, in_flight=8), log=None)
    node = _Node("gw0")
    scheduler.add_node(node)
    scheduler.add_node_collection(node, collection)
    scheduler.schedule()
    trips = distribution.ROUND_TRIPS
    assert trips[distribution.STATEFUL] < trips["test_limits.py"] < trips[distribution.MODEL]
    assert [collection[i] for i in node.sent][:2] == [model, collection[2]]
    assert STATEFUL not in [collection[i] for i in node.sent]


def test_a_worker_on_a_long_test_with_only_long_ones_left_runs_it_and_ends():
    """Where a worker starts a long test and every unit left holds one too, it is not given
    the next long one to hold (that one would wait behind its long test while other workers
    have nothing to run): it is shut down, runs its test at once, and the worker that frees up
    next takes the other. With fewer workers than long units left, the next goes behind."""
    second = STATEFUL.replace("Workflow::", "Workflow2::")
    limits = [f"suites/test_limits.py::test_{n}" for n in range(3)]
    collection = [STATEFUL, second, *limits]
    scheduler, nodes = _scheduled(collection, 2)
    sent = {node.gateway.id: [collection[i] for i in node.sent] for node in nodes}
    assert sent == {"gw0": limits, "gw1": [STATEFUL]} and nodes[1].shutting_down, sent
    for n in range(2):  # gw0 down to its last test: it takes the other part, then ends
        scheduler.mark_test_complete(nodes[0], collection.index(limits[n]))
    assert [collection[i] for i in nodes[0].sent] == [*limits, second]
    scheduler.mark_test_complete(nodes[0], collection.index(limits[2]))
    assert nodes[0].shutting_down
    alone = Longest(_Config(1, in_flight=8), log=None)  # one worker: the next goes behind
    node = _Node("gw0")
    alone.add_node(node)
    alone.add_node_collection(node, [STATEFUL, second])
    alone.schedule()
    assert [[STATEFUL, second][i] for i in node.sent] == [STATEFUL, second]


def test_a_worker_on_a_long_test_takes_nothing_the_other_workers_can_take():
    """Where a worker starts a long test and no more units are left than other workers, it
    is shut down even where a unit without a long test is left: queued behind the long test,
    that unit (test_concurrent_writes, 3 s at 100 ms) started when the long test ended and
    finished the run 3 s after the others, while a worker had been free all along. With more
    units left than other workers, the shortest goes behind."""
    model = "suites/test_board_model.py::test_board_follows_its_model[1]"
    limits = [f"suites/test_limits.py::test_{n}" for n in range(3)]
    writes = [f"suites/test_concurrent_writes.py::test_{n}" for n in range(3)]
    for workers, behind in ((3, []), (2, writes)):
        scheduler = Longest(_Config(workers, in_flight=8), log=None)
        nodes = [_Node(f"gw{n}") for n in range(workers)]
        for node in nodes:
            scheduler.add_node(node)
        scheduler.add_node_collection(nodes[0], [model, *limits, *writes])
        scheduler.schedule()
        sent = [[model, *limits, *writes][i] for i in nodes[0].sent]
        assert sent == [model, *behind] and nodes[0].shutting_down == (not behind), sent


def test_with_requests_in_flight_units_cost_their_measured_round_trips():
    """With requests in flight a module costs the round trips it still makes one after
    another, a stateful part and a unit of property tests theirs; the first property test of
    a unit and each stateful part are the long tests."""
    collection = [*_collection(), STATEFUL.replace("Workflow::", "Workflow2::")]
    units = distribution.units(collection, 4, in_flight=8)
    costs = {unit: distribution.unit_cost(unit, [n for n in collection if units[n] == unit], 8)
             for unit in set(units.values())}
    trips = distribution.ROUND_TRIPS
    assert costs["suites/test_errors.py#0"] == trips["test_errors.py"]
    assert costs["suites/test_properties.py#0"] == trips["test_properties.py"]
    assert costs[STATEFUL] == trips[distribution.STATEFUL]
    assert distribution.long_tests(units) == {STATEFUL, STATEFUL.replace("Workflow::",
                                                                         "Workflow2::"),
                                              PROPERTY.format("GET /x0"),
                                              PROPERTY.format("GET /x8")}


def test_the_board_models_parts_are_units_of_their_own():
    """Each part of the board model's state machine is a unit and a long test of its own, so
    that workers run them side by side; it costs its measured round trips."""
    parts = [f"suites/test_board_model.py::test_board_follows_its_model[{n}]" for n in (1, 2)]
    collection = [*_collection(), *parts]
    for in_flight in (1, 8):
        units = distribution.units(collection, 4, in_flight=in_flight)
        assert [units[part] for part in parts] == parts
        assert set(parts) <= distribution.long_tests(units)
    assert distribution.unit_cost(parts[0], parts[:1], 8) == \
        distribution.ROUND_TRIPS[distribution.MODEL]


def test_every_module_of_the_suites_that_sends_requests_has_its_round_trips():
    """A module of the suites not in ROUND_TRIPS costs its tests "batched", a fraction of what
    one that builds boards takes: it would be scheduled as if short and end a run far away
    late. Only those that send nothing of their own in a default run may be missing
    (test_profile.py reports what discovery found; test_read_only.py runs with --read-only)."""
    named = set(distribution.ROUND_TRIPS)  # the board model by its parts (MODEL)
    modules = {path.name for path in SUITES.glob("test_*.py")} - {"test_board_model.py"}
    assert modules - named == {"test_profile.py", "test_read_only.py"}
    assert named - modules == {distribution.STATEFUL, distribution.MODEL}
