"""Section 8 and rule 1 of section 4: operation 16's name is required, a string, at most 25000.

Length counts code points (docs/policy.md, section 3). Each boundary is probed from both
sides, in one-byte, two-byte and astral characters, so a limit off by one either way, a limit
counted in bytes or in UTF-16 units, and a store that truncates are all told apart. "Unchanged"
is read back through a fresh operation 3, after checking that operation 3 shows a rename at all.

With more than one request in flight (boardcert.pytest.together) the cases the tests this process
runs together need go side by side (`Renames.outcome`): the names at the limit each on a project
of its own, the rejected ones on cards of their own between one reading of their project before
and one after. Anything unexpected and they are made again one at a time, as serially.

A name within the limit is stored as sent: surrounding and inner whitespace, tabs, line breaks
and decomposed characters read back unchanged (CARD-NAME-AS-SENT).
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pytest

from boardcert.conformance import (
    Api,
    Exchange,
    Made,
    NotAssessed,
    Outcome,
    card_names,
    expect,
    spec,
    together,
    unique,
)

LIMIT = spec.name_limit()[1]  # the maxLength of spec/openapi.yaml (25000)
ASCII, E_ACUTE, EMOJI = "a", "\u00e9", "\U0001f600"  # 1, 2 and 4 bytes in UTF-8

# Names of exactly LIMIT characters: accepted, answered whole and read back whole.
ACCEPTED = {f"{LIMIT}-ascii": (ASCII * LIMIT, "CARD-NAME-MAX-ACCEPTED"),
            f"{LIMIT}-e-acute": (E_ACUTE * LIMIT, "CARD-NAME-MAX-MULTIBYTE"),
            f"{LIMIT}-emoji": (EMOJI * LIMIT, "CARD-NAME-MAX-ASTRAL")}

# Bodies operation 16 must reject with a 4xx, leaving the stored name as it was.
REJECTED = {
    f"{LIMIT + 1}-ascii": ({"name": ASCII * (LIMIT + 1)}, "CARD-NAME-MAX-REJECTED"),
    f"{LIMIT + 1}-e-acute": ({"name": E_ACUTE * (LIMIT + 1)}, "CARD-NAME-MAX-REJECTED"),
    "empty-object": ({}, "CARD-NAME-REQUIRED"),
    "other-property-only": ({"other": "x"}, "CARD-NAME-REQUIRED"),
    "null": ({"name": None}, "CARD-NAME-STRING"),
    "integer": ({"name": 5}, "CARD-NAME-STRING"),
    "float": ({"name": 1.5}, "CARD-NAME-STRING"),
    "boolean": ({"name": True}, "CARD-NAME-STRING"),
    "empty-array": ({"name": []}, "CARD-NAME-STRING"),
    "array-of-string": ({"name": ["a"]}, "CARD-NAME-STRING"),
    "empty-object-value": ({"name": {}}, "CARD-NAME-STRING"),
    "object-value": ({"name": {"a": "b"}}, "CARD-NAME-STRING"),
}


def _params(cases: dict[str, tuple[Any, str]], requirement: str | None = None,
             also: tuple[int, ...] = ()) -> list[Any]:
    return [pytest.param(case_id, marks=pytest.mark.requirement(requirement or req,
                                                                 op=[16, *also]), id=case_id)
            for case_id, (_, req) in cases.items()]


def _describe(name: Any) -> str:
    if not isinstance(name, str):
        return f"the JSON value {json.dumps(name)[:80]}"
    kinds = "".join(sorted(set(name)))
    if len(name) <= 60:
        return repr(name)
    if len(kinds) == 1:
        return f"{len(name)} × {kinds!r}"
    return f"a string of {len(name)} characters beginning {name[:40]!r}"


def _describe_body(body: Any) -> str:
    if isinstance(body, dict) and set(body) == {"name"}:
        return f"name {_describe(body['name'])}"
    return f"the body {json.dumps(body)[:80]}"


def same_name(requirement: str, what: str, expected: str, actual: Any,
              exchange: Exchange) -> None:
    """`actual` is exactly `expected`; a failure says how long it was and where it differs."""
    if actual == expected:
        return
    got = _describe(actual)
    if isinstance(actual, str):
        at = next((i for i, (a, b) in enumerate(zip(expected, actual, strict=False)) if a != b),
                  min(len(expected), len(actual)))
        got += f" (first difference at character {at})"
    expect.fail(requirement, f"{what} to be {_describe(expected)}", exchange, got=got,
                conditions=expect.located(exchange, expected, actual))


def rename(api: Api, card: Made, body: Any) -> Exchange:
    return api.call(16, projectId=card.entry.params["projectId"], cardId=card.id, json=body)


def stored_name(api: Api, card: Made) -> tuple[Any, Exchange]:
    """The card's name as a fresh operation 3 lists it (NotAssessed if it is not listed)."""
    exchange = api.call(3, projectId=card.entry.params["projectId"])
    names = card_names(expect.success(exchange, 3))
    if card.id in names:
        return names[card.id], exchange
    raise NotAssessed("the stored card name (the Project's cards do not list the card with "
                      "its name, so it cannot be read back)")


