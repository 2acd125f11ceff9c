"""suites/test_auth.py side by side. With more than one request in flight
(boardcert.pytest.together) the keyless requests of the tests this process runs together go
side by side between one reading before and one after (`BatchedScene.batch`); anything
unexpected and they are made again one at a time, as serially. The boards that the tests with
the key and the unlisted ones build one after another are built ahead, side by side
(`BatchedScene.spare_boards`)."""

from __future__ import annotations

from contextlib import suppress
from functools import partial
from typing import Any

import pytest
from auth_scene import KEEP_BOARD, KEYS, READS, Call, Read, Scene, listed

from boardcert.conformance import Exchange, expect, together

# The tests of suites/test_auth.py whose needs a batch counts ahead (tests/speed/test_auth_batch.py
# checks they are there).
UNLISTED_TEST = "test_unlisted_operation_without_key_is_recorded"
WITH_KEY_TEST = "test_listed_operation_accepts_the_key"
STATUS_TEST = "test_key_rejection_status_is_recorded"


class BatchedScene(Scene):
    """A `Scene` whose keyless requests and boards are made ahead, side by side, with more than
    one request in flight."""

    def batch(self, api_key: str) -> None:
        """The outcomes this process's tests still need (the companions from this test on),
        side by side: one reading before, the keyless requests, one reading after. Kept when
        every request got a 4xx and nothing changed; else thrown away (what op 2 created is in
        the ledger; the board is built again) and made one at a time, as serially. Tried once
        for each outcome."""
        pairs = [pair for pair in _pending(self.request)
                 if pair not in self.boards.tried and pair not in self.boards.outcomes]
        self.boards.tried.update(pairs)
        self.spare_boards()  # the board of the batch too
        with self.api.client.aside() as set_up:
            calls = {pair: call for pair, call in self.calls(pairs).items()
                     if call.created_name is None}  # op 2's: one at a time (Scene.quiet)
        self.api.client.adopt(set_up)  # boards built for the calls: set-up of this test
        if len(calls) < 2:
            return
        lanes = together.lanes(self.request.config)
        reads: list[Read] = sorted({("project", c.project_id) for c in calls.values()
                                    if c.project_id is not None})
        before = self.readings(reads, lanes)
        if not all(map(_answered, before.values())):
            return  # nothing sent yet: one at a time, as serially
        sent = together.gather(self.api.client, [
            partial(self.send, call, KEYS[variant](api_key))
            for (_, variant), call in calls.items()], lanes)
        after = self.readings(reads, lanes)
        judged = [self.judge(call, done, before, after)  # each: op 2's project into the ledger
                  for call, done in zip(calls.values(), sent, strict=True)]
        if not all(judged) or not all(map(_answered, after.values())):
            self.boards.spoil()  # a request may have changed the board: serially, a new one
            return
        for pair, (outcome, exchanges) in zip(calls, judged, strict=True):
            self.boards.outcomes[pair], self.boards.unadopted[pair] = outcome, exchanges

    def calls(self, pairs: list[tuple[int, str]]) -> dict[tuple[int, str], Call]:
        """The batch's calls; a pair whose call cannot be made is left to its test (which
        finds out why, serially)."""
        calls: dict[tuple[int, str], Call] = {}
        scenes = {self.read_only: self}
        for number, variant in pairs:
            read_only = number in READS
            if read_only not in scenes:
                scenes[read_only] = type(self)(self.request, self.boards, read_only)
            scene = scenes[read_only]
            try:
                calls[(number, variant)] = listed(scene, number)
            except (Exception, pytest.skip.Exception, pytest.fail.Exception):
                if number > 2 and not read_only and not self.boards.built:
                    break  # no board: the tests that need it build it again, one at a time
        return calls

    def readings(self, reads: list[Read], lanes: together.Lanes) -> dict[Read, together.Done[Any]]:
        """Fresh readings, side by side, kept aside for the tests that rest on them."""
        jobs = [partial(self.fresh_state, what[1]) if what[0] == "project" else
                partial(self.api.call, 1) for what in reads]
        return dict(zip(reads, together.gather(self.api.client, jobs, lanes), strict=True))

    def judge(self, call: Call, done: together.Done[Exchange],
              before: dict[Read, together.Done[Any]],
              after: dict[Read, together.Done[Any]]
              ) -> tuple[expect.Outcome, list[Exchange]] | None:
        """The outcome of a request of a batch and what the test that judges it adopts (the
        readings it rests on and the request), or None if anything was unexpected."""
        exchange = done.value
        if exchange is None:  # no usable answer
            return None
        try:
            states = [self.state(call, answer, lambda what, r=readings: r[what].result())
                      for answer, readings in ((None, before), (exchange, after))]
        except AssertionError:  # a reading with no usable answer (before op 2's adoption)
            with suppress(AssertionError):
                self.adopt(call, exchange)
            return None
        if not 400 <= (exchange.status or 0) < 500 or states[0] != states[1]:
            return None
        rests_on = [("project", call.project_id)]
        return expect.Outcome(exchange, *states), [
            *(x for what in before if what in rests_on for x in before[what].exchanges),
            *done.exchanges,
            *(x for what in after if what in rests_on for x in after[what].exchanges)]

    def spare_boards(self) -> None:
        """With requests in flight: the boards that the tests from this one on build one
        after another, built ahead side by side (at the first keyless batch or test with the
        key or of an unlisted operation, and again when they run out); the test that takes
        one adopts its exchanges. One that fails is dropped (built when needed), and no more
        are built."""
        b = self.boards
        if b.spares or b.spares_failed or b.spare_rounds and b.built \
                or together.in_flight(self.request.config) <= 1:
            return
        needed = _boards_needed(self.request, b.built, b.unlisted_spoil)
        if needed < 2:
            return
        b.spare_rounds += 1
        try:
            make = self.boards.maker()
        except (Exception, pytest.skip.Exception, pytest.fail.Exception):
            b.spares_failed = True  # the test that needs a board finds out why
            return
        built = together.gather(self.api.client, [make] * needed,
                                together.lanes(self.request.config))
        b.spares = [(done.value, done.exchanges) for done in built if done.error is None]
        b.spares_failed = len(b.spares) < needed


