"""allure-pytest's listener with cheaper bookkeeping: the same results and containers (issue 16).

allure-pytest links each test to the container of every fixture it uses (Allure shows a
container's set-ups and tear-downs for each of its children), and did so at the end of each
test's set-up and again after its call: for every fixture name of the test, pytest's
`getfixturedefs` (which walks the test's parents; 18,000 calls a quick run) and a scan of the
container's children (a session fixture has hundreds: quadratic). Here, the same links:
- the fixture definitions of a test are looked up once per test function (the parametrized
  items of a function share its fixture closure and parents); those asked for during a test
  (`request.getfixturevalue`) are looked up as allure-pytest does;
- a test's containers are remembered in a set, not found again in each container's children;
- after the call only when a fixture was set up, torn down or asked for since the set-up.
A fixture's tear-downs are timed by a plain wrapper instead of `allure_commons.fixture` (which
dispatched two allure hooks and read the finalizer's signature for parameters nobody reads),
and the set-ups', tear-downs' and steps' keys (never written) are counted, not uuid4s.

Used by the speed plugin once its check of allure-pytest's internals passed
(boardcert.speed.patches.allure_listener; imported only then): allure-pytest's pytest_configure
makes this class instead of its own for the session, and registers it as its own,
"allure_listener".
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from allure_commons.model2 import TestAfterResult, TestBeforeResult, TestResultContainer
from allure_commons.utils import now
from allure_pytest.compat import getfixturedefs
from allure_pytest.listener import AllureListener, ItemCache
from allure_pytest.utils import (
    get_outcome_status,
    get_outcome_status_details,
    get_status,
    get_status_details,
)

_keys = itertools.count()


def use(config: pytest.Config) -> None:
    """For this session, allure-pytest makes this listener (called before its pytest_configure
    makes its own)."""
    if not getattr(config.option, "allure_report_dir", None):
        return
    import allure_pytest.plugin

    original = allure_pytest.plugin.AllureListener
    allure_pytest.plugin.AllureListener = LeanListener  # type: ignore[misc]
    config.add_cleanup(lambda: setattr(allure_pytest.plugin, "AllureListener", original))


def key() -> str:
    """A key of allure's reporter for an item no file names (a set-up, tear-down or step)."""
    return f"boardcert-{next(_keys)}"


class _Cache(ItemCache):
    """allure-pytest's uuids by object (test ids, fixture definitions), counting those dropped
    (a fixture torn down)."""

    def __init__(self) -> None:
        super().__init__()
        self.dropped = 0

    def pop(self, _id: Any) -> str | None:
        self.dropped += 1
        return super().pop(_id)


class LeanListener(AllureListener):
    """allure_pytest.listener.AllureListener, its fixture bookkeeping done once per test."""

    def __init__(self, config: pytest.Config) -> None:
        super().__init__(config)
        self._cache = _Cache()
        # (fixture info, parent) -> (them, their fixture definitions, their closure's names)
        self._definitions: dict[tuple[int, int], tuple[Any, Any, list[Any], frozenset[str]]] = {}
        self._linked: tuple[str | None, set[str]] = (None, set())  # a test, its containers
        self._updated: tuple[Any, ...] = ()  # the state of the last update

    def _update_fixtures_children(self, item: pytest.Item) -> None:
        """The test a child of the container of each fixture it uses (a container made for a
        fixture that has none yet), as allure-pytest does."""
        request = getattr(item, "_request", None)
        asked = getattr(request, "_fixture_defs", None)  # name -> definition, once asked for
        if asked is None or not hasattr(item, "_fixtureinfo"):  # not a pytest.Function
            return super()._update_fixtures_children(item)
        uuid = self._cache.get(item.nodeid)
        state = (uuid, len(asked), self._cache.dropped, len(self._cache._items))
        if state == self._updated:  # nothing set up, torn down or asked for since
            return
        self._updated = state
        test, linked = self._linked
        if test != uuid:
            self._linked = (uuid, linked := set())
        logger = self.allure_logger
        items = logger._items.thread_context  # the reporter's items of this thread
        for fixturedef in self._fixturedefs(item, asked):
            group_uuid = self._cache.get(fixturedef)
            if not group_uuid:
                group_uuid = self._cache.push(fixturedef)
                logger.start_group(group_uuid, TestResultContainer(uuid=group_uuid))
            if group_uuid not in linked:
                linked.add(group_uuid)
                items[group_uuid].children.append(uuid)

    def _fixturedefs(self, item: Any, asked: dict[str, Any]) -> list[Any]:
        """What allure_pytest.listener._test_fixtures gives: the definitions of each fixture
        name of the test's closure, then of those asked for besides."""
        info, parent = item._fixtureinfo, item.parent
        found = self._definitions.get((id(info), id(parent)))
        if found is None:
            manager = item.session._fixturemanager
            closure = list(item.fixturenames)
            definitions = [d for name in closure
                           for d in getfixturedefs(manager, name, item) or ()]
            found = self._definitions[(id(info), id(parent))] = (
                info, parent, definitions, frozenset(closure))  # they live on: ids stay theirs
        _, _, definitions, closure_names = found
        besides = [name for name in asked if name not in closure_names]
        if not besides:
            return definitions
        manager = item.session._fixturemanager
        return definitions + [d for name in besides
                              for d in getfixturedefs(manager, name, item) or ()]

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef: Any, request: pytest.FixtureRequest) -> Any:
        """A set-up (before) in the fixture's container, its finalizers as tear-downs (afters):
        allure-pytest's, with plain wrappers."""
        fixture_name = getattr(fixturedef.func, "__allure_display_name__", fixturedef.argname)
        container_uuid = self._cache.get(fixturedef)
        if not container_uuid:
            container_uuid = self._cache.push(fixturedef)
            self.allure_logger.start_group(container_uuid,
                                           TestResultContainer(uuid=container_uuid))
        self.allure_logger.update_group(container_uuid, start=now())
        before_uuid = key()
        self.allure_logger.start_before_fixture(
            container_uuid, before_uuid, TestBeforeResult(name=fixture_name, start=now()))
        outcome = yield
        self.allure_logger.stop_before_fixture(
            before_uuid, stop=now(), status=get_outcome_status(outcome),
            statusDetails=get_outcome_status_details(outcome))
        finalizers = getattr(fixturedef, "_finalizers", [])
        for index, finalizer in enumerate(finalizers):
            name = f"{fixture_name}::{getattr(finalizer, '__name__', index)}"
            finalizers[index] = self._timed(finalizer, container_uuid, name)

    def _timed(self, finalizer: Callable[[], Any], container_uuid: str,
               name: str) -> Callable[[], Any]:
        """The finalizer, shown as a tear-down of the container (allure_commons.fixture)."""
        logger = self.allure_logger

        def teardown(*args: Any, **kwargs: Any) -> Any:
            after_uuid = key()
            logger.start_after_fixture(container_uuid, after_uuid,
                                       TestAfterResult(name=name, start=now()))
            try:
                result = finalizer(*args, **kwargs)
            except BaseException as exc:
                logger.stop_after_fixture(after_uuid, stop=now(), status=get_status(exc),
                                          statusDetails=get_status_details(
                                              type(exc), exc, exc.__traceback__))
                raise
            logger.stop_after_fixture(after_uuid, stop=now(), status=get_status(None),
                                      statusDetails=None)
            return result

        return teardown
