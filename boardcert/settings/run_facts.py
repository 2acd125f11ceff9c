"""The facts of a run besides its results: budget, seed, versions, the command-line options
(never the key), whether the speed plugin was on, and what the run did the plain way because
another library's internal did not fit (boardcert.compat_fallbacks), recorded in
compliance.json, the reports and the bundle manifest."""

from __future__ import annotations

import os
import platform
from collections.abc import Iterable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import PurePath
from typing import Any

from boardcert import __version__
from boardcert.compat_fallbacks import fallbacks

KEY_FLAG = "--api-key"
PACKAGES = ("schemathesis", "hypothesis", "pytest")  # whose versions can change a run


def versions() -> dict[str, str]:
    """boardcert's, the testing libraries' and Python's versions."""
    found = {"boardcert": __version__}
    for name in PACKAGES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "not installed"
    return found | {"python": platform.python_version()}


def without_key(argv: Iterable[str]) -> list[str]:
    """The command line with --api-key's value dropped (the flag stays: a key was given).
    argparse also takes an abbreviation (--api, --api-k): those lose their value too."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        flag = arg.split("=", 1)[0]
        if flag.startswith("--a") and KEY_FLAG.startswith(flag):
            kept.append(KEY_FLAG)
            skip = "=" not in arg
        else:
            kept.append(arg)
    return kept


def recorded_options(argv: Iterable[str]) -> list[str]:
    """The options as a report records them: --api-key without its value, and an absolute
    path by its file name only (a report names no directory of the machine)."""
    return [_short(arg) for arg in without_key(argv)]


def _short(arg: str) -> str:
    flag, equals, value = arg.partition("=")
    if equals and flag.startswith("-"):
        return f"{flag}={_short(value)}"
    return PurePath(arg).name if os.path.isabs(arg) else arg


@dataclass(frozen=True)
class Speed:
    """Whether the speed plugin (boardcert.speed) ran, and which of its patches of other
    libraries' internals stayed off and why (the installed version did not fit): what only
    made the run faster; the verdict is the same either way."""

    on: bool
    off: tuple[tuple[str, str], ...] = ()  # (patch, why)

    def record(self) -> dict[str, Any]:
        return {"on": self.on, "off": [{"patch": name, "why": why} for name, why in self.off]}

    @classmethod
    def recorded(cls, found: Any) -> Speed | None:
        """From a report's `run.speed` (None: not recorded, an older report)."""
        if not isinstance(found, dict):
            return None
        return cls(bool(found.get("on")), tuple((str(off.get("patch")), str(off.get("why")))
                                               for off in found.get("off") or ()))

    def describe(self) -> str:
        """One line: "on", "on; off: name (why); ...", or off and what that means."""
        if not self.on:
            return "off (--no-speed or -p no:boardcert.speed): the plain path"
        return "on" + ("; off: " + "; ".join(f"{name} ({why})" for name, why in self.off)
                       if self.off else "")


NO_SPEED = Speed(on=False)


def record(budget: str, seed: int, options: Iterable[str], docs_url: str | None = None,
           speed: Speed | None = None) -> dict[str, Any]:
    """The `run` section of compliance.json (`options` as `recorded_options` gives them:
    dropping the key twice would drop the option after --api-key; `docs_url` only when given:
    where the reports link each requirement; `speed`: whether the speed plugin ran;
    `fallbacks`, only when there are any: what was done the plain way, and why)."""
    facts = {"budget": budget, "seed": seed, "versions": versions(), "options": list(options)}
    plain = fallbacks()
    return facts | ({"docs_url": docs_url} if docs_url else {}) \
        | ({"speed": speed.record()} if speed is not None else {}) \
        | ({"fallbacks": [{"what": what, "why": why} for what, why in plain.items()]}
           if plain else {})


def differences(a: dict[str, Any] | None, b: dict[str, Any] | None) -> list[str]:
    """Lines saying how the run facts of two reports differ (none when they agree)."""
    a, b = a or {}, b or {}
    lines = [f"{what}: {a.get(what, 'not recorded')} -> {b.get(what, 'not recorded')}"
             for what in ("budget", "seed") if a.get(what) != b.get(what)]
    va, vb = a.get("versions") or {}, b.get("versions") or {}
    lines += [f"{name} version: {va.get(name, 'not recorded')} -> "
              f"{vb.get(name, 'not recorded')}"
              for name in dict.fromkeys([*va, *vb]) if va.get(name) != vb.get(name)]
    if a.get("speed") != b.get("speed"):
        lines.append(f"speed: {_speed(a)} -> {_speed(b)}")
    if a.get("fallbacks") != b.get("fallbacks"):
        lines.append(f"the plain way: {_plain(a)} -> {_plain(b)}")
    if a.get("options") != b.get("options"):
        lines.append(f"options: {_options(a)}\n      -> {_options(b)}")
    return lines


def _options(facts: dict[str, Any]) -> str:
    options = facts.get("options")
    return " ".join(options) if options is not None else "not recorded"


def _speed(facts: dict[str, Any]) -> str:
    found = Speed.recorded(facts.get("speed"))
    return found.describe() if found is not None else "not recorded"


def _plain(facts: dict[str, Any]) -> str:
    return "; ".join(f"{f.get('what')} ({f.get('why')})" for f in facts.get("fallbacks") or ()) \
        or "none"
