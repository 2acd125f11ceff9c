"""What the board model (boardcert.model) tells from the traffic alone: a rename that renamed
something else, a rename that did not take, a delete whose item is still there on the next
reading (its own answer, a fresh operation 3), a project still answered after its delete.

The model learns each project from a Project the traffic shows (operation 3, or a write's
Project answer), applies the writes the traffic makes to it (renames of ops 5, 10, 13, 16 with
the `name` their body sends, deletes of ops 4, 9, 14, 17), and compares the next Project it
sees with the model's words (boardcert.model.compare). Only what those writes addressed is held
against the server, and another item reading as the new name of a rename: the rest of a board
may change by other clients between two readings the proxy sees, and is learnt again instead.

A reading is held only to the writes the server had answered before the reading went on to it
(its `sent_at` after the write's `answered_at`), and to its own: a reading under way while a
write was may show the board before it or after it, and leaves that write for the next one.
"""

from __future__ import annotations

from typing import Any

from boardcert.interface import spec
from boardcert.model import OPEN, Act, Board, Sight, Vision
from boardcert.model.compare import PRESENCE, differences, words
from boardcert.model.observe import card_sight, project_sight
from boardcert.model.records import OTHERS, Card, Column, Project, Row
from boardcert.traffic.answered import Judgement
from boardcert.traffic.seen import Seen

__all__ = ["Boards"]

RENAMES = {5: "project", 10: "row", 13: "column", 16: "card"}
DELETES = {9: "row", 14: "column", 17: "card"}
NAMES = {"project-name", "row-name", "column-name", "card-name"}


class Boards:
    """The board model of every project the traffic shows."""

    def __init__(self) -> None:
        self.board = Board()
        self.vision = Vision()
        # writes since the last reading that was held to them: (act, new name or None, the
        # write's exchange); a delete stays until a reading other than its own answer has
        # shown whether its item is gone
        self.since: dict[str, list[tuple[Act, str | None, Seen]]] = {}

    def judge(self, seen: Seen) -> list[Judgement]:
        op, status = seen.operation, seen.status
        project_id = seen.params.get("projectId")
        if op is None or status is None or status >= 500 or project_id is None and op != 2:
            return []
        if op == 3 and project_id in self.board.projects:
            project = self.board.projects[project_id]
            if not project.present:
                return self._deleted(project_id, seen)
        if not 200 <= status < 300:
            return []
        body = seen.answer if isinstance(seen.answer, dict) else None
        if op == 2:
            project_id = _id(body)
        if project_id is None:
            return []
        found = self._write(seen, op, project_id, body)
        if body is not None and spec.operation(op).response_schema == "Project":
            found += self._read(project_id, body, "op 3" if op == 3 else f"op {op}'s answer",
                                seen)
        return found

    def _write(self, seen: Seen, op: int, project_id: str, body: Any) -> list[Judgement]:
        """Apply a write the model knows to the project it addresses (a project the traffic
        has not shown yet is left alone)."""
        project = self.board.projects.get(project_id)
        if project is None or not project.present:
            return []
        params, name = seen.params, _name(seen.sent)
        try:
            if op in RENAMES and name is None:
                act = None  # a body the model cannot read: the project is learnt again
            elif op == 5:
                act = self.board.rename_project(project_id, name)
            elif op == 10:
                act = self.board.rename_row(project_id, params["rowId"], name)
            elif op == 13:
                act = self.board.rename_column(project_id, params["columnId"], name)
            elif op == 16:
                act = self.board.rename_card(project_id, params["cardId"], name)
            elif op == 4:
                act = self.board.delete_project(project_id)
            elif op == 9:
                act = self.board.delete_row(project_id, params["rowId"])
            elif op == 14:
                act = self.board.delete_column(project_id, params["columnId"])
            elif op == 17:
                act = self.board.delete_card(project_id, params["cardId"])
            else:
                return []
        except (KeyError, StopIteration):  # an item the model has not seen
            act = None
        if act is None:
            self.since.pop(project_id, None)
            self.board.projects.pop(project_id, None)
            return []
        self.since.setdefault(project_id, []).append((act, name, seen))
        if op == 16 and body is not None:
            sight = Sight("op 16's answer", None)
            card_sight(sight, body, project, str(_id(body)), [], False)
            return self._compare(project_id, [sight], seen, keep=True)
        return []

    def _read(self, project_id: str, body: dict[str, Any], label: str, seen: Seen
              ) -> list[Judgement]:
        """A Project the traffic shows: the writes since the last one judged on it, then the
        project learnt from it."""
        found = []
        if project_id in self.board.projects:
            sight = Sight(label, None)
            project_sight(sight, body, self.board.projects[project_id], self.board, False)
            found = self._compare(project_id, [sight], seen)
        self._learn(project_id, body, label)
        return found

    def _compare(self, project_id: str, sights: list[Sight], reading: Seen, keep: bool = False
                 ) -> list[Judgement]:
        """The readings (of the exchange `reading`) against the writes it is held to."""
        writes = self.since.get(project_id, [])
        held = [w for w in writes if _before(w[2], reading)]
        if not keep:  # a delete's own answer is not its next reading: it stays for that one
            self.since[project_id] = [w for w in writes if not _before(w[2], reading) or
                                      w[0].op in DELETES and w[2] is reading]
        found = []
        for act, name, _ in held:
            wrong = [d for d in differences(self.board, sights, act, self.vision)
                     if d.requirement != OTHERS and _held(d.fact, act)
                     or d.fact[0] in NAMES and name is not None and d.seen == name]
            said = [words(self.board, d, d.sight.label) for d in wrong]
            failed = {d.requirement for d in wrong}
            for requirement in sorted(failed):
                found.append(Judgement(requirement, act.op, True, f"op {act.op} {act.said}: "
                             + "; ".join(s for s, d in zip(said, wrong, strict=True)
                                         if d.requirement == requirement)))
            shown = {fact for sight in sights for fact in sight.seen}
            found += [Judgement(requirement, act.op, False) for fact, requirement in
                      act.addressed.items() if fact in shown and _held(fact, act)
                      and requirement not in failed]
            if name is not None and OTHERS not in failed and any(
                    fact[0] in NAMES and fact not in act.addressed for fact in shown):
                found.append(Judgement(OTHERS, act.op, False))  # no other item took the name
        return found

    def _deleted(self, project_id: str, seen: Seen) -> list[Judgement]:
        """Operation 3 of a project the traffic saw deleted (once it is held to the delete,
        the project is forgotten)."""
        sight = Sight("op 3", None)
        sight.put(("project", project_id), 200 <= (seen.status or 0) < 300, [])
        told = any(a.op == 4 and _before(w, seen) for a, _, w in self.since.get(project_id, []))
        found = self._compare(project_id, [sight], seen)
        if told:
            self.board.projects.pop(project_id, None)
        return found

    def _learn(self, project_id: str, body: dict[str, Any], label: str) -> None:
        """The project as the Project shows it (its names, rows, columns, cards)."""
        project = Project(project_id, body.get("name") if isinstance(body.get("name"), str)
                          else OPEN)
        for row in _records(body.get("rows")):
            columns = [Column(c, _text(r)) for r in _records(row.get("columns"))
                       if (c := _id(r)) is not None]
            project.rows.append(Row(str(_id(row)), _text(row), columns))
        for card in _records(body.get("cards")):
            ids = {c for r in _records(card.get("columns")) if (c := _id(r)) is not None}
            project.cards[str(_id(card))] = Card(str(_id(card)), _text(card), ids, set(ids))
        self.board.projects[project_id] = project
        self.board.acts.clear()
        sight = Sight(label, None)
        project_sight(sight, body, project, self.board, False)
        self.vision.update(self.board, [sight])
        for act, name, _ in self.since.get(project_id, []):
            _again(project, act, name)  # a write waiting for its next reading: made again