def stored_names(api: Api, project_id: str, cards: list[Made]) -> dict[str, Any]:
    """The cards' names as one fresh operation 3 lists them (None: not listed)."""
    names = card_names(expect.success(api.call(3, projectId=project_id), 3))
    return {card.id: names.get(card.id) for card in cards}


def known_name(api: Api, card: Made) -> str:
    """Give the card a fresh name through operation 16 and check operation 3 shows it."""
    name = unique("known")
    exchange = rename(api, card, {"name": name})
    if exchange.status != 200:
        raise NotAssessed(f"the stored card name (a plain rename by operation 16 answered "
                          f"{exchange.status})")
    if stored_name(api, card)[0] != name:
        raise NotAssessed("the stored card name (operation 3 does not show a rename by "
                          "operation 16, so it cannot tell whether a rejection changed it)")
    return name


class Renames:
    """Each case's rename, made once for the tests that judge it, on a card of its own."""

    def __init__(self, api: Api, make_card: Any, column: tuple[Made, Made],
                 lone_card: Any) -> None:
        self.api, self.make_card, self.column, self.lone_card = api, make_card, column, lone_card
        self.done: together.Outcomes[str, Outcome] = together.Outcomes(api.client)

    def outcome(self, case_id: str, request: pytest.FixtureRequest) -> Outcome:
        """The case's outcome; with more than one request in flight, first those of the tests
        this process runs together, of the same kind, side by side."""
        kind, one = (ACCEPTED, self.accepted) if case_id in ACCEPTED else \
            (REJECTED, self.rejected)
        return self.done.get(request, case_id, partial(one, case_id),
                             partial(self.batch, kind, request))

    def batch(self, kind: dict[str, Any], request: pytest.FixtureRequest) -> None:
        """The pending cases of `kind` neither made nor tried, side by side if more than one."""
        ids = self.done.fresh(i for i in together.pending_values(request, "case_id")
                              if i in kind)
        if len(ids) > 1:
            (self.batch_accepted if kind is ACCEPTED else self.batch_rejected)(
                ids, together.lanes(request.config))

    def accepted(self, case_id: str) -> Outcome:
        """A name at the limit on a card in a project of its own (long names swell reads)."""
        card = self.lone_card()
        outcome = Outcome(rename(self.api, card, {"name": ACCEPTED[case_id][0]}))
        self._read_after(outcome, card)
        return outcome

    def rejected(self, case_id: str) -> Outcome:
        """A bad body sent after giving the card a known name that operation 3 shows."""
        card = self.make_card(*self.column)
        try:
            before = known_name(self.api, card)
        except NotAssessed as exc:
            return Outcome(rename(self.api, card, REJECTED[case_id][0]), unreadable=exc)
        outcome = Outcome(rename(self.api, card, REJECTED[case_id][0]), before)
        self._read_after(outcome, card)
        return outcome

    def batch_accepted(self, ids: list[str], lanes: together.Lanes) -> None:
        """Each case as `accepted` makes it (its own project), side by side; kept when every
        name was answered 200 and read back whole."""
        done = together.gather(self.api.client, [partial(self.accepted, i) for i in ids], lanes)
        if all(d.error is None and d.value.exchange.status == 200
               and d.value.unreadable is None and d.value.after == ACCEPTED[i][0]
               for i, d in zip(ids, done, strict=True)):
            for case_id, d in zip(ids, done, strict=True):
                self.done.keep(case_id, d.value, d.exchanges)

    def batch_rejected(self, ids: list[str], lanes: together.Lanes) -> None:
        """A card each and a known name each (side by side), then the bad renames side by side
        between one reading of the project before (showing every known name) and one after.
        Kept when every known name was answered 200 and shown, every bad rename got a 4xx and
        the names read back the same."""
        client = self.api.client
        made = together.gather(client, [partial(self.make_card, *self.column)] * len(ids), lanes)
        if any(d.error is not None for d in made):
            return
        cards, known = [d.value for d in made], [unique("known") for _ in ids]
        named = together.gather(client, [partial(rename, self.api, card, {"name": name})
                                         for card, name in zip(cards, known, strict=True)],
                                lanes)
        if not all(d.error is None and d.value.status == 200 for d in named):
            return
        shown = dict(zip((card.id for card in cards), known, strict=True))
        batch = together.between(
            client, partial(stored_names, self.api, self.column[0].id, cards),
            [partial(rename, self.api, card, REJECTED[i][0])
             for card, i in zip(cards, ids, strict=True)],
            lanes, lambda names: names == shown)
        self.done.keep_between(  # if not as expected: one at a time, on cards of their own
            ids, batch, lambda i: Outcome(batch.sent[i].value, known[i],
                                          batch.after.value[cards[i].id]),
            lambda i: [*made[i].exchanges, *named[i].exchanges, *batch.shown(i)])

    def _read_after(self, outcome: Outcome, card: Made) -> None:
        try:
            outcome.after, outcome.reading = stored_name(self.api, card)
        except NotAssessed as exc:
            outcome.unreadable = exc


