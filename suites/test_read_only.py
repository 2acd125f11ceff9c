"""--read-only: a smoke check of a server in production, sending nothing but GET.

It reads what the key can see: op 1 (GET /users/me), and ops 3 and 6 on a project that exists
already (`--project-id`, else the currentProject of op 1), each answering 200 with JSON in the
shapes `boardcert.workbench.checks` applies; and the key is demanded (ops 1 and 3 without one get a
4xx). These tests run only under --read-only: a full run checks the same on its own board.
"""

from __future__ import annotations

import pytest

from boardcert.conformance import checks, expect

pytestmark = [pytest.mark.read_only, pytest.mark.read_only_check]


def _shape(number: int) -> pytest.MarkDecorator:
    """The requirements of a 200 with JSON in the operation's shape."""
    ids = dict.fromkeys(["SUCCESS-STATUS-200", "JSON-RESPONSES",
                         *(c.requirement for c in checks.checks_for(number))])
    return pytest.mark.requirement(*ids, op=number)


@_shape(1)
def test_users_me_is_read(api):
    """Op 1 answers 200 with JSON: currentOrganization, currentProject, organizations, and no
    accessTokens."""
    expect.shaped(api.call(1), 1)


@_shape(3)
def test_project_is_read(readable_project):
    """Op 3 on an existing project answers 200 with JSON: a Project with its fields at the top
    level, not wrapped."""
    expect.shaped(readable_project.exchange, 3)


@_shape(6)
def test_rows_are_read(api, readable_project):
    """Op 6 on an existing project answers 200 with JSON: an object with rows."""
    expect.shaped(api.call(6, projectId=readable_project.id), 6)


@pytest.mark.parametrize("number", [
    pytest.param(n, marks=pytest.mark.requirement("AUTH-KEY-REQUIRED", op=n), id=f"op{n}")
    for n in (1, 3)])
def test_a_read_without_the_key_is_refused(number, api, request):
    """Ops 1 and 3 without X-API-Key answer a 4xx."""
    path = {"projectId": request.getfixturevalue("readable_project").id} if number == 3 else {}
    expect.rejected(api.call(number, key=None, **path), "AUTH-KEY-REQUIRED",
                    f"op {number} without X-API-Key")
