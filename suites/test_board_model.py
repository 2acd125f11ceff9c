"""The whole board, step by step: a state machine of writes (ops 2-26), the board compared
with its model after every one (suites/board_machine.py). Schemathesis's stateful test checks
the shapes of answers; this one checks what they mean: a rename renamed that row and no other,
a move kept the other cards in their order, a delete left the rest. Its length scales with
`--budget`, in parts (each a test of its own, which pytest-xdist's workers may run side by
side); the run's seed decides every part's steps (part N's seed is the run's plus N - 1); a
failure is shrunk to the shortest sequence of writes that shows it (as the property tests',
not at the quick budget: `Budget.shrink`), which its reproduction sends again."""

from __future__ import annotations

import hypothesis
import pytest
from board_machine import BoardMachine
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from boardcert.conformance import properties

PARTS = range(1, properties.COLLECTED.budget.model_parts + 1)


@pytest.mark.requirement("WRITE-ONLY-ADDRESSED")
@pytest.mark.parametrize("part", PARTS)
def test_board_follows_its_model(api, ledger, organization_id, row_name_property, budget, part):
    """Writes drawn at random (creations, renames, orders, moves, aliases, metadata, plugins,
    plugin data, deletes, of any item among several), each followed by a reading of the whole
    board: everything reads as the model says, what each write addressed and what it did
    not."""
    machine = hypothesis.seed(properties.COLLECTED.seed + part - 1)(type("Board", (BoardMachine,), {
        "api": api, "ledger": ledger, "organization": organization_id,
        "row_property": row_name_property}))
    run_state_machine_as_test(machine, settings=settings(
        max_examples=budget.model_part_runs, stateful_step_count=budget.model_steps,
        deadline=None, database=None, suppress_health_check=list(HealthCheck),
        phases=[Phase.generate, *([Phase.shrink] if budget.shrink else [])],
        print_blob=False))
