"""Operation 1, GET /users/me: the current user, organizations and current project."""

from __future__ import annotations

import pytest

from boardcert.conformance import expect


@pytest.mark.read_only
@pytest.mark.requirement("USERS-ME-PROPERTIES")
def test_users_me_has_the_three_properties(api):
    """Op 1 answers an object with currentOrganization, currentProject and organizations."""
    expect.shaped(api.call(1), 1, "USERS-ME-PROPERTIES")


@pytest.mark.read_only
@pytest.mark.requirement("USERS-ME-NO-ACCESS-TOKENS")
def test_users_me_carries_no_access_tokens(api):
    """The user record returned by operation 1 no longer carries an accessTokens property."""
    expect.shaped(api.call(1), 1, "USERS-ME-NO-ACCESS-TOKENS")
