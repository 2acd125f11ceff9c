"""Set-ups built ahead of the tests that use them (issue 16), the speed plugin's way of making
`together.ahead`'s set-up jobs. With more than one request in flight, the first test of a unit
that needs a set-up of its own (a fresh board, a project with rows, ...) builds those of all its
pending companions side by side in one `gather`: each set-up is one job, its requests in order
inside it (a board's parts depend on each other). Each test then takes its own and adopts the
exchanges that built it, so its evidence and Allure steps show its own set-up. A set-up that
failed in the batch (or whose value `accept` refuses) is made again, one request at a time, for
its test: a refused factory gives the same SetUpError and evidence as a serial run. What a
batch built for a test that did not use it is in the ledger and cleaned up like the rest. With
one request in flight everything is made where it is needed, as always. Plans run in pytest's
thread and resolve there every fixture their jobs use (`together.fixtures`): a job never asks
pytest for one (allure-pytest keeps its fixture state per thread; tests/faults/main_thread.py
checks)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import pytest

from boardcert.pytest import together
from boardcert.pytest.together import Job, Lanes, Plan

T = TypeVar("T")

BUILT = pytest.StashKey[dict[str, dict[Hashable, Any]]]()  # kind -> key -> Done (None: taken)


def ahead(request: pytest.FixtureRequest, kind: str, job: Job[T], plan: Plan,
          accept: Callable[[T], bool] | None, lanes: Lanes, key: Hashable | None = None) -> T:
    """This test's set-up `job`. `plan(item)` gives the key and job of a test's set-up among
    those of this `kind` (None: it needs none; a list: several, this test's named by `key`);
    the first time a test needs one, those of its pending companions are built side by side,
    and each test takes its own by its key."""
    config = request.config
    own = dict(_planned(request.node, plan)) if lanes.width > 1 else {}
    if key is None:
        key = next(iter(own), None)
    if key is None or key not in own:
        return job()
    built = config.stash.setdefault(BUILT, {}).setdefault(kind, {})
    if key not in built:
        jobs = _batch(request.node, plan, built)
        if len(jobs) <= 1:
            built[key] = None
            return job()
        client = request.getfixturevalue("client")
        built.update(zip(jobs, together.gather(client, list(jobs.values()), lanes),
                         strict=True))
    done, built[key] = built.get(key), None  # taken: asked again, it is made again
    if done is None or done.error is not None or (accept is not None and not accept(done.value)):
        return job()  # as one at a time: the batch's exchanges are dropped
    request.getfixturevalue("client").adopt(done.exchanges)
    return done.value


def _batch(item: pytest.Item, plan: Plan, built: dict[Hashable, Any]) -> dict[Hashable, Job[Any]]:
    """The set-ups to build side by side, this test's first."""
    jobs: dict[Hashable, Job[Any]] = {}
    for other in together.pending(item, lambda other: True):
        for key, job in _planned(other, plan):
            if key not in built and key not in jobs:
                jobs[key] = job
    return jobs


def _planned(item: pytest.Item, plan: Plan) -> list[tuple[Hashable, Job[Any]]]:
    """The test's set-ups (a plan gives none, one, or a list); none if planning fails (the
    test makes its own and meets the failure where it would one at a time)."""
    try:
        found = plan(item)
    except (Exception, pytest.skip.Exception, pytest.fail.Exception):
        return []
    return [] if found is None else found if isinstance(found, list) else [found]
