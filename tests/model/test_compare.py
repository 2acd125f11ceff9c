"""The observer reads a Project of either shape into the model's facts, and the comparison
names what differs, the requirement it breaks, and only what a reading has shown before."""

from __future__ import annotations

from boardcert.model import ABSENT, OTHERS, Board, Sight, Vision
from boardcert.model.compare import agrees, differences, failure
from boardcert.model.observe import project_sight


def model() -> Board:
    board = Board()
    board.create_project("p", "project")
    for r in "abc":
        board.create_row("p", f"r{r}", f"row {r}")
    for c in "ab":
        board.create_column("p", "rb", f"c{c}", f"column {c}")
    for k in "ab":
        board.create_card("p", "ca", f"k{k}", f"card {k}")
    board.add_metadata("p", "kb", "m1", "v1")
    return board


def reference_shape(board: Board, **renamed: str) -> dict:
    """A Project as the bundled server answers it (row records with columns)."""
    p = board.projects["p"]
    names = {r.id: r.name for r in p.rows} | renamed
    return {"id": "p", "name": p.name, "createdAt": "t", "updatedAt": "u",
            "rows": [{"id": r.id, "name": names[r.id], "columns": [
                {"id": c.id, "name": c.name} for c in r.columns]} for r in p.rows],
            "cards": [{"id": c.id, "name": c.name, "columns": [{"id": "ca", "name": "column a"}],
                       "metadata": [{"id": k, "value": v} for k, v in c.metadata.items()]}
                      for c in p.cards.values()],
            "plugins": []}


def other_shape(board: Board) -> dict:
    """A Project as another server answers it: rowName, columns carrying cardIds, metadata
    with ids of its own and the key beside, integer times, an embedded organization."""
    p = board.projects["p"]
    return {"organization": {"id": "o", "name": "org", "createdAt": 1}, "id": "p",
            "name": p.name, "createdAt": 1, "updatedAt": 2,
            "rows": [{"id": r.id, "rowName": r.name, "columns": [
                {"id": c.id, "columnName": c.name, "cardIds": ["ka", "kb"]} for c in r.columns]}
                for r in p.rows],
            "cards": [{"id": c.id, "name": c.name, "columns": [{"id": "ca", "name": "column a"}],
                       "metadata": [{"id": f"uuid-{k}", "key": k, "value": v}
                                    for k, v in c.metadata.items()], "aliases": []}
                      for c in p.cards.values()],
            "plugins": [{"id": "time-tracker"}]}


def sight(board: Board, body: dict, id_is_key: bool = True) -> Sight:
    seen = Sight("op 3", None)
    project_sight(seen, body, board.projects["p"], board, id_is_key)
    return seen


def test_either_shape_reads_as_the_model_says():
    board = model()
    for body, id_is_key in ((reference_shape(board), True), (other_shape(board), False)):
        seen = sight(board, body, id_is_key)
        facts = board.facts()
        assert seen.seen[("row-name", "p", "rb")] == "row b"
        assert seen.seen[("columns", "p", "rb")] == ["ca", "cb"]
        assert seen.seen[("metadata", "p", "kb", "m1")] == "v1"
        assert not [f for f, v in seen.seen.items() if f in facts and not agrees(facts[f], v)]


def test_a_rename_of_the_wrong_row_is_named_with_its_requirement():
    board = model()
    vision = Vision()
    vision.update(board, [sight(board, reference_shape(board))])
    act = board.rename_row("p", "rb", "new")
    wrong = sight(board, reference_shape(board, ra="new", rb="row b"))
    found = differences(board, [wrong], act, vision)
    assert {(d.fact, d.requirement) for d in found} == {
        (("row-name", "p", "ra"), OTHERS), (("row-name", "p", "rb"), "ROW-RENAME")}
    message = str(failure(board, act, found))
    assert message.startswith("[ROW-RENAME] op 10 renamed row 2 of 3")
    assert "row 1 of 3 reads 'new' as its name, not 'row a' (in op 3)" in message


def test_what_no_reading_has_shown_is_not_held_against_the_server():
    board = model()
    act = board.rename_row("p", "rb", "new")
    body = reference_shape(board, ra="new", rb="row b")
    assert differences(board, [sight(board, body)], act, Vision()) == []


def test_a_removed_entry_still_there_is_a_difference():
    board = model()
    vision = Vision()
    vision.update(board, [sight(board, reference_shape(board))])
    body = reference_shape(board)
    act = board.remove_metadata("p", "kb", "m1")
    [found] = differences(board, [sight(board, body)], act, vision)
    assert (found.requirement, found.expected, found.seen) == ("CARD-METADATA-REMOVE", ABSENT,
                                                               "v1")
