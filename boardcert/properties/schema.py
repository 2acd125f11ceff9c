"""The schema the property tests generate from, shaped by this run's budget and seed (COLLECTED)."""

from __future__ import annotations

from typing import Any

import schemathesis

from boardcert.http.client import KEY_HEADER
from boardcert.interface import spec
from boardcert.paths import OPENAPI
from boardcert.settings.collection import COLLECTED

SEED_OPTION = "hypothesis_seed"  # dest of Hypothesis's own --hypothesis-seed

# op 16: the operation whose body the interface makes exact, and its name's maxLength (25000)
EXACT_BODY_OP, NAME_MAX = spec.name_limit()
ARENA_ID = "arena"  # every generated path id: the arena puts its own in (properties.arena)
LABELS = spec.labels()


def load_schema() -> Any:
    """spec/openapi.yaml for schemathesis, shaped by the budget and seed of this run.

    No schemathesis.toml is read (the config is given), no example database is written, only
    the links of the spec drive the state machine (no inferred links), and the coverage phase
    sends no undocumented methods (what answers them is not the interface's business)."""
    budget = COLLECTED.budget
    data: dict[str, Any] = {
        "seed": COLLECTED.seed,
        "generation": {"max-examples": budget.max_examples, "database": "none",
                       "no-shrink": not budget.shrink},
        "phases": {
            "examples": {"enabled": False},  # the spec has no examples
            "coverage": {"enabled": budget.coverage, "unexpected-methods": []},
            "stateful": {"inference": {"algorithms": []}},
        },
        # A rejection is any 4xx, whatever the status (policy, section 2).
        "checks": {"negative_data_rejection": {"expected-statuses": ["4XX"]},
                   "positive_data_acceptance": {"expected-statuses": ["2XX"]}},
        # What the arena and the client replace is not generated: path ids (the arena's own),
        # op 27's entityId (placed where the profile says) and the key (the client's).
        "parameters": dict.fromkeys(replaced_parameters(), ARENA_ID),
        "headers": {KEY_HEADER: ARENA_ID},
    }
    operations: list[dict[str, Any]] = []
    if not budget.coverage:  # op 16's boundaries (25000 / 25001) are worth it at any budget
        operations.append({"include-operation-id": spec.operation(EXACT_BODY_OP).operation_id,
                           "phases": {"coverage": {"enabled": True, "unexpected-methods": []}}})
    # All that operations without a body take is path ids, which the arena replaces: fewer
    # cases, and none negative (nothing generated is left to negate).
    operations.append({"include-operation-id": [spec.operation(n).operation_id
                                                for n in without_body()],
                       "generation": {"max-examples": min(budget.max_examples,
                                                          max(2, budget.max_examples // 5)),
                                      "mode": "positive"}})
    data["operations"] = operations
    return schemathesis.openapi.from_path(OPENAPI, config=schemathesis.Config.from_dict(data))


def replaced_parameters() -> list[str]:
    """Every path and query parameter of spec/openapi.yaml, as schemathesis's config names
    them ("path.projectId"): the arena puts its own values in."""
    document = spec.document()
    shared = document.get("components", {}).get("parameters", {})
    found = [shared[p["$ref"].rsplit("/", 1)[-1]] if "$ref" in p else p
             for item in document["paths"].values() for op in item.values()
             if isinstance(op, dict) for p in op.get("parameters", [])]
    return sorted({f"{p['in']}.{p['name']}" for p in found if p["in"] in ("path", "query")})


def without_body() -> list[int]:
    """Operations that take no body: nothing generated reaches the server but the key."""
    return [n for n, op in spec.operations().items() if not op.takes_body]


def operation_number(case: Any) -> int | None:
    number = case.operation.definition.raw.get("x-operation")
    return int(number) if number is not None else None
