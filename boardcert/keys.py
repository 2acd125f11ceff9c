"""The pytest stash keys the boardcert plugin modules share (one place, as schemathesis keeps
its `_keys.py`), and the xdist worker-input key for the controller's reference server."""

from __future__ import annotations

import pytest

from boardcert.client import Client
from boardcert.config import Target
from boardcert.ledger import Ledger

TARGET = pytest.StashKey[Target]()  # the server under test (the started reference, once started)
CLIENT = pytest.StashKey[Client]()  # the session's client, once made
LEDGERS = pytest.StashKey[list[Ledger]]()  # ledgers not yet cleaned up
LEFT_BEHIND = pytest.StashKey[list[str]]()  # what clean-up could not delete
THROWAWAY = pytest.StashKey[bool]()  # the target is the bundled server this process started
LOG_START = pytest.StashKey[tuple[Client | None, int]]()  # the client's log length at set-up
PREFLIGHT_NOTES = pytest.StashKey[list[str]]()
WORKER_TARGET = "boardcert_target"  # workerinput key: the controller's reference server
