"""Section 7 and "All payloads are JSON": bad input gets a 4xx, never a 5xx, and changes nothing.

Error statuses, codes and bodies are not shown, so any 4xx is a rejection and what the server
uses is only recorded (ERROR-FORMAT). A rejected request is checked against a fresh operation 3
read before and after it: the whole Project, updatedAt included.

The cases (bad bodies, ids that name nothing), each a `Spec`: error_cases.py. With more than
one request in flight (boardcert.pytest.together) the cases of the tests this process runs
together go side by side between one reading before and one after (`Sent.batch`); anything
unexpected and they are sent again one at a time, as serially.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from error_cases import JSON_TYPE, MISSING, NAME_MAX, SPECS, WATCHED_OPS, Case, Spec, board_path

from boardcert.conformance import Api, Board, Exchange, NotAssessed, expect, project_state, together


def _params(requirement: str, which: Callable[[Spec], bool]) -> list[Any]:
    params = []
    for s in SPECS.values():
        if which(s):
            marks = [pytest.mark.requirement(requirement, op=s.number)]
            if s.read_only:
                marks.append(pytest.mark.read_only)
            params.append(pytest.param(s.id, marks=marks, id=s.id))
    return params


class Sent:
    """Each case's outcome, sent once (whichever test asks first), and the board the cases
    name. With more than one request in flight the cases of the tests this process runs
    together go in one batch first (`batch`); anything unexpected and they are sent one at a
    time, as serially, on a board built again."""

    def __init__(self, api: Api, ledger: Any, build: Callable[[], Board]) -> None:
        self.api, self.ledger, self.build = api, ledger, build
        self._board: Board | None = None
        self._unbuilt: BaseException | None = None  # why the board could not be built
        self.outcomes: together.Outcomes[str, expect.Outcome] = \
            together.Outcomes(api.client)

    def board(self) -> Board:
        """The board (built on first use; a failure to build it is raised again, as a module
        fixture's would be)."""
        if self._unbuilt is not None:
            raise self._unbuilt
        if self._board is None:
            try:
                self._board = self.build()
            except Exception as exc:
                self._unbuilt = exc
                raise
        return self._board

    def outcome(self, case_id: str, request: pytest.FixtureRequest) -> expect.Outcome:
        return self.outcomes.get(request, case_id, partial(self.one, case_id, request),
                                 partial(self.batch, request))

    def one(self, case_id: str, request: pytest.FixtureRequest) -> expect.Outcome:
        """The case sent on its own, between readings of the project if it is watched."""
        s = SPECS[case_id]
        board = None if s.read_only else self.board()
        case = s.make(board, request)
        read = (lambda: project_state(self.api, board.project.id)) if s.watched else lambda: None
        done = expect.observed(lambda: send(self.api, case), read)
        done.created = "a project" if adopt(self.ledger, case, done.exchange) else None
        return done

    def batch(self, request: pytest.FixtureRequest) -> None:
        """The cases this test and its companions still need, side by side between one reading
        of the board's project before and one after. Kept when every request got a 4xx and the
        project read back the same; else thrown away (what op 2 created is in the ledger) and
        the board built again. If the only surprise was cases the server accepted (where the
        interface leaves the body open, a null body may be taken for none), the others go once
        more in a batch of their own on the new board; anything else, and every case is sent
        one at a time."""
        ids = self.outcomes.fresh(together.pending_values(request, "case_id"))
        for _ in range(2):
            cases = self.cases(ids, request)  # may build the board: in this test's log
            batch = self.side_by_side(cases, request) if len(cases) > 1 else None
            if batch is None or batch.as_expected:
                return
            self._board = None  # the batch may have changed it: a board of its own
            answered = [(d.value.status or 0) if d.error is None else 0 for d in batch.sent]
            accepted = [i for i, status in zip(cases, answered, strict=True)
                        if 200 <= status < 400]
            if not accepted or not all(200 <= status < 500 for status in answered):
                return  # one at a time, as serially
            ids = [i for i in cases if i not in accepted]

    def side_by_side(self, cases: dict[str, Case],
                     request: pytest.FixtureRequest) -> together.Between | None:
        """The cases between two readings of the board's project (together.between); their
        outcomes kept if it is as expected."""
        board = self._board if any(not SPECS[i].read_only for i in cases) else None
        read = partial(project_state, self.api, board.project.id) if board else lambda: None
        batch = together.between(
            self.api.client, read, [partial(send, self.api, case) for case in cases.values()],
            together.lanes(request.config),
            lambda state: state is None or state["status"] == 200)
        if batch is None:
            return None  # nothing sent: one at a time, as serially
        for case, done in zip(cases.values(), batch.sent, strict=True):
            if done.value is not None:
                adopt(self.ledger, case, done.value)
        ids = list(cases)
        watched = [SPECS[i].watched for i in ids]  # its outcome rests on the readings
        self.outcomes.keep_between(ids, batch, lambda i: expect.Outcome(
            batch.sent[i].value, *((batch.before.value, batch.after.value) if watched[i] else ())),
            lambda i: batch.shown(i, watched[i]))
        return batch

    def cases(self, ids: list[str], request: pytest.FixtureRequest) -> dict[str, Case]:
        """The batch's requests; a case that cannot be made is left to its tests (which find
        out why, one at a time)."""
        made: dict[str, Case] = {}
        for case_id in ids:
            s = SPECS[case_id]
            try:
                made[case_id] = s.make(None if s.read_only else self.board(), request)
            except (Exception, pytest.skip.Exception, pytest.fail.Exception):
                continue
        return made


@pytest.fixture(scope="module")
def sent(api, ledger, make_board) -> Sent:
    """This module's cases and board (its first card with a metadata entry, which op 22's
    cases name): rejected requests must leave it as it was."""
    return Sent(api, ledger, lambda: make_board(metadata=True))


@pytest.fixture
def outcome_of(request, sent) -> Callable[[str], expect.Outcome]:
    """The outcome of a case, sent on first use."""
    return partial(sent.outcome, request=request)


def send(api: Api, case: Case) -> Exchange:
    return api.call(case.number, path_params=case.path, json=case.json, content=case.content,
                    headers=JSON_TYPE if case.content is not None else None)


def adopt(ledger: Any, case: Case, exchange: Exchange) -> bool:
    """A project that op 2 created after all goes into the ledger; whether it did."""
    if case.number != 2 or exchange.status != 200 or not exchange.content:
        return False
    try:
        body = exchange.json()
    except AssertionError:
        return False
    return ledger.created("project", answer=body) is not None


# --- NO-SERVER-ERROR -----------------------------------------------------------------------

@pytest.mark.parametrize("case_id", _params("NO-SERVER-ERROR", lambda s: True))
def test_client_input_never_causes_a_server_error(case_id, outcome_of):
    """Malformed, mistyped or unknown client input is answered without a 5xx."""
    exchange = outcome_of(case_id).exchange
    if (exchange.status or 0) >= 500:
        expect.fail("NO-SERVER-ERROR", f"a 4xx (not a 5xx) from operation "
                    f"{SPECS[case_id].number}", exchange)


# --- REJECT-MALFORMED-JSON -----------------------------------------------------------------

@pytest.mark.parametrize("case_id", _params("REJECT-MALFORMED-JSON",
                                            lambda s: "-not-json-" in s.id))
def test_body_that_is_not_json_is_rejected(case_id, outcome_of):
    """A request body that is not JSON is rejected with a 4xx and changes nothing (whatever the
    refusal's status, a 5xx included: the project is read back after it)."""
    outcome = outcome_of(case_id)
    if not 200 <= (outcome.exchange.status or 0) < 300:
        expect.changes_nothing("REJECT-MALFORMED-JSON", "the project", outcome)
    expect.rejected(outcome.exchange, "REJECT-MALFORMED-JSON", "a body that is not JSON")


# --- REJECTED-CHANGES-NOTHING --------------------------------------------------------------

@pytest.mark.parametrize("case_id", _params(
    "REJECTED-CHANGES-NOTHING",
    lambda s: s.watched and s.number in WATCHED_OPS and "-not-json-" not in s.id))
def test_rejected_request_changes_nothing(case_id, outcome_of):
    """A request the server refuses leaves the Project as it was, updatedAt too, whatever the
    refusal's status: a 4xx, or a 5xx (policy, section 2: read back after a refusal)."""
    outcome = outcome_of(case_id)
    if 200 <= (outcome.exchange.status or 0) < 300:
        raise NotAssessed(f"REJECTED-CHANGES-NOTHING for this input (operation "
                          f"{SPECS[case_id].number} answered {outcome.exchange.status}: it "
                          f"took the input, so there is no refusal to judge)")
    expect.changes_nothing("REJECTED-CHANGES-NOTHING", "the project", outcome)


# --- ERROR-FORMAT (INFO) -------------------------------------------------------------------

def _shape(exchange: Exchange) -> str:
    kind = exchange.content_type or "no content type"
    try:
        body = exchange.json() if exchange.content else None
    except AssertionError:
        return f"{exchange.status}, {kind}, a body that is not JSON"
    if isinstance(body, dict):
        return f"{exchange.status}, {kind}, a JSON object with keys {sorted(body)}"
    return f"{exchange.status}, {kind}, " + ("no body" if body is None else
                                             f"a JSON {type(body).__name__}")


@pytest.mark.requirement("ERROR-FORMAT", op=16)
def test_error_statuses_and_bodies_are_recorded(request, api, sent, observe):
    """The statuses, content types and bodies the server uses for rejected input are recorded."""
    path = board_path(sent.board(), 16)
    rename = partial(api.call, 16, path_params=path)
    seen = _answers(request, api, {
        "name missing": partial(rename, json={}),
        "name a number": partial(rename, json={"name": 5}),
        f"name of {NAME_MAX + 1}": partial(rename, json={"name": "a" * (NAME_MAX + 1)}),
        "body not JSON": partial(rename, content=b"{", headers=JSON_TYPE),
        "unknown card": partial(api.call, 16, path_params=path | {"cardId": MISSING[1]},
                                json={"name": "x"}),
        "no X-API-Key": partial(rename, json={"name": "x"}, key=None),
    })
    for what, exchange in seen.items():
        observe("ERROR-FORMAT", f"op 16, {what}: {_shape(exchange)}")


def _answers(request: pytest.FixtureRequest, api: Api,
             calls: dict[str, Callable[[], Exchange]]) -> dict[str, Exchange]:
    """Each call's answer: side by side with more than one request in flight, kept when all
    are 4xx; else (and serially) one at a time."""
    lanes = together.lanes(request.config)
    batch = together.between(api.client, lambda: None, list(calls.values()), lanes) \
        if lanes.width > 1 else None
    if batch is not None and batch.as_expected:
        for index in range(len(calls)):
            api.client.adopt(batch.shown(index))
        return {what: done.value for what, done in zip(calls, batch.sent, strict=True)}
    return {what: call() for what, call in calls.items()}
