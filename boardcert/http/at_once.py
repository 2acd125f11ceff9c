"""Requests sent at the same moment, as several clients writing to one board would send them
(CONCURRENT-CREATIONS-KEPT): each in a thread of its own, all released together by a barrier,
each through the suites' `Client`, so its key masking, deadline, 429 retries and log hold.
What the server does with them is what a test judges: this is not a way to go faster."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

from boardcert.errors import ExchangeError

T = TypeVar("T")
START_WITHIN = 30.0  # seconds for every thread to reach the barrier
_groups = itertools.count(1)
_local = threading.local()


def group() -> int | None:
    """Which call of `at_once` the calling thread sends for (the client marks its exchanges
    with it: a failure's reproduction sends them together again), None outside one."""
    return getattr(_local, "group", None)


def at_once(sends: Sequence[Callable[[], T]]) -> list[T | ExchangeError]:
    """Call every one of `sends` at the same moment; their results in order (a request that got
    no usable answer: its ExchangeError). Any other exception is raised here, after all end."""
    barrier = threading.Barrier(len(sends))
    results: list[T | ExchangeError | None] = [None] * len(sends)
    raised: list[BaseException] = []
    together = next(_groups)

    def run(index: int, send: Callable[[], T]) -> None:
        _local.group = together
        try:
            barrier.wait(START_WITHIN)
            results[index] = send()
        except ExchangeError as exc:
            results[index] = exc
        except BaseException as exc:  # noqa: BLE001 - raised in the caller's thread below
            raised.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=run, args=(i, send), name=f"boardcert-at-once-{i}")
               for i, send in enumerate(sends)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if raised:
        raise raised[0]
    return results  # type: ignore[return-value]  # every slot is filled when nothing raised
