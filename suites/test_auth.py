"""Section 5: the X-API-Key on operations 1-5, 7-13 and 15-19; the others without a key (INFO).

Every request here is one that succeeds with the key (real ids from a board of this module's
own), so a 404 for a missing resource cannot stand in for a missing key check. A rejected
request must change nothing, so the board is shared; it is built again after any call that
was not rejected or that changed it.

The requests and the board they are sent on: auth_scene.py; side by side with more than one
request in flight: auth_batch.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from auth_batch import BatchedScene
from auth_scene import KEYS, READS, Boards, Scene, unlisted

from boardcert.conformance import NotAssessed, expect, misfit, spec, when

LISTED = [op.number for op in spec.operations().values() if op.auth_required]
UNLISTED = [op.number for op in spec.operations().values() if not op.auth_required]
# The statuses conventionally used for a refused key. The interface names no status, so any
# 4xx refuses (AUTH-KEY-REQUIRED); which one is only recorded (AUTH-REJECTION-STATUS).
AUTH_STATUSES = (401, 403)


@pytest.fixture(scope="module")
def boards(request: pytest.FixtureRequest) -> Boards:
    """The module's boards. The factories are looked up on first use, so tests that need no
    board (op 1) do not depend on them (and on the organization they need)."""
    return Boards(lambda: request.getfixturevalue("make_board"))


# --- parameters ----------------------------------------------------------------------------

def _label(n: int) -> str:
    return f"operation {n} ({spec.operation(n).label})"


def _case(n: int, variant: str, *requirement: str, read_only: bool = False) -> Any:
    marks = [pytest.mark.requirement(*requirement, op=n)]
    if read_only:
        marks.append(pytest.mark.read_only)
    return pytest.param(n, variant, marks=marks, id=f"op{n}-{variant.replace(' ', '-')}")


@pytest.fixture
def scene(request: pytest.FixtureRequest, boards: Boards) -> Scene:
    return BatchedScene(request, boards, request.node.get_closest_marker("read_only") is not None)


# --- AUTH-KEY-REQUIRED and AUTH-REJECTED-CHANGES-NOTHING -----------------------------------

@pytest.mark.parametrize(("number", "variant"), [
    _case(n, v, "AUTH-KEY-REQUIRED", "NO-SERVER-ERROR", read_only=n in READS)
    for n in LISTED for v in KEYS])
def test_listed_operation_demands_the_key(number, variant, scene, target):
    """The listed operations with no X-API-Key, an empty one or a wrong one answer a 4xx."""
    exchange = scene.without_key(number, variant, target.api_key).exchange
    status = exchange.status or 0
    if status >= 500:
        expect.fail("NO-SERVER-ERROR", f"a 4xx (not a 5xx) from {_label(number)} with {variant}",
                    exchange)
    if not 400 <= status < 500:
        expect.fail("AUTH-KEY-REQUIRED", f"a 4xx from {_label(number)} with {variant}", exchange)
    scene.earned(number, f"AUTH-KEY-REQUIRED of {_label(number)} with {variant}")


@pytest.mark.parametrize("number", [
    pytest.param(n, marks=[pytest.mark.requirement("AUTH-REJECTION-STATUS", op=n),
                           pytest.mark.read_only], id=f"op{n}") for n in (1, 3)])
def test_key_rejection_status_is_recorded(number, scene, target, observe):
    """Which status refuses a missing, empty or wrong key (401, 403 or another 4xx) is recorded."""
    seen = {variant: scene.without_key(number, variant, target.api_key).exchange.status
            for variant in KEYS}
    kinds = {"401/403" if status in AUTH_STATUSES else "a 4xx other than 401/403"
             for status in seen.values() if 400 <= (status or 0) < 500}
    observe("AUTH-REJECTION-STATUS", f"{_label(number)}: " + "; ".join(
        f"{variant} answered {status}" for variant, status in seen.items())
        + (f" ({' and '.join(sorted(kinds))})" if kinds else ""))


@pytest.mark.parametrize(("number", "variant"), [
    _case(n, v, "AUTH-REJECTED-CHANGES-NOTHING") for n in LISTED if n not in READS
    for v in KEYS])
def test_request_without_valid_key_changes_nothing(number, variant, scene, target):
    """A state-changing listed operation rejected for its key leaves every resource as it was
    (assessed where the same request with the key succeeds: else it could change nothing)."""
    expect.changes_nothing("AUTH-REJECTED-CHANGES-NOTHING",
                           f"what {_label(number)} with {variant} could change",
                           scene.without_key(number, variant, target.api_key))
    scene.earned(number, f"AUTH-REJECTED-CHANGES-NOTHING of {_label(number)} with {variant}")
    scene.would_show(number, f"AUTH-REJECTED-CHANGES-NOTHING of {_label(number)} with "
                             f"{variant}")


# --- AUTH-VALID-KEY-ACCEPTED ---------------------------------------------------------------

@pytest.mark.parametrize("number", [
    pytest.param(n, marks=[pytest.mark.requirement("AUTH-VALID-KEY-ACCEPTED", op=n),
                           *([pytest.mark.read_only] if n in READS else [])], id=f"op{n}")
    for n in LISTED])
def test_listed_operation_accepts_the_key(number, scene):
    """The listed operations accept the configured key in X-API-Key: the twin of the keyless
    requests answers 2xx. A 401 or 403 refuses the key; any other answer fails where a request
    of this kind was seen to succeed with the key, else is not assessed (the operation or the
    profile may be at fault, not the key)."""
    scene.spare_boards()
    exchange = scene.twin(number)
    scene.api.client.adopt(scene.boards.twins_shown.pop(number, []))
    status = exchange.status or 0
    if 200 <= status < 300:
        return
    if status in AUTH_STATUSES:
        expect.fail("AUTH-VALID-KEY-ACCEPTED", f"{_label(number)} to accept the key", exchange)
    seen = scene.seen(number)
    if seen is not None:
        how = seen if isinstance(seen, str) else "the same request on a fresh board answered " \
            f"{seen.status}"
        expect.fail("AUTH-VALID-KEY-ACCEPTED", f"{_label(number)} to accept the key after its "
                    f"keyless requests, as a request of this kind did ({how})", exchange,
                    got=f"status {status}", conditions=[when.status(exchange, "2xx")])
    raise misfit(exchange) or NotAssessed(
        f"AUTH-VALID-KEY-ACCEPTED on op {number}: it answered {status} with the key, and no "
        "request of this kind was seen to succeed (OPERATION-IMPLEMENTED judges the operation)")


# --- AUTH-UNLISTED-OBSERVED (INFO) ---------------------------------------------------------

@pytest.mark.parametrize("number", [
    pytest.param(n, marks=pytest.mark.requirement("AUTH-UNLISTED-OBSERVED", op=n), id=f"op{n}")
    for n in UNLISTED])
def test_unlisted_operation_without_key_is_recorded(number, scene, observe):
    """What the operations whose authentication is not shown do without a key is recorded."""
    scene.spare_boards()
    call = unlisted(scene, number)
    exchange = scene.send(call, key=None)
    status = exchange.status or 0
    scene.settle(exchange)
    scene.boards.unlisted_spoil = not scene.boards.built  # how many spares the next need
    if 200 <= status < 300 and number == 25:
        plugin = call.path
        scene.ledger.created("plugin_data", pluginId=plugin["pluginId"],
                             entityId=plugin["entityId"], key=plugin["key"])
    text = f"{_label(number)} without X-API-Key answered {status}"
    opened = 200 <= status < 300 and spec.operation(number).method != "GET"
    if opened:
        text = f"state-changing operation open without a key: {text}"
    observe("AUTH-UNLISTED-OBSERVED", text, security=opened)
