"""boardcert.interface.spec: each operation of spec/openapi.yaml with what the suite needs of it,
read
from the document (section 4 of the interface)."""

from __future__ import annotations

from boardcert.interface import spec


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
