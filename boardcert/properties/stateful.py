"""The stateful test: the links of spec/openapi.yaml as a schemathesis state machine over the
arena, choosing its rules only from what Hypothesis drew, and what it speaks for."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import hypothesis
import pytest
from hypothesis.errors import FailedHealthCheck, FlakyStrategyDefinition, Unsatisfiable
from schemathesis.core.parameters import ParameterLocation

from boardcert import compat
from boardcert.interface import spec
from boardcert.interface.resources import BY_NAME
from boardcert.properties.arena import Arena
from boardcert.properties.cases import CaseInfo
from boardcert.properties.judging import answered, requirement_ids
from boardcert.properties.schema import COLLECTED, operation_number
from boardcert.settings.config import Profile


def not_assessable(profile: Profile | None) -> list[int]:
    """Operations whose path values the profile lacks (their parameters' x-profile-key): their
    items are skipped "not assessed", and the state machine leaves them out (a skip there would
    skip every scenario)."""
    if profile is None:
        return []
    return [n for n, op in spec.operations().items()
            if not all(profile.has(key) for key in op.profile_keys)]


def state_machine(schema: Any) -> type:
    """The links of spec/openapi.yaml as a schemathesis state machine over the arena, choosing
    its rules only from what Hypothesis drew (`compat.answer_independent`)."""
    left_out = [spec.operation(n).operation_id for n in not_assessable(COLLECTED.profile)]
    if left_out:
        schema = schema.exclude(operation_id=left_out)
    # reshaped so that the rules it can choose never depend on the answers (boardcert.compat)
    root = spec.operation(BY_NAME["project"].creates[0])  # the links start at a new project
    base = compat.answer_independent(schema.as_state_machine(), root=root)

    class BoardWorkflow(base):  # type: ignore[misc, valid-type]
        arena: Arena | None = None
        item: pytest.Item | None = None  # the test's, where `answered` notes what it checked

        def step(self, input: Any) -> Any:
            self._linked = frozenset(name for location, name in input.applied_parameters
                                     if location == ParameterLocation.PATH and name)
            return super().step(input)

        def before_call(self, case: Any) -> None:
            self._info = CaseInfo.of(case)
            self.arena.prepare(case, self._info, getattr(self, "_linked", frozenset()))

        def call(self, case: Any, **kwargs: Any) -> Any:
            return self.arena.call(case)

        def after_call(self, response: Any, case: Any) -> None:
            super().after_call(response, case)
            self.arena.after_call(case, response)

        def validate_response(self, response: Any, case: Any, additional_checks: Any = None,
                              **kwargs: Any) -> None:
            if self.item is not None:
                answered(self.item, operation_number(case), response.status_code)
            self.arena.validate(case, response, self._info, key=False)

    budget = COLLECTED.budget
    # derandomize=False: Hypothesis's "ci" profile (loaded when CI, GITHUB_ACTIONS, ... is set)
    # derandomizes, and a derandomized test takes its seed from its own source, not the run's
    # seed: the scenarios would not be those `--seed` reproduces.
    BoardWorkflow.TestCase.settings = hypothesis.settings(
        BoardWorkflow.TestCase.settings, max_examples=budget.scenarios,
        stateful_step_count=budget.steps, database=None, derandomize=False)
    return BoardWorkflow


# The stateful scenarios go in parts of this many, each a test of its own: at 100 ms per answer
# a part of 10 (some 90 requests one after another) was the run's longest test; of 5, under
# 5 s, it packs with the others.
SCENARIOS_PER_PART = 5


def workflow_parts() -> int:
    """How many parts the budget's scenarios go in. Each part is its own test (under
    pytest-xdist its own unit of work: at 100 ms per answer, the standard budget's 20 scenarios
    on one worker took 20 s, the run's longest test). The number follows the budget only,
    never the workers, so the scenarios are the same however the run is spread."""
    return max(1, math.ceil(COLLECTED.budget.scenarios / SCENARIOS_PER_PART))


def workflow_part(machine: type, number: int) -> type:
    """Part `number` (from 1) of the stateful scenarios: the machine with its share of the
    budget's scenarios, drawn from a seed of its own (the run's seed plus number - 1, so that
    `--seed` still reproduces every part)."""
    count = workflow_parts()
    part = hypothesis.seed(COLLECTED.seed + number - 1)(
        type(f"{machine.__name__}{number}", (machine,), {}))
    part.TestCase.settings = hypothesis.settings(
        machine.TestCase.settings, max_examples=math.ceil(COLLECTED.budget.scenarios / count))
    return part


def stateful_operations() -> list[int]:
    """The operations the links of spec/openapi.yaml connect, but those the state machine
    leaves out (`not_assessable`): the stateful test does not speak for them."""
    left_out = not_assessable(COLLECTED.profile)
    return sorted({n for op in spec.operations().values() if op.links
                   for n in (op.number, *op.links)} - set(left_out))


def workflow_requirements() -> list[str]:
    """What the stateful test names: only requirements the operations' own items also name, so
    that a stateful test that is skipped leaves no requirement unassessed; not the key's: its
    requests are not sent again without the key (the operations' own items and test_auth do
    that, for every listed operation; a run spread over workers probed again on the stateful
    parts' own, 17 requests one after another each, where a serial run had done with them)."""
    return list(dict.fromkeys(req for n in stateful_operations()
                              for req in requirement_ids(n, negative=False)
                              if req != "AUTH-KEY-REQUIRED"))


NOT_REPLAYABLE = ("not assessed: the stateful scenarios could not be replayed deterministically "
                  "against this server")


@contextmanager
def replayable() -> Iterator[None]:
    """Around the stateful test: an error of Hypothesis's own machinery (a scenario that did not
    replay the same way, no scenario satisfiable, a health check) is a skip, never a verdict on
    the server. A check that failed still fails (Hypothesis raises it, not these)."""
    try:
        yield
    except (FlakyStrategyDefinition, Unsatisfiable, FailedHealthCheck) as exc:
        pytest.skip(f"{NOT_REPLAYABLE} ({type(exc).__name__}: {str(exc).splitlines()[0]})")
