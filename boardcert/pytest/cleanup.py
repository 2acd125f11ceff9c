"""Clean-up (pytest plugin module): the `ledger` fixture of everything the run creates, deleted
when the session ends, also when it ends early (Ctrl-C, -x, pytest.exit); Ctrl-C lets the
running test finish first, so that all it created is in the ledger. SIGTERM is Ctrl-C
(boardcert.interrupts) in `boardcert run`'s process and in each pytest-xdist worker."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator

import pytest

from boardcert.http.api import Api
from boardcert.interrupts import sigterm_as_ctrl_c
from boardcert.pytest.stash import LEDGERS, LEFT_BEHIND, TARGET, THROWAWAY
from boardcert.settings.config import NotAssessed
from boardcert.workbench.ledger import Ledger

UNDO_SIGTERM = pytest.StashKey[Callable[[], None]]()


def pytest_configure(config: pytest.Config) -> None:
    """A pytest-xdist worker takes SIGTERM as Ctrl-C too: a SIGTERM to the run's whole process
    group (a CI job cancelled, `timeout`) then stops its tests and deletes what they created,
    as one to `boardcert run` alone does through the controller."""
    if hasattr(config, "workerinput"):
        config.stash[UNDO_SIGTERM] = sigterm_as_ctrl_c()


def pytest_unconfigure(config: pytest.Config) -> None:
    if undo := config.stash.get(UNDO_SIGTERM, None):
        undo()


@pytest.fixture(scope="session")
def ledger(base_api: Api, request: pytest.FixtureRequest) -> Iterator[Ledger]:
    """Everything the run creates; deleted newest first when the session ends."""
    if request.config.stash[TARGET].read_only:
        raise NotAssessed("--read-only (the test needs resources the run would create)",
                          read_only=True)
    ledger = Ledger(base_api)
    request.config.stash[LEDGERS].append(ledger)
    yield ledger
    # Done while the client is open; pytest_sessionfinish covers runs cut short.
    clean_up(request.config, ledger)


def clean_up(config: pytest.Config, ledger: Ledger) -> None:
    """Delete what the ledger holds, once; note what could not be deleted. Not on the bundled
    reference server this process started: it stops at the end with all it holds (some 120
    requests fewer a run)."""
    if ledger in config.stash[LEDGERS]:
        config.stash[LEDGERS].remove(ledger)
        if not config.stash.get(THROWAWAY, False):
            config.stash[LEFT_BEHIND].extend(ledger.clean_up())


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Clean up even when the session ends early (Ctrl-C, -x, pytest.exit)."""
    for ledger in list(session.config.stash.get(LEDGERS, [])):
        clean_up(session.config, ledger)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """Ctrl-C lets the running test finish, so that all it created is in the ledger, then
    stops the run, which cleans up; a second Ctrl-C stops at once. (Only for tests that can
    create something: those that use the ledger.)"""
    if "ledger" not in getattr(item, "fixturenames", ()) \
            or threading.current_thread() is not threading.main_thread():
        return (yield)
    held: list[int] = []

    def hold(signum: int, frame: object) -> None:
        if held:
            raise KeyboardInterrupt
        held.append(signum)
        sys.stderr.write("\nboardcert: stopping after this test, then deleting what the run "
                         "created (Ctrl-C again to stop at once)\n")

    previous = signal.signal(signal.SIGINT, hold)
    try:
        result = yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held:
        raise KeyboardInterrupt
    return result