@pytest.fixture(scope="module")
def renames(api, make_project, make_row, make_column, make_card) -> Renames:
    project = make_project()
    column = (project, make_column(project, make_row(project)))

    def lone_card() -> Made:
        own = make_project()
        return make_card(own, make_column(own, make_row(own)))
    return Renames(api, make_card, column, lone_card)


# --- accepted at the limit -----------------------------------------------------------------

@pytest.mark.parametrize("case_id", _params(ACCEPTED))
def test_name_at_the_limit_is_answered_whole(case_id, renames, request):
    """Operation 16 accepts a name of 25000 characters and answers it whole."""
    name, requirement = ACCEPTED[case_id]
    exchange = renames.outcome(case_id, request).exchange
    card = expect.success(exchange, 16, requirement)
    same_name(requirement, "the answered name", name,
              card.get("name") if isinstance(card, dict) else card, exchange)


@pytest.mark.parametrize("case_id", _params(ACCEPTED, also=(3,)))
def test_name_at_the_limit_is_read_back_whole(case_id, renames, request):
    """A name of 25000 characters accepted by operation 16 is read back whole."""
    name, requirement = ACCEPTED[case_id]
    outcome = renames.outcome(case_id, request)
    expect.success(outcome.exchange, 16, requirement)
    if outcome.unreadable:
        raise outcome.unreadable
    same_name(requirement, "the stored name (fresh operation 3)", name, outcome.after,
              outcome.exchange)


# --- stored as sent --------------------------------------------------------------------------

# Names as people type or paste them; each is stored and answered exactly as sent (policy 3),
# so a server that trims, collapses spaces or normalizes Unicode is told apart ({} is unique).
AS_SENT = {"surrounding-spaces": "  {}  ", "tabs-and-line-breaks": "\t{}\n",
           "inner-runs-of-spaces": "{}   three  spaces", "decomposed": "{} cafe\u0301 cre\u0300me"}


@pytest.mark.parametrize("form", [pytest.param(form, id=form) for form in AS_SENT])
@pytest.mark.requirement("CARD-NAME-AS-SENT", op=[16, 3])
def test_renamed_card_reads_back_as_sent(api, renames, form):
    """A name with surrounding whitespace, tabs and line breaks, runs of inner spaces or
    decomposed characters is answered by operation 16 and read back by a fresh operation 3
    exactly as sent (a server may refuse such a name with a 4xx; it may not alter it)."""
    card = renames.make_card(*renames.column)
    name = AS_SENT[form].format(unique("card"))
    exchange = rename(api, card, {"name": name})
    if 400 <= (exchange.status or 0) < 500:  # refused, not altered: which strings a server
        # takes beyond their type and length is not shown
        raise NotAssessed(f"a name {form.replace('-', ' ')} stored as sent (op 16 refused "
                          f"it with {exchange.status})")
    body = expect.success(exchange, 16, "CARD-NAME-AS-SENT")
    same_name("CARD-NAME-AS-SENT", "the name operation 16 answers", name,
              body.get("name") if isinstance(body, dict) else body, exchange)
    stored, reading = stored_name(api, card)
    same_name("CARD-NAME-AS-SENT", "the stored name (fresh operation 3)", name, stored,
              reading)


