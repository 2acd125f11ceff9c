"""boardcert: a conformance suite for Board Project Service Interface servers."""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version

# httpx imports its command-line client (click, rich and pygments: 1% of a quick run's
# instructions) unless that import fails, as it does without them: boardcert never runs it.
# (A speed patch made here, before anything imports httpx; the speed plugin checks that it
# took: boardcert.speed.patches.httpx_command_line.)
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

try:
    __version__ = version("boardcert")
except PackageNotFoundError:  # running from a checkout that was not installed
    __version__ = "0.0.0+checkout"

INTERFACE_VERSION = "0.0.1"

__all__ = ["INTERFACE_VERSION", "__version__"]
