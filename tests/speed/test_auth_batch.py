"""suites/test_auth.py with requests side by side (--in-flight, issue 16): the keyless requests
go in one batch only where the server rejects them all and changes nothing; the verdict and
every requirement's status are those of a run one request at a time, each test shows its own
request, and a server that breaks authentication (or copes badly with concurrency) gets
exactly the serial run's evidence."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from faults import CONFORMANT, FAULTS, Result, Variant
from faults.catalogue import ONE_AT_A_TIME, acts_then_401
from faults.exchanges import read, sent
from faults.harness import at_each_in_flight, same_both_ways

from boardcert.interface import spec

pytestmark = pytest.mark.xdist_group("test_auth_batch")  # one worker makes the module's runs

AUTH_ONLY = ("-k", "test_auth", "-p", "faults.exchanges")
IN_FLIGHT = 4


MADE_HERE = [
    ONE_AT_A_TIME,
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
    return at_each_in_flight({(name, n): BY_NAME[name] for name in VARIANTS
                              for n in (1, IN_FLIGHT)}, tmp_path_factory.mktemp("auth"),
                             AUTH_ONLY)


@pytest.mark.parametrize("name", VARIANTS)
def test_verdict_is_the_same_side_by_side(name, runs):
    """The verdict, each requirement's status and each test's outcome with requests side by
    side are the serial run's; the faults are flagged both ways."""
    serial = same_both_ways(runs, name, IN_FLIGHT)
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
        # made in the batch; the first of an operation sends its twin with the key (and the
        # board that needs), which the test with the key shows
        assert made[test] == 0 or test.endswith("-no-key]"), test
    assert checked == 15 * 4
    with_key = [t for t in shown if "accepts_the_key" in t or "unlisted" in t]
    for t in with_key:  # the twin's board is built after the batch's, serially after the last
        set_up = "unlisted" in t  # keyless request of the previous operation
        assert _shape(shown[t], set_up) == _shape(serial[t], set_up), t
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


def test_the_tests_a_batch_counts_ahead_are_tests_of_the_auth_suite():
    """The test names suites/auth_batch.py counts boards for are tests of suites/test_auth.py
    (a renamed test would quietly stop its boards being built ahead)."""
    import ast

    from boardcert.paths import SUITES

    named = {node.targets[0].id: node.value.value
             for node in ast.parse((SUITES / "auth_batch.py").read_text()).body
             if isinstance(node, ast.Assign) and node.targets[0].id.endswith("_TEST")}
    tests = {node.name for node in ast.parse((SUITES / "test_auth.py").read_text()).body
             if isinstance(node, ast.FunctionDef)}
    assert len(named) == 3 and set(named.values()) <= tests, named
