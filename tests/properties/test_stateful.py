"""boardcert.properties.stateful: the state machine chooses its rules from what Hypothesis drew,
a failure it meets still fails, and what it cannot replay is not assessed."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys

import pytest

from boardcert import properties
from boardcert.properties.stateful import not_assessable
from properties.servers import busy_app, run_suite, serving


def test_the_workflow_does_not_depend_on_what_the_server_answered():
    """Against a server whose answers change between a scenario and its replay the stateful test
    still passes at the standard budget (schemathesis's own machine stopped with
    FlakyStrategyDefinition "while selecting a rule to run" here, for every seed tried)."""
    key = "busy-" + secrets.token_urlsafe(16)
    with serving(busy_app(key)) as base_url:
        output = run_suite(base_url, key, "-k", "Workflow", budget="standard")
    assert output.startswith("exit 0"), output[-6000:]
    assert "4 passed" in output and "Flaky" not in output, output[-6000:]  # its four parts


def test_a_failure_the_workflow_finds_still_fails():
    """A server fault met along a link (op 15, reached from a column the scenario created,
    answers the card id as a JSON integer) fails the stateful test naming its requirement.
    The seed is one whose scenarios reach op 15 along a link (6 of the first 8 seeds do, at
    the standard budget; the run's default seed does not since the key and path ids are no
    longer generated: a seed draws other scenarios, not fewer links)."""
    from faults import FAULTS
    from faults import serving as serve_variant

    variant = next(v for v in FAULTS if v.name == "card-id-integer")
    key = "fault-" + secrets.token_urlsafe(16)
    with serve_variant(variant, key) as base_url:
        output = run_suite(base_url, key, "-k", "Workflow", "--hypothesis-seed", "3",
                           budget="standard")
    assert output.startswith("exit 1"), output[-6000:]
    assert "[CARD-FIELD-TYPES]" in output and "op 15" in output, output[-6000:]
    assert key not in output


def test_the_workflow_draws_from_the_run_s_seed_under_hypothesis_s_ci_profile():
    """Where Hypothesis loads its "ci" profile (CI=true and the like: derandomize) the stateful
    test still draws from the run's seed, which `--hypothesis-seed` reproduces, not from a
    digest of its own source (other scenarios than a run outside CI, and than the one printed)."""
    code = ("import hypothesis; from boardcert import properties; "
            "m = properties.state_machine(properties.load_schema()); "
            "print(hypothesis.settings.default.derandomize, m.TestCase.settings.derandomize)")
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "CI": "true"},
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["True", "False"], done.stdout + done.stderr


def test_the_scenarios_go_in_parts_each_from_a_seed_of_its_own():
    """The standard budget's 20 scenarios are four tests of 5, drawn from the run's seed and
    the next ones (reproducible, and never the same scenarios twice); the quick budget's 6 are
    two of 3; the number follows the budget only. Run in a child: the budget is the
    process's."""
    code = ("import sys, hypothesis; from boardcert import properties; "
            "properties.COLLECTED.budget = properties.BUDGETS[sys.argv[1]]; "
            "properties.COLLECTED.seed = 7; "
            "m = properties.state_machine(properties.load_schema()); "
            "parts = [properties.workflow_part(m, n) for n in "
            "range(1, properties.workflow_parts() + 1)]; "
            "print([(p._hypothesis_internal_use_seed, p.TestCase.settings.max_examples, "
            "p.TestCase.settings.derandomize) for p in parts])")
    found = {}
    for budget in ("standard", "quick"):
        done = subprocess.run([sys.executable, "-c", code, budget], capture_output=True,
                              text=True, timeout=60)
        found[budget] = done.stdout.strip() or done.stderr
    assert found == {"standard": "[(7, 5, False), (8, 5, False), (9, 5, False), (10, 5, False)]",
                     "quick": "[(7, 3, False), (8, 3, False)]"}, found


def test_a_scenario_that_cannot_be_replayed_is_not_assessed():
    """Hypothesis's own errors around the stateful test are a skip that says why."""
    from hypothesis.errors import FlakyStrategyDefinition

    with pytest.raises(pytest.skip.Exception, match="not assessed: .*replayed deterministically"), \
            properties.replayable():
        raise FlakyStrategyDefinition("Inconsistent data generation!")
    with pytest.raises(AssertionError), properties.replayable():
        raise AssertionError("a check failed")


def test_the_workflow_names_only_requirements_the_operations_also_assess():
    """A skipped stateful test leaves no requirement unassessed: each one it names is named by
    the items of the operations it runs."""
    named = {req for n in properties.stateful_operations() for req in properties.requirement_ids(n)}
    assert set(properties.workflow_requirements()) <= named


def test_operations_the_profile_cannot_place_are_left_out_of_the_machine():
    """Without plugin_id the plugin operations (23-28) are not assessable (a skip inside the
    machine would skip every scenario); without entity_id only those that need it; a profile
    with both, or no profile, leaves nothing out."""
    class Profile:
        def __init__(self, *keys: str) -> None:
            self.keys = keys

        def has(self, key: str) -> bool:
            return key in self.keys

    assert not_assessable(Profile()) == [23, 24, 25, 26, 27, 28]
    assert not_assessable(Profile("plugin_id")) == [25, 26, 27, 28]
    assert not_assessable(Profile("plugin_id", "entity_id")) == not_assessable(None) == []