def _answered(reading: together.Done[Any]) -> bool:
    """A reading of a batch that answered 200 (a project's state, or op 1's exchange)."""
    value = reading.value
    status = value.get("status") if isinstance(value, dict) else getattr(value, "status", None)
    return reading.error is None and status == 200


def _boards_needed(request: pytest.FixtureRequest, built: bool, unlisted_spoil: bool) -> int:
    """How many boards the tests from this one on build, one after another, against a server
    that accepts the key and refuses requests without it (the unlisted operations too, unless
    `unlisted_spoil`)."""
    needed, twinned = 0, set()
    for item, params in together.upcoming(request):
        name, number = getattr(item, "originalname", ""), params.get("number")
        if name == UNLISTED_TEST:
            uses, keeps = True, not unlisted_spoil
        elif name == WITH_KEY_TEST:
            uses, keeps = False, True  # it shows the twin its keyless tests sent
        else:  # a keyless one: the first of an operation sends them all, then their twin
            uses = "variant" in params and number not in READS and number != 2 \
                and number not in twinned
            keeps = number in KEEP_BOARD
            twinned.add(number)
        if uses:
            needed += not built
            built = keeps
    return needed


def _pending(request: pytest.FixtureRequest) -> list[tuple[int, str]]:
    """The (operation, variant) pairs whose outcome this test and the companions that run
    after it in this process need (together.pending), in order, once each."""
    pairs: dict[tuple[int, str], None] = {}
    for item, params in together.upcoming(request):
        if "variant" in params:
            pairs[(params["number"], params["variant"])] = None
        elif getattr(item, "originalname", "") == STATUS_TEST:
            pairs |= dict.fromkeys((params["number"], variant) for variant in KEYS)
    return list(pairs)
