"""The board model holds what the interface says after each write, and leaves open what it
leaves open."""

from __future__ import annotations

from boardcert.model import ABSENT, OTHERS, Board


def board() -> Board:
    """A project with three rows, three columns in the middle one, three cards in its middle
    column, two metadata entries on the middle card."""
    model = Board()
    model.create_project("p", "project")
    for r in "abc":
        model.create_row("p", f"r{r}", f"row {r}")
    for c in "abc":
        model.create_column("p", "rb", f"c{c}", f"column {c}")
    for k in "abc":
        model.create_card("p", "cb", f"k{k}", f"card {k}")
    model.add_metadata("p", "kb", "m1", "v1")
    model.add_metadata("p", "kb", "m2", "v2")
    return model


def test_a_rename_changes_the_name_it_addresses_and_nothing_else():
    model = board()
    before = model.facts()
    act = model.rename_row("p", "rb", "new")
    after = model.facts()
    assert {f for f in after if after[f] != before.get(f)} == {("row-name", "p", "rb")}
    assert act.requirement(("row-name", "p", "rb")) == "ROW-RENAME"
    assert act.requirement(("row-name", "p", "ra")) == OTHERS
    assert "row 2 of 3" in act.said


def test_a_deleted_row_takes_its_columns_and_leaves_its_cards_open():
    model = board()
    model.delete_row("p", "rb")
    facts = model.facts()
    assert facts[("row", "p", "rb")] is False
    assert facts[("column", "p", "rb", "cb")] is False
    assert ("card", "p", "kb") not in facts  # open: whether its cards go with it
    assert facts[("row", "p", "ra")] is True and facts[("row-name", "p", "rc")] == "row c"


def test_a_move_places_the_card_and_keeps_the_others_in_their_order():
    model = board()
    model.learn(("cards-order", "p"), ["ka", "kb", "kc"], first=True)
    act = model.move_cards("p", ["ka"], after="kc")
    assert model.facts()[("cards-order", "p")] == ["kb", "kc", "ka"]
    assert act.requirement(("cards-order", "p")) == "CARD-MOVE-PLACES"
    facts = model.facts()
    assert facts[("card-name", "p", "ka")] == "card a"  # a move keeps the name
    assert ("card-columns", "p", "ka") not in facts  # and may take it to another column


def test_a_removed_entry_is_absent_and_the_others_stay():
    model = board()
    model.remove_metadata("p", "kb", "m1")
    facts = model.facts()
    assert facts[("metadata", "p", "kb", "m1")] is ABSENT
    assert facts[("metadata", "p", "kb", "m2")] == "v2"


def test_where_a_new_row_goes_is_learnt_not_assumed():
    model = board()
    model.learn(("rows", "p"), ["ra", "rb", "rc"], first=True)
    model.create_row("p", "rd", "row d")
    assert model.facts()[("rows", "p")] == ["ra", "rb", "rc"]  # rd's place is open
    model.learn(("rows", "p"), ["rd", "ra", "rb", "rc"])
    assert model.facts()[("rows", "p")] == ["rd", "ra", "rb", "rc"]


def test_an_alias_keeps_the_cards_columns_and_may_add_one():
    model = board()
    model.alias_card("p", "kb")
    held = model.facts()[("card-columns", "p", "kb")]
    assert dict(held) == {"cb": "column b"} and type(held).__name__ == "AtLeast"


def test_a_renamed_column_shows_its_new_name_in_its_cards():
    model = board()
    act = model.rename_column("p", "cb", "renamed")
    assert model.facts()[("card-columns", "p", "ka")] == {"cb": "renamed"}
    assert act.requirement(("card-columns", "p", "ka")) == "COLUMN-RENAME"
