"""Boards built ahead of the tests that use them (boardcert.speed.ahead, issue 16): with requests
in
flight side by side, the set-ups of the board-building modules go up concurrently, each test
shows the requests that built its own board (as one at a time), nothing is left behind, and
the verdict, every requirement's status and every test's outcome are the serial run's, also
against a server whose card factory refuses and one that copes badly with concurrency."""

from __future__ import annotations

import asyncio
import importlib.util
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from faults import Result, Variant
from faults.asgi import Forward, Handler, Request, Response
from faults.catalogue import ONE_AT_A_TIME
from faults.edits import on, refuse
from faults.exchanges import read
from faults.harness import at_each_in_flight, outcomes, same_both_ways

from boardcert.paths import SUITES

pytestmark = pytest.mark.xdist_group("test_ahead")  # one worker makes the module's runs

TESTS = Path(__file__).parents[1]
MODULES = ("test_cards", "test_card_metadata", "test_columns", "test_general", "test_plugins",
           "test_projects", "test_rows")
PLUGINS = ("-p", "faults.exchanges", "-p", "faults.main_thread")
UNSELECTED = "test_rename_renames_the_card"  # deselected: no board may be built for it
SELECT = ("-k", f"({' or '.join(MODULES)}) and not {UNSELECTED}", *PLUGINS)
REFUSED = ("-k", "test_cards or test_card_metadata or test_columns", *PLUGINS)
BROKEN = ("-k", "test_general or test_columns", *PLUGINS)
IN_FLIGHT = 4
DELAY = 0.005  # seconds per answer: enough for requests to meet in flight


class Watch:
    """In front of the reference server: each answer DELAY late; how many requests (but
    deletions: the clean-up's go side by side anyway) came while another was in flight, and
    the projects created (op 2) and not deleted (op 4)."""

    def __init__(self) -> None:
        self.busy = self.met = self.created = 0
        self.projects: set[str] = set()

    def make(self, _key: str) -> Handler:
        async def handler(request: Request, forward: Forward) -> Response:
            counted = request.method != "DELETE"
            self.met += counted and self.busy > 0
            self.busy += counted
            try:
                await asyncio.sleep(DELAY)
                response = await forward(request)
            finally:
                self.busy -= counted
            body = response.json() if response.status == 200 else None
            if request.op == 2 and isinstance(body, dict):
                self.projects.add(str(body["id"]))
                self.created += 1
            if request.op == 4 and response.status == 200:
                self.projects.discard(request.params["projectId"])
            return response
        return handler


REFUSING = Variant("card-create-500", "op 15 answers 500 to every card", None,
                   lambda _key: on(15, refuse(500, "cards are broken")))
FAILING = Variant("column-rename-500", "op 13 answers 500", "COLUMN-RENAME",
                  lambda _key: on(13, refuse(500, "renaming is broken")))
SELECTED = {REFUSING.name: REFUSED, FAILING.name: BROKEN}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], tuple[Result, Path]]:
    """The board-building modules against a late reference server, one that refuses every
    card, one whose op 13 fails and one that answers 503 while busy, one request at a time
    and IN_FLIGHT at once."""
    watches = {n: Watch() for n in (1, IN_FLIGHT)}
    found = at_each_in_flight(
        {**{("late", n): Variant("late", "late", None, w.make) for n, w in watches.items()},
         **{(name, n): variant for n in (1, IN_FLIGHT)
            for name, variant in (("refusing", REFUSING), ("failing", FAILING))},
         ("busy-503", IN_FLIGHT): ONE_AT_A_TIME},
        tmp_path_factory.mktemp("ahead"), SELECT, SELECTED)
    found[("watches", 0)] = watches  # type: ignore[assignment]
    return found


def _shape(exchanges: list[list[object]]) -> list[tuple[object, ...]]:
    """What a test showed, ids and names left out."""
    return [(method, re.sub(r"\d+", "N", re.sub(r"bc-[a-z]+-[0-9a-f]+", "bc-", str(path))),
             status) for method, path, _key, status in exchanges]


def _shown(report: Path) -> dict[str, list[tuple[object, ...]]]:
    """Each test's shape (faults.exchanges records them before the clean-up at the end)."""
    return {test: _shape(exchanges) for test, exchanges in read(report).items()}


