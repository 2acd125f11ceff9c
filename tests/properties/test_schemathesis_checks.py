"""boardcert.properties.schemathesis_checks: boardcert's own checks as schemathesis checks (the
key check is proven in test_sending.py, which sends through the client)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from boardcert import properties
from boardcert.properties.schemathesis_checks import json_payload
from boardcert.workbench import checks


def test_boardcert_checks_are_registered_schemathesis_checks():
    """Each check of boardcert.workbench.checks runs in schemathesis as boardcert_<name>, on the
    operations whose 200 schema it applies to only."""
    from schemathesis.checks import CHECKS

    names = set(CHECKS.get_all_names())
    assert {f"boardcert_{c.name}" for c in checks.CHECKS} <= names
    top_level, _ = properties.BOARDCERT_CHECKS["boardcert_project_top_level"]
    wrapped = _Response(200, {"project": {"id": "1"}})
    with pytest.raises(AssertionError, match="not at the top level"):
        top_level(None, wrapped, _case(3))
    top_level(None, wrapped, _case(15))  # a Card operation: not this check's business
    top_level(None, _Response(404, {}), _case(3))  # only 2xx bodies are judged


def test_a_2xx_body_of_an_operation_whose_response_is_not_shown_must_parse_as_json():
    """boardcert_json_payload: no body or a JSON one passes; a body that is not JSON fails
    with its content type named; refusals are not its business."""
    def answer(status: int, content: bytes, kind: str = "text/html") -> Any:
        return SimpleNamespace(status_code=status, content=content,
                               headers={"content-type": [kind]})

    json_payload(None, answer(200, b""), None)
    json_payload(None, answer(200, b'{"ok": true}', "application/json"), None)
    json_payload(None, answer(404, b"<html>not found</html>"), None)
    with pytest.raises(AssertionError, match=r"\(text/html\) is not JSON"):
        json_payload(None, answer(200, b"<html>ok</html>"), None)


class _Response:
    def __init__(self, status: int, body: Any) -> None:
        self.status_code, self._body = status, body

    def json(self) -> Any:
        return self._body


def _case(number: int) -> Any:
    return SimpleNamespace(operation=SimpleNamespace(definition=SimpleNamespace(
        raw={"x-operation": number})))
