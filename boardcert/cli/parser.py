"""argparse, as the `boardcert` command uses it: each subcommand refuses its own unknown flags
(with its own usage, not the top level's) and names the closest flag or command it knows; no
flag is abbreviated."""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

_UNKNOWN = "unrecognized arguments: "
_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")
PYTEST_HINT = "pytest's own arguments go after --, e.g. boardcert run -- -k cards"


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known flag (or command) the user most likely meant by `word`: the most similar
    spellings, else those whose name `word` contains or is contained in (--hypothesis-seed:
    --seed; --key: --api-key); two that fit as well are both named ("--base-url or
    --docs-url" for --url); None when nothing is near."""
    name = word.split("=", 1)[0]
    known = [k for k in known if k.startswith("-") == name.startswith("-")]
    ratio = {k: difflib.SequenceMatcher(None, name, k).ratio() for k in known}
    near = [k for k in known if ratio[k] >= 0.6]
    bare = name.lstrip("-")
    if not near and len(bare) >= 3:
        near = [k for k in known if len(k.lstrip("-")) >= 3
                and (k.lstrip("-") in bare or bare in k.lstrip("-"))]
    if not near:
        return None
    best = max(ratio[k] for k in near)
    return " or ".join(sorted(k for k in near if ratio[k] == best)[:2])


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors name the closest known flag or command. No flag is
    taken for another by its first letters (`--key` was `--keyless`): a flag is spelled
    whole, or refused with the closest one named."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.flags: list[str] = []  # every flag it knows, of its groups too (argparse keeps them
        super().__init__(*args, **{"allow_abbrev": False, **kwargs})  # in a private list)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        self.flags += action.option_strings
        return action

    def add_argument_group(self, *args: Any, **kwargs: Any) -> Any:
        group = super().add_argument_group(*args, **kwargs)
        add = group.add_argument

        def add_argument(*args: Any, **kwargs: Any) -> argparse.Action:
            action = add(*args, **kwargs)
            self.flags += action.option_strings
            return action

        group.add_argument = add_argument  # type: ignore[method-assign]
        return group

    def parse_known_args(self, args: Sequence[str] | None = None,
                         namespace: Any = None) -> tuple[argparse.Namespace, list[str]]:
        # A subcommand's parser is asked for known arguments only, and argparse hands what it
        # did not know to the top level, which names neither the subcommand nor a flag of it:
        # every parser here refuses its own.
        parsed, unknown = super().parse_known_args(args, namespace)
        if unknown:
            self.error(_UNKNOWN + " ".join(unknown))
        return parsed, unknown

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}{self._hint(message)}\n")

    def _hint(self, message: str) -> str:
        if message.startswith(_UNKNOWN):
            first = message.removeprefix(_UNKNOWN).split()[0]
            near = closest(first, self.flags)
            if near:
                return f"\n{self.prog}: did you mean {near}?"
            return f"\n{self.prog}: {PYTEST_HINT}" if self.prog.endswith(" run") else ""
        match = _CHOICE.search(message)
        if match:
            near = closest(match[1], re.findall(r"'([^']*)'", match[2]))
            return f"\n{self.prog}: did you mean {near}?" if near else ""
        return ""
