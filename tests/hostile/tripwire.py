"""A pytest plugin (`-p hostile.tripwire`) that notes, in the file named by HOSTILE_TRIPWIRE,
each launch of the bundled reference server: one line "<pid> <base URL>" per start, from
whichever process (xdist controller or worker) started it."""

from __future__ import annotations

import os
from typing import Any

import boardcert.reference.server as reference

_launch = reference.launch  # start() launches through it too


def _noted_launch(*args: Any, **kwargs: Any) -> Any:
    server = _launch(*args, **kwargs)
    with open(os.environ["HOSTILE_TRIPWIRE"], "a", encoding="utf-8") as log:
        log.write(f"{os.getpid()} {server.base_url}\n")
    return server


reference.launch = _noted_launch
