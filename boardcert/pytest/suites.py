"""Where a run's tests come from and how the console names them: plugins given to pytest.main
by `boardcert run` (and by pytest-xdist's workers, through boardcert.pytest.plugin)."""

from __future__ import annotations

from typing import Any

from boardcert.paths import ROOT, SUITES


class SuitesUnlessPathsGiven:
    """Given to pytest.main: the suites, when the pytest arguments name no test path. pytest's
    own parser tells a path from an option's value (every plugin's options included), so no
    list of the options that take a value is kept here."""

    def pytest_load_initial_conftests(self, early_config: Any, args: list[str]) -> None:
        known = early_config.known_args_namespace
        if not known.file_or_dir:
            args.append(str(SUITES))  # pytest parses `args` again after this hook
            known.file_or_dir = [str(SUITES)]


class PathsFromTheRoot:
    """Given to pytest.main: the console names test modules from the suites' root
    (`suites/test_cards.py`), not from the working directory (a wheel's run from a project
    showed `../lib/python3.11/site-packages/boardcert/data/suites/test_cards.py`)."""

    def pytest_sessionstart(self, session: Any) -> None:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.startpath = ROOT