def _projects(exchanges: list[list[object]]) -> list[str]:
    """The project ids a test's requests named, in order of first use."""
    found = [m[1] for _, path, _, _ in exchanges if (m := re.match(r"/projects/([^/]+)", path))]
    return list(dict.fromkeys(found))


def test_boards_are_built_side_by_side_and_each_test_shows_its_own(runs):
    """Side by side, set-up requests meet in flight (one at a time, never) and build as many
    projects as serially (none for a deselected test); every test shows the same requests as
    serially, a test that built a board shows only that board's project, and both runs delete
    every project they created."""
    watches = runs[("watches", 0)]
    assert watches[1].met == 0 and watches[IN_FLIGHT].met > 50, watches[IN_FLIGHT].met
    # As many projects as serially: none for a test deselected (UNSELECTED) or done already.
    assert watches[1].created == watches[IN_FLIGHT].created
    assert not watches[1].projects and not watches[IN_FLIGHT].projects
    serial, side_by_side = (read(runs[("late", n)][1]) for n in (1, IN_FLIGHT))
    assert serial.keys() == side_by_side.keys() and len(serial) > 100
    assert _shown(runs[("late", IN_FLIGHT)][1]) == _shown(runs[("late", 1)][1])
    for key, (_, report) in runs.items():  # jobs ask pytest for no fixture (faults.main_thread)
        assert key[1] == 0 or not (report / "off-thread.txt").exists(), \
            (report / "off-thread.txt").read_text()
    built = [t for t, x in side_by_side.items()
             if x and x[0][0] == "POST" and re.fullmatch(r"/organizations/[^/]+/projects", x[0][1])]
    for test in built:  # one board (project) each, as serially: no other test's requests
        assert len(_projects(side_by_side[test])) == len(_projects(serial[test])), test
    assert len(built) > 40


def test_verdict_is_the_same_side_by_side(runs):
    """The verdict, each requirement's status and each test's outcome with boards built side
    by side are the serial run's: against the late reference, against a server that refuses
    every card (its set-up errors are the same), one whose op 13 answers 500 (a call of
    test_general's made ahead that failed) and one that answers 503 while busy."""
    late = same_both_ways(runs, "late", IN_FLIGHT)
    assert late.statuses and "failed" not in late.statuses.values(), late.summary()
    busy, busy_report = runs[("busy-503", IN_FLIGHT)]
    assert (busy.verdict, busy.statuses) == (late.verdict, late.statuses), busy.summary()
    assert outcomes(busy_report) == outcomes(runs[("late", 1)][1])
    refusing = same_both_ways(runs, "refusing", IN_FLIGHT)
    assert list(refusing.statuses.values()).count("not assessed") > 20, refusing.summary()
    failing = same_both_ways(runs, "failing", IN_FLIGHT)
    assert failing.failed() == ["COLUMN-RENAME", "OPERATION-IMPLEMENTED"], failing.summary()


@pytest.mark.parametrize(("name", "at_least"), [("refusing", 15), ("failing", 2)])
def test_a_failed_set_up_gets_the_serial_evidence(runs, name, at_least):
    """A board whose card the server refuses, or a call made ahead that answered 500, is made
    again one request at a time for its test: the same requests and statuses as serially."""
    serial, side_by_side = (_shown(runs[(name, n)][1]) for n in (1, IN_FLIGHT))
    assert side_by_side == serial
    assert len([t for t, x in serial.items() if any(e[2] == 500 for e in x)]) >= at_least


def test_operation_set_ups_build_their_boards_side_by_side():
    """test_general's set-ups build their boards under no lock that one shares with another
    (functools.cached_property's, before Python 3.12: a batch's set-ups waited in turn)."""
    spec = importlib.util.spec_from_file_location("general_suite", SUITES / "test_general.py")
    assert spec is not None and spec.loader is not None
    general = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(general)
    both_in = threading.Barrier(2, timeout=5)

    def fixture(name: str) -> str | None:
        if name == "fresh_board":
            both_in.wait()  # each board is being made while the other is
            return name
        return None

    settings = [general.Setting(fixture) for _ in range(2)]
    with ThreadPoolExecutor(2) as pool:
        assert list(pool.map(lambda setting: setting.board, settings)) == ["fresh_board"] * 2
