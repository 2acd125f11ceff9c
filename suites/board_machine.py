"""The board, step by step, against its model: a Hypothesis state machine over ops 2-26.

Each rule sends one write the profile says the server accepts (a project, row, column, card,
move, alias, metadata entry, plugin or plugin datum), tells the model what the interface says
it did, and the oracle reads the whole observable board (ops 3 and 6 of every project, op 27
for every datum stored) and compares it with the model. A write the server refuses (any 4xx)
must change nothing. Hypothesis shrinks a failure to the shortest sequence that shows it; the
failure lists that sequence, and its reproduction sends it again.

The machine's bundles are the model's own lists of what is there: a rule draws the item it
addresses among the live ones (any of them, not the first), so a deleted item is never
addressed again. The first writes lay out a board of 0 to 3 rows, 0 to 3 columns in each and
0 to 3 cards in each column, each write checked on its answer as it comes and the whole board
read once they are made (one round trip a creation, not two); the rules then grow and change
it, the whole board read after every write.
"""

from __future__ import annotations

from typing import Any

from board_steps import Data, Steps
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from boardcert.conformance import fill, unique

MAX_PROJECTS, MAX_ITEMS, MAX_CARDS = 2, 4, 8  # live projects; rows, columns; cards a project


class BoardMachine(Steps, RuleBasedStateMachine):
    """One board, grown and changed by the interface's writes, checked after each."""

    # --- the first writes: a board of 0 to 3 of each kind ----------------------------------

    @initialize(data=st.data())
    def lay_out(self, data: Data) -> None:
        self.laying = True
        project = self._create_project()
        for _ in range(data.draw(st.integers(0, 3), label="rows") if project else 0):
            row = self._create_row(project)
            for _ in range(data.draw(st.integers(0, 3), label="columns") if row else 0):
                column = self._create_column(project, row)
                for _ in range(data.draw(st.integers(0, 3), label="cards") if column else 0):
                    self._create_card(project, column)
        self.laid_out()

    # --- projects (ops 2, 4, 5) -----------------------------------------------------------

    @rule(data=st.data())
    def grow(self, data: Data) -> None:
        """One more of a kind: a project, a row, a column, a card, a metadata entry, a datum
        (op 2, 7, 11, 15, 21 or 25), in a place drawn among those there are."""
        kinds = [kind for kind, can in (
            ("project", len(self.projects()) < MAX_PROJECTS), ("row", self.projects()),
            ("column", self.rows()), ("card", self.columns()), ("metadata", self.cards()),
            ("datum", self.plugin and self.api.profile.has("entity_id") and self.cards()))
            if can]
        kind = data.draw(st.sampled_from(kinds), label="kind")
        if kind == "project":
            self._create_project()
        elif kind == "row":
            project = data.draw(st.sampled_from(self.projects()), label="project")
            if len(self.model.projects[project].rows) < MAX_ITEMS:
                self._create_row(project)
        elif kind == "column":
            project, row = data.draw(st.sampled_from(self.rows()), label="row")
            if len(self.model.projects[project].row(row).columns) < MAX_ITEMS:
                self._create_column(project, row)
        elif kind == "card":
            project, _, column = data.draw(st.sampled_from(self.columns()), label="column")
            if len(self.model.projects[project].cards) < MAX_CARDS:
                self._create_card(project, column)
        elif kind == "metadata":
            self.add_metadata(*data.draw(st.sampled_from(self.cards()), label="card"))
        else:
            self.put_data(data, again=False)

    def _create_project(self) -> str | None:
        name = unique("project")
        exchange = self.send(2, self.api.body("create_project", name=name),
                             organizationId=self.organization)
        entry = self.ledger.created("project", answer=exchange.json()) \
            if exchange.status == 200 else None
        if exchange.status == 200 and entry is None:
            return None  # no id to follow: PROJECT-CREATE's own test says so
        if entry is not None:
            self.entries[entry.id] = entry

        def created() -> Any:
            act = self.model.create_project(entry.id, name)
            if self.plugin:
                self.model.watch_plugin(entry.id, self.plugin)
            return act
        self.after(exchange, created, entry.id if entry else None)
        return entry.id if entry else None

    @precondition(lambda self: self.projects())
    @rule(data=st.data(), delete=st.booleans())
    def project(self, data: Data, delete: bool) -> None:
        """A project renamed (op 5) or, when there is another, deleted (op 4)."""
        project = data.draw(st.sampled_from(self.projects()), label="project")
        if delete and len(self.projects()) > 1:
            exchange = self.send(4, projectId=project)
            if exchange.status == 200:
                self.ledger.forget(self.entries[project])
            self.after(exchange, lambda: self.model.delete_project(project))
            return
        name = unique("project")
        exchange = self.send(5, self.api.body("rename_project", name=name), projectId=project)
        self.after(exchange, lambda: self.model.rename_project(project, name), project)

    # --- rows (ops 7-10) ------------------------------------------------------------------

    def _create_row(self, project: str) -> str | None:
        name = unique("row")
        exchange = self.send(7, {self.row_property: name}, projectId=project)
        made = self.made("row", exchange, name, project)
        if made is not None or exchange.status != 200:
            self.after(exchange, lambda: self.model.create_row(project, made, name), project)
        return made

    @precondition(lambda self: self.rows())
    @rule(data=st.data(), what=st.sampled_from(["rename", "delete", "order"]))
    def row(self, data: Data, what: str) -> None:
        """A row renamed (op 10) or deleted (op 9), or its project's rows ordered (op 8)."""
        project, row = data.draw(st.sampled_from(self.rows()), label="row")
        held = [r.id for r in self.model.projects[project].rows]
        if what == "order" and len(held) > 1:
            ids = data.draw(st.permutations(held), label="order")
            exchange = self.send(8, self.api.body("order_rows", row_ids=ids),
                                 projectId=project)
            self.after(exchange, lambda: self.model.order_rows(project, ids), project)
            return
        if what == "delete":
            exchange = self.send(9, projectId=project, rowId=row)
            self.after(exchange, lambda: self.model.delete_row(project, row), project)
            return
        name = unique("row")
        exchange = self.send(10, self.api.body("rename_row", name=name), projectId=project,
                             rowId=row)
        self.after(exchange, lambda: self.model.rename_row(project, row, name), project)

    # --- columns (ops 11-14) --------------------------------------------------------------

    def _create_column(self, project: str, row: str) -> str | None:
        name = unique("column")
        exchange = self.send(11, self.api.body("create_column", name=name), projectId=project,
                             rowId=row)
        made = self.made("column", exchange, name, project, row)
        if made is not None or exchange.status != 200:
            self.after(exchange, lambda: self.model.create_column(project, row, made, name),
                       project)
        return made

    @precondition(lambda self: self.columns())
    @rule(data=st.data(), what=st.sampled_from(["rename", "delete", "order"]))
    def column(self, data: Data, what: str) -> None:
        """A column renamed (op 13) or deleted (op 14), or its row's columns ordered (op 12)."""
        project, row, column = data.draw(st.sampled_from(self.columns()), label="column")
        held = [c.id for c in self.model.projects[project].row(row).columns]
        if what == "order" and len(held) > 1:
            ids = data.draw(st.permutations(held), label="order")
            exchange = self.send(12, self.api.body("order_columns", column_ids=ids),
                                 projectId=project, rowId=row)
            self.after(exchange, lambda: self.model.order_columns(project, row, ids), project)
            return
        if what == "delete":
            exchange = self.send(14, projectId=project, columnId=column)
            self.after(exchange, lambda: self.model.delete_column(project, column), project)
            return
        name = unique("column")
        exchange = self.send(13, self.api.body("rename_column", name=name), projectId=project,
                             columnId=column)
        self.after(exchange, lambda: self.model.rename_column(project, column, name), project)

    # --- cards (ops 15-20) ----------------------------------------------------------------

    def _create_card(self, project: str, column: str) -> None:
        name = unique("card")
        exchange = self.send(15, self.api.body("create_card", **self.values(
            project, "", name=name, column_id=column)), projectId=project, columnId=column)
        entry = self.ledger.created("card", self.entries[project], answer=exchange.json(),
                                    projectId=project) if exchange.status == 200 else None
        if exchange.status == 200 and entry is None:
            return
        made = entry.id if entry else None
        self.after(exchange, lambda: self.model.create_card(project, column, made, name),
                   project, made)

    @precondition(lambda self: self.cards())
    @rule(data=st.data(), delete=st.booleans())
    def card(self, data: Data, delete: bool) -> None:
        """A card renamed (op 16) or deleted (op 17)."""
        project, card = data.draw(st.sampled_from(self.cards()), label="card")
        if delete:
            exchange = self.send(17, projectId=project, cardId=card)
            self.after(exchange, lambda: self.model.delete_card(project, card), project)
            return
        name = unique("card")
        exchange = self.send(16, {"name": name}, projectId=project, cardId=card)
        self.after(exchange, lambda: self.model.rename_card(project, card, name), project,
                   card)

    @precondition(lambda self: self.anchored(self.cards()))
    @rule(data=st.data(), after=st.booleans())
    def move_card(self, data: Data, after: bool) -> None:
        """Op 18: one card placed right after (before) another of its project."""
        project, card = data.draw(st.sampled_from(self.anchored(self.cards())), label="card")
        anchor = data.draw(st.sampled_from([c for p, c in self.cards()
                                            if p == project and c != card]), label="anchor")
        body = self.anchor(self.api.body("move_cards", **self.values(
            project, card, card_ids=[card])), after, anchor)
        exchange = self.send(18, body, projectId=project)
        self.after(exchange, lambda: self.model.move_cards(
            project, [card], anchor if after else None, None if after else anchor), project)

    @precondition(lambda self: self.anchored(self.entries_of_cards()))
    @rule(data=st.data(), after=st.booleans())
    def move_card_by_metadata(self, data: Data, after: bool) -> None:
        """Op 19: the card that has a metadata entry placed right after (before) another."""
        project, card, key, value = data.draw(st.sampled_from(
            self.anchored(self.entries_of_cards())), label="entry")
        anchor = data.draw(st.sampled_from([c for p, c in self.cards()
                                            if p == project and c != card]), label="anchor")
        body = self.anchor(self.api.body("move_cards_by_metadata", **self.values(
            project, card, key=key, value=value)), after, anchor)
        exchange = self.send(19, body, projectId=project)
        self.after(exchange, lambda: self.model.move_cards(
            project, [card], anchor if after else None, None if after else anchor, op=19),
            project)

    @precondition(lambda self: self.cards() and self.columns())
    @rule(data=st.data())
    def alias_card(self, data: Data) -> None:
        """Op 20: a card given an alias (the profile's body, another column of its project)."""
        project, card = data.draw(st.sampled_from(self.cards()), label="card")
        others = [c for p, _, c in self.columns() if p == project]
        other = data.draw(st.sampled_from(others), label="column") if others else ""
        body = self.api.body("alias_card", **self.values(project, card, other_column_id=other))
        exchange = self.send(20, body, projectId=project, cardId=card)
        self.after(exchange, lambda: self.model.alias_card(project, card), project, card)

    # --- card metadata (ops 21, 22) -------------------------------------------------------

    def add_metadata(self, project: str, card: str) -> None:
        key, value = unique("key"), unique("value")
        exchange = self.send(21, self.api.body("add_card_metadata", **self.values(
            project, card, key=key, value=value)), projectId=project, cardId=card)
        self.after(exchange, lambda: self.model.add_metadata(project, card, key, value),
                   project)

    @precondition(lambda self: self.entries_of_cards())
    @rule(data=st.data())
    def remove_metadata(self, data: Data) -> None:
        project, card, key, value = data.draw(st.sampled_from(self.entries_of_cards()))
        body = self.api.body("remove_card_metadata", **self.values(
            project, card, key=key, value=value)) \
            if self.api.profile.has("bodies.remove_card_metadata") else None
        exchange = self.send(22, body, projectId=project, cardId=card, path_params={"key": key})
        self.after(exchange, lambda: self.model.remove_metadata(project, card, key), project)

    # --- plugins (ops 23-26) --------------------------------------------------------------

    @precondition(lambda self: self.plugin and self.projects())
    @rule(data=st.data(), attach=st.booleans())
    def plugin(self, data: Data, attach: bool) -> None:
        """The profile's plugin attached to (op 23) or removed from (op 24) a project."""
        project = data.draw(st.sampled_from(self.projects()), label="project")
        body = self.api.body("attach_plugin", **self.values(project, "")) if attach else None
        exchange = self.send(23 if attach else 24, body, projectId=project,
                             pluginId=self.plugin)
        if attach and exchange.status == 200:
            self.ledger.created("plugin", self.entries[project], projectId=project,
                                pluginId=self.plugin)
        act = self.model.attach_plugin if attach else self.model.remove_plugin
        self.after(exchange, lambda: act(project, self.plugin), project)

    @precondition(lambda self: self.data(stored=False))
    @rule(data=st.data(), delete=st.booleans())
    def datum(self, data: Data, delete: bool) -> None:
        """A datum stored again under its key (op 25) or, if there, deleted (op 26)."""
        if delete and self.data():
            self.delete_data(data)
        else:
            self.put_data(data, again=True)

    def put_data(self, data: Data, again: bool) -> None:
        """Op 25: a datum for a card's entity, under a new key or one stored before."""
        if again and self.data(stored=False):
            entity, key = data.draw(st.sampled_from(self.data(stored=False)), label="datum")
            project, card = self.entities[entity]
        else:
            project, card = data.draw(st.sampled_from(self.cards()), label="card")
            entity = fill(self.api.profile.get("entity_id"), self.values(project, card),
                          "entity_id")
            key = unique("key")
            self.entities[entity] = (project, card)
        value = unique("value")
        path = {"pluginId": self.plugin, "entityId": entity, "key": key}
        exchange = self.send(25, self.api.body("put_plugin_data", **self.values(
            project, card, key=key, value=value, entity_id=entity)), path_params=path)
        if exchange.status == 200:
            self.ledger.created("plugin_data", **path)
        self.after(exchange, lambda: self.model.put_data(self.plugin, entity, key, value))

    def delete_data(self, data: Data) -> None:
        entity, key = data.draw(st.sampled_from(self.data()), label="datum")
        exchange = self.send(26, path_params={"pluginId": self.plugin, "entityId": entity,
                                              "key": key})
        self.after(exchange, lambda: self.model.delete_data(self.plugin, entity, key))
