"""The kinds of resource the interface's operations create and delete, in one table: which
operations create each, which deletes it, the path parameter that names it there, where its
creating operation shows the id made, and whether deleting its project takes it along. The
ledger, the plan and the property tests' arena read it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    name: str  # as the ledger records it
    plural: str  # in sentences
    creates: tuple[int, ...]  # operations that create one (the first: the factories' own)
    deletes: int | None  # the operation that deletes one; None: nothing can
    id_parameter: str | None  # the path parameter of `deletes` that names it
    in_project: bool = False  # deleting its project deletes it too
    # Where the first creating operation shows the id of what it made: "answer" (the top-level
    # id of the record it answers), "name" (the record carrying the name sent, in the Project it
    # answers: row and column shapes are not shown), "given" (the caller chose it: a path
    # parameter or a body field sent); None: nothing records one.
    id_in: str | None = "given"


KINDS: tuple[Kind, ...] = (
    Kind("project", "projects", (2,), 4, "projectId", id_in="answer"),
    Kind("row", "rows", (7,), 9, "rowId", in_project=True, id_in="name"),
    Kind("column", "columns", (11,), 14, "columnId", in_project=True, id_in="name"),
    Kind("card", "cards", (15, 20), 17, "cardId", in_project=True, id_in="answer"),
    Kind("card_metadata", "card metadata", (21,), 22, "key", in_project=True),
    Kind("plugin", "plugin attachments", (23,), 24, "pluginId", in_project=True),
    Kind("plugin_data", "plugin data", (25,), 26, "key"),
    Kind("user token", "user tokens", (28,), None, None, id_in=None),  # no operation revokes one
)
BY_NAME = {kind.name: kind for kind in KINDS}
DELETE_OP = {kind.name: kind.deletes for kind in KINDS if kind.deletes is not None}
DELETED_BY = {kind.deletes: kind for kind in KINDS if kind.deletes is not None}
CREATED_BY = {number: kind for kind in KINDS for number in kind.creates}
