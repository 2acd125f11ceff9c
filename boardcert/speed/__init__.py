"""The speed plugin: everything that only makes a run faster, one pytest plugin, off with one
switch (`boardcert run --no-speed`, or `-p no:boardcert.speed` for pytest). The verdict is the
same either way (benchmarks/speed_same.py, tests/test_speed.py); off, a run takes the plain
path: the same tests, one request at a time, pytest-xdist's own distribution, allure-pytest's
own listener and writer, discovery probed by each process.

Its parts:
- `overhead`: the garbage collector kept off the tests' path;
- `patches`: every internal of another library it leans on, checked as the run starts; one that
  does not fit the installed version stays off, and the run facts say so (compliance.json
  `run.speed`, the console's header);
- `allure_writer`, `allure_listener`: Allure's files written by a process of its own, and
  allure-pytest's listener with cheaper bookkeeping;
- `distribution` (+ `scheduler`): how pytest-xdist's workers share the tests;
- `shared_discovery`: discovery once per run under pytest-xdist, started as soon as
  `boardcert run`'s preflight passed;
- `side_by_side`: the property tests of a unit side by side, with requests in flight;
- `startup` (loaded by `boardcert run` with -p, right after this plugin): the workers start a
  few at a time.
Requests in flight where tests are independent (boardcert.pytest.concurrency,
boardcert.pytest.ahead, used by
the suites) are allowed only while this plugin runs (`boardcert.pytest.concurrency.in_flight`).

Nothing outside this package imports it but `boardcert run` (boardcert.cli.run: the early
discovery probe); it hands the rest what it provides through stash keys of boardcert.pytest.stash
(SPEED, DISCOVERED, UNITS, ALLURE_WRITTEN).
"""

from __future__ import annotations

import pytest

pytest_plugins = ["boardcert.speed.overhead",  # first: freezes the heap before Hypothesis
                  "boardcert.speed.allure_writer",
                  "boardcert.speed.side_by_side",
                  "boardcert.speed.distribution"]


def patched(config: pytest.Config, name: str) -> bool:
    """Whether the patch `name` of boardcert.speed.patches fits this run (the plugin ran, and
    its check passed)."""
    from boardcert.pytest.stash import SPEED

    found = config.stash.get(SPEED, None)
    return found is not None and found.on and name not in dict(found.off)


@pytest.hookimpl(tryfirst=True)  # before allure-pytest's makes its listener
def pytest_configure(config: pytest.Config) -> None:
    """Every patch checked (those made at once made), the outcome in the run facts; the parts
    that need a check's outcome or a class of their own set up."""
    from boardcert.pytest.stash import DISCOVERED, SPEED
    from boardcert.settings.run_facts import Speed
    from boardcert.speed import patches

    off = patches.check_all(config=config)
    if "allure listener" not in off and getattr(config.option, "allure_report_dir", None):
        try:
            from boardcert.speed import allure_listener
        except ImportError as exc:
            off["allure listener"] = f"allure-pytest: {exc}"
        else:
            allure_listener.use(config)
    if "httpx direct transport" not in off:
        from boardcert.http.client import Client

        before = Client.__dict__["dispatch"]  # restored as the session ends (pytester's too)
        Client.dispatch = staticmethod(patches.send_direct)
        config.add_cleanup(lambda: setattr(Client, "dispatch", before))
    config.stash[SPEED] = Speed(on=True, off=tuple(off.items()))
    if hasattr(config, "workerinput"):
        from boardcert.speed import shared_discovery

        config.stash[DISCOVERED] = lambda target: shared_discovery.read(config, target)
    elif config.pluginmanager.hasplugin("xdist") and getattr(config.option, "numprocesses", None):
        from boardcert.speed.shared_discovery import SharedDiscovery

        config.pluginmanager.register(SharedDiscovery(config), "boardcert-shared-discovery")