def _again(project: Project, act: Act, name: str | None) -> None:
    """A write, made again on a project learnt anew: what a delete took away, a rename's
    name (a reading under way as the write was may show the board before it)."""
    for fact in act.addressed:
        kind = fact[0]
        if kind == "project-name":
            project.name = name
        elif kind == "row-name":
            for row in project.rows:
                row.name = name if row.id == fact[2] else row.name
        elif kind == "column-name":
            for row in project.rows:
                for column in row.columns:
                    column.name = name if column.id == fact[2] else column.name
        elif kind == "card-name" and fact[2] in project.cards:
            project.cards[fact[2]].name = name
        elif kind == "row":
            project.rows = [r for r in project.rows if r.id != fact[2]]
            project.gone_rows.append(fact[2])
        elif kind == "column":
            for row in project.rows:
                row.columns = [c for c in row.columns if c.id != fact[3]]
            project.gone_columns[fact[3]] = fact[2]
        elif kind == "card":
            project.cards.setdefault(fact[2], Card(fact[2], OPEN, None)).present = False


def _before(write: Seen, reading: Seen) -> bool:
    """Whether `reading` must show `write`: it is the write's own exchange, or it went on to
    the server after the server had answered the write."""
    return write is reading or write.answered_at <= reading.sent_at


def _held(fact: tuple, act: Act) -> bool:
    """A fact of a write's that a later reading is held to: a presence after a delete, a name
    after a rename (the rest a write addresses, orders, the interface leaves to readings)."""
    return act.addressed.get(fact) is not None and (fact[0] in PRESENCE or fact[0] in NAMES)


def _records(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict) and _id(v) is not None] \
        if isinstance(value, list) else []


def _id(record: Any) -> str | None:
    value = record.get("id") if isinstance(record, dict) else None
    return str(value) if isinstance(value, str | int) and not isinstance(value, bool) else None


def _text(record: dict[str, Any]) -> Any:
    name = record.get("name")
    return name if isinstance(name, str) else OPEN


def _name(body: Any) -> str | None:
    """The new name a rename sends: its body's `name` (the shape the interface shows for op
    16, and the profile's for the others)."""
    name = body.get("name") if isinstance(body, dict) else None
    return name if isinstance(name, str) else None

