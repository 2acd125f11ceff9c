"""Budgets (`--budget quick|standard|thorough|N`) and the fixed Hypothesis seed: how hard
schemathesis tries. Light to import (the CLI checks --budget before pytest starts)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from boardcert.errors import ConfigError

DEFAULT_SEED = 20240618  # the date of the interface's last dated change
MAX_MODEL_PARTS = 4  # parts of the board model's state machine (Budget.model_parts)


@dataclass(frozen=True)
class Budget:
    """How hard schemathesis tries: `--budget quick|standard|thorough|N`."""

    name: str
    max_examples: int  # fuzzed cases per operation
    coverage: bool  # schemathesis's deterministic boundary cases (25000/25001, types, ...)
    shrink: bool  # minimise a failing case (costs requests)
    scenarios: int  # stateful scenarios
    steps: int  # calls per scenario, at most

    @property
    def model_runs(self) -> int:
        """Runs of the board model's state machine (suites/test_board_model.py)."""
        return max(2, self.scenarios // 5)

    @property
    def model_steps(self) -> int:
        """Writes in each of them, at most."""
        return self.steps * 3

    @property
    def model_parts(self) -> int:
        """The parts those runs go in, each a test of its own with a seed of its own (under
        pytest-xdist, on workers of their own: at 100 ms per answer the standard budget's
        machine on one worker was the run's longest test, 33 s). Hypothesis's first run of a
        test is its simplest (one project and a few rows), so each part makes two or more, and
        the parts together make at least as many others as one machine made (model_runs - 1)."""
        return max(1, min(MAX_MODEL_PARTS, self.model_runs - 1))

    @property
    def model_part_runs(self) -> int:
        """Runs of the board model's state machine in each part: its simplest, then its share."""
        return math.ceil((self.model_runs - 1) / self.model_parts) + 1

    def describe(self) -> str:
        phases = "coverage + fuzzing" if self.coverage else "fuzzing"
        return (f"{self.name}: {phases}, {self.max_examples} fuzzed cases per operation, "
                f"{self.scenarios} stateful scenarios of up to {self.steps} calls")


# quick: 2 fuzzed cases per operation, not 4 (issue 16: at most 0.6 of a plain schemathesis
# run, with at least 95% of tests/faults still flagged): half a second less of a quick run,
# and every one of the 89 faults is still flagged with the whole suite at quick
# (BOARDCERT_FAULTS_FULL=1 pytest tests/certify/test_faults.py -n 2 -k test_fault_is_flagged).
BUDGETS = {
    "quick": Budget("quick", 2, coverage=False, shrink=False, scenarios=6, steps=5),
    "standard": Budget("standard", 10, coverage=True, shrink=True, scenarios=20, steps=6),
    "thorough": Budget("thorough", 100, coverage=True, shrink=True, scenarios=100, steps=10),
}


def parse_budget(value: str | None) -> Budget:
    """The budget of `--budget`; None is standard; a number N means N examples per operation."""
    if value is None or value == "":
        return BUDGETS["standard"]
    if value in BUDGETS:
        return BUDGETS[value]
    if value.isdigit() and int(value) > 0:
        n = int(value)
        return Budget(value, n, coverage=True, shrink=True, scenarios=max(5, n), steps=6)
    raise ConfigError(f"--budget {value!r}: expected quick, standard, thorough or a positive "
                      "number of examples per operation")


# What each budget costs a run against the bundled reference server on 2 cores (boardcert run
# --budget B -- -p benchmarks.trace with PYTHONPATH=., BOARDCERT_TRACE=FILE: requests summed;
# wall time of the whole command). Against a server far away the requests are what counts.
# Measured at commit e5b2702 (2026-12-02, idle): 2,236, 3,015 and 8,129 requests; 4.3, 5.6
# and 20.1 s.
COST = {"quick": "about 2,200 requests, 4 s on the bundled server",
        "standard": "about 3,000 requests, 5 s",
        "thorough": "about 8,100 requests, 20 s"}

BUDGET_HELP = ("how hard the property tests try (default standard): " + "; ".join(
    f"{b.describe()} ({COST[name]})" for name, b in BUDGETS.items())
    + "; or a number N: N fuzzed cases per operation")
