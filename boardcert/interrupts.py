"""SIGTERM as Ctrl-C: what a CI job cancelled or timed out, `kill`, `timeout` or `docker stop`
send ends a run as Ctrl-C does, its clean-up included (boardcert.pytest.cleanup lets a test
that creates things finish, then the run stops and deletes what it created).

The first SIGTERM does what SIGINT does at that moment; those after it are ignored (a signal
to the run's whole process group reaches a worker twice: itself, and through the process
pytest-xdist started for it), so that the clean-up can end; Ctrl-C or SIGKILL still stop it at
once. `boardcert run` turns it on in its own process (boardcert.cli.exits.interrupting), the
workers as they configure (boardcert.pytest.cleanup)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from typing import Any


def sigterm_as_ctrl_c() -> Callable[[], None]:
    """Turned on in this process (in its main thread; elsewhere nothing); returns the undo."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    received: list[int] = []

    def terminated(signum: int, frame: Any) -> None:
        if received:
            return
        received.append(signum)
        handler = signal.getsignal(signal.SIGINT)
        if not callable(handler):  # SIGINT ignored (a job started with `&`) or not Python's
            raise KeyboardInterrupt
        handler(signal.SIGINT, frame)

    before = signal.signal(signal.SIGTERM, terminated)
    return lambda: signal.signal(signal.SIGTERM, before)
