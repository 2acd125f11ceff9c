"""The board as the interface says it must be after each write: pure data, no I/O.

The model holds only what `spec/interface.md` states or docs/policy.md reads, each rule with
its words below: containment (section 1: "An organization contains projects. A project
contains rows. A row contains columns. Cards are placed in columns."), names as sent, the
order a reorder or a move asks for, presence after a create, attach or put and absence after
a delete, detach or remove. What the interface leaves open is `OPEN` (any answer): what
happens to a deleted row's or column's cards, a card's columns after a move or an alias,
ids, times, url, createdFlair, extra fields.

A board's state is a set of facts, `Fact -> expected value`: `facts()`. Each write (one
method per operation) changes the facts it must change and records an `Act`: the operation,
what it addressed in words, and which facts it addressed, with the requirement a difference
there breaks. A difference anywhere else breaks WRITE-ONLY-ADDRESSED (docs/policy.md: "A
write acts on what it addresses, and on nothing else").
"""

from __future__ import annotations

from typing import Any

from boardcert.model.records import (
    ABSENT,
    KINDS,
    OPEN,
    OTHERS,
    Act,
    Card,
    Column,
    Fact,
    Project,
    Row,
    label,
    nth,
)

__all__ = ["ABSENT", "KINDS", "OPEN", "OTHERS", "Act", "Board", "Fact"]


