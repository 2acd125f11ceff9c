"""The pytest stash keys the boardcert plugin modules share (one place, as schemathesis keeps
its `_keys.py`); the run's settings have theirs in boardcert.settings.run.

The speed plugin (boardcert.speed) hands the rest what it provides through four of them, so
that nothing outside it imports it: SPEED (whether it ran, which patches stayed off),
DISCOVERED (the discovery another process made), UNITS (the tests a worker runs together) and
ALLURE_WRITTEN (the Allure files its writer saved)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from boardcert.http.client import Client
from boardcert.settings.config import Target
from boardcert.settings.run_facts import Speed
from boardcert.workbench.ledger import Ledger

TARGET = pytest.StashKey[Target]()  # the server under test (the started reference, once started)
CLIENT = pytest.StashKey[Client]()  # the session's client, once made
LEDGERS = pytest.StashKey[list[Ledger]]()  # ledgers not yet cleaned up
LEFT_BEHIND = pytest.StashKey[list[str]]()  # what clean-up could not delete
THROWAWAY = pytest.StashKey[bool]()  # the target is the bundled server this process started
LOG_START = pytest.StashKey[tuple[Client | None, int]]()  # the client's log length at set-up
PREFLIGHT_NOTES = pytest.StashKey[list[str]]()
# The allure result files saved with this machine's paths already replaced (the speed plugin's
# writer): boardcert.pytest.allure reads the others again.
ALLURE_WRITTEN = pytest.StashKey[set[str]]()
SPEED = pytest.StashKey[Speed]()  # set by the speed plugin; absent: it did not run
# On an xdist worker of the speed plugin's shared discovery: the discovery and organization the
# controller found for the target (None: it found none, the worker probes itself).
DISCOVERED = pytest.StashKey[Callable[[Target], "tuple[Any, str | None] | None"]]()
# On a worker of the speed plugin's scheduling: each selected test's unit (node id -> unit).
UNITS = pytest.StashKey[Callable[[Sequence[str]], dict[str, str]]]()
READ_ONLY_SKIPPED = pytest.StashKey[bool]()  # --read-only skipped this test before set-up
OBSERVED = pytest.StashKey[list[tuple[str, str, bool]]]()  # a test's observations (INFO), in order
