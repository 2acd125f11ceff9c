"""The speed plugin: everything that only makes a run faster, one pytest plugin, off with one
switch (`boardcert run --no-speed`, or `-p no:boardcert.speed` for pytest). The verdict is the
same either way (benchmarks/speed_same.py, tests/speed/test_speed.py); off, a run takes the plain
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
- `side_by_side`: the property tests of a unit side by side, with requests in flight (and,
  meanwhile, `ast.parse` one thread at a time, for the whole process);
- `startup` (loaded by `boardcert run` with -p, right after this plugin): the workers start a
  few at a time;
- `forked`: each worker a fork of one process that imported the libraries already (through
  pytest-xdist's own `--tx popen//python=`); `early`: that process started as this plugin
  loads, where `boardcert run` chose workers.
- `in_flight` (+ `ahead`): requests side by side where the suites say tests are independent
  (boardcert.pytest.together names what; its plain way is one request at a time): this plugin
  puts its own way into the stash (together.TOGETHER).

Nothing outside this package imports it; it hands the rest what it provides through stash keys
(boardcert.pytest.stash: SPEED, DISCOVERED, UNITS, ALLURE_WRITTEN; together.TOGETHER).
"""

from __future__ import annotations

import pytest

from boardcert.settings import roles

pytest_plugins = ["boardcert.speed.overhead",  # first: freezes the heap before Hypothesis
                  "boardcert.speed.allure_writer",
                  "boardcert.speed.side_by_side",
                  "boardcert.speed.in_flight",  # no fixture set up inside a job
                  "boardcert.speed.distribution"]

__all__ = ["ahead", "allure_listener", "allure_writer", "distribution", "early", "forked",
           "in_flight", "overhead", "patched", "patches", "scheduler", "shared_discovery",
           "side_by_side", "startup"]


def patched(config: pytest.Config, name: str) -> bool:
    """Whether the patch `name` of boardcert.speed.patches fits this run (the plugin ran, and
    its check passed)."""
    from boardcert.pytest.stash import SPEED

    found = config.stash.get(SPEED, None)
    return found is not None and found.on and name not in dict(found.off)


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """This plugin's first moment: pytest loads it before the run's other plugins. Where
    `boardcert run` handed over a run with workers, their zygote starts now (early.start)."""
    from boardcert.pytest.handover import Handed
    from boardcert.speed import early

    for plugin in pluginmanager.get_plugins():
        if isinstance(plugin, Handed):
            early.start(plugin.args)


@pytest.hookimpl(tryfirst=True)  # before allure-pytest's makes its listener
def pytest_configure(config: pytest.Config) -> None:
    """Every patch checked (those made at once made), the outcome in the run facts; the parts
    that need a check's outcome or a class of their own set up."""
    from boardcert.pytest.stash import DISCOVERED, SPEED
    from boardcert.pytest.together import TOGETHER
    from boardcert.settings.run_facts import Speed
    from boardcert.speed import patches
    from boardcert.speed.in_flight import SideBySide

    off = patches.check_all(config=config)
    if "allure listener" not in off and getattr(config.option, "allure_report_dir", None):
        try:
            from boardcert.speed import allure_listener
        except ImportError as exc:
            off["allure listener"] = f"allure-pytest: {exc}"
        else:
            allure_listener.use(config)
    from boardcert.http.client import Client

    if "httpx direct transport" not in off:
        before = Client.__dict__["dispatch"]  # restored as the session ends (pytester's too)
        Client.dispatch = staticmethod(patches.send_direct)
        config.add_cleanup(lambda: setattr(Client, "dispatch", before))
    if "lean http transport" not in off:
        from boardcert.speed.lean_http import make_transport

        made = Client.__dict__["make_transport"]
        Client.make_transport = staticmethod(make_transport)
        config.add_cleanup(lambda: setattr(Client, "make_transport", made))
    config.stash[TOGETHER] = SideBySide(config)
    if roles.is_worker(config):
        from boardcert.speed import shared_discovery

        config.stash[DISCOVERED] = lambda target: shared_discovery.read(config, target)
    elif config.pluginmanager.hasplugin("xdist") and getattr(config.option, "numprocesses", None):
        from boardcert.speed import forked
        from boardcert.speed.shared_discovery import SharedDiscovery

        config.pluginmanager.register(SharedDiscovery(config), "boardcert-shared-discovery")
        why = forked.start(config)
        if why is not None:
            off["forked workers"] = why
        elif missing := forked.missing_imports():
            off["collection imports ahead"] = (f"{', '.join(missing)} not found: each worker "
                                               "imports what the suites need itself")
    if not roles.is_worker(config):
        from boardcert.speed import early

        early.stop()  # one forked.start did not take: no workers, or they cannot be forked
    config.stash[SPEED] = Speed(on=True, off=tuple(off.items()))
