"""The stateful test: the links of spec/openapi.yaml as a schemathesis state machine over the
arena, choosing its rules only from what Hypothesis drew, and what it speaks for."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import hypothesis
import pytest
from hypothesis import strategies as st
from hypothesis.errors import FailedHealthCheck, FlakyStrategyDefinition, Unsatisfiable
from schemathesis.core.parameters import ParameterLocation

from boardcert import spec
from boardcert.config import Profile
from boardcert.properties.arena import Arena
from boardcert.properties.cases import CaseInfo
from boardcert.properties.judging import answered, requirement_ids
from boardcert.properties.schema import RUN, operation_number

PROFILE_NEEDS = {23: ("plugin_id",), 24: ("plugin_id",), 25: ("plugin_id", "entity_id"),
                 26: ("plugin_id", "entity_id"), 27: ("plugin_id", "entity_id"),
                 28: ("plugin_id", "entity_id")}


def not_assessable(profile: Profile | None) -> list[int]:
    """Operations whose path values the profile lacks: their items are skipped "not assessed",
    and the state machine leaves them out (a skip there would skip every scenario)."""
    if profile is None:
        return []
    return [n for n, keys in PROFILE_NEEDS.items() if not all(profile.has(k) for k in keys)]


def state_machine(schema: Any) -> type:
    """The links of spec/openapi.yaml as a schemathesis state machine over the arena, choosing
    its rules only from what Hypothesis drew (see `_answer_independent`)."""
    left_out = [spec.operation(n).operation_id for n in not_assessable(RUN.profile)]
    if left_out:
        schema = schema.exclude(operation_id=left_out)
    base = _answer_independent(schema.as_state_machine(), root=2)

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

    budget = RUN.budget
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
    return max(1, math.ceil(RUN.budget.scenarios / SCENARIOS_PER_PART))


def workflow_part(machine: type, number: int) -> type:
    """Part `number` (from 1) of the stateful scenarios: the machine with its share of the
    budget's scenarios, drawn from a seed of its own (the run's seed plus number - 1, so that
    `--seed` still reproduces every part)."""
    count = workflow_parts()
    part = hypothesis.seed(RUN.seed + number - 1)(
        type(f"{machine.__name__}{number}", (machine,), {}))
    part.TestCase.settings = hypothesis.settings(
        machine.TestCase.settings, max_examples=math.ceil(RUN.budget.scenarios / count))
    return part


def stateful_operations() -> list[int]:
    """The operations the links of spec/openapi.yaml connect, but those the state machine
    leaves out (`not_assessable`): the stateful test does not speak for them."""
    left_out = not_assessable(RUN.profile)
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


def _answer_independent(machine: type, root: int) -> type:
    """schemathesis's machine, reshaped so that which rules it can choose never depends on what
    the server answered.

    Hypothesis replays the start of earlier scenarios when it makes new ones, and stops with
    FlakyStrategyDefinition when the same draws meet a different set of valid rules. In
    schemathesis's machine that set follows the server: a producer's answer enters the bundle of
    its links only if its status is the link's (200), a link draws its case with or without the
    ids the answer carried, and a root may be called again only if its answer fed a link. The
    server state left by earlier scenarios changes those answers (a 409 to a second attach, a
    429, ...). Here every call of a producer enters its bundle, a link's case is drawn alike
    whatever the answer and gets the answer's ids afterwards (only from a 2xx; else the arena
    points it at the board), and every root that has links counts as productive.

    Also adds operation `root` as an entry point: schemathesis's dependency analysis cannot see
    where organizationId comes from (op 1's inner shapes are not shown), so it never starts at
    op 2, the only way to a project of the scenario's own. This uses schemathesis internals; if
    they change, the machine stays schemathesis's own and `replayable()` keeps the verdict."""
    try:
        from hypothesis.stateful import RULE_MARKER, Bundle
        from schemathesis.core.parameters import CONTAINER_TO_LOCATION
        from schemathesis.core.result import Ok
        from schemathesis.core.transforms import UNRESOLVABLE
        from schemathesis.generation.feedback import NO_FEEDBACK
        from schemathesis.generation.stateful.state_machine import StepInput
        from schemathesis.specs.openapi import stateful as openapi_stateful
        from schemathesis.specs.openapi.expressions import MultiMatch

        def follow(link: Any, drawn: tuple[Any, Any]) -> Any:
            """A link's step: the case drawn for its target, with the ids of the producer's
            answer put in where the link says, if that answer was a 2xx and carries them."""
            output, case = drawn
            transition = link.extract(output)
            applied: list[tuple[ParameterLocation, str | None]] = []
            if 200 <= output.response.status_code < 300:
                for container, extracted in transition.parameters.items():
                    for name, param in extracted.items():
                        value = param.value.ok() if isinstance(param.value, Ok) else None
                        if isinstance(value, MultiMatch):
                            value = value.values[0] if value.values else None
                        if value is None or value is UNRESOLVABLE:
                            continue
                        setattr(case, container, {**(getattr(case, container) or {}), name: value})
                        applied.append((CONTAINER_TO_LOCATION[container], name))
            return StepInput(case=case, transition=transition, applied_parameters=applied)

        schema, bundles = machine.schema, machine.bundles
        catch_all = Bundle("catch_all")

        def cases(operation: Any) -> Any:
            modes = schema.config.generation_for(operation=operation, phase="stateful").modes
            return openapi_stateful._step_case_strategy(operation, modes, feedback=NO_FEEDBACK)

        namespace: dict[str, Any] = {  # schemathesis's link rules, replaced below
            name: None for name, value in vars(machine).items()
            if getattr(getattr(value, RULE_MARKER, None), "bundles", None)}
        producers: dict[str, str] = {}
        for found in machine._transitions.operations.values():
            for link in found.incoming:
                bundle_name = f"{link.source.label} -> {link.status_code}"
                producers.setdefault(link.source.label, bundle_name)
                name = "LINK__" + openapi_stateful.normalize_name(link.full_name)
                namespace[name] = openapi_stateful.transition(
                    name=name, target=catch_all, source_bundle=bundles[bundle_name],
                    precondition=openapi_stateful.is_transition_allowed(
                        link.source.label, link.target.label),
                    input=st.tuples(bundles[bundle_name], cases(link.target)).map(
                        partial(follow, link)))
        op = spec.operation(root)
        operation = schema[op.path][op.method]
        name = f"RANDOM__{op.operation_id}"
        namespace[name] = openapi_stateful.transition(
            name=name, target=catch_all, precondition=openapi_stateful.is_root_allowed(op.label),
            input=cases(operation).map(StepInput.initial))
        namespace |= {"root_rules": machine.root_rules | {name},
                      "_root_labels": machine._root_labels | {op.label},
                      "_producers": producers}
    except (ImportError, AttributeError, TypeError, KeyError):
        return machine

    def target_for(self: Any, result: Any) -> str | None:
        return self._producers.get(result.case.operation.label)

    def feeds_later_steps(self: Any, output: Any) -> bool:
        return output.case.operation.label in self._producers

    namespace |= {"_get_target_for_result": target_for, "_feeds_later_steps": feeds_later_steps}
    return type(machine.__name__, (machine,), namespace)

