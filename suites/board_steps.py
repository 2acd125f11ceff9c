"""What the board model's state machine (board_machine.py) stands on: sending a write and
checking the whole board after it, what is there as the model says, and the placeholders a
profile body may use."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import strategies as st

from boardcert.conformance import Api, Exchange, Ledger, Oracle, Violation, unique

ANCHORS = ("afterCardId", "beforeCardId")
Data = st.DataObject


class Steps:
    """A board, its model and oracle, and what a step of the machine needs."""

    api: Api
    ledger: Ledger
    organization: str
    row_property: str

    def __init__(self) -> None:
        super().__init__()
        self.oracle = Oracle(self.api)
        self.model = self.oracle.board
        self.entries: dict[str, Any] = {}  # project id -> its ledger entry
        self.entities: dict[str, tuple[str, str]] = {}  # entity -> (project, card)
        self.plugin = self.api.profile.data.get("plugin_id")
        self.op = 0  # the operation of the last write
        self.laying = False  # laying the board out: each write judged on its answer alone

    # --- sending and checking -------------------------------------------------------------

    def send(self, number: int, body: Any = None, path_params: dict[str, str] | None = None,
             **path: str) -> Exchange:
        self.op = number
        return self.api.call(number, json=body, path_params=path_params, **path)

    def after(self, exchange: Exchange, act: Any, project: str | None = None,
              card: str | None = None) -> None:
        """The write's answer and the whole board against the model (`act`: a callable that
        applies the write to the model, called only if the write answered 200); while the
        board is laid out, its answer alone (`laid_out` reads the whole board after)."""
        status = exchange.status or 0
        done = act() if status == 200 else self.model.refused(self.op, status)
        with self.listed():
            if self.laying:
                if project is not None:
                    self.oracle.made(done, exchange, project, card)
            else:
                self.oracle.check(done, exchange, project, card, confirm=False)

    def laid_out(self) -> None:
        """The whole board as laid out, read once and compared with the model (a difference
        charged to the creation no answer confirmed, else to a later write)."""
        self.laying = False
        with self.listed():
            self.oracle.baseline()

    @contextmanager
    def listed(self) -> Iterator[None]:
        """A failure lists the writes, in order."""
        try:
            yield
        except Violation as exc:
            steps = "\n".join(f"  {n}. op {a.op} {a.said}"
                              for n, a in enumerate(self.model.acts, 1))
            exc.args = (f"{exc}\nthe writes, in order (the shortest sequence found):\n"
                        f"{steps}",)
            exc.traceback = False
            raise

    # --- what is there, as the model says -------------------------------------------------

    def projects(self) -> list[str]:
        return [p.id for p in self.model.projects.values() if p.present]

    def rows(self) -> list[tuple[str, str]]:
        return [(p, r.id) for p in self.projects() for r in self.model.projects[p].rows]

    def columns(self) -> list[tuple[str, str, str]]:
        return [(p, r, c.id) for p, r in self.rows()
                for c in self.model.projects[p].row(r).columns]

    def cards(self) -> list[tuple[str, str]]:
        return [(p, c.id) for p in self.projects()
                for c in self.model.projects[p].cards.values() if c.present is True]

    def entries_of_cards(self) -> list[tuple[str, str, str, str]]:
        return [(p, c, key, value) for p, c in self.cards()
                for key, value in self.model.projects[p].cards[c].metadata.items()
                if isinstance(value, str)]

    def data(self, stored: bool = True) -> list[tuple[str, str]]:
        return [(entity, key) for (_, entity, key), value in self.model.data.items()
                if entity in self.entities and self.entities[entity][0] in self.projects()
                and (isinstance(value, str) or not stored)]

    # --- helpers --------------------------------------------------------------------------

    def anchored(self, items: list[Any]) -> list[Any]:
        """The items whose project has another card to place them next to."""
        counts: dict[str, int] = {}
        for project, _ in self.cards():
            counts[project] = counts.get(project, 0) + 1
        return [item for item in items if counts.get(item[0], 0) > 1]

    @staticmethod
    def anchor(body: Any, after: bool, card: str) -> dict[str, Any]:
        kept = {k: v for k, v in body.items() if k not in ANCHORS} \
            if isinstance(body, dict) else {}
        return kept | {ANCHORS[0] if after else ANCHORS[1]: card}

    def made(self, kind: str, exchange: Exchange, name: str, project: str,
             row: str | None = None) -> str | None:
        """The id of the row or column op 7 or 11 made (found by its name, a column inside
        its `row` first), recorded."""
        if exchange.status != 200:
            return None
        body = exchange.json()
        rows = body.get("rows") if isinstance(body, dict) else None
        entry = self.ledger.created(kind, self.entries[project], answer=rows, name=name,
                                    within=row, projectId=project)
        return entry.id if entry else None

    def values(self, project: str, card: str, **given: Any) -> dict[str, Any]:
        """The placeholders a profile body may use, for this card."""
        columns = [c for p, _, c in self.columns() if p == project]
        return {"project_id": project, "card_id": card, "card_ids": [card],
                "name": unique("name"), "alias": unique("alias"), "key": unique("key"),
                "value": unique("value"), "column_id": columns[0] if columns else "",
                "other_column_id": columns[-1] if columns else "",
                "plugin_id": self.plugin or ""} | given
