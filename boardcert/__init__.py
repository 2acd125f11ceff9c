"""boardcert: a conformance suite for Board Project Service Interface servers."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("boardcert")
except PackageNotFoundError:  # running from a checkout that was not installed
    __version__ = "0.0.0+checkout"

INTERFACE_VERSION = "0.0.1"

__all__ = ["INTERFACE_VERSION", "__version__"]
