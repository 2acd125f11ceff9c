"""Where the project's data files live: boardcert/data/ in an installed wheel (setup.py copies
spec/ and suites/ there), else the checkout boardcert is installed from (editable)."""

from __future__ import annotations

import os
import sysconfig
from functools import cache
from pathlib import Path
from typing import Any

import yaml

PACKAGE = Path(__file__).resolve().parent
_INSTALLED = PACKAGE / "data"
ROOT = _INSTALLED if (_INSTALLED / "spec").is_dir() else PACKAGE.parent
SPEC = ROOT / "spec"
OPENAPI = SPEC / "openapi.yaml"
REQUIREMENTS = SPEC / "requirements.yaml"
REQUIREMENT_TESTS = SPEC / "requirement-tests.yaml"  # generated: tools/requirement_tests.py
PROFILE_SCHEMA = SPEC / "profile.schema.json"
DISCOVERY = SPEC / "discovery.yaml"
DEFAULT_PROFILE = SPEC / "profiles" / "reference.yaml"
SUITES = ROOT / "suites"
REQUIREMENTS_PAGE = ROOT / "docs" / "requirements.md"  # the wheel carries it (setup.py)
POLICY = ROOT / "docs" / "policy.md"  # the conformance policy (the wheel carries it too)
RUN_INI = PACKAGE / "run.ini"  # `boardcert run`'s pytest configuration


def user_cache(*parts: str) -> Path | None:
    """A directory of boardcert's in the user's cache (XDG_CACHE_HOME, else ~/.cache), made if
    need be; None when it cannot be written (then nothing is cached)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    directory = base.joinpath("boardcert", *parts)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return directory if os.access(directory, os.W_OK | os.X_OK) else None


# PyYAML's safe loader, by libyaml when PyYAML has it: ten times faster than its Python parser
# (spec/openapi.yaml: 15 ms, not 115; the reference profile: 0.3 ms, not 3.5).
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path: Path) -> Any:
    """One of the project's own YAML files, parsed safely (SAFE_LOADER)."""
    with path.open(encoding="utf-8") as fh:
        return yaml.load(fh, Loader=SAFE_LOADER)


def machine_paths(*roots: Path) -> list[tuple[str, str]]:
    """Directories of the machine that ran the suite, as outputs show them instead: the given
    roots (the checkout or pytest's rootdir) relative, Python's own by name, the home as ~.
    Longest first, so that a venv inside the checkout is named, not made relative."""
    found = dict(_python_paths())
    found |= {f"{root}/": "" for root in (ROOT, PACKAGE.parent, *roots)}
    found[f"{Path.home()}/"] = "~/"
    return sorted(found.items(), key=lambda item: -len(item[0]))


@cache
def _python_paths() -> tuple[tuple[str, str], ...]:
    """Python's own directories and their names (sysconfig works them out afresh on every
    call: seconds over a run that masks thousands of texts)."""
    python = {"purelib": "site-packages", "platlib": "site-packages", "stdlib": "python",
              "platstdlib": "python"}
    paths = sysconfig.get_paths()
    return tuple((f"{paths[name]}/", f"{shown}/") for name, shown in python.items())


def without_machine_paths(text: str, *roots: Path) -> str:
    """The text with the machine's directories replaced (see machine_paths)."""
    for path, shown in machine_paths(*roots):
        text = text.replace(path, shown)
    return text
