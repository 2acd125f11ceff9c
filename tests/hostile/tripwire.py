"""A pytest plugin (`-p hostile.tripwire`) that notes, in the file named by HOSTILE_TRIPWIRE,
each start of the bundled reference server: one line "<pid> <base URL>" per start, from
whichever process (xdist controller or worker) started it."""

from __future__ import annotations

import os
from typing import Any

import boardcert.reference.server as reference

_start = reference.start


def _noted_start(*args: Any, **kwargs: Any) -> Any:
    server = _start(*args, **kwargs)
    with open(os.environ["HOSTILE_TRIPWIRE"], "a", encoding="utf-8") as log:
        log.write(f"{os.getpid()} {server.base_url}\n")
    return server


reference.start = _noted_start
