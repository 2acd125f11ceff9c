"""The property tests side by side (a part of the speed plugin; issue 16). Against a server far
away each property test waits for its generated requests one at a time: at 100 ms the 28 of
them spent ~70 s waiting, the largest share of a run. With more than one request in flight
(`together.lanes`), the first property test of a unit runs the Hypothesis tests of its
pending companions side by side (Hypothesis runs different tests in different threads since
6.136; schemathesis's own runner does the same), each in a job of `together.gather`, and
keeps each outcome for its test. When a test's turn comes:

- it passed side by side, every operation it names answered a 2xx: the test adopts the
  exchanges it made (its evidence and Allure steps are its own) and passes without running
  again;
- anything else (a failure, a skip, an error; an operation that never answered a 2xx, which
  the tests beside it may have caused: an order of columns sent while one was created): what
  it noted is forgotten and it runs again,
  here, one request at a time, as it would serially; a fault gets exactly the serial verdict
  and evidence, and a server that copes badly with concurrency is not blamed for it.

The arena (the board the generated requests point into) is made first, in pytest's thread;
the stateful tests stay as they are (a scenario's steps depend on each other). It calls the
test's function itself, reads the item's request and fixture names, and while the tests run
side by side replaces `ast.parse` for the whole process (`_one_parse_at_a_time`): checked first
(boardcert.speed.patches.side_by_side), else every property test runs in its turn."""

from __future__ import annotations

import ast
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from functools import partial
from types import SimpleNamespace
from typing import Any

import pytest

from boardcert.speed import patched

# boardcert's own modules are imported when a test first runs here (this plugin is loaded
# before them: see boardcert.speed)

PROPERTY_TEST = "test_properties.py::test_operation["
ARGUMENTS = {"arena", "request"}  # all that the property test takes from pytest
DONE = pytest.StashKey[Any]()  # its outcome side by side (together.Done), until its turn
TRIED = pytest.StashKey[bool]()  # in a batch already (its turn: run here if no outcome)


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """A property test's call: its outcome side by side if it passed there, else as always."""
    item = pyfuncitem
    if not _batchable(item) or not patched(item.config, "property tests side by side"):
        return None
    from boardcert.properties.judging import STATUSES
    from boardcert.pytest import together
    from boardcert.pytest.failures import UNASSESSED
    from boardcert.pytest.stash import CLIENT

    lanes = together.lanes(item.config)
    if lanes.width <= 1:
        return None
    if not item.stash.get(TRIED, False):
        _run_ahead(item, lanes)
    done = item.stash.get(DONE, None)
    if done is None:
        return None
    del item.stash[DONE]
    if done.error is not None or item.stash.get(UNASSESSED, None):  # run again, here
        # (a failure, a skip; or an operation that got no 2xx: the tests beside it may have
        # changed the arena under it, a column created while its order was sent)
        for key in (STATUSES, UNASSESSED):
            if key in item.stash:
                del item.stash[key]  # type: ignore[arg-type]
        return None
    item.config.stash[CLIENT].adopt(done.exchanges)
    return True


def _batchable(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    return PROPERTY_TEST in item.nodeid and info is not None and set(info.argnames) <= ARGUMENTS


def _run_ahead(item: pytest.Function, lanes: Any) -> None:
    """Run the pending property tests of the unit side by side; keep each one's outcome."""
    from boardcert.pytest import together
    from boardcert.pytest.stash import CLIENT

    pending = together.pending(item, lambda other: _batchable(other)
                                  and not other.stash.get(TRIED, False))
    for other in pending:
        other.stash[TRIED] = True
    if len(pending) <= 1:
        return
    arena = item._request.getfixturevalue("arena")
    with suppress(pytest.skip.Exception):  # no board: the tests that need one skip (again,
        arena.board()  # here); made here, in pytest's thread (its factories are fixtures)
    client = item.config.stash[CLIENT]
    jobs = [partial(_call, other, arena) for other in pending]
    with _one_parse_at_a_time():
        found = together.gather(client, jobs, lanes)
    for other, done in zip(pending, found, strict=True):
        other.stash[DONE] = done


@contextmanager
def _one_parse_at_a_time() -> Iterator[None]:
    """ast.parse one thread at a time while the tests run side by side: Hypothesis parses the
    source of the lambdas it describes, and CPython 3.11's parser, run in two threads at once,
    fails with "SystemError: AST constructor recursion depth mismatch" (a flaky failure of
    the test, which then ran again one request at a time: 1 or 2 tests in 3 runs)."""
    parse, lock = ast.parse, threading.Lock()

    def parse_alone(*args: Any, **kwargs: Any) -> Any:
        with lock:
            return parse(*args, **kwargs)

    ast.parse = parse_alone  # type: ignore[assignment]
    try:
        yield
    finally:
        ast.parse = parse  # type: ignore[assignment]


def _call(item: pytest.Function, arena: Any) -> None:
    """The Hypothesis test of one property item, as pytest would call it (its `request` stands
    for the item: the test reads its node), Hypothesis's output muted as schemathesis does."""
    from schemathesis.generation.hypothesis.reporting import ignore_hypothesis_output

    given = {"arena": arena, "request": SimpleNamespace(node=item, config=item.config)}
    with ignore_hypothesis_output():
        item.obj(**{name: given[name] for name in item._fixtureinfo.argnames})
