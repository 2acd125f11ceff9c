"""This run's budget, seed and profile, copied from its Run (boardcert.settings.run) by
boardcert.properties.hooks at start-up, for the property tests' modules, which read them when
they are imported (collected), with no pytest config at hand; everything else reads the Run."""

from __future__ import annotations

from dataclasses import dataclass

from boardcert.settings.budget import BUDGETS, DEFAULT_SEED, Budget
from boardcert.settings.config import Profile


@dataclass
class _Run:
    """What pytest_configure decided, read by the suite when it is imported (collected)."""

    budget: Budget = BUDGETS["standard"]
    seed: int = DEFAULT_SEED
    profile: Profile | None = None


RUN = _Run()
