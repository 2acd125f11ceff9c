"""This run's settings in pytest (plugin module): one `Run` (boardcert.settings.run) in the
stash, from one place: as `boardcert run` hands it over (`Handed`, given to pytest.main), as
an xdist controller sends it to its workers (one workerinput entry, `ToWorkers`), or
resolved from pytest's own options and environment when pytest runs alone."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

import pytest

from boardcert.errors import ConfigError
from boardcert.settings import roles
from boardcert.settings.options import OPTIONS
from boardcert.settings.run import Run, resolve_run, stash_key

WORKER_RUN = "boardcert_run"  # workerinput key: the controller's Run, as text


class Handed:
    """Given to pytest.main by `boardcert run`: the run it resolved, in the stash before any
    plugin reads it; and pytest's arguments (`args`), for a plugin that starts work before
    pytest has parsed them (the speed plugin's zygote, boardcert.speed.early)."""

    def __init__(self, run: Run, args: tuple[str, ...] = ()) -> None:
        self.run = run
        self.args = args

    @pytest.hookimpl(tryfirst=True)
    def pytest_load_initial_conftests(self, early_config: pytest.Config) -> None:
        early_config.stash[stash_key()] = self.run

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        check_none_given(config)


def run_of(config: pytest.Config) -> Run:
    """The session's Run, resolved (or received) on first use and kept; a ConfigError is a
    usage error."""
    run = config.stash.get(stash_key(), None)
    if run is not None:
        return run
    worker = roles.worker_input(config)
    try:
        if WORKER_RUN in worker:
            run = Run.from_wire(worker[WORKER_RUN], int(worker.get("workercount", 1)))
        else:
            run = resolve_run(vars(config.option), os.environ)
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[stash_key()] = run
    return run


def check_none_given(config: pytest.Config) -> None:
    """Under `boardcert run`, its options go before `--`: one given to pytest after it would
    be ignored, so it is refused."""
    if roles.is_worker(config):
        return
    given = [o.flag for o in OPTIONS if getattr(config.option, o.dest, None) not in (None, False)]
    if given:
        raise pytest.UsageError(f"{', '.join(given)}: an option of boardcert run, given to "
                                "pytest after --: give it before --")


class ToWorkers:
    """On an xdist controller: each worker gets the controller's Run (under no base URL,
    the reference server the controller starts for all of them: one target per run, as with
    a real server, stopped at the end)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_configure_node(self, node: Any) -> None:
        from boardcert.pytest.stash import TARGET
        from boardcert.pytest.target import bundled  # a plugin module: pytest imports it first

        run = run_of(self.config)
        if not run.target.base_url:
            server, key = bundled(self.config)
            server.wait_until_up(key, timeout=30)  # workers wait: no hurry
            run = replace(run, target=replace(run.target, base_url=server.base_url,
                                              api_key=key))
            self.config.stash[stash_key()] = run
            self.config.stash[TARGET] = run.target
        node.workerinput[WORKER_RUN] = run.wire()
