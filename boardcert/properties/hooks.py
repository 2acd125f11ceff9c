"""The property tests' pytest hooks: the internals of Hypothesis and schemathesis that what is
generated and judged depends on (boardcert.compat: checked at start-up, or the run stops; one
that does not fit met later, a failure of a class boardcert does not know, stops it after the
test that met it), the run's budget (boardcert.pytest.handover), a fixed Hypothesis seed printed
in the header (`--seed N` reproduces), requirement markers on schemathesis items."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace

import pytest

from boardcert import compat
from boardcert.errors import CompatError, ConfigError
from boardcert.paths import SUITES
from boardcert.properties.judging import requirement_ids
from boardcert.properties.schema import COLLECTED, LABELS, SEED_OPTION
from boardcert.pytest.handover import run_of
from boardcert.pytest.stash import TARGET
from boardcert.settings.budget import DEFAULT_SEED
from boardcert.settings.run import stash_key


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    # tryfirst: the seed must be in place before Hypothesis's plugin reads it.
    try:
        compat.check()  # the internals what is generated depends on, or the run stops
    except CompatError as exc:
        raise pytest.UsageError(str(exc)) from None
    run = run_of(config)
    try:
        seed = chosen_seed(run.seed, config.getoption(SEED_OPTION, None))
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[stash_key()] = replace(run, seed=seed)  # settled: the reports read it there
    COLLECTED.budget, COLLECTED.seed = run.budget, seed  # for the modules collected later
    if hasattr(config.option, SEED_OPTION):  # Hypothesis's plugin seeds every test with it
        setattr(config.option, SEED_OPTION, str(COLLECTED.seed))


def chosen_seed(seed: int | None, hypothesis_seed: str | None) -> int:
    """The run's seed: --seed, else Hypothesis's own --hypothesis-seed (the same thing, under
    plain pytest), else the default."""
    try:
        other = None if hypothesis_seed is None else int(hypothesis_seed)
    except ValueError:
        raise ConfigError(f"--hypothesis-seed {hypothesis_seed!r}: expected an integer") from None
    if seed is not None and other is not None and seed != other:
        raise ConfigError(f"--seed {seed} and --hypothesis-seed {other} disagree: give one")
    return next(s for s in (seed, other, DEFAULT_SEED) if s is not None)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    """The property tests' module that cannot be collected stops the run (exit 4: pytest's
    usage error, 2 under `boardcert run`), on the xdist controller or a single process: a
    verdict without them would rest on less than the run claims. Its error says why (a
    CompatError: a library changed under the state machine; else a bug in boardcert)."""
    if report.failed and report.nodeid.endswith(PROPERTY_MODULE) \
            and not os.environ.get("PYTEST_XDIST_WORKER"):
        why = str(report.longrepr).strip().splitlines()[-1:] or ["no reason given"]
        pytest.exit(f"boardcert: the property tests could not be collected, so the run stops "
                    f"without a verdict: {why[0]}", returncode=4)


PROPERTY_MODULE = f"{SUITES.name}/test_properties.py"


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    target = session.config.stash.get(TARGET, None)
    COLLECTED.profile = target.profile if target is not None else None


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [f"boardcert: hypothesis seed {COLLECTED.seed}; reproduce with --seed {COLLECTED.seed}",
            f"boardcert: schemathesis budget {COLLECTED.budget.describe()}"]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A schemathesis item of one operation names that operation and what its checks prove
    (before boardcert.pytest.plugin turns requirement markers into markers and user properties)."""
    for item in items:
        number = LABELS.get(compat.operation_label(item) or "")
        if number is not None and item.get_closest_marker("requirement") is None \
                and SUITES in item.path.parents:
            item.add_marker(pytest.mark.requirement(*requirement_ids(number), op=number))


MISFIT = pytest.StashKey[str]()  # why a test's run met a library that does not fit


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A CompatError in a test (a schemathesis failure of a class boardcert does not know): the
    test is boardcert's error (boardcert.pytest.failures), and the run stops after it."""
    report = yield
    found = _compat_error(call.excinfo.value if call.excinfo is not None else None)
    if found is not None:
        item.stash[MISFIT] = str(found)
    return report


def pytest_runtest_teardown(item: pytest.Item) -> None:
    """The run stops (exit 4: pytest's usage error, 2 under `boardcert run`), saying why, rather
    than give a verdict that rests on failures it could not name; the report says so too."""
    why = item.stash.get(MISFIT, None)
    if why is not None:
        pytest.exit(f"boardcert: {why}", returncode=4)


def _compat_error(exc: BaseException | None) -> CompatError | None:
    if isinstance(exc, CompatError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        return next(filter(None, map(_compat_error, exc.exceptions)), None)
    return None
