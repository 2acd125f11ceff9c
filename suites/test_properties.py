"""Property-based and stateful tests: schemathesis over spec/openapi.yaml, without false alarms.

Every operation gets generated requests (positive and negative) that point into a board this
run made; each answer is judged only by checks the conformance policy supports, each naming
its requirement (boardcert.properties explains which checks run and which are left out, and
why). The stateful test follows the spec's links: create, change and delete projects, rows,
columns, cards and card metadata. `--budget` sets how hard they try; the seed is fixed and
printed in the header, and `--seed N` reproduces a run.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from boardcert.conformance import NotAssessed, properties, together

schema = properties.load_schema()


@pytest.fixture(scope="session")
def arena(request: pytest.FixtureRequest, api, ledger) -> Iterator[properties.Arena]:
    """Where the generated requests point: a board made with the plugin's factories on first
    need, and victims for the deletes. If the server cannot give us a board, the cases that
    need it are not assessed (op 1 still runs)."""
    made = properties.Arena(api, ledger, lanes=together.lanes(request.config))
    try:
        made.organization_id = request.getfixturevalue("organization_id")
        made.make = {kind: request.getfixturevalue(f"make_{kind}")
                     for kind in ("project", "row", "column", "card")}
    except (AssertionError, NotAssessed) as exc:
        made.broken = str(exc).splitlines()[0]
    yield made


@schema.parametrize()
def test_operation(case, arena: properties.Arena, request: pytest.FixtureRequest) -> None:
    """Every generated request to the operation gets an answer the interface allows: no 5xx,
    200 on success with the documented JSON shape, the key enforced where section 5 lists it,
    and op 16's exact body rules enforced. (Requirement markers: one set per operation; what
    only a 2xx proves is not assessed by an item whose requests never got one.)"""
    info = properties.CaseInfo.of(case)
    if info.probe:
        return  # a request-shape probe for a check the policy does not support
    arena.prepare(case, info)
    response = arena.call(case)  # through the suites' client, as every request
    arena.after_call(case, response)
    properties.answered(request.node, properties.operation_number(case), response.status_code)
    arena.validate(case, response, info)


BoardWorkflow = properties.state_machine(schema)


class Scenarios:
    """Sequences along the spec's links (create -> change -> delete) keep every answer within
    what the interface allows; scenarios that Hypothesis cannot replay alike are not assessed."""

    @pytest.fixture(autouse=True)
    def _arena(self, arena: properties.Arena, request: pytest.FixtureRequest) -> None:
        BoardWorkflow.arena, BoardWorkflow.item = arena, request.node

    def runTest(self) -> None:  # noqa: N802 (unittest's name)
        with properties.replayable():
            super().runTest()  # type: ignore[misc]

    runTest.is_hypothesis_test = True  # type: ignore[attr-defined]


def _workflow(number: int) -> type:
    """Part `number` of the stateful scenarios, a test of its own (the first keeps the name
    TestBoardWorkflow; the standard budget has four parts, the thorough twenty)."""
    machine = properties.workflow_part(BoardWorkflow, number)
    name = "TestBoardWorkflow" + (str(number) if number > 1 else "")
    part = type(name, (Scenarios, machine.TestCase), {"__doc__": Scenarios.__doc__,
                                                       "__module__": __name__})
    return pytest.mark.requirement(*properties.workflow_requirements(),
                                   op=properties.stateful_operations())(part)


globals().update((part.__name__, part) for part in map(
    _workflow, range(1, properties.workflow_parts() + 1)))
