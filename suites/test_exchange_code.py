"""Operation 28, exchange-code: it answers a userToken (of any form) and no longer an accessToken.

The profile's code is exchanged once for the module (a server may accept a code only once) and
both requirements are read from that one answer.
"""

from __future__ import annotations

import pytest

from boardcert.conformance import Exchange, NotAssessed, expect, fill


@pytest.fixture(scope="module")
def exchanged(api, profile, make_project, make_row, make_column, make_card) -> Exchange:
    """Operation 28 with the profile's plugin id, an entity of this run and the profile's code."""
    plugin_id, code = profile.get("plugin_id"), profile.get("exchange_code")
    template = profile.get("entity_id")
    project = make_project()
    card = make_card(project, make_column(project, make_row(project)))
    values = {"card_id": card.id, "project_id": project.id, "plugin_id": plugin_id,
              "code": code}
    entity_id = fill(template, values, "entity_id")
    return api.call(28, pluginId=plugin_id, entityId=entity_id,
                    json=api.body("exchange_code", **values, entity_id=entity_id))


@pytest.mark.requirement("EXCHANGE-USER-TOKEN")
def test_exchange_code_answers_a_user_token(exchanged):
    """Operation 28 with a code the server accepts answers an object with userToken, not null."""
    expect.shaped(exchanged, 28, "EXCHANGE-USER-TOKEN")


@pytest.mark.requirement("EXCHANGE-USER-TOKEN-FORM")
def test_user_token_form_is_recorded(exchanged, observe):
    """What userToken is (a string, an object, ...) is recorded: its type is not shown."""
    body = exchanged.json() if exchanged.status == 200 and exchanged.content else None
    if not isinstance(body, dict) or "userToken" not in body:
        raise NotAssessed(f"the form of userToken (op 28 answered {exchanged.status} without "
                          "one; see EXCHANGE-USER-TOKEN)")
    token = body["userToken"]
    forms = {str: "a string", bool: "a boolean", int: "a number", float: "a number",
             list: "an array"}
    form = f"an object with keys {sorted(token)}" if isinstance(token, dict) \
        else forms.get(type(token), f"JSON {token!r}")
    observe("EXCHANGE-USER-TOKEN-FORM", f"op 28 answers userToken as {form}")


@pytest.mark.requirement("EXCHANGE-NO-ACCESS-TOKEN")
def test_exchange_code_answers_no_access_token(exchanged):
    """The exchange-code response dropped accessToken: it has no accessToken property."""
    expect.shaped(exchanged, 28, "EXCHANGE-NO-ACCESS-TOKEN")
