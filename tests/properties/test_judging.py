"""boardcert.properties.judging: what each operation's checks prove, and which requirement a
schemathesis failure breaks (none for what the interface leaves open)."""

from __future__ import annotations

from collections import Counter

import pytest

from boardcert import properties
from boardcert.interface import requirements, spec
from boardcert.properties.judging import JUDGED_ON_REFUSALS, in_order, unchecked


@pytest.mark.parametrize("number", range(1, 29))
def test_each_operation_names_only_known_non_info_requirements(number):
    """A per-operation item proves requirements of the catalogue, never an INFO one."""
    catalogue = requirements.catalogue()
    ids = properties.requirement_ids(number)
    assert ids and len(ids) == len(set(ids))
    assert all(catalogue[i].level != "INFO" for i in ids)
    if spec.operation(number).body_shown:
        assert "JSON-RESPONSES" in ids


def test_op16_names_its_exact_body_rules():
    """Only op 16's body is exact, so only its item claims the card-name rejections."""
    assert set(properties.NAME_REQUIREMENTS) <= set(properties.requirement_ids(16))
    assert not set(properties.NAME_REQUIREMENTS) & set(properties.requirement_ids(15))


def test_failures_map_to_requirements_and_choices_left_open_are_no_failures():
    """A 201 breaks SUCCESS-STATUS-200, a 3xx does not (the interface names no status for
    it); a content type is no property test's failure (JSON-MEDIA-TYPE is judged by
    test_general: a SHOULD must not stop an item's MUST checks)."""
    from schemathesis.openapi.checks import UndefinedContentType, UndefinedStatusCode

    info = properties.CaseInfo(positive=True, probe=False, rejection=None)

    def status(code: int) -> str | None:
        failure = UndefinedStatusCode(operation="op", status_code=code, message="",
                                      defined_status_codes=["200"], allowed_status_codes=[200])
        return properties.requirement_of(failure, 3, info, code)

    def content_type(value: str) -> str | None:
        failure = UndefinedContentType(operation="op", content_type=value, message="",
                                       defined_content_types=["application/json"])
        return properties.requirement_of(failure, 3, info, 200)

    assert status(201) == status(204) == "SUCCESS-STATUS-200"
    assert status(302) is None
    assert content_type("application/vnd.board+json; charset=utf-8") is None
    assert content_type("text/plain") is None


def test_what_answers_leave_unchecked_is_not_counted_as_checked():
    """An operation no request reached leaves every named requirement unchecked; one that only
    refused leaves all but what a refusal proves; one that answered a 2xx leaves only what its
    checks never judge (a requirement of another operation, as the stateful test names)."""
    named = [*properties.requirement_ids(3), "CARD-RENAME"]
    nothing = unchecked({}, named, [3])
    assert set(nothing) == set(named)
    assert all("no generated request was sent" in why[3] for why in nothing.values())
    refused = unchecked({3: Counter({401: 2})}, named, [3])
    assert set(refused) == set(named) - JUDGED_ON_REFUSALS
    assert "statuses seen: 401 x 2" in refused["PROJECT-TOP-LEVEL"][3]
    answered = unchecked({3: Counter({401: 1, 200: 1})}, named, [3])
    assert answered == {"CARD-RENAME": {3: "op 3: its checks do not judge it"}}


def test_a_violation_lists_its_failures_in_one_order_whatever_the_set_gave():
    """schemathesis hands the failures over as a set (its order follows PYTHONHASHSEED): the
    violation lists them by requirement, check and text, so its message is the same every run."""
    from schemathesis.core.failures import CustomFailure
    from schemathesis.openapi.checks import UndefinedStatusCode

    schema = UndefinedStatusCode(operation="op", status_code=201, message="201 is not 200",
                                 defined_status_codes=["200"], allowed_status_codes=[200])
    custom = CustomFailure(operation="op",
                           title="Custom check failed: `boardcert_card_field_types`",
                           message="body.id: 23 is not of type 'string'",
                           exception=AssertionError())
    found = [("CARD-FIELD-TYPES", schema), ("CARD-FIELD-TYPES", custom), ("AUTH-X", schema)]
    assert in_order(found) == in_order(found[::-1]) == in_order(found[1:] + found[:1])
    assert in_order(found)[0][0] == "AUTH-X"
