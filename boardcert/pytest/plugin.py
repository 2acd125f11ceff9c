"""The boardcert pytest plugin: its options, the target they resolve to, and the registration
of the plugin modules that do the work.

Loaded by the root conftest.py and by `boardcert run` (`-p boardcert.pytest.plugin`). The modules:
`markers` (requirement markers, --read-only skips), `target` (the server under test, the
reference server shared by xdist workers, the client), `quiet` (under xdist, the server to one
test for a moment), `cleanup` (the ledger, Ctrl-C),
`fixtures` (api, factories, boards), `early` (set-ups made at the first test for tests that
judge them late), `plan` (--plan), `reporters` (console header and summaries), then
`failures`, `results`, `allure_results`, `junit` and `properties`; first of all the speed
plugin, `boardcert.speed` (what only makes a run faster: `-p no:boardcert.speed` or
`boardcert run --no-speed` leaves it out, and the run takes the plain path).
"""

from __future__ import annotations

import pytest

from boardcert.paths import RUN_INI
from boardcert.pytest.handover import ToWorkers, run_of
from boardcert.pytest.stash import LEDGERS, LEFT_BEHIND, TARGET
from boardcert.settings import roles
from boardcert.settings.options import add_to

# Registered in this order; pytest calls the later ones' hooks first, so the five at the end
# run theirs before those of the first nine (properties adds requirement markers before
# markers reads them; results writes before clean-up).
pytest_plugins = ["boardcert.speed",  # first: freezes the heap before Hypothesis; optional
                  "boardcert.pytest.quiet",  # under xdist: the server to one test for a moment
                  "boardcert.pytest.masked",  # the key masked in every file written, at the end
                  "boardcert.pytest.markers",  # requirement markers, --read-only skips
                  "boardcert.pytest.target",  # the server under test, its client, the preflight
                  "boardcert.pytest.cleanup",  # the ledger, clean-up at the end, Ctrl-C
                  "boardcert.pytest.fixtures",  # api, discovery, factories, boards, observe
                  "boardcert.pytest.early",  # set-ups made at the first test, judged late
                  "boardcert.pytest.plan",  # --plan
                  "boardcert.pytest.console",  # the console's header and closing summaries
                  "boardcert.pytest.failures",  # a test's exception as data
                  "boardcert.pytest.results",  # the compliance report
                  "boardcert.pytest.allure",  # what allure shows: identity, labels, environment
                  "boardcert.outputs.junit",  # junit.xml (junit-10.xsd), junit-properties.xml
                  "boardcert.properties"]  # --budget, the Hypothesis seed, schemathesis items


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """boardcert's own hooks (boardcert.pytest.hookspecs)."""
    from boardcert.pytest import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_load_initial_conftests(early_config: pytest.Config, args: list[str]) -> None:
    """pytest-xdist starts the workers of `boardcert run -- -n N` with pytest's original
    arguments, without the suites the controller added (pytest.suites.SuitesUnlessPathsGiven):
    they add them the same way, else they collect their working directory (boardcert's own
    tests). `boardcert run` is told by its configuration file (-c boardcert/run.ini)."""
    if early_config.inipath == RUN_INI:
        from boardcert.pytest.suites import SuitesUnlessPathsGiven

        SuitesUnlessPathsGiven().pytest_load_initial_conftests(early_config, args)


def pytest_addoption(parser: pytest.Parser) -> None:
    """The options of boardcert.settings.options (`boardcert run` declares the same, from there)."""
    add_to(parser.getgroup("boardcert", "boardcert: the server under test"))


LARGE_REPR = "Generating overly large repr"  # the start of Hypothesis's warning
HYPOTHESIS_WARNING = "hypothesis.errors.HypothesisWarning"


def pytest_configure(config: pytest.Config) -> None:
    """The run's target into the stash; the class plugins registered (the modules are imported
    by then, through pytest_plugins)."""
    from boardcert.pytest.console import LeftBehind, ReadOnlySummary

    config.stash[TARGET] = run_of(config).target
    # A failing example holding a 25,000-character name has a repr of 100 kB and more;
    # Hypothesis warns that making it is slow, which says nothing of the server
    config.addinivalue_line("filterwarnings", f"ignore:{LARGE_REPR}:{HYPOTHESIS_WARNING}")
    config.stash[LEDGERS] = []
    config.stash[LEFT_BEHIND] = []
    if config.pluginmanager.hasplugin("xdist") and roles.reporting(config):
        config.pluginmanager.register(ToWorkers(config), "boardcert-to-workers")
    config.pluginmanager.register(ReadOnlySummary(config), "boardcert-read-only-summary")
    config.pluginmanager.register(LeftBehind(config), "boardcert-left-behind")
