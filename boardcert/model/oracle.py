"""The oracle: a board model, the observer that reads the server's board, and what the server
has shown so far, compared after every write.

    oracle = Oracle(api)
    ... the model told what was made (oracle.board.create_project(...), ...)
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

from boardcert.errors import NotAssessed
from boardcert.http.api import Api
from boardcert.http.client import Exchange
from boardcert.model.board import Act, Board
from boardcert.model.compare import Vision, differences, failure
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

    def look(self) -> list[Sight]:
        return self.observer.look(self.board)

    def baseline(self) -> None:
        """The board as made: what the server leaves open is learnt (createdAt, the cards'
        order), what each reading shows is noted, and it must read as the model says (a
        difference is charged to the creation that made the item)."""
        sights = self.look()
        self._first_seen(sights)
        self._learn(sights, first=True)
        self.vision.update(self.board, sights)
        made = Act(0, "made the board (ops " + ", ".join(
            sorted({str(a.op) for a in self.board.acts})) + ")")
        for act in self.board.acts:
            made.addressed |= act.addressed
        found = differences(self.board, sights, made, self.vision)
        if found:
            raise failure(self.board, made, found)

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
        sights = self.look()
        if exchange is not None and project_id is not None and exchange.status == 200:
            answer = self.observer.answer(self.board, number or act.op, exchange, project_id,
                                          card_id)
            sights = ([answer] if answer is not None else []) + sights
        self._first_seen(sights, act.allows)
        found = differences(self.board, sights, act, self.vision)
        if found:
            violation = failure(self.board, act, found, exchange)
            violation.last = last
            raise violation
        self.vision.update(self.board, sights)
        self._learn(sights)

    def confirm(self, act: Act) -> None:
        """A write is judged only where some reading has shown what it addresses."""
        kinds = {fact[0] for fact in act.addressed}
        if kinds and not any(self.vision.sees(kind) for kind in kinds):
            requirements = ", ".join(sorted(set(act.addressed.values())))
            raise NotAssessed(f"{requirements} (op {act.op} {act.said}: no reading showed "
                              f"{' or '.join(sorted(kinds))} before it)")

    def _first_seen(self, sights: list[Sight], allows: set[tuple] = frozenset()) -> None:
        """A list read for the first time: what it holds that nobody created is the server's
        own; so is what a write may make along (`allows`: a new row's columns, an alias)."""
        extras: dict[tuple, set[str]] = {}
        for sight in sights:
            for fact, value in sight.seen.items():
                if fact[0].startswith("extra-") and fact[1] in self.board.projects:
                    extras.setdefault(fact, set()).update(value)
        for fact, found in extras.items():
            if fact in allows:
                self.board.projects[fact[1]].foreign |= found
            self.board.first_seen(fact, found)
        for sight in sights:  # what was learnt is no extra any more
            for fact, value in sight.seen.items():
                if fact in extras:
                    sight.seen[fact] = value - self.board.projects[fact[1]].foreign

    def _learn(self, sights: list[Sight], first: bool = False) -> None:
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
                    self.board.learn(fact, value, first)
