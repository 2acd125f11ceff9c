"""boardcert.interface.spec: each operation of spec/openapi.yaml with what the suite needs of it,
read
from the document (section 4 of the interface)."""

from __future__ import annotations

import re
from pathlib import Path

from boardcert.interface import spec
from boardcert.settings.config import PLACEHOLDERS


def test_twenty_eight_operations_in_order():
    """Operations are keyed 1..28 by their row in section 4."""
    assert list(spec.operations()) == list(range(1, 29))
    assert spec.operation(16).label == "PATCH /projects/{projectId}/cards/{cardId}"


def test_response_body_shown_where_the_interface_shows_it():
    """The 200 body is "not shown" for ops 4, 21, 22, 25, 26 and 27 only."""
    hidden = [n for n, op in spec.operations().items() if not op.body_shown]
    assert hidden == [4, 21, 22, 25, 26, 27]
    assert spec.operation(3).response_schema == "Project"  # through components/responses
    assert spec.operation(28).response_schema == "ExchangeCodeResponse"


def test_request_bodies_and_their_profile_keys():
    """Ops with a body say whether its shape is shown, and which profile body they send."""
    assert not spec.operation(1).takes_body and spec.operation(1).profile_body is None
    assert spec.operation(15).takes_body and not spec.operation(15).body_schema_shown
    assert spec.operation(15).profile_body == "create_card"
    assert spec.operation(16).body_schema_shown and spec.operation(16).profile_body is None
    bodies = [op for op in spec.operations().values() if op.profile_body]
    assert all(op.takes_body and not op.body_schema_shown or op.number in (18, 19, 22)
               for op in bodies)


def test_links_lead_from_creation_to_what_uses_it():
    """The 200 links of op 2 (create a project) lead to ops that take its projectId."""
    links = spec.operation(2).links
    assert {3, 4, 5, 7} <= set(links)
    assert all("{projectId}" in spec.operation(n).path for n in links)
    assert spec.operation(26).links == ()


def test_the_name_limit_is_the_spec_s_max_length():
    """Section 8's one limit (op 16's name, 25000) is read from the maxLength of the spec."""
    assert spec.name_limit() == (16, 25000)


def section_4() -> dict[int, dict[str, str]]:
    """The rows of section 4's table of spec/interface.md, by number."""
    text = (Path(__file__).resolve().parents[2] / "spec" / "interface.md").read_text()
    rows = re.findall(r"^\| (\d+) \| (\w+) \| (\S+) \| ([^|]*) \| ([^|]*) \|$", text, re.M)
    return {int(n): {"method": m, "path": p, "request": r, "response": a}
            for n, m, p, r, a in rows}


def test_section_4_is_read_whole():
    """The table of section 4 has a row for each of the 28 operations, as the spec has them."""
    table = section_4()
    assert sorted(table) == list(range(1, 29))
    assert all(spec.operation(n).path == row["path"] for n, row in table.items())


def test_profile_keys_are_the_parameters_the_interface_gives_no_value():
    """x-profile-key: an operation needs the profile's plugin_id where its path has pluginId,
    and its entity_id where its path or request names entityId (ops 23-28)."""
    for number, row in section_4().items():
        keys = spec.operation(number).profile_keys
        assert ("plugin_id" in keys) == ("{pluginId}" in row["path"]), number
        assert ("entity_id" in keys) == ("entityId" in row["path"] + row["request"]), number
    assert spec.profile_parameters() == {"pluginId": "plugin_id", "entityId": "entity_id"}


def test_a_parameter_of_unshown_position_is_placed_by_the_profile():
    """x-profile-place: only op 27's entityId, "whose position is not shown"; the profile's
    plugin_data_entity_id places it."""
    placed = {n: op.placed for n, op in spec.operations().items() if op.placed}
    assert placed == {27: ("entityId", "plugin_data_entity_id")}
    assert [n for n, row in section_4().items() if "position is not shown" in row["request"]] \
        == [27]


def test_project_values_are_what_an_order_or_a_move_names():
    """x-project-values: an order of rows (op 8) or columns (op 12) names them all; a move
    (ops 18, 19: the body has afterCardId and beforeCardId, rule 3) and an alias (op 20) name
    cards of the project; move by metadata its metadata too. Each is a placeholder of the
    profile's bodies (config.PLACEHOLDERS) and its operation sends a profile body."""
    table = section_4()
    valued = {n: set(op.project_values) for n, op in spec.operations().items()
              if op.project_values}
    assert valued[8] == {"row_ids"} and table[8]["path"].endswith("/order-rows")
    assert valued[12] == {"column_ids"} and table[12]["path"].endswith("/order-columns")
    moves = [n for n, row in table.items() if "afterCardId, beforeCardId" in row["request"]]
    assert moves == [18, 19]
    cards = {"card_ids", "after_card_id", "before_card_id", "other_column_id"}
    assert valued[18] == valued[20] == cards and valued[19] == cards | {"key", "value"}
    assert sorted(valued) == [8, 12, 18, 19, 20]
    assert all(spec.operation(n).profile_body for n in valued)
    assert set().union(*valued.values()) <= set(PLACEHOLDERS)


def test_body_properties_are_those_section_4_names():
    """An operation's body_properties are what section 4 says its body has (op 16's name, the
    ids and anchors of ops 18 and 19); a body not shown names none."""
    named = {n: op.body_properties for n, op in spec.operations().items() if op.body_properties}
    assert named == {16: ("name",), 18: ("ids", "afterCardId", "beforeCardId"),
                     19: ("afterCardId", "beforeCardId")}
    for number, properties in named.items():
        assert all(p in section_4()[number]["request"] for p in properties), number


def test_moves_take_anchors():
    """Rule 3 of section 4: ops 18 and 19 take afterCardId and beforeCardId; no other does."""
    assert [n for n, op in spec.operations().items() if op.anchored] == [18, 19]
