"""boardcert.properties.hooks: the budget (validated at start-up) and the fixed, printed seed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from boardcert import properties
from boardcert.errors import ConfigError
from boardcert.properties import hooks


def test_budgets_by_name_and_number():
    """quick, standard and thorough are named budgets; a number is examples per operation."""
    assert properties.parse_budget(None) is properties.BUDGETS["standard"]
    assert properties.parse_budget("quick").max_examples < properties.parse_budget(
        "standard").max_examples < properties.parse_budget("thorough").max_examples
    assert properties.parse_budget("7").max_examples == 7


@pytest.mark.parametrize("value", ["fast", "0", "-3", "1.5"])
def test_an_invalid_budget_is_a_usage_error_naming_the_flag(value):
    """A bad --budget stops the run at start-up with a message naming --budget."""
    with pytest.raises(ConfigError, match="--budget"):
        properties.parse_budget(value)
    option = SimpleNamespace(hypothesis_seed=None, budget=value)
    config = SimpleNamespace(option=option, stash={}, getoption=lambda name, default=None:
                             getattr(option, name, default))
    with pytest.raises(pytest.UsageError, match="--budget"):
        hooks.pytest_configure(config)


def test_the_seed_is_fixed_unless_given():
    """Without --seed (or Hypothesis's own --hypothesis-seed) the seed is the default one;
    either flag sets it; Hypothesis gets it too, and the header's advice names --seed."""
    run = properties.COLLECTED
    saved = (run.budget, run.seed)
    try:
        for seed, hypothesis_seed, expected in ((None, None, properties.DEFAULT_SEED),
                                                (42, None, 42), (None, "43", 43), (44, "44", 44)):
            option = SimpleNamespace(hypothesis_seed=hypothesis_seed, seed=seed)
            config = SimpleNamespace(option=option, stash={},
                                     getoption=lambda name, default=None, o=option:
                                     getattr(o, name, default))
            hooks.pytest_configure(config)
            assert run.seed == expected and int(option.hypothesis_seed) == expected
            assert f"reproduce with --seed {expected}" in hooks.pytest_report_header(config)[0]
    finally:
        run.budget, run.seed = saved


@pytest.mark.parametrize(("seed", "hypothesis_seed", "words"), [
    (1, "2", "--seed 1 and --hypothesis-seed 2 disagree"),
    (None, "x", "--hypothesis-seed 'x': expected an integer")])
def test_seeds_that_cannot_be_used_are_usage_errors(seed, hypothesis_seed, words):
    """Two seeds that disagree, or one that is no integer, stop the run at start-up."""
    option = SimpleNamespace(hypothesis_seed=hypothesis_seed, seed=seed)
    config = SimpleNamespace(option=option, stash={}, getoption=lambda name, default=None:
                             getattr(option, name, default))
    saved = (properties.COLLECTED.budget, properties.COLLECTED.seed)
    try:
        with pytest.raises(pytest.UsageError, match=words):
            hooks.pytest_configure(config)
    finally:
        properties.COLLECTED.budget, properties.COLLECTED.seed = saved



def test_generated_data_does_not_draw_on_boardcert_s_own_literals():
    """Hypothesis would mix the literals of boardcert's modules (local in a checkout, not in a
    wheel) into generated values; once the plugin is configured it has none to draw on. In a
    child: it changes the process's Hypothesis."""
    code = ("import boardcert.pytest.plugin, boardcert.properties\n"
            "from hypothesis.internal.conjecture import providers\n"
            "before = len(providers._get_local_constants().strings)\n"
            "from boardcert import compat\n"
            "compat.only_the_seed()\n"
            "print(before, len(providers._get_local_constants().strings))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=Path(__file__).resolve().parents[2])
    before, after = done.stdout.split()
    assert int(before) > 100 and int(after) == 0, done.stdout + done.stderr
