"""Exceptions of boardcert.

    BoardcertError
    ├── ConfigError          a flag, environment variable or profile key is wrong (exit 2)
    ├── UnreachableError     the target cannot be reached at all (exit 3)
    └── ExchangeError        one request failed at the transport level (a test failure)
"""

from __future__ import annotations


class BoardcertError(Exception):
    """Base of boardcert's own errors."""


class ConfigError(BoardcertError):
    """A misconfigured run; the message names the flag or profile key."""


class UnreachableError(BoardcertError):
    """The target answers nothing at all."""


class ExchangeError(BoardcertError, AssertionError):
    """A request got no usable response (timeout, reset, oversized body); carries evidence."""
