"""The oracle: a board model, the observer that reads the server's board, and what the server
has shown so far, compared after every write.

    oracle = Oracle(api)
    ... the model told what was made, write by write, each judged on the reading that came
    with it: oracle.made(oracle.board.create_row(...), its exchange, project id)
    oracle.baseline()                      # the board as made reads back as the model says
    exchange = api.call(10, ...)           # a write
    oracle.check(oracle.board.rename_row(project, row, name), exchange)

`check` reads the whole observable board (op 3 and op 6 of every project of the model, op 27
for every datum the run stored) and the write's own answer, and fails with every difference,
each naming the requirement it breaks: the write's own (ROW-RENAME) where it is about what the
write addressed, WRITE-ONLY-ADDRESSED anywhere else. A write whose addressed facts no reading
could show before it is not assessed: a pass must be able to fail.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from boardcert.errors import NotAssessed, Violation
from boardcert.http.api import Api
from boardcert.http.client import Exchange
from boardcert.model.board import OTHERS, Act, Board, Fact
from boardcert.model.compare import Difference, Vision, differences, failure, said
from boardcert.model.observe import Observer, Sight

__all__ = ["Oracle"]

LEARNT = ("project-created", "rows", "columns", "cards-order", "plugin")


class Oracle:
    """A board model and its observer, for one test or one state machine run."""

    def __init__(self, api: Api) -> None:
        self.board = Board()
        self.observer = Observer(api)
        self.vision = Vision()
        self.orders = api.profile.data.get("card_order") == "project.cards"
        self.confirmed: set[Fact] = set()  # facts a reading has shown as the model says

    def look(self, answer: Sight | None = None,
             judge: Callable[[Board, Vision, list[Sight]], list[Any]] | None = None
             ) -> list[Sight]:
        """The whole board read (after a write's `answer`, if given). A look whose readings
        went side by side is kept only where `judge` (on a copy of the model) finds nothing
        to fault; else the board is read again one request at a time and that is what is
        judged: a server that answers readings at once otherwise than one by one gets the
        verdict and evidence of one by one."""
        first = [answer] if answer is not None else []
        look = self.observer.look(self.board)
        if look.aside is not None:
            trial = [replace(sight, seen=dict(sight.seen)) for sight in [*first, *look.sights]]
            if judge is None or judge(copy.deepcopy(self.board), copy.deepcopy(self.vision),
                                      trial):
                look = self.observer.look(self.board, side_by_side=False)
            else:
                self.observer.api.client.adopt(look.aside)
        return [*first, *look.sights]

    def made(self, act: Act, exchange: Exchange | None, project_id: str,
             card_id: str | None = None, number: int | None = None) -> None:
        """A write that made the board (before `baseline`), judged on the one reading that
        came with it: its answer (a Project, a Card), or op 3 read right after it (`number`
        3). What a reading shows as the model says is confirmed: a later difference there is
        a later write's (WRITE-ONLY-ADDRESSED), not the creation's."""
        sight = None
        if exchange is not None and exchange.status == 200:
            sight = self.observer.reading(self.board, number or act.op, exchange, project_id,
                                          card_id)
        sights = [sight] if sight is not None else []
        act = self._unconfirmed(act)
        found = self._judged(act, self.board, self.vision, sights)
        if found:
            raise failure(self.board, act, found, exchange)
        self.confirmed |= self.vision.update(self.board, sights)
        self._learn(self.board, sights)

    def _unconfirmed(self, act: Act) -> Act:
        """`act` charged too with what the writes before it made and no reading has shown
        yet (a difference there may be their creation's own)."""
        charged = replace(act, addressed={})
        for earlier in self.board.acts:
            charged.addressed |= {f: r for f, r in earlier.addressed.items()
                                  if f not in self.confirmed}
        charged.addressed |= act.addressed
        return charged

    def baseline(self) -> None:
        """The board as made: what the server leaves open is learnt (createdAt, the cards'
        order), what each reading shows is noted, and it must read as the model says (a
        difference is charged to the creation that made the item, but where a reading
        confirmed it after its creation: `made`)."""
        sights = self.look(judge=lambda board, vision, seen: self._as_made(board, vision,
                                                                         seen)[1])
        made, found = self._as_made(self.board, self.vision, sights)
        if found:
            raise failure(self.board, made, found)

    def _as_made(self, board: Board, vision: Vision, sights: list[Sight]
                 ) -> tuple[Act, list[Difference]]:
        """The first reading of a board as made, learnt into `board` and `vision`, and how it
        differs from the model."""
        _first_seen(board, sights)
        self._learn(board, sights, first=True)
        vision.update(board, sights)
        made = self._unconfirmed(Act(0, "made the board (ops " + ", ".join(
            sorted({str(a.op) for a in board.acts})) + ")"))
        return made, differences(board, sights, made, vision)

    def check(self, act: Act, exchange: Exchange | None = None, project_id: str | None = None,
              card_id: str | None = None, number: int | None = None, last: bool = True,
              confirm: bool = True) -> None:
        """After a write the model has applied (`act`): its answer (`exchange`, of operation
        `number`, by default the act's) and the whole board read as the model says.
        `project_id`/`card_id`: the Project or Card the answer shows. `last`: the test's last
        check (the requirements it checked before held, if this one fails). `confirm`: not
        assessed when no reading showed what the write addresses before (a state machine
        checks on: what no reading showed yet is simply not held against it)."""
        if confirm:
            self.confirm(act)
        answer = None
        if exchange is not None and project_id is not None and exchange.status == 200:
            answer = self.observer.answer(self.board, number or act.op, exchange, project_id,
                                          card_id)

        sights = self.look(answer, lambda board, vision, seen: self._judged(act, board, vision,
                                                                            seen))
        found = self._judged(act, self.board, self.vision, sights)
        if found:
            violation = failure(self.board, act, found, exchange)
            violation.last = last
            raise violation
        self.confirmed |= self.vision.update(self.board, sights)
        self._learn(self.board, sights)

    def besides(self, refused: Violation | NotAssessed, write: Callable[[Board], Act]
                ) -> Violation | NotAssessed:
        """A write the server failed at (`refused`: its status or answer failed the write's
        own requirement, or left it not assessed; `write` applies the write to a board): the
        whole board is read, and what the write does not address must read as it was
        before, or as the write would have left it. A difference there joins the failure
        (WRITE-ONLY-ADDRESSED): a server that answers an error may still have written on
        other items. Nothing else differs: `refused` as it was."""
        sights = self.look(judge=lambda board, vision, seen: self._beside(
            write, board, vision, seen)[2])
        board, act, found = self._beside(write, self.board, self.vision, sights)
        if not found:
            return refused
        also = failure(board, act, found)
        own = refused if isinstance(refused, Violation) else Violation(f"[{OTHERS}] {refused}")
        return Violation(f"{own}; and, whether op {act.op} {act.said} or not, "
                         f"{said(board, found)}", [*own.requirements, *also.requirements],
                         [*own.sent, *also.sent], [*own.conditions, *also.conditions])

    def _beside(self, write: Callable[[Board], Act], board: Board, vision: Vision,
                sights: list[Sight]) -> tuple[Board, Act, list[Difference]]:
        """How the readings differ from the model outside what `write` addresses, both with
        the write undone and with it done; the smaller set, or none if either has none."""
        before, after = copy.deepcopy(board), copy.deepcopy(board)
        act = write(after)
        undone = [d for d in self._judged(before.refused(act.op, 0), before, vision,
                                          _copied(sights)) if d.fact not in act.addressed]
        done = [d for d in self._judged(act, after, vision, _copied(sights))
                if d.requirement == OTHERS]
        if not undone or not done:
            return after, act, []
        return (after, act, done) if len(done) <= len(undone) else (before, act, undone)

    @staticmethod
    def _judged(act: Act, board: Board, vision: Vision, sights: list[Sight]
                ) -> list[Difference]:
        _first_seen(board, sights, act.allows)
        return differences(board, sights, act, vision)

    def confirm(self, act: Act) -> None:
        """A write is judged only where some reading has shown what it addresses."""
        kinds = {fact[0] for fact in act.addressed}
        if kinds and not any(self.vision.sees(kind) for kind in kinds):
            requirements = ", ".join(sorted(set(act.addressed.values())))
            raise NotAssessed(f"{requirements} (op {act.op} {act.said}: no reading showed "
                              f"{' or '.join(sorted(kinds))} before it)")

    def _learn(self, board: Board, sights: list[Sight], first: bool = False) -> None:
        """Orders and createdAt from the first reading that shows them (op 3 before op 6)."""
        learnt: set[tuple] = set()
        for sight in sights:
            if sight.label not in ("op 3", "op 6"):
                continue
            for fact, value in sight.seen.items():
                if fact in learnt or fact[0] == "cards-order" and not self.orders:
                    continue
                if fact[0] in LEARNT:
                    learnt.add(fact)
                    board.learn(fact, value, first)


def _first_seen(board: Board, sights: list[Sight], allows: set[tuple] = frozenset()) -> None:
    """A list read for the first time: what it holds that nobody created is the server's
    own, but for copies of the run's items (named as one of them: some write made those);
    so is what a write may make along (`allows`: a new row's columns, an alias)."""
    extras: dict[tuple, set[str]] = {}
    copies: dict[tuple, set[str]] = {}
    for sight in sights:
        for fact, value in sight.seen.items():
            if fact[0].startswith("extra-") and fact[1] in board.projects:
                extras.setdefault(fact, set()).update(value)
                copies.setdefault(fact, set()).update(sight.copies.get(fact, set()))
    for fact, found in extras.items():
        if fact in allows:
            board.projects[fact[1]].foreign |= found
        board.first_seen(fact, found - copies[fact])
    for sight in sights:  # what was learnt is no extra any more
        for fact, value in sight.seen.items():
            if fact in extras:
                sight.seen[fact] = value - board.projects[fact[1]].foreign


def _copied(sights: list[Sight]) -> list[Sight]:
    return [replace(sight, seen=dict(sight.seen)) for sight in sights]
