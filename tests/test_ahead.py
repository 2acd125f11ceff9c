"""Boards built ahead of the tests that use them (boardcert.ahead, issue 16): with requests in
flight side by side, the set-ups of the board-building modules go up concurrently, each test
shows the requests that built its own board (as one at a time), nothing is left behind, and
the verdict and every requirement's status are the serial run's, also against a server whose
card factory refuses and one that copes badly with concurrency."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import re
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from faults import Result, Variant, certify
from faults.asgi import Forward, Handler, Request, Response
from faults.edits import on, refuse
from faults.exchanges import read
from test_auth_batch import BY_NAME as AUTH_VARIANTS

from boardcert.paths import SUITES

TESTS = Path(__file__).parent
MODULES = ("test_cards", "test_card_metadata", "test_columns", "test_general", "test_plugins",
           "test_projects", "test_rows")
SELECT = ("-k", " or ".join(MODULES), "-p", "faults.exchanges")
REFUSED = ("-k", "test_cards or test_card_metadata or test_columns", "-p", "faults.exchanges")
IN_FLIGHT = 4
DELAY = 0.005  # seconds per answer: enough for requests to meet in flight


class Watch:
    """In front of the reference server: each answer DELAY late; the most requests of each
    operation in flight at once and the projects created (op 2) and not deleted (op 4)."""

    def __init__(self) -> None:
        self.busy: Counter[int | None] = Counter()
        self.most: Counter[int | None] = Counter()
        self.projects: set[str] = set()

    def make(self, _key: str) -> Handler:
        async def handler(request: Request, forward: Forward) -> Response:
            op = request.op
            self.busy[op] += 1
            self.most[op] = max(self.most[op], self.busy[op])
            try:
                await asyncio.sleep(DELAY)
                response = await forward(request)
            finally:
                self.busy[op] -= 1
            body = response.json() if response.status == 200 else None
            if op == 2 and isinstance(body, dict):
                self.projects.add(str(body["id"]))
            if op == 4 and response.status == 200:
                self.projects.discard(request.params["projectId"])
            return response
        return handler


REFUSING = Variant("card-create-500", "op 15 answers 500 to every card", None,
                   lambda _key: on(15, refuse(500, "cards are broken")))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], tuple[Result, Path]]:
    """The board-building modules against a late reference server, one that refuses every
    card and one that answers 503 while busy, one request at a time and IN_FLIGHT at once."""
    root = tmp_path_factory.mktemp("ahead")
    watches = {n: Watch() for n in (1, IN_FLIGHT)}
    plan = [*((f"late-{n}", Variant("late", "late", None, w.make), n)
              for n, w in watches.items()),
            *((f"refusing-{n}", REFUSING, n) for n in (1, IN_FLIGHT)),
            ("busy-503", AUTH_VARIANTS["one-at-a-time"], IN_FLIGHT)]
    width = 1 if os.environ.get("PYTEST_XDIST_WORKER") else 2
    with pytest.MonkeyPatch.context() as env, ThreadPoolExecutor(width) as pool:
        env.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(TESTS),
                                                               os.environ.get("PYTHONPATH")])))
        futures = {}
        for name, variant, in_flight in plan:
            directory = root / name
            directory.mkdir()
            select = REFUSED if variant is REFUSING else SELECT
            futures[(name, in_flight)] = directory, pool.submit(
                certify, variant, directory, select="",
                extra=(*select, "--in-flight", str(in_flight)))
        found = {key: (future.result(), directory / "report")
                 for key, (directory, future) in futures.items()}
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
    """Side by side, set-up requests meet in flight (one at a time, never); every test shows
    the same requests as serially, a test that built a board shows only that board's project,
    and both runs delete every project they created."""
    watches = runs[("watches", 0)]
    # Serially no two requests of an operation meet, but the clean-up's deletions. Side by
    # side: project, row, column and card creations (the boards), and the attachments of a
    # plugin that only test_general's set-ups make.
    assert {op for op, most in watches[1].most.items() if most > 1} <= {4, 26}
    assert all(watches[IN_FLIGHT].most[op] > 1 for op in (2, 7, 11, 15, 23)), \
        watches[IN_FLIGHT].most
    assert not watches[1].projects and not watches[IN_FLIGHT].projects
    serial, side_by_side = (read(runs[(f"late-{n}", n)][1]) for n in (1, IN_FLIGHT))
    assert serial.keys() == side_by_side.keys() and len(serial) > 100
    assert _shown(runs[(f"late-{IN_FLIGHT}", IN_FLIGHT)][1]) == _shown(runs[("late-1", 1)][1])
    built = [t for t, x in side_by_side.items()
             if x and x[0][0] == "POST" and re.fullmatch(r"/organizations/[^/]+/projects", x[0][1])]
    for test in built:  # one board (project) each, as serially: no other test's requests
        assert len(_projects(side_by_side[test])) == len(_projects(serial[test])), test
    assert len(built) > 40


def test_verdict_is_the_same_side_by_side(runs):
    """The verdict and each requirement's status with boards built side by side are the
    serial run's: against the late reference, against a server that refuses every card (its
    set-up errors are the same), and against one that answers 503 while busy."""
    late, refusing = runs[("late-1", 1)][0], runs[("refusing-1", 1)][0]
    assert late.statuses and "failed" not in late.statuses.values(), late.summary()
    for result in (runs[(f"late-{IN_FLIGHT}", IN_FLIGHT)][0], runs[("busy-503", IN_FLIGHT)][0]):
        assert (result.verdict, result.statuses) == (late.verdict, late.statuses), \
            result.summary()
    side_by_side = runs[(f"refusing-{IN_FLIGHT}", IN_FLIGHT)][0]
    assert list(refusing.statuses.values()).count("not assessed") > 20, refusing.summary()
    assert (side_by_side.verdict, side_by_side.statuses) == (refusing.verdict,
                                                             refusing.statuses), \
        side_by_side.summary()


def test_a_refused_board_gets_the_serial_evidence(runs):
    """A board whose card the server refuses is built again one request at a time for its
    test: the same requests, statuses and set-up error as serially."""
    serial, side_by_side = (_shown(runs[(f"refusing-{n}", n)][1]) for n in (1, IN_FLIGHT))
    assert side_by_side == serial
    refused = [t for t, x in serial.items() if x and x[-1][0] == "POST" and x[-1][2] == 500]
    assert len(refused) > 15


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
