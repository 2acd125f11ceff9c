"""The property tests' pytest hooks: `--budget` (validated at start-up), a fixed Hypothesis seed
printed in the header (`--hypothesis-seed N` reproduces), requirement markers on schemathesis
items."""

from __future__ import annotations

import pytest

from boardcert.budget import DEFAULT_SEED, parse_budget
from boardcert.errors import ConfigError
from boardcert.keys import TARGET
from boardcert.paths import SUITES
from boardcert.properties.judging import requirement_ids
from boardcert.properties.schema import LABELS, RUN, SEED_OPTION


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    # tryfirst: the seed must be in place before Hypothesis's plugin reads --hypothesis-seed.
    only_the_seed()
    try:
        RUN.budget = parse_budget(config.getoption("budget", None))
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None
    given = config.getoption(SEED_OPTION, None)
    if given is None and hasattr(config.option, SEED_OPTION):
        setattr(config.option, SEED_OPTION, str(DEFAULT_SEED))
        given = DEFAULT_SEED
    try:
        RUN.seed = int(given if given is not None else DEFAULT_SEED)
    except ValueError:
        raise pytest.UsageError(f"--hypothesis-seed {given!r}: expected an integer") from None


def only_the_seed() -> None:
    """What is generated comes from the spec and the seed alone. Hypothesis mixes the string
    and number literals of "local" modules (outside site-packages and tests: boardcert's own,
    some 560, run from a checkout or an editable install, not from a wheel) into what it
    draws, and which modules were imported so far decides which: the same seed drew other
    requests from a checkout than from an installed wheel, and after any change to a literal
    anywhere in boardcert. (Scanning them also cost each run some 40 ms.)"""
    try:
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants
    except ImportError:  # moved in another Hypothesis: nothing to turn off
        return
    none = Constants()
    providers._get_local_constants = lambda: none


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    target = session.config.stash.get(TARGET, None)
    RUN.profile = target.profile if target is not None else None


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [f"boardcert: hypothesis seed {RUN.seed}; reproduce with --hypothesis-seed {RUN.seed}",
            f"boardcert: schemathesis budget {RUN.budget.describe()}"]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A schemathesis item of one operation names that operation and what its checks prove
    (before boardcert.plugin turns requirement markers into markers and user properties)."""
    for item in items:
        number = LABELS.get(getattr(item, "operation_label", None) or "")
        if number is not None and item.get_closest_marker("requirement") is None \
                and SUITES in item.path.parents:
            item.add_marker(pytest.mark.requirement(*requirement_ids(number), op=number))
