"""The model against what the server shows: the differences, in words, with the requirement
each breaks and the condition that makes it (for the failure's reproduction).

Only what a reading has shown before is held against it (`Vision`): row and column records,
the Project's `cards` and `plugins` and op 27's answers are not shown by the interface, so a
kind of fact counts in a kind of reading once that reading has shown one such fact as the
model says (three rows by their names, say). A Card's stated fields and a Project's name and
createdAt count from the start.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from boardcert.errors import Violation
from boardcert.interface import conditions as when
from boardcert.model.board import ABSENT, OTHERS, Act, Board, Fact
from boardcert.model.observe import Sight
from boardcert.model.records import AtLeast

__all__ = ["Difference", "Vision", "differences", "failure"]

# Facts a reading shows by the interface's own words: held from the first reading on.
STATED = {("project", "project"), ("project", "project-name"), ("project", "project-created"),
          ("card", "card-name"), ("card", "card-columns"), ("card", "metadata")}
PRESENCE = {"project", "row", "column", "card", "plugin"}
ORDERS = {"rows", "columns", "cards-order"}


# The readings that show a Project: op 3's, and the answers of the operations that answer one.
PROJECT_READINGS = frozenset({"op 3", *(f"op {n}'s answer"
                                        for n in (2, 5, 7, 8, 9, 10, 11, 12, 13, 14))})


def reading_of(sight: Sight) -> str:
    """The kind of reading: a Project (op 3, a Project answer), op 6's rows, a Card answer,
    op 23's and 24's plugins, op 27's datum."""
    label = sight.label
    if label.startswith("op 27"):
        return "data"
    if label == "op 6":
        return "rows"
    if label in PROJECT_READINGS:
        return "project"
    if label in ("op 23's answer", "op 24's answer"):
        return "plugins"
    return "card"


@dataclass
class Vision:
    """The kinds of fact each kind of reading has shown as the model says."""

    shown: set[tuple[str, str]] = field(default_factory=set)

    def holds(self, sight: Sight, kind: str) -> bool:
        key = (reading_of(sight), kind)
        return key in STATED or key in self.shown

    def update(self, board: Board, sights: list[Sight]) -> set[Fact]:
        """Learns what the readings showed as the model says; returns those facts."""
        expected, agreed = board.facts(), set()
        for sight in sights:
            for fact, seen in sight.seen.items():
                if fact in expected and agrees(expected[fact], seen):
                    self.shown.add((reading_of(sight), fact[0]))
                    agreed.add(fact)
        return agreed

    def sees(self, kind: str) -> bool:
        """Whether any reading has shown a fact of this kind (or states it)."""
        return any(k == kind for _, k in self.shown | STATED)


def agrees(expected: Any, seen: Any) -> bool:
    if isinstance(expected, AtLeast):
        return isinstance(seen, dict) and all(seen.get(k) == v for k, v in expected.items())
    if isinstance(expected, list) and isinstance(seen, list):  # an order: of what both show
        both = set(expected) & set(seen)
        return [i for i in expected if i in both] == [i for i in seen if i in both]
    return expected == seen if expected is not ABSENT else seen is ABSENT


@dataclass
class Difference:
    fact: Fact
    expected: Any
    seen: Any
    sight: Sight
    requirement: str


def differences(board: Board, sights: list[Sight], act: Act, vision: Vision
                ) -> list[Difference]:
    """Where the readings disagree with the model, on what they have shown before."""
    expected = board.facts()
    found = []
    for sight in sights:
        for fact, seen in sight.seen.items():
            if fact not in expected or not vision.holds(sight, fact[0]):
                continue
            if not agrees(expected[fact], seen):
                found += [Difference(fact, expected[fact], seen, sight, requirement)
                          for requirement in _blamed(act, fact, seen, expected)]
    return found


def _neighbours(order: list[str], card: str) -> tuple[str | None, str | None]:
    at = order.index(card)
    return (order[at - 1] if at else None, order[at + 1] if at + 1 < len(order) else None)


VALUES = {"project-name", "row-name", "column-name", "card-name", "metadata", "data"}


def _blamed(act: Act, fact: Fact, seen: Any, expected: dict[Fact, Any]) -> list[str]:
    """The requirements a difference breaks: the write's own where it is about what the write
    addressed. On a board as made (many creations, act 0), an item that reads another's name
    or value was written over by a later write: WRITE-ONLY-ADDRESSED. After a move, the other
    cards out of their order is WRITE-ONLY-ADDRESSED; the moved card out of its place, the
    move's own."""
    if act.op == 0 and fact[0] in VALUES and seen is not ABSENT and seen is not None and any(
            other[0] == fact[0] and other != fact and value == seen
            for other, value in expected.items()):
        return [OTHERS]
    if fact[0] == "cards-order" and act.moved:
        want = expected[fact]
        shown = [i for i in seen if i in want]
        placed = all(_neighbours(want, card) == _neighbours(shown, card)
                     for card in act.moved if card in want and card in shown)
        kept = agrees([i for i in want if i not in act.moved], seen)
        return [r for r, broken in ((act.requirement(fact), not placed), (OTHERS, not kept))
                if broken] or [act.requirement(fact)]
    return [act.requirement(fact)]


