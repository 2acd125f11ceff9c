"""suites/test_auth.py with requests side by side (--in-flight, issue 16): the keyless requests
go in one batch only where the server rejects them all and changes nothing; the verdict and
every requirement's status are those of a run one request at a time, each test shows its own
request, and a server that breaks authentication (or copes badly with concurrency) gets
exactly the serial run's evidence."""

from __future__ import annotations

import asyncio
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from faults import CONFORMANT, FAULTS, Result, Variant, certify
from faults.asgi import Forward, Handler, Request, Response
from faults.catalogue import acts_then_401
from faults.edits import error
from faults.exchanges import read, sent

from boardcert import spec

TESTS = Path(__file__).parent
AUTH_ONLY = ("-k", "test_auth", "-p", "faults.exchanges")
IN_FLIGHT = 4


def _one_at_a_time(_key: str) -> Handler:
    """A server that answers 503 to a request while it is busy with another."""
    busy = [0]

    async def handler(request: Request, forward: Forward) -> Response:
        if busy[0]:
            return error(503, "busy: one request at a time")
        busy[0] += 1
        try:
            await asyncio.sleep(0.001)
            return await forward(request)
        finally:
            busy[0] -= 1
    return handler


MADE_HERE = [
    Variant("one-at-a-time", "503 to a request while another is answered", None,
            _one_at_a_time),
    Variant("auth-op16-acts-then-401", "op 16 with a wrong key renames the card, answers 401",
            "AUTH-REJECTED-CHANGES-NOTHING", acts_then_401({16}))]
BY_NAME = {v.name: v for v in [*CONFORMANT, *FAULTS, *MADE_HERE]}
# An operation that ignores the key (and deletes the board); one that changes something before
# it rejects (every answer a 4xx); a server that answers one request at a time.
FAULTY = ["auth-open-op4", "auth-op16-acts-then-401", "one-at-a-time"]
VARIANTS = ["reference", "unlisted-ops-open", *FAULTY]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], tuple[Result, Path]]:
    """The auth module against each variant, one request at a time and IN_FLIGHT at once."""
    root = tmp_path_factory.mktemp("auth")
    width = 1 if os.environ.get("PYTEST_XDIST_WORKER") else 2
    with pytest.MonkeyPatch.context() as env, ThreadPoolExecutor(width) as pool:
        env.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(TESTS),
                                                               os.environ.get("PYTHONPATH")])))
        futures = {}
        for name in VARIANTS:
            for in_flight in (1, IN_FLIGHT):
                directory = root / f"{name}-{in_flight}"
                directory.mkdir()
                futures[(name, in_flight)] = directory, pool.submit(
                    certify, BY_NAME[name], directory, select="",
                    extra=(*AUTH_ONLY, "--in-flight", str(in_flight)))
        return {key: (future.result(), directory / "report")
                for key, (directory, future) in futures.items()}


@pytest.mark.parametrize("name", VARIANTS)
def test_verdict_is_the_same_side_by_side(name, runs):
    """The verdict and each requirement's status with requests side by side are the serial
    run's; the faults are flagged both ways."""
    serial, side_by_side = runs[(name, 1)][0], runs[(name, IN_FLIGHT)][0]
    assert serial.statuses, serial.summary()
    assert (side_by_side.verdict, side_by_side.statuses) == (serial.verdict, serial.statuses), \
        side_by_side.summary()
    requirement = BY_NAME[name].requirement
    failed = [i for i in serial.failed() if i.startswith("AUTH-")]
    assert requirement in failed if requirement else not failed, serial.summary()


@pytest.mark.parametrize("name", ["reference", "unlisted-ops-open"])
def test_each_test_shows_its_own_request(name, runs):
    """Side by side, each keyless test shows its one request (its operation, its key) between
    the readings its outcome rests on, sent before it ran; each test with the key or of an
    unlisted operation shows what it shows serially, its board built ahead."""
    shown, made = (f(runs[(name, IN_FLIGHT)][1]) for f in (read, sent))
    serial = read(runs[(name, 1)][1])
    checked = 0
    for test, exchanges in shown.items():
        found = re.search(r"demands_the_key\[op(\d+)-(.+)\]$", test)
        if not found:
            continue
        number, variant = int(found[1]), found[2].replace("-", " ")
        keyless = [x for x in exchanges if x[2] != "key"]
        op = spec.operation(number)
        assert len(keyless) == 1, (test, exchanges)
        method, path, key, status = keyless[0]
        assert (method, key, status) == (op.method, _KEYS[variant], 401), (test, exchanges)
        assert re.fullmatch(re.sub(r"\{\w+\}", "[^/]+", op.path), path), (test, exchanges)
        readings = [x for x in exchanges if x[2] == "key" and x[0] == "GET"]
        if number > 2:  # the project read before and after it
            assert exchanges[-3:] == [readings[-2], keyless[0], readings[-1]], test
            checked += 1
        assert made[test] == 0 or test.endswith("[op1-no-key]"), test  # made in the batch
    assert checked == 15 * 4
    with_key = [t for t in shown if "accepts_the_key" in t or "unlisted" in t]
    assert {t: _shape(shown[t], set_up=True) for t in with_key} == \
        {t: _shape(serial[t], set_up=True) for t in with_key}
    boards = [t for t in with_key if len(shown[t]) > 1 and shown[t][0][0] == "POST"
              and re.fullmatch(r"/organizations/[^/]+/projects", str(shown[t][0][1]))]
    built_ahead = [t for t in boards if made[t] < len(shown[t])]
    assert len(boards) >= 10 and len(built_ahead) >= len(boards) - 1, (boards, built_ahead)


_KEYS = {"no key": "none", "empty key": "empty", "wrong key": "wrong",
         "the key plus a character": "the key plus a character"}


def _shape(exchanges: list[list[object]], set_up: bool = False) -> list[tuple[object, ...]]:
    """What a test showed, ids and names left out; the set-up requests made with the key
    (building a board) only if `set_up`."""
    return [(method, re.sub(r"\d+", "N", re.sub(r"bc-[a-z]+-[0-9a-f]+", "bc-", str(path))),
             key, status)
            for method, path, key, status in exchanges
            if set_up or not (key == "key" and method != "GET")]


@pytest.mark.parametrize("name", FAULTY)
def test_faulty_server_gets_the_serial_evidence(name, runs):
    """Against a server the batch finds unexpected, every test shows what it shows one request
    at a time (the batch thrown away, the board built again)."""
    serial, side_by_side = (read(runs[(name, n)][1]) for n in (1, IN_FLIGHT))
    assert serial.keys() == side_by_side.keys()
    assert {t: _shape(x) for t, x in side_by_side.items()} == \
        {t: _shape(x) for t, x in serial.items()}
