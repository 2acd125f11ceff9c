"""How many test workers (pytest-xdist `-n`) a run uses: chosen from the target's round trip.

A worker costs seconds of start-up CPU (imports, collection, its own board); it pays back
only when tests spend their time waiting for answers, and a worker that waits needs no core.
So: serial when the server answers within a millisecond or so (the bundled server, a server
on the same machine), more workers the farther away it is, never more than MAX_WORKERS nor
six per core, and no more than `--rate-limit` can keep busy. `--workers N` (or `-n N` after
`--`) decides instead. Each worker also keeps up to MAX_IN_FLIGHT requests in flight where
tests are independent (boardcert.speed.in_flight), from IN_FLIGHT_FROM, decided again
every ADAPT_EVERY exchanges where the run chose it. The thresholds come
from forced worker counts and requests in flight side by side (benchmarks/critical_path.py
--latency L --workers N -- --in-flight M; the figures: docs/speed.md, "At commit 849bf2d"
and, for the twelve, "At commit af95733");
on a machine busy with other runs fewer workers do better (load 4.8, 100 ms: 4 workers 33.0
s, 8 51.0 s): workers cost start-up CPU.
"""

from __future__ import annotations

import math
import os
import statistics
from collections.abc import Mapping
from dataclasses import dataclass

from boardcert.errors import ConfigError
from boardcert.settings.options import BY_DEST

SERIAL_BELOW = 0.0015  # seconds of round trip under which workers cost more than they save
# On a busy machine (its load average at least its cores), seconds of round trip under which
# the wait is taken for the machine's, not the server's distance: a server on this machine
# answers late for want of a core, and a worker more only adds to what the cores must do
# (the test command's runs, docs/speed.md "At commit c2e7298": thirteen workers more, 72 s of
# CPU, where their preflight ran while both cores were busy).
BUSY_SERIAL_BELOW = 0.005
PER_WORKER = 0.005  # one more worker per this much round trip, beyond two
IN_FLIGHT_FROM = 0.003  # seconds of round trip from which requests go side by side
MAX_WORKERS = 12
PER_CORE = 6
MAX_IN_FLIGHT = 8  # requests a test process keeps in flight where tests are independent
ADAPT_EVERY = 40  # exchanges after which a test process decides its in-flight again
RULE = (f"chosen from the round trip of the preflight's requests: serial below "
        f"{SERIAL_BELOW * 1000:g} ms ({BUSY_SERIAL_BELOW * 1000:g} ms on a machine whose load "
        f"average is at least its cores), else 2 and one more per {PER_WORKER * 1000:g} ms, up "
        f"to {MAX_WORKERS} (at most {PER_CORE} per core), no more than --rate-limit keeps "
        f"busy; --workers N decides instead; each keeps up to {MAX_IN_FLIGHT} requests in "
        f"flight where tests are independent (1 below {IN_FLIGHT_FROM * 1000:.0f} ms; "
        f"--in-flight N)")


@dataclass(frozen=True)
class Choice:
    """The number of workers (1: serial, no pytest-xdist) and why, for the console and --plan."""

    workers: int
    reason: str

    def pytest_args(self) -> list[str]:
        return ["-n", str(self.workers)] if self.workers > 1 else []


def choose(rtt: float | None, rate_limit: float | None = None,
           cores: int | None = None, load: float | None = None) -> Choice:
    """The workers for a target whose round trip is `rtt` seconds (None: not measured, the
    bundled server), on a machine of `cores` whose load average is `load` (None: not known)."""
    if rtt is None:
        return Choice(1, "serial: the bundled server answers within a millisecond")
    ms = f"{rtt * 1000:.0f} ms"
    if rtt < SERIAL_BELOW:
        return Choice(1, f"serial: the round trip is {ms}, below {SERIAL_BELOW * 1000:g} ms "
                         f"(starting workers would cost more than the waiting they save)")
    count = cores or os.cpu_count() or 1
    if load is not None and load >= count and rtt < BUSY_SERIAL_BELOW:
        return Choice(1, f"serial: the round trip is {ms}, below {BUSY_SERIAL_BELOW * 1000:g} "
                         f"ms on a busy machine (load average {load:.1f} on {count} cores: "
                         f"the answers waited for a core, which workers would only take)")
    cap = min(MAX_WORKERS, PER_CORE * count)
    workers = min(cap, 2 + round(rtt / PER_WORKER))
    why = f"the round trip is {ms}"
    if rate_limit:  # one worker sends at most 1/rtt requests a second
        fed = max(1, math.ceil(rate_limit * rtt))
        if fed < workers:
            workers, why = fed, f"{why}, and --rate-limit {rate_limit:g} keeps {fed} busy"
    if workers == 1:
        return Choice(1, f"serial: {why}")
    return Choice(workers, f"{workers} workers: {why} (at most {cap} on "
                           f"{count} cores)")


def machine_load() -> float | None:
    """The machine's load average over the last minute; None where the system has none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def in_flight(rtt: float | None, rate_limit: float | None = None, workers: int = 1) -> int:
    """Requests a test process keeps in flight where tests are independent
    (boardcert.speed.in_flight): one at a time within IN_FLIGHT_FROM (or unmeasured), else up to
    MAX_IN_FLIGHT, no more than its share of `--rate-limit` keeps busy."""
    if rtt is None or rtt < IN_FLIGHT_FROM:
        return 1
    if rate_limit:
        return max(1, min(MAX_IN_FLIGHT, math.ceil(rate_limit * rtt / max(1, workers))))
    return MAX_IN_FLIGHT


def given_in_flight(flag: int | str | None, environ: Mapping[str, str] = os.environ) -> int | None:
    """The requests in flight given to the run: `--in-flight N`, else its variable
    (BOARDCERT_IN_FLIGHT, which `boardcert run` sets from the round trip); None when neither
    is; a ConfigError naming both when it is not a whole number from 1 to MAX_IN_FLIGHT."""
    value = flag if flag is not None and flag != "" else environ.get(IN_FLIGHT_ENV)
    if value is None or value == "":
        return None
    text = str(value)
    if not text.strip().isdigit() or not 1 <= int(text) <= MAX_IN_FLIGHT:
        raise ConfigError(f"--in-flight {text!r} ({IN_FLIGHT_ENV}): expected a whole "
                          f"number from 1 to {MAX_IN_FLIGHT}")
    return int(text)


IN_FLIGHT_ENV = BY_DEST["in_flight"].env or ""


def given(workers: int) -> Choice:
    """The choice of `--workers N`."""
    if workers <= 1:
        return Choice(1, "serial: --workers")
    return Choice(workers, f"{workers} workers: --workers")


def round_trip(elapsed: list[float]) -> float | None:
    """The round trip from answered requests, in order: their mean, but for the first (which
    also opened the connection) when there are three or more. The mean, not the fastest: what
    a run waits is the sum of its round trips, and a server whose answers take anything from
    0 to 40 ms (the fastest of a few: under 10 ms, a run one request at a time) is waited for
    20 ms an answer. But where most answers came within SERIAL_BELOW (their median), the
    median: a server on this machine while the machine is busy answers within a millisecond
    but for one or two answers that waited milliseconds for a core (seen: 0.5 0.4 4.9 0.6
    ms), which would make a mean of a near server a far one."""
    if not elapsed:
        return None
    counted = elapsed[1:] if len(elapsed) >= 3 else elapsed
    middle = statistics.median(counted)
    return middle if middle < SERIAL_BELOW else sum(counted) / len(counted)
