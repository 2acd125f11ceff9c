"""Passes that must be earned (issue 24): a check that cannot fail on a server passes nothing
there. Against a server on which a request with the key fails too, the keyless refusals of
that request are not assessed, never passed (the faults of faults/earned.py prove the other
direction: what these checks must still catch)."""

from __future__ import annotations

from pathlib import Path

from faults import Variant, certify
from faults.asgi import Forward, Request, Response
from faults.edits import error, on, refuse

AUTH = ("AUTH-KEY-REQUIRED", "AUTH-REJECTED-CHANGES-NOTHING", "AUTH-VALID-KEY-ACCEPTED")


async def _own_row_order(request: Request, forward: Forward) -> Response:
    """Op 8 takes the order under rowSequence only (no body discovery tries), refusing any
    other body with 422; without a valid key it is refused first, as every listed operation."""
    body = request.json()
    if not (isinstance(body, dict) and isinstance(body.get("rowSequence"), list)):
        return error(422, "invalid request")
    return await forward(request.but(json_body={"ids": body["rowSequence"]}))


OWN_ROW_ORDER = Variant("own-row-order", "op 8 takes its body as rowSequence only", None,
                        lambda _key: on(8, _own_row_order))


def test_a_keyless_refusal_counts_only_where_the_key_succeeds(tmp_path: Path):
    """Op 8 with the key refuses the profile's body (and every body discovery tries): its
    keyless requests are refused too, which says nothing of the key, so the three key
    requirements are not assessed on op 8, with the profile key to set; never passed."""
    result = certify(OWN_ROW_ORDER, tmp_path, select=" or ".join(AUTH))
    for requirement in AUTH:
        assert result.statuses[requirement] == "not assessed", result.summary()
        message = result.messages[requirement]
        assert message.startswith("not assessed on op 8:"), result.summary()
        assert "set bodies.order_rows in your profile" in message, result.summary()


PLUGIN_OPS = (23, 24, 25, 26, 27, 28)
UNKNOWN_PLUGIN = Variant("unknown-plugin", "the profile's plugin is unknown: 404 Not Found at "
                         "ops 23-28, a message that names nothing", None,
                         lambda _key: on(set(PLUGIN_OPS), refuse(404, "Not Found")))


def test_a_404_to_the_profiles_plugin_is_not_a_missing_operation(tmp_path: Path):
    """A server that does not know the profile's plugin answers 404 at ops 23-28, its message
    naming nothing: OPERATION-IMPLEMENTED is not assessed there (set plugin_id, entity_id,
    exchange_code), not failed; the verdict is incomplete and names plugin_id."""
    result = certify(UNKNOWN_PLUGIN, tmp_path, select="OPERATION-IMPLEMENTED")
    assert result.statuses["OPERATION-IMPLEMENTED"] == "not assessed", result.summary()
    message = result.messages["OPERATION-IMPLEMENTED"]
    assert message.startswith("not assessed on ops 23, 24, 25, 26, 27, 28:"), result.summary()
    assert "set plugin_id in your profile" in message, result.summary()
    assert result.verdict == "incomplete", result.summary()
    assert "plugin_id in your profile" in result.reason, result.summary()
