"""What the modules of the property tests and the board model read as pytest imports them
(collects them), with no pytest config at hand: this run's budget, seed and profile, copied
from its Run (boardcert.settings.run) by boardcert.properties.hooks at start-up. Everything
else reads the Run itself.

Why not a fixture: schemathesis parametrizes a schema at import (one pytest item per
operation, the items that carry requirement markers and JUnit cases), and the number of board
model and stateful parts follows the budget; `schemathesis.pytest.from_fixture` would make one
item of every operation. The copy is made once, before collection, and never changes after."""

from __future__ import annotations

from dataclasses import dataclass

from boardcert.settings.budget import BUDGETS, DEFAULT_SEED, Budget
from boardcert.settings.config import Profile


@dataclass
class Collected:
    """What pytest_configure decided, read by the suite when it is imported (collected)."""

    budget: Budget = BUDGETS["standard"]
    seed: int = DEFAULT_SEED
    profile: Profile | None = None


COLLECTED = Collected()
