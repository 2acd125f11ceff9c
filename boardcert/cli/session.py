"""The pytest session `boardcert run` starts: its arguments, the run it resolved (handed to
the plugin whole: none of boardcert's options goes on pytest's command line), and a console
that masks the key (the plugin masks it in the files the run writes:
boardcert.pytest.masked)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from boardcert.cli.exits import RunWatch
from boardcert.http.redact import Redactor
from boardcert.paths import ROOT, RUN_INI
from boardcert.pytest.suites import PathsFromTheRoot, SuitesUnlessPathsGiven
from boardcert.settings.run import Run


def pytest_arguments(args: argparse.Namespace, extra: list[str], output: Path) -> list[str]:
    """pytest's argv: none of boardcert's options (the run goes whole to the plugin:
    `pytest_main`), so never the key (argv shows in JUnit and allure environments); no
    tracebacks or list of failed tests (the compliance summary says what failed, by
    requirement; the reports hold the evidence; `-- --tb=short -rfE` brings them back): a
    server that fails everything gets a screenful, and ~0.4 s a failure is not spent parsing
    sources for tracebacks."""
    argv = [*_pytest_setup(getattr(args, "speed", True)), "--tb=no", "-rN",
            f"--report-dir={output}",
            f"--junitxml={output / 'junit.xml'}", f"--alluredir={output / 'allure-results'}"]
    choice = getattr(args, "workers_choice", None)
    workers = choice.pytest_args() if choice is not None else []
    return argv + _passed_through(args) + workers + extra


def plan_arguments(args: argparse.Namespace, extra: list[str]) -> list[str]:
    """pytest's argv for --plan: collection only, no report files."""
    return [*_pytest_setup(getattr(args, "speed", True)), "-q", *_passed_through(args),
            *extra]


# The pytest plugins a run loads, and no other of the environment's (by entry point name,
# as pytest names them when it loads them itself; schemathesis's by module: see below).
PLUGINS = ("xdist", "allure_pytest", "hypothesispytest", "schemathesis.pytest.plugin")
# With the speed plugin, loaded first (its modules import little until they run), then its
# start-up turns (a worker waits for its turn before the others load); and without pytest's
# unraisableexception plugin, whose full garbage collections at the end (two walks of the
# whole heap) cost a run more than they could find.
SPEED = ["-p", "boardcert.speed", "-p", "boardcert.speed.startup"]
SPEED_OFF = ["-p", "no:boardcert.speed"]
SPEED_CUTS = ["-p", "no:unraisableexception"]


def speed_left_out(pytest_args: list[str] | tuple[str, ...]) -> bool:
    """Whether pytest arguments leave the speed plugin out (-p no:boardcert.speed)."""
    return any(a in ("no:boardcert.speed", "-pno:boardcert.speed") for a in pytest_args)


def _pytest_setup(speed: bool = True) -> list[str]:
    """The same pytest set-up from any directory, checkout or installed: the plugin, our own
    configuration file (none of the user's), the suites' directory as rootdir; the speed
    plugin's start-up turns and cuts, or (`speed` false) the speed plugin left out.

    Only the plugins a run needs (PLUGINS), not every one installed: another plugin of the
    user's environment (one that reorders, reruns or times out tests) would change what a
    certification does. And pytest rewrites the asserts of every module of each distribution
    whose plugin it loads by itself, all of hypothesis and schemathesis among them: rewritten
    asserts in Hypothesis's hot paths cost a tenth of a run's instructions (callgrind, quick
    run: 16.2 G -> 14.5 G). Named with -p, only the module named is rewritten (hence
    schemathesis's plugin module rather than its entry point, named after its package)."""
    plugins = [arg for name in PLUGINS for arg in ("-p", name)]
    return ["--disable-plugin-autoload", *(SPEED if speed else []), *plugins,
            "-p", "no:cacheprovider", *(SPEED_CUTS if speed else SPEED_OFF),
            "-p", "boardcert.pytest.plugin", "-c", str(RUN_INI), "--rootdir", str(ROOT)]


def _passed_through(args: argparse.Namespace) -> list[str]:
    """pytest's own options this command takes (--max-failures)."""
    return [f"--maxfail={args.max_failures}"] if args.max_failures is not None else []


def pytest_main(argv: list[str], watch: RunWatch, run: Run) -> int:
    """pytest on `argv`, the plugin given `run` (its one channel: boardcert.pytest.handover)."""
    import pytest

    from boardcert.pytest.handover import Handed

    return int(pytest.main(argv, plugins=[watch, Handed(run, tuple(argv)), SuitesUnlessPathsGiven(),
                                          PathsFromTheRoot()]))


class _Redacting:
    """A text stream that masks the key, whatever wrote it."""

    def __init__(self, stream: TextIO, redactor: Redactor) -> None:
        self._stream = stream
        self._redactor = redactor

    def write(self, text: str) -> int:
        return self._stream.write(self._redactor.text(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def redacted_console(redactor: Redactor) -> Iterator[None]:
    if not redactor:
        yield
        return
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Redacting(sys.stdout, redactor), _Redacting(sys.stderr, redactor)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