# --- rejected: too long, missing, not a string ---------------------------------------------

ABSENT = object()  # the name a body without one sends


def reads_back_as(sent: Any, stored: Any) -> bool:
    """Whether the name read back is the forbidden input `sent` as a server would store it: the
    same JSON value, a non-string saved as its text ("5" for 5), or, for a body without a name,
    a name that is null or empty."""
    if sent is ABSENT:
        return stored is None or stored == ""
    if stored == sent and type(stored) is type(sent):
        return True
    return isinstance(stored, str) and not isinstance(sent, str) and \
        stored in (str(sent), json.dumps(sent))


@pytest.mark.parametrize("case_id", _params(REJECTED, also=(3,)))
def test_bad_name_is_rejected(case_id, renames, request):
    """Operation 16 rejects a name over 25000 characters, a missing name and a non-string with
    a 4xx. A 5xx has not served the input unless the card then reads back with it: then it was
    accepted, and the MUST fails as for a 2xx (policy, section 2: whatever the status, read back
    after a refusal); the 5xx itself fails NO-SERVER-ERROR in
    test_name_never_causes_a_server_error."""
    body, requirement = REJECTED[case_id]
    outcome = renames.outcome(case_id, request)
    if (outcome.exchange.status or 0) < 500:
        expect.rejected(outcome.exchange, requirement, _describe_body(body))
        return
    if outcome.unreadable:
        raise outcome.unreadable
    if reads_back_as(body.get("name", ABSENT), outcome.after):
        expect.stored_after_all(requirement, _describe_body(body), outcome,
                                f"a fresh operation 3 reads the card's name back as "
                                f"{_describe(outcome.after)}")


@pytest.mark.parametrize("case_id", _params(REJECTED, "REJECTED-CHANGES-NOTHING", also=(3,)))
def test_bad_name_leaves_the_stored_name(case_id, renames, request):
    """After operation 16 refuses a name, the stored name is unchanged (a SHOULD, as for any
    rejected input: docs/policy.md, "Card name limit (op 16)"), whatever the refusal's
    status, a 5xx included (section 2)."""
    outcome = renames.outcome(case_id, request)
    if 200 <= (outcome.exchange.status or 0) < 300:
        raise NotAssessed(f"the stored name after a rejection (op 16 answered "
                          f"{outcome.exchange.status}: it took the name, which the MUST judges)")
    if outcome.unreadable:
        raise outcome.unreadable
    same_name("REJECTED-CHANGES-NOTHING", "the stored name after the rejected rename",
              outcome.before, outcome.after, outcome.exchange)


# --- the empty name (INFO) and no server errors --------------------------------------------

@pytest.mark.requirement("CARD-NAME-EMPTY")
def test_empty_name_is_recorded(api, renames, observe):
    """Whether operation 16 accepts an empty name is recorded."""
    exchange = rename(api, renames.make_card(*renames.column), {"name": ""})
    answered = ""
    if exchange.status == 200 and exchange.content:
        body = exchange.json()
        answered = f", answering name {body.get('name')!r}" if isinstance(body, dict) else ""
    verdict = "accepted" if exchange.status == 200 else "rejected"
    observe("CARD-NAME-EMPTY", f"op 16 with name '' answered {exchange.status} ({verdict}"
            f"{answered})")


@pytest.mark.parametrize("case_id", [*_params(ACCEPTED, "NO-SERVER-ERROR"),
                                     *_params(REJECTED, "NO-SERVER-ERROR")])
def test_name_never_causes_a_server_error(case_id, renames, request):
    """Operation 16 answers any name, good or bad, without a 5xx."""
    outcome = renames.outcome(case_id, request)
    if (outcome.exchange.status or 0) >= 500:
        expect.fail("NO-SERVER-ERROR", "no 5xx for a rename by operation 16", outcome.exchange)
