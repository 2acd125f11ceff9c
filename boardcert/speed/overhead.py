"""What a run spends that certifies nothing, kept small (a part of the speed plugin; issue 16).

- Python's cyclic garbage collector: a run builds a large heap once (pytest, schemathesis,
  Hypothesis, the collected items) and then allocates little that lives, yet every full
  collection walks the whole heap: on the bundled server they took more than a tenth of a
  run's CPU time. `boardcert run` turns the collector off while it imports and collects; once
  collection is done the heap built so far is frozen (`gc.freeze`: the collector no longer
  walks it) and the collector runs again, on what the tests allocate. (Frozen once before
  too, when this first of the plugin modules is imported: see below.) (pytest's
  unraisableexception plugin, whose two full collections end a session, is not loaded by
  `boardcert run`: boardcert.cli.session.) During the tests, full collections come ten
  times less often than Python's default (FULL_AFTER).

The other cuts patch other libraries' internals, each checked first (boardcert.speed.patches):
pytest's `request` fixture's argument names known without a signature read, Hypothesis's
descriptions of lambdas without parsing their modules, Allure's result files written by a
process of its own (boardcert.speed.allure_writer), allure-pytest's listener with cheaper
bookkeeping (boardcert.speed.allure_listener).
"""

from __future__ import annotations

import gc
import warnings

import pytest

# Frozen as this module is imported, before the plugin modules that import Hypothesis and
# schemathesis: both call gc.collect() (and gc.get_referrers) as they are imported
# (hypothesis.register_random), a walk of all that lives, which then skips what pytest and
# boardcert built before them (a seventh of a second of each run). gc.get_referrers does not
# see frozen referrers, so Hypothesis would warn that trio's Random (which trio's module
# holds, frozen) has none: that warning is ours, not trio's, and is not shown.
gc.freeze()
warnings.filterwarnings("ignore", message="It looks like `register_random` was passed",
                        module=r"trio\.")


# Python's default (10) made 3 full collections of a quick run and 5 of a standard one (the
# tests' heap, 40 ms each: 0.10 and 0.21 s); at 100 a standard run makes none (46 of the
# middle generation), for 1 to 5 MB more at its peak; a longer run still makes some.
FULL_AFTER = 100


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what start-up and collection built; the collector walks only what comes after,
    and walks all of it (a full collection) rarely: after 100 collections of the middle
    generation, not 10."""
    gc.freeze()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(young, middle, max(old, FULL_AFTER))
    gc.enable()  # boardcert run turned it off until now


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    """The pytest-xdist controller collects nothing: its collector runs again here."""
    gc.enable()
