"""Property-based and stateful testing of the interface with schemathesis, without false alarms.

`suites/test_properties.py` drives schemathesis over spec/openapi.yaml; this package holds what
it needs, so that the suite reads as a page:

- `hooks`: the pytest hooks (`--budget`, the fixed Hypothesis seed, requirement markers on
  schemathesis items); registered through `pytest_plugins` below;
- `schema`: `load_schema()`, the schema with the phases and checks the policy supports
  (`COLLECTED`: the budget, seed and profile as collection reads them);
- `schemathesis_checks`: which schemathesis checks run and why, boardcert's own checks registered as
  schemathesis checks, and the key check;
- `cases`: what a generated case means (`CaseInfo`);
- `judging`: the requirements the checks prove, failure -> requirement, and the `Judge`, which
  raises a violation naming them, with a curl command whose key is `***`;
- `arena`: the `Arena`, real resources of this run that generated requests point into, and the
  profile's bodies for the bodies the interface does not show;
- `stateful`: the state machine over the spec's links, and `replayable()`;
- `sending`: the HTTP seam, every generated request sent through the suites' `Client`.
"""

from __future__ import annotations

from boardcert.properties.arena import Arena
from boardcert.properties.cases import CaseInfo
from boardcert.properties.judging import (
    NAME_REQUIREMENTS,
    PropertyViolation,
    answered,
    requirement_ids,
    requirement_of,
)
from boardcert.properties.schema import COLLECTED, LABELS, load_schema, operation_number
from boardcert.properties.schemathesis_checks import BOARDCERT_CHECKS
from boardcert.properties.stateful import (
    replayable,
    state_machine,
    stateful_operations,
    workflow_part,
    workflow_parts,
    workflow_requirements,
)
from boardcert.settings.budget import BUDGETS, DEFAULT_SEED, parse_budget

pytest_plugins = ["boardcert.properties.hooks"]

__all__ = ["BOARDCERT_CHECKS", "BUDGETS", "COLLECTED", "DEFAULT_SEED", "LABELS",
           "NAME_REQUIREMENTS", "Arena", "CaseInfo", "PropertyViolation", "answered", "load_schema",
           "operation_number", "parse_budget", "replayable", "requirement_ids", "requirement_of",
           "state_machine", "stateful_operations", "workflow_part", "workflow_parts",
           "workflow_requirements"]
