"""boardcert.workbench.ledger: the one way a created resource is recorded (`Ledger.created`), its
id read where the interface's resources table says its creating operation shows it."""

from __future__ import annotations

from typing import Any

from boardcert.workbench.ledger import Ledger


def ledger() -> Ledger:
    return Ledger(api=Any)  # recording sends nothing


def test_a_project_and_a_card_are_recorded_by_the_id_answered():
    """Op 2 and op 15 answer the record they made: its top-level id is recorded, under the
    path parameters given; the card goes with its project (its parent)."""
    book = ledger()
    project = book.created("project", answer={"id": 7, "name": "p"})
    assert project is not None and project.params == {"projectId": "7"} and project.id == "7"
    card = book.created("card", book.project("7"), answer={"id": "c1"}, projectId="7")
    assert card is not None and card.params == {"projectId": "7", "cardId": "c1"}
    assert card.parent is project and book.pending() == [project]


def test_a_row_is_recorded_by_the_name_it_was_given():
    """Row and column shapes are not shown: the id is that of the record carrying the name."""
    book = ledger()
    answer = {"id": "p", "rows": [{"id": "r0", "name": "other"}, {"id": "r1", "name": "mine"}]}
    row = book.created("row", None, answer=answer["rows"], name="mine", projectId="p")
    assert row is not None and row.params == {"projectId": "p", "rowId": "r1"}
    assert book.created("row", None, answer=answer["rows"], name="absent", projectId="p") is None


def test_an_answer_without_an_id_records_nothing():
    """No id in the answer (not an object, no id, not JSON): None, and the ledger is unchanged."""
    book = ledger()
    for answer in (None, [], {"name": "x"}, "text"):
        assert book.created("project", answer=answer) is None
    assert book.entries == []


def test_an_id_the_caller_chose_is_recorded_as_given():
    """Plugin data is named by the key the caller put in the path."""
    book = ledger()
    data = book.created("plugin_data", pluginId="pl", entityId="e", key="k")
    assert data is not None and data.id == "k"
    assert data.params == {"pluginId": "pl", "entityId": "e", "key": "k"}
    assert book.created("plugin_data", pluginId="pl", entityId="e") is None
