"""The server to one test for a moment, under pytest-xdist: `alone(config)` holds back every
other worker's requests while its block runs.

A few readings show whatever the server did last, not what one request did: op 1's
`currentProject` (the reference server's: the project last created or used) is the only
place a project created by op 2 could show, so "a refused op 2 created nothing" and "op 1
would show a project op 2 made" are judged on op 1 read right after op 2. Serially nothing
comes between them; with workers another worker's request does (any that uses a project),
and the verdict would follow the workers' timing. So under pytest-xdist every request of a
worker passes a gate (`Quiet.request`, shared: boardcert.http.client's `Client.gate`), and
`alone` takes it for itself (exclusive): it waits for the requests the other workers have in
flight to be answered, holds back their next ones until the block ends, and sends its own.
A second lock (the turn) keeps the workers' stream of requests from starving it. The locks
are `flock`s on two files of a directory the controller makes for the run (`Room`) and
removes at its end; each request opens them anew, so that every thread holds its own.

In one process (a serial run) there is nothing to hold back: no gate, and `alone` does nothing.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

from boardcert.settings import roles

try:
    import fcntl
except ImportError:  # no flock (Windows): workers are not held back
    fcntl = None  # type: ignore[assignment]

WORKERINPUT = "boardcert_quiet"  # the run's directory of locks, from the controller


class Quiet:
    """The gate every request of this worker passes, and the block that has it alone."""

    def __init__(self, directory: Path) -> None:
        self.turn, self.gate = directory / "turn", directory / "gate"
        self.held = threading.Event()  # this process is alone: its own requests pass

    @contextmanager
    def request(self) -> Iterator[None]:
        """Around one request: it waits while another worker is alone."""
        if self.held.is_set():
            yield
            return
        with ExitStack() as held:
            with _locked(self.turn, fcntl.LOCK_SH):  # not past a worker waiting to be alone
                held.enter_context(_locked(self.gate, fcntl.LOCK_SH))
            yield

    @contextmanager
    def alone(self) -> Iterator[None]:
        """The block's requests are the only ones the run sends."""
        with _locked(self.turn, fcntl.LOCK_EX), _locked(self.gate, fcntl.LOCK_EX):
            self.held.set()
            try:
                yield
            finally:
                self.held.clear()


@contextmanager
def _locked(path: Path, how: int) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, how)
        yield
    finally:
        os.close(fd)  # the lock goes with the descriptor


QUIET = pytest.StashKey[Quiet]()


def gate(config: pytest.Config) -> Callable[[], AbstractContextManager[None]] | None:
    """What this process's client passes each request through: a worker's Quiet, else none."""
    found = config.stash.get(QUIET, None)
    return None if found is None else found.request


@contextmanager
def alone(config: pytest.Config) -> Iterator[None]:
    """The block's requests are the only ones of this run the server gets."""
    found = config.stash.get(QUIET, None)
    if found is None:
        yield
        return
    with found.alone():
        yield


class Room:
    """On the pytest-xdist controller: the run's directory of locks, for each worker."""

    def __init__(self) -> None:
        self.directory: str | None = None

    def pytest_configure_node(self, node: Any) -> None:
        if fcntl is None:
            return
        if self.directory is None:
            self.directory = tempfile.mkdtemp(prefix="boardcert-quiet-")
        node.workerinput[WORKERINPUT] = self.directory

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)


def pytest_configure(config: pytest.Config) -> None:
    """A worker takes the controller's directory; the controller makes it for them."""
    directory = roles.worker_input(config).get(WORKERINPUT)
    if directory and fcntl is not None:
        config.stash[QUIET] = Quiet(Path(directory))
    elif roles.reporting(config) and config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(Room(), "boardcert-quiet-room")
