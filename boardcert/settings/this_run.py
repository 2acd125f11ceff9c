"""This run's budget, seed and profile, as pytest_configure decided them (boardcert.properties
.hooks): read by the property tests when they are collected, and by the reports."""

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
