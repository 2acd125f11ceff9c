"""Exceptions of boardcert.

    BoardcertError
    ├── ConfigError          a flag, environment variable or profile key is wrong (exit 2)
    ├── UnreachableError     the target cannot be reached at all (exit 3)
    └── CompatError          an installed library no longer has an internal that what is
                             generated depends on (boardcert.compat): the run stops (exit 2)
    NotAssessed              a test lacks what it needs (a profile value, --read-only): the
                             test is skipped "not assessed" (also
                             boardcert.settings.config.NotAssessed)
    AssertionError
    └── Violation            the server broke a requirement (a test failure); carries the ids of
        │                    the requirements it breaks and the exchanges that show it
        ├── ExchangeError    one request got no usable response (timeout, reset, oversized body)
        ├── SetUpError       the server would not make what a test needs (a factory's request
        │                    failed): the test errors, its requirements are not assessed; the
        │                    creating operation's own tests judge that operation
        └── PropertyViolation (boardcert.properties) a generated request got an answer the
                             interface does not allow; one subclass per requirement

A failure is data: the report reads `requirements` and `exchanges`, never the message. Any
other exception in a test (a KeyError, a TypeError, a Hypothesis error) is boardcert's own
error, reported as a bug in boardcert, never as something the server did.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class BoardcertError(Exception):
    """Base of boardcert's own errors."""


class ConfigError(BoardcertError):
    """A misconfigured run; the message names the flag or profile key."""


class UnreachableError(BoardcertError):
    """The target answers nothing at all."""


class CompatError(BoardcertError):
    """A library's internal that boardcert's determinism or correctness rests on is gone or
    changed (boardcert.compat); the run stops rather than generate something else."""


class NotAssessed(Exception):
    """A test needs a profile value that is absent; the test is reported not assessed.

    `key`: what it lacks, in words; `lacks`: the profile keys it needed that the profile does
    not give; `misfit`: the profile keys whose values the server refused (set them);
    `read_only`: it would change the server, and the run is --read-only."""

    def __init__(self, key: str, lacks: Iterable[str] = (), misfit: Iterable[str] = (),
                 read_only: bool = False) -> None:
        super().__init__(f"not assessed: {key}")
        self.key = key
        self.read_only = read_only
        self.lacks: tuple[str, ...] = tuple(lacks)
        self.misfit: tuple[str, ...] = tuple(misfit)


class Violation(AssertionError):
    """A check about the server failed.

    `requirements`: the ids it breaks (none: it counts against the test's requirements);
    `exchanges`: the evidence, as `Exchange.as_dict()` dicts (key already redacted);
    `conditions`: what makes the failure, as data (boardcert.interface.conditions), for the
    reproduction that judges it again; `sent`: the Exchange objects themselves."""

    traceback = True  # pytest shows where it was raised; False: the message alone says it all
    scene = True  # the test's earlier requests set the scene (False: a generated example)
    last = False  # raised by a test's last check (the whole board after its write): the
    # requirements the test names and this failure does not were checked, and held, before it

    def __init__(self, message: str, requirements: Iterable[str] = (),
                 exchanges: Iterable[Any] = (), conditions: Iterable[dict[str, Any]] = ()
                 ) -> None:
        super().__init__(message)
        exchanges = list(exchanges)
        self.requirements: tuple[str, ...] = tuple(dict.fromkeys(requirements))
        self.exchanges: list[dict[str, Any]] = [
            e.as_dict() if hasattr(e, "as_dict") else dict(e) for e in exchanges]
        self.sent: list[Any] = [e for e in exchanges if hasattr(e, "as_dict")]
        self.conditions: list[dict[str, Any]] = list(conditions)


class ExchangeError(Violation):
    """A request got no usable response (timeout, reset, oversized body); carries evidence."""


class SetUpError(Violation):
    """The server would not make what a test needs: not a failure of the test's requirements
    (the test errors: they are not assessed); carries the exchange that shows it."""


def violations(exc: BaseException) -> list[Violation]:
    """The violations an exception is or holds (an exception group's, at any depth)."""
    if isinstance(exc, Violation):
        return [exc]
    if isinstance(exc, BaseExceptionGroup):
        return [v for inner in exc.exceptions for v in violations(inner)]
    return []

