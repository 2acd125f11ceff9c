"""The options of a run, declared once: the pytest plugin adds them to pytest (group
"boardcert"), `boardcert run` to its own parser (so that `boardcert run --help` shows them);
both resolve them into one run (boardcert.settings.run), which `boardcert run` hands to pytest
whole. `config.resolve` reads the target's share of them (and the
BOARDCERT_* variables that stand in for some). Light to import: the CLI's parser needs it."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from boardcert.settings.budget import BUDGET_HELP, DEFAULT_SEED


@dataclass(frozen=True)
class Option:
    flag: str  # --base-url
    help: str
    type: type | None = None
    metavar: str | None = None
    switch: bool = False  # store_true
    target: bool = False  # config.resolve reads it (config.FLAGS)
    env: str | None = None  # the variable that stands in for it when not given (config.ENV)

    @property
    def dest(self) -> str:
        return self.flag.removeprefix("--").replace("-", "_")

    def declaration(self, help: str | None = None) -> dict[str, Any]:
        """The keyword arguments of argparse's add_argument and pytest's addoption (`help`:
        another text for where the option means something narrower)."""
        help = (help or self.help) + (f"; env {self.env}" if self.env else "")
        if self.switch:
            return {"action": "store_true", "default": False, "help": help}
        return {"default": None, "help": help, "type": self.type, "metavar": self.metavar}


OPTIONS = (
    Option("--base-url", "the server under test (default: the bundled reference server, "
           "started on a free loopback port)", target=True, env="BOARDCERT_BASE_URL"),
    Option("--api-key", "its X-API-Key value; never shown", target=True,
           env="BOARDCERT_API_KEY"),
    Option("--profile", "implementation profile YAML, laid over the defaults "
           "(spec/profiles/reference.yaml)", metavar="PATH", target=True,
           env="BOARDCERT_PROFILE"),
    Option("--budget", BUDGET_HELP, metavar="B"),
    Option("--seed", f"the seed of the generated requests (Hypothesis, schemathesis): the same "
           f"seed sends the same requests (default {DEFAULT_SEED}); the console's header "
           "prints it", int, "N"),
    Option("--request-timeout", "seconds before a request times out (default 10)", float, "S",
           target=True, env="BOARDCERT_TIMEOUT"),
    Option("--rate-limit", "at most N requests per second, over all test workers", float, "N",
           target=True),
    Option("--max-body", "largest response body read (default 8 MiB); a larger one fails "
           "the test", int, "BYTES", target=True),
    Option("--read-only", "run only what changes nothing on the server (only GET is sent, "
           "nothing is created); the rest is reported not assessed", switch=True, target=True),
    Option("--project-id", "with --read-only: an existing project to read with ops 3 and 6 "
           "(default: the currentProject of GET /users/me)", metavar="ID", target=True),
    Option("--in-flight", "requests a test process keeps in flight at once where tests are "
           "independent (1: one at a time; default: chosen from the round trip, 1 for the "
           "bundled server)", int, "N", env="BOARDCERT_IN_FLIGHT"),
    Option("--keep-failed", "leave on the server what failed tests used (listed in the report "
           "with the commands that delete it: boardcert cleanup REPORT), so that their curl "
           "lines work as printed; the rest is deleted as always", switch=True),
    Option("--no-preflight", "skip the check, before any test, that GET /users/me answers JSON "
           "for the key (a refused connection still stops the run)", switch=True),
    Option("--plan", "list what the run would call and create, and how it cleans up; call "
           "nothing, start nothing, write no report", switch=True),
    Option("--docs-url", "where boardcert's docs are published (the folder of "
           "requirements.md, e.g. your clone's docs/ on your forge): the reports link each "
           "requirement there; without it they name `boardcert requirements ID`, which prints "
           "the same entry", metavar="URL", env="BOARDCERT_DOCS_URL"),
)
BY_DEST = {option.dest: option for option in OPTIONS}


def add_to(parser: argparse.ArgumentParser | Any, *dests: str, help: str | None = None) -> None:
    """Declare the options named by `dests` (all when none is named) on an argparse parser or
    group (add_argument) or a pytest option group (addoption)."""
    add = getattr(parser, "addoption", None) or parser.add_argument
    for option in [BY_DEST[d] for d in dests] if dests else OPTIONS:
        add(option.flag, **option.declaration(help))


def value(dest: str, given: Any, environ: Mapping[str, str] = os.environ) -> Any:
    """An option's value: as given, else its variable's (None when neither is set)."""
    env = BY_DEST[dest].env
    if given is not None and given != "":
        return given
    return (environ.get(env) or None) if env else None