def _names(board: Board, fact: Fact, ids: list[str]) -> list[str]:
    project = board.projects.get(fact[1])
    if project is None:
        return ids
    names = {r.id: r.name for r in project.rows}
    names |= {c.id: c.name for r in project.rows for c in r.columns}
    names |= {c.id: c.name for c in project.cards.values()}
    return [names.get(i, i) for i in ids]


def words(board: Board, d: Difference, where: str) -> str:
    """One difference in a sentence: "row 1 of 3 reads 'x', not 'y' (in op 3 and op 6)"."""
    kind = d.fact[0]
    label = board.label(d.fact, named=kind not in NAMES)
    if kind in PRESENCE:
        return f"{label} is {'gone from' if d.expected else 'still in'} {where}"
    if kind in ORDERS:
        both = set(d.expected) & set(d.seen)
        return (f"the {'cards' if kind == 'cards-order' else kind} of {label} are in the order "
                f"{_names(board, d.fact, [i for i in d.seen if i in both])}, not "
                f"{_names(board, d.fact, [i for i in d.expected if i in both])} (in {where})")
    if kind == "card-columns":
        return (f"{label} lists the columns {sorted(map(str, d.seen.values()))}, not "
                f"{sorted(map(str, d.expected.values()))} (in {where})")
    if kind.startswith("extra-"):
        return (f"{len(d.seen)} {kind[6:]} nobody created now in {label} ({sorted(d.seen)}; "
                f"in {where})")
    if kind in ("metadata", "data") and d.seen is ABSENT:
        return f"{label} is gone (in {where})"
    if kind in ("metadata", "data") and d.expected is ABSENT:
        return f"{label} is still there, {d.seen!r} (in {where})"
    what = {"project-created": "its createdAt", "data": "its value",
            "metadata": "its value"}.get(kind, "its name")
    return f"{label} reads {d.seen!r} as {what}, not {d.expected!r} (in {where})"


NAMES = {"project-name", "row-name", "column-name", "card-name"}


def said(board: Board, found: list[Difference]) -> str:
    """The differences in sentences, the addressed ones first, each said once with every
    reading that showed it."""
    grouped: dict[tuple[Any, ...], list[Difference]] = {}
    for d in sorted(found, key=lambda d: d.requirement == OTHERS):
        grouped.setdefault((d.fact, repr(d.expected), repr(d.seen)), []).append(d)
    return "; ".join(
        words(board, same[0], " and ".join(dict.fromkeys(d.sight.label for d in same)))
        for same in grouped.values())


def conditions(d: Difference) -> list[when.Condition]:
    """What makes the difference, on the reading that showed it (boardcert.interface
    .conditions: a reproduction judges them again, with its own ids and names)."""
    exchange, at, kind = d.sight.exchange, d.sight.at.get(d.fact, []), d.fact[0]
    if exchange is None:
        return []
    if kind == "project" or kind == "data" and not 200 <= (exchange.status or 0) < 300:
        return [when.status(exchange, "200" if d.expected is not False else "4xx")
                if d.expected is not ABSENT else when.status_was(exchange)]
    if kind in PRESENCE:  # the id named, or not, in the list (or record) that holds it
        held = at if kind in ("column", "plugin") else at[:-1]
        return [(when.lacks if d.expected else when.mentions)(exchange, held, d.fact[-1])]
    if kind in ORDERS:
        return [when.order(exchange, at, [i for i in d.expected if i in set(d.seen)])]
    if kind in NAMES:
        return [when.value(exchange, at, d.expected)]
    if kind in ("metadata", "data"):
        if d.expected is ABSENT:
            return [when.status_was(exchange) if kind == "data" else
                    when.mentions(exchange, at, d.seen)]
        return [when.lacks(exchange, at, d.expected)]
    if kind == "card-columns":
        return [*(when.lacks(exchange, at, c) for c in d.expected if c not in d.seen),
                *(when.mentions(exchange, at, c) for c in d.seen if c not in d.expected
                  and not isinstance(d.expected, AtLeast)),
                *(when.value(exchange, [*at, {"id": c}, "name"], name)
                  for c, name in d.expected.items() if c in d.seen and d.seen[c] != name)]
    if kind.startswith("extra-"):
        return [when.longer(exchange, at, d.sight.counts.get(d.fact, 0) - len(d.seen))]
    return [when.answer(exchange)]


def failure(board: Board, act: Act, found: list[Difference], write: Any = None) -> Violation:
    """One Violation for a write's differences: the requirements they break (the addressed
    one first), what the write did, what differs; the write and the readings as evidence."""
    blamed = sorted({d.requirement for d in found}, key=lambda r: (r == OTHERS, r))
    exchanges = list({id(x): x for x in [write, *(d.sight.exchange for d in found)]
                      if x is not None}.values())
    return Violation(f"[{blamed[0]}] op {act.op} {act.said}: {said(board, found)}", blamed,
                     exchanges, [c for d in found for c in conditions(d)])
