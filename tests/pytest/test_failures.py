"""Failures are data (boardcert/errors.py, boardcert/pytest/failures.py): a Violation carries its
requirement ids and exchanges; what is a check about the server and what is boardcert's bug."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis.errors import FlakyStrategyDefinition

from boardcert.errors import (
    ConfigError,
    ExchangeError,
    NotAssessed,
    SetUpError,
    Violation,
    violations,
)
from boardcert.http.client import Exchange
from boardcert.pytest.failures import describe, is_bug, is_check
from boardcert.workbench import checks, expect

ANSWER = Exchange("PATCH", "http://127.0.0.1:1/projects/p/cards/c", {"X-API-Key": "***"},
                  b'{"name": 1}', status=500, content=b"boom")


def test_expect_fail_carries_the_requirement_and_the_exchange():
    """expect.fail raises a Violation (an AssertionError) naming the requirement as data."""
    served = dataclasses.replace(ANSWER, status=200)  # a 2xx breaks the MUST (a 5xx: ae818f9)
    with pytest.raises(AssertionError) as raised:
        expect.rejected(served, "CARD-NAME-STRING", "a name that is not a string")
    assert isinstance(raised.value, Violation)
    assert raised.value.requirements == ("CARD-NAME-STRING",)
    assert raised.value.exchanges == [served.as_dict()]
    assert "request:" not in str(raised.value)  # the evidence is data, not message text


def test_assert_ok_names_every_broken_requirement():
    """assert_ok's Violation names each requirement whose check found a problem."""
    with pytest.raises(Violation) as raised:
        checks.assert_ok(16, {"id": "c"}, ANSWER)
    assert set(raised.value.requirements) >= {"CARD-URL-FLAIR", "CARD-FIELD-TYPES"}
    assert raised.value.exchanges == [ANSWER.as_dict()]


def test_violations_are_found_in_nested_exception_groups():
    """Hypothesis and schemathesis raise groups: every member's violations are collected."""
    one, two = Violation("a", ["NO-SERVER-ERROR"]), Violation("b", ["CARD-FIELD-TYPES"])
    group = ExceptionGroup("x", [one, ExceptionGroup("y", [two, KeyError("k")])])
    assert violations(group) == [one, two]
    assert violations(KeyError("k")) == []


@pytest.mark.parametrize(("exc", "check", "bug"), [
    (Violation("x"), True, False),
    (ExchangeError("request failed"), True, False),
    (SetUpError("set-up: op 15 answered 500"), False, False),
    (AssertionError("assert 1 == 2"), True, False),
    (ExceptionGroup("x", [Violation("a"), AssertionError("b")]), True, False),
    (KeyError("rows"), False, True),
    (TypeError("unhashable"), False, True),
    (FlakyStrategyDefinition("Inconsistent data generation!"), False, True),
    (ExceptionGroup("x", [Violation("a"), KeyError("b")]), False, True),
    (ConfigError("bodies.x: unknown placeholder"), False, False),
    (NotAssessed("bodies.x"), False, False),
    (ConnectionResetError("reset by peer"), False, False),
], ids=lambda v: type(v).__name__ if isinstance(v, BaseException) else str(v))
def test_a_check_about_the_server_or_a_bug_in_boardcert(exc, check, bug):
    """Assertions are checks about the server; any other exception but a misconfiguration,
    a missing profile value or a broken connection is a bug in boardcert."""
    assert (is_check(exc), is_bug(exc)) == (check, bug)


def test_a_bug_is_described_on_one_short_line():
    assert describe(KeyError("rows")) == "KeyError: 'rows'"
    text = describe(ValueError("x\n" * 400))
    assert "\n" not in text and len(text) < 330 and text.startswith("ValueError: x x")
