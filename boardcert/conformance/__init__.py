"""What a conformance suite imports: the one module of boardcert that suites/ may name.

A suite builds what it needs through the fixtures (boardcert.pytest.fixtures), sends through
`Api` and `Client`, and judges through `expect` and `checks`; everything else it takes from
here. A change to this list is a change to what the suites may lean on
(tests/conformance/test_conformance_surface.py lists it). It sits in a room of its own above
all it re-exports.
"""

from __future__ import annotations

from boardcert import properties
from boardcert.errors import ExchangeError, SetUpError, Violation
from boardcert.http.api import Api, card_names, find_named, ids_in_order, mentions, misfit
from boardcert.http.at_once import at_once
from boardcert.http.client import Client, Exchange
from boardcert.interface import conditions as when
from boardcert.interface import spec
from boardcert.interface.removed import REMOVED, RemovedPath
from boardcert.model import Oracle
from boardcert.pytest import early, together
from boardcert.pytest.early import Watched
from boardcert.pytest.markers import per_operation
from boardcert.settings.config import NotAssessed, Profile, fill
from boardcert.workbench import checks, expect
from boardcert.workbench.board import (
    ORDERS,
    Board,
    Made,
    modelled,
    placeholders,
    profile_body,
    project_state,
    unique,
)
from boardcert.workbench.expect import Outcome
from boardcert.workbench.ledger import Entry, Ledger

__all__ = [
    # sending and what came back
    "Api", "Client", "Exchange", "at_once",
    # finding things in a body
    "card_names", "find_named", "ids_in_order", "mentions",
    # judging: checks of a response, expectations, their failures, not assessed
    "checks", "expect", "Outcome", "Violation", "ExchangeError", "SetUpError", "NotAssessed",
    "misfit",
    # the interface's facts
    "spec", "when", "REMOVED", "RemovedPath",
    # the profile and boards to work on
    "Profile", "fill", "Board", "Made", "ORDERS", "placeholders", "profile_body", "project_state",
    "unique", "Entry", "Ledger",
    # the whole board after a write: a model of a wide board, checked against the server
    "modelled", "Oracle",
    # what tests do together (independent requests, set-ups: side by side only with the
    # speed plugin), set-ups made at the first test
    "together", "early", "Watched",
    # one test per operation, each marked with the requirement on its operation
    "per_operation",
    # schemathesis over the spec (suites/test_properties.py)
    "properties",
]
