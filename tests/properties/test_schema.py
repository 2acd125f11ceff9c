"""boardcert.properties.schema: the schema schemathesis generates from, shaped by the budget."""

from __future__ import annotations

from typing import Any

from boardcert.interface import spec
from boardcert.properties import COLLECTED, load_schema
from boardcert.properties.schema import EXACT_BODY_OP, without_body
from boardcert.settings.budget import parse_budget


def test_the_budget_shapes_the_schema_and_op16s_boundaries_always_run():
    """At the quick budget (no coverage phase) op 16 still gets its coverage cases (the 25000
    and 25001 character names), operations without a body take fewer examples where the
    budget has more than two (the arena replaces all they vary), and the seed is the run's."""
    def shaped(budget: str) -> Any:
        saved = COLLECTED.budget
        try:
            COLLECTED.budget = parse_budget(budget)
            return load_schema()
        finally:
            COLLECTED.budget = saved

    def settings(schema: Any, number: int) -> tuple[int, bool]:
        op = spec.operation(number)
        operation = schema[op.path][op.method]
        return (schema.config.generation_for(operation=operation).max_examples,
                schema.config.phases_for(operation=operation).coverage.enabled)

    schema, examples = shaped("quick"), parse_budget("quick").max_examples
    assert settings(schema, EXACT_BODY_OP) == (examples, True)
    assert settings(schema, 15) == (examples, False)
    assert settings(schema, 3)[0] == min(examples, 2)
    standard = shaped("standard")
    assert 3 in without_body() and settings(standard, 3)[0] < settings(standard, 15)[0]
    assert EXACT_BODY_OP not in without_body() and schema.config.seed == COLLECTED.seed
