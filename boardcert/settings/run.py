"""One run's settings, resolved once into a frozen `Run`: by `boardcert run` before pytest
starts (handed to the plugin in pytest's stash: boardcert.pytest.handover), by the pytest
plugin from its own options and the BOARDCERT_* variables only when pytest runs alone; an
xdist worker gets its controller's, as one workerinput entry (`wire`, `from_wire`). Light
to import: the CLI resolves a run before anything else."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from boardcert.settings import workers
from boardcert.settings.budget import Budget, parse_budget
from boardcert.settings.config import Profile, Target, resolve
from boardcert.settings.options import value


@dataclass(frozen=True)
class Run:
    """What a run was asked to do, checked: the target and every option of
    boardcert.settings.options (the key only inside the target, never in `options`)."""

    target: Target  # base URL empty: the bundled reference server
    budget: Budget
    # --seed as given; settled at pytest's start-up (properties.hooks: else Hypothesis's
    # --hypothesis-seed, else the default)
    seed: int | None = None
    # Requests a test process keeps in flight where tests are independent: --in-flight (or
    # its variable), or what `boardcert run` chose from the round trip; None: each decides.
    in_flight: int | None = None
    in_flight_chosen: bool = False  # in_flight is the run's choice: each process adapts it
    options: tuple[str, ...] | None = None  # `boardcert run`'s, as a report records them
    docs_url: str | None = None
    bundled: bool = True  # no base URL given: the bundled reference server
    checked: bool = False  # `boardcert run`'s preflight found the target answering
    plan: bool = False
    no_preflight: bool = False
    keep_failed: bool = False

    def wire(self) -> str:
        """The run as text for an xdist worker (pytest-xdist's workerinput carries plain
        values); `from_wire` makes it again."""
        data = asdict(replace(self, target=replace(self.target, profile=None)))
        profile = self.target.profile
        data["target"]["profile"] = {
            "data": profile.data, "path": str(profile.path) if profile.path else None,
            "sha256": profile.sha256, "proven": sorted(profile.proven),
            "unfound": profile.unfound}
        return json.dumps(data)

    @classmethod
    def from_wire(cls, text: str, workers: int = 1) -> Run:
        """The controller's run, on one of its `workers` (each paces its share of
        --rate-limit)."""
        data = json.loads(text)
        p = data["target"].pop("profile")
        profile = Profile(p["data"], Path(p["path"]) if p["path"] else None, p["sha256"],
                          frozenset(p["proven"]), p["unfound"])
        target = Target(**data.pop("target"), profile=profile)
        if target.rate_limit:
            target = replace(target, rate_limit=target.rate_limit / max(1, workers))
        options = data.pop("options")
        return cls(target=target, budget=Budget(**data.pop("budget")),
                   options=tuple(options) if options is not None else None, **data)


def resolve_run(given: Mapping[str, Any], environ: Mapping[str, str] = os.environ,
                options: list[str] | None = None) -> Run:
    """The run of the options `given` (by dest: "base_url"; None or absent: not given) and
    the variables that stand in for some; a ConfigError names the flag or variable.
    `options`: the command line as a report records it (`boardcert run`'s)."""
    target = resolve(given, environ)
    return Run(target=target, budget=parse_budget(given.get("budget")),
               seed=given.get("seed"),
               in_flight=workers.given_in_flight(given.get("in_flight"), environ),
               options=tuple(options) if options is not None else None,
               docs_url=value("docs_url", given.get("docs_url"), environ),
               bundled=not target.base_url, plan=bool(given.get("plan")),
               no_preflight=bool(given.get("no_preflight")),
               keep_failed=bool(given.get("keep_failed")))


@functools.cache
def stash_key() -> Any:
    """pytest's stash key of the session's Run (made on first use: the CLI imports no pytest
    before pytest runs)."""
    import pytest

    return pytest.StashKey[Run]()


def in_session(config: Any) -> Run:
    """The Run of a pytest session (boardcert.pytest.handover put it in the stash at
    start-up)."""
    return config.stash[stash_key()]