class Board:
    """Projects, their rows, columns, cards, metadata and plugins, and plugin data, as the
    interface says they must be. Writes are methods named after what they do; `facts()` is
    what must now be observed."""

    def __init__(self) -> None:
        self.projects: dict[str, Project] = {}
        self.data: dict[tuple[str, str, str], Any] = {}
        self.stored: dict[tuple[str, str, str], str] = {}  # the last value put, kept on delete
        self.acts: list[Act] = []

    def label(self, fact: Fact, named: bool = True) -> str:
        """What a fact is about, in words: "row 2 of 3 ('bc-row-…')"."""
        return label(self.projects, fact, named)

    # --- what must be observed ------------------------------------------------------------

    def facts(self) -> dict[Fact, Any]:
        """Every fact the board holds now, fact -> expected value (OPEN facts left out)."""
        found: dict[Fact, Any] = {}
        for project in self.projects.values():
            found |= project.facts()
        for (plugin, entity, key), value in self.data.items():
            found[("data", plugin, entity, key)] = value
        return {fact: value for fact, value in found.items() if value is not OPEN}

    def learn(self, fact: Fact, value: Any, first: bool = False) -> None:
        """What the interface leaves to the server, taken from a reading: a project's
        createdAt (once), and an order where it is not known yet (`first`) or where an item
        was added or moved to a place the interface leaves open: where a new row, column or
        card goes among the others, where several moved cards go among themselves."""
        kind, project = fact[0], self.projects[fact[1]]
        if kind == "project-created":
            if project.created is OPEN:
                project.created = value
            return
        if kind == "plugin":
            if project.plugins.get(fact[2]) is OPEN and isinstance(value, bool):
                project.plugins[fact[2]] = value
            return
        if kind == "rows":
            held = [r.id for r in project.rows]
        elif kind == "columns":
            held = [c.id for c in project.row(fact[2]).columns]
        elif kind == "cards-order":
            held = project.order or list(project.cards)
        else:
            return
        if not (first or project.floating & set(held)) or not isinstance(value, list):
            return
        order = [i for i in value if i in held] + [i for i in held if i not in value]
        project.floating -= set(order)
        if kind == "rows":
            project.rows = [project.row(i) for i in order]
        elif kind == "columns":
            row = project.row(fact[2])
            by_id = {c.id: c for c in row.columns}
            row.columns = [by_id[i] for i in order]
        else:
            project.order = order

    def first_seen(self, fact: Fact, extras: set[str]) -> None:
        """What a list (a project's rows or cards, a row's columns) holds when first read
        beyond what the model made in it (rows a server gives a new project, columns it gives
        a new row) is the server's own: learnt."""
        project = self.projects[fact[1]]
        if fact not in project.seen:
            project.foreign |= extras
            project.seen.add(fact)

    def gone_rows(self, project_id: str) -> list[str]:
        return self.projects[project_id].gone_rows

    def gone_columns(self, project_id: str) -> dict[str, str]:
        return self.projects[project_id].gone_columns

    def values(self, plugin: str) -> list[str]:
        """Every value the run stored for a plugin (its data are read for them)."""
        return [v for (p, _, _), v in self.stored.items() if p == plugin]

    def _act(self, op: int, said: str) -> Act:
        act = Act(op, said)
        self.acts.append(act)
        return act

    def refused(self, op: int, status: int) -> Act:
        """A write the server refused (or failed at): the board must be as it was."""
        return self._act(op, f"was answered {status}: nothing may have changed")

    # --- projects (ops 2, 4, 5) ------------------------------------------------------------

    def create_project(self, project_id: str, name: str) -> Act:
        """Op 2 makes a project with the name sent."""
        self.projects[project_id] = Project(project_id, name)
        act = self._act(2, f"created project {name!r}")
        act.addressed |= {("project", project_id): "PROJECT-CREATE",
                          ("project-name", project_id): "PROJECT-CREATE"}
        return act

    def delete_project(self, project_id: str) -> Act:
        """Op 4: the project is gone (PROJECT-DELETE); what its cards were is gone with it,
        plugin data of its entities is open (entities are not shown)."""
        project = self.projects[project_id]
        act = self._act(4, f"deleted project {project.name!r}")
        project.present = False
        act.addressed[("project", project_id)] = "PROJECT-DELETE"
        return act

    def rename_project(self, project_id: str, name: str) -> Act:
        """Op 5 renames: the name reads as sent; createdAt, rows and cards stay."""
        project = self.projects[project_id]
        act = self._act(5, f"renamed project {project.name!r} to {name!r}")
        project.name = name
        act.addressed[("project-name", project_id)] = "PROJECT-RENAME"
        return act

    # --- rows (ops 7-10) ------------------------------------------------------------------

    def create_row(self, project_id: str, row_id: str, name: str) -> Act:
        """Op 7 adds a row with the name sent; where it goes among the others is not shown."""
        project = self.projects[project_id]
        project.rows.append(Row(row_id, name))
        project.floating.add(row_id)  # where a new row goes among the others: open
        act = self._act(7, f"created row {name!r}")
        act.addressed |= {("row", project_id, row_id): "ROWS-LIST-CREATED",
                          ("row-name", project_id, row_id): "ROWS-LIST-CREATED"}
        act.allows.add(("extra-columns", project_id, row_id))  # a new row may come with some
        return act

    def order_rows(self, project_id: str, ids: list[str]) -> Act:
        """Op 8 puts the rows in the order asked for (every row named once)."""
        project = self.projects[project_id]
        act = self._act(8, f"ordered the rows of project {project.name!r} as "
                           f"{[nth(project.rows, project.row(i)) for i in ids]}")
        project.rows = [project.row(i) for i in ids]
        act.addressed[("rows", project_id)] = "ROW-ORDER"
        return act

    def delete_row(self, project_id: str, row_id: str) -> Act:
        """Op 9 deletes the row (Rule 2) and its columns (section 1: a row contains them);
        whether their cards go too is open."""
        project = self.projects[project_id]
        row = project.row(row_id)
        act = self._act(9, f"deleted row {nth(project.rows, row)} ({row.name!r})")
        project.rows.remove(row)
        project.gone_rows.append(row_id)
        project.gone_columns |= {c.id: row_id for c in row.columns}
        self._columns_gone(project, {c.id for c in row.columns})
        act.addressed[("row", project_id, row_id)] = "ROW-DELETE-GONE"
        return act

    def rename_row(self, project_id: str, row_id: str, name: str) -> Act:
        project = self.projects[project_id]
        row = project.row(row_id)
        act = self._act(10, f"renamed row {nth(project.rows, row)} ({row.name!r}) to "
                            f"{name!r}")
        row.name = name
        act.addressed[("row-name", project_id, row_id)] = "ROW-RENAME"
        return act

    # --- columns (ops 11-14) --------------------------------------------------------------

    def create_column(self, project_id: str, row_id: str, column_id: str, name: str) -> Act:
        """Op 11 adds a column with the name sent to the row of its path."""
        project = self.projects[project_id]
        row = project.row(row_id)
        row.columns.append(Column(column_id, name))
        project.floating.add(column_id)
        act = self._act(11, f"created column {name!r} in row {nth(project.rows, row)}")
        act.addressed |= {("column", project_id, row_id, column_id): "COLUMN-CREATE",
                          ("column-name", project_id, column_id): "COLUMN-CREATE"}
        return act

    def order_columns(self, project_id: str, row_id: str, ids: list[str]) -> Act:
        project = self.projects[project_id]
        row = project.row(row_id)
        by_id = {c.id: c for c in row.columns}
        act = self._act(12, f"ordered the columns of row {nth(project.rows, row)} as "
                            f"{[nth(row.columns, by_id[i]) for i in ids]}")
        row.columns = [by_id[i] for i in ids]
        act.addressed[("columns", project_id, row_id)] = "COLUMN-ORDER"
        return act

    def rename_column(self, project_id: str, column_id: str, name: str) -> Act:
        """Op 13: the column's name, and the name its cards' columns show (section 2: Card
        columns are {id, name})."""
        project = self.projects[project_id]
        row, column = project.column(column_id)
        act = self._act(13, f"renamed column {nth(row.columns, column)} ({column.name!r}) "
                            f"of row {nth(project.rows, row)} to {name!r}")
        column.name = name
        act.addressed[("column-name", project_id, column_id)] = "COLUMN-RENAME"
        for card in project.cards.values():
            if card.columns and column_id in card.columns:
                act.addressed[("card-columns", project_id, card.id)] = "COLUMN-RENAME"
        return act

    def delete_column(self, project_id: str, column_id: str) -> Act:
        project = self.projects[project_id]
        row, column = project.column(column_id)
        act = self._act(14, f"deleted column {nth(row.columns, column)} ({column.name!r}) "
                            f"of row {nth(project.rows, row)}")
        row.columns.remove(column)
        project.gone_columns[column_id] = row.id
        self._columns_gone(project, {column_id})
        act.addressed[("column", project_id, row.id, column_id)] = "COLUMN-DELETE-GONE"
        return act

    @staticmethod
    def _columns_gone(project: Project, gone: set[str]) -> None:
        """The cards placed in deleted columns: whether they stay, and what columns they then
        list, is open (docs/policy.md: "whether a deleted row's or column's cards go with
        it"); if they stay, their names and metadata are kept."""
        for card in project.cards.values():
            if card.present is False or card.columns is not None and not card.columns & gone:
                continue  # its columns are known and none of them went
            card.present, card.columns, card.least = OPEN, None, set()
            project.floating.add(card.id)

    # --- cards (ops 15-20) ----------------------------------------------------------------

    def create_card(self, project_id: str, column_id: str, card_id: str, name: str) -> Act:
        """Op 15 places a new card with the name sent in the column of its path."""
        project = self.projects[project_id]
        project.cards[card_id] = Card(card_id, name, {column_id}, {column_id})
        if project.order is not None:
            project.order.append(card_id)
            project.floating.add(card_id)  # where a new card goes among the others: open
        act = self._act(15, f"created card {name!r} in column {project.column_name(column_id)!r}")
        act.addressed |= {("card", project_id, card_id): "CARD-CREATE",
                          ("card-name", project_id, card_id): "CARD-CREATE",
                          ("card-columns", project_id, card_id): "CARD-CREATE"}
        return act

    def rename_card(self, project_id: str, card_id: str, name: str) -> Act:
        project = self.projects[project_id]
        card = project.cards[card_id]
        act = self._act(16, f"renamed {self.label(('card', project_id, card_id))} to {name!r}")
        card.name = name
        act.addressed[("card-name", project_id, card_id)] = "CARD-RENAME"
        return act

    def delete_card(self, project_id: str, card_id: str) -> Act:
        project = self.projects[project_id]
        act = self._act(17, f"deleted {self.label(('card', project_id, card_id))}")
        project.cards[card_id].present = False
        act.addressed[("card", project_id, card_id)] = "CARD-DELETE-GONE"
        return act

    def move_cards(self, project_id: str, ids: list[str], after: str | None = None,
                   before: str | None = None, op: int = 18) -> Act:
        """Ops 18 and 19 place the moved cards right after `after` (else right before
        `before`: Rule 3); the other cards keep their order; the moved cards keep their names
        and metadata. Their columns are open (a move may take a card to another column), and
        where several moved cards go among themselves."""
        project = self.projects[project_id]
        anchor = after or before
        said = "moved " + ", ".join(self.label(("card", project_id, i)) for i in ids)
        if anchor is not None:
            said += f" {'after' if after else 'before'} {self.label(('card', project_id, anchor))}"
        act = self._act(op, said)
        act.moved = list(ids)
        for card_id in ids:
            project.cards[card_id].columns = None
            project.cards[card_id].least = set()
        requirement = "CARD-MOVE-PLACES" if op == 18 else "CARD-MOVE-BY-METADATA-PLACES"
        if project.order is not None and anchor is not None and anchor not in project.floating:
            rest = [i for i in project.order if i not in ids]
            at = rest.index(anchor) + (1 if after else 0)
            project.order = rest[:at] + list(ids) + rest[at:]
            if len(ids) > 1:
                project.floating |= set(ids)
            else:
                project.floating.discard(ids[0])
            act.addressed[("cards-order", project_id)] = requirement
        elif project.order is not None:
            project.floating |= set(ids)
        return act

    def alias_card(self, project_id: str, card_id: str) -> Act:
        """Op 20 gives the card an alias; what an alias is, is not shown (a name, another
        column): the card keeps its name, metadata and the columns it was in."""
        project = self.projects[project_id]
        card = project.cards[card_id]
        act = self._act(20, f"gave {self.label(('card', project_id, card_id))} an alias")
        act.allows.add(("extra-cards", project_id))  # an alias may be a card of its own
        card.least = set(card.columns or card.least)
        card.columns = None
        return act

    # --- card metadata (ops 21, 22) -------------------------------------------------------

    def add_metadata(self, project_id: str, card_id: str, key: str, value: str) -> Act:
        project = self.projects[project_id]
        act = self._act(21, f"gave {self.label(('card', project_id, card_id))} metadata "
                            f"{key!r}")
        project.cards[card_id].metadata[key] = value
        project.cards[card_id].values[key] = value
        project.keys[key] = value
        act.addressed[("metadata", project_id, card_id, key)] = "CARD-METADATA-ADD"
        return act

    def remove_metadata(self, project_id: str, card_id: str, key: str) -> Act:
        project = self.projects[project_id]
        act = self._act(22, f"stripped {self.label(('card', project_id, card_id))} of "
                            f"metadata {key!r}")
        project.cards[card_id].metadata[key] = ABSENT
        act.addressed[("metadata", project_id, card_id, key)] = "CARD-METADATA-REMOVE"
        return act

    # --- plugins (ops 23-26) --------------------------------------------------------------

    def watch_plugin(self, project_id: str, plugin: str) -> None:
        """A plugin whose attachment to the project is read (a new project's plugins are not
        shown: whether it comes with some is learnt from the first reading)."""
        self.projects[project_id].plugins.setdefault(plugin, OPEN)

    def attach_plugin(self, project_id: str, plugin: str) -> Act:
        project = self.projects[project_id]
        act = self._act(23, f"attached plugin {plugin!r} to project {project.name!r}")
        project.plugins[plugin] = True
        act.addressed[("plugin", project_id, plugin)] = "PLUGIN-ATTACH"
        return act

    def remove_plugin(self, project_id: str, plugin: str) -> Act:
        project = self.projects[project_id]
        act = self._act(24, f"removed plugin {plugin!r} from project {project.name!r}")
        project.plugins[plugin] = False
        act.addressed[("plugin", project_id, plugin)] = "PLUGIN-REMOVE"
        return act

    def put_data(self, plugin: str, entity: str, key: str, value: str) -> Act:
        act = self._act(25, f"stored plugin {plugin!r}'s datum {key!r} of entity {entity!r}")
        self.data[(plugin, entity, key)] = self.stored[(plugin, entity, key)] = value
        act.addressed[("data", plugin, entity, key)] = "PLUGIN-DATA-ROUND-TRIP"
        return act

    def delete_data(self, plugin: str, entity: str, key: str) -> Act:
        act = self._act(26, f"deleted plugin {plugin!r}'s datum {key!r} of entity {entity!r}")
        self.data[(plugin, entity, key)] = ABSENT
        act.addressed[("data", plugin, entity, key)] = "PLUGIN-DATA-DELETE"
        return act
