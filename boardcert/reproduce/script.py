"""A recipe (compliance.json's `reproduction` of a failed test) as a script of its own, and
where the report directory keeps it (`reproduce/<test>.py`)."""

from __future__ import annotations

import hashlib
import json
import re
import textwrap
from pathlib import Path
from typing import Any

ANSWERS, ENGINE = Path(__file__).with_name("answers.py"), Path(__file__).with_name("engine.py")
DIRECTORY = "reproduce"
NAME_MAX = 80
MESSAGE_LINES, LINE_MAX = 12, 300


def script_name(nodeid: str) -> str:
    """The script's file name: the module and test, readable; a short hash where the node id
    had to be changed to make a file name (parameters) or was too long."""
    module, _, test = nodeid.partition("::")
    base = f"{module.rsplit('/', 1)[-1].removesuffix('.py')}-{test}".replace("::", "-")
    clean = re.sub(r"[^A-Za-z0-9_.-]+", "_", base).strip("_.")
    if clean != base or len(clean) > NAME_MAX:
        clean = f"{clean[:NAME_MAX].rstrip('_.-')}-{hashlib.sha1(nodeid.encode()).hexdigest()[:6]}"
    return f"{clean}.py"


def relative_path(nodeid: str) -> str:
    """Where a report directory keeps the test's script."""
    return f"{DIRECTORY}/{script_name(nodeid)}"


def script(test: dict[str, Any], report: dict[str, Any] | None = None) -> str:
    """The self-contained script of a failed test (its compliance.json entry)."""
    recipe = test["reproduction"]
    made = sorted({i["kind"] for i in recipe["ids"].values()})
    failing = sum(1 for s in recipe["steps"] if s.get("shown"))
    run = f" in the run of {report['started']}" if report and report.get("started") else ""
    lines = [_escaped(line[:LINE_MAX]) for line in recipe["message"].splitlines()
             if line.strip()][:MESSAGE_LINES]
    about = textwrap.fill(
        f"It makes again what the failing request needs ({', '.join(made) or 'nothing'}), "
        f"sends the test's {len(recipe['steps'])} request(s) with those ids put back "
        f"({failing} of them failed in the run), prints what came back, says whether the "
        "failure is still there and deletes what it made (--keep leaves it). Exit 1: the "
        "failure is reproduced; 0: the server now passes; 3: it could not get that far; 2: "
        "usage. The key is read from BOARDCERT_API_KEY, never written here.", 92)
    header = f'''#!/usr/bin/env python3
"""Reproduce a failure boardcert found: {_escaped(test["nodeid"])}
({", ".join(recipe["requirements"]) or "its requirements"}){run} against {recipe["base_url"]}.

The test failed with:
{chr(10).join("    " + line for line in lines)}

Run it (Python 3.8 or later, the standard library only):

    BOARDCERT_API_KEY=<the key> python3 {script_name(test["nodeid"])} [--base-url URL] [--keep]

{about}
"""

null, true, false = None, True, False  # the recipe below is JSON

RECIPE = {_recipe_text(recipe)}
'''
    return f'{header}\n{_code()}\n\nif __name__ == "__main__":\n    run(RECIPE)\n'


def _code() -> str:
    """answers.py and engine.py, without their docstrings and without the engine's import of
    answers (which then stands above it)."""
    parts = []
    for path in (ANSWERS, ENGINE):
        text = path.read_text(encoding="utf-8")
        text = text[text.index('"""', 3) + 3:].lstrip("\n")
        parts.append(re.sub(r"^from boardcert\.reproduce\.answers import \(.*?\)\n", "",
                            text, count=1, flags=re.MULTILINE | re.DOTALL))
    return "\n\n".join(parts)


def _recipe_text(recipe: dict[str, Any]) -> str:
    """The recipe as JSON a person can read: a line per key, per id, per name and per step."""
    def line(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)

    out = ["{"]
    for n, (key, value) in enumerate(recipe.items()):
        comma = "," if n < len(recipe) - 1 else ""
        if isinstance(value, dict) and value and key in ("ids", "names"):
            inner = [f"  {line(k)}: {line(v)}" for k, v in value.items()]
            out.append(f" {line(key)}: {{\n" + ",\n".join(inner) + f"\n }}{comma}")
        elif isinstance(value, list) and value and key == "steps":
            inner = [f"  {line(step)}" for step in value]
            out.append(f" {line(key)}: [\n" + ",\n".join(inner) + f"\n ]{comma}")
        else:
            out.append(f" {line(key)}: {line(value)}{comma}")
    return "\n".join([*out, "}"])


def _escaped(text: str) -> str:
    """Text that stands as itself inside a docstring."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def write(report: dict[str, Any], directory: Path) -> list[Path]:
    """Every failed test's script in `directory`/reproduce/; the files written."""
    tests = [t for t in report.get("tests", []) if t.get("reproduction")]
    written = []
    for test in tests:
        path = directory / relative_path(test["nodeid"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(script(test, report), encoding="utf-8")
        path.chmod(0o755)
        written.append(path)
    return written


class NotFound(LookupError):
    """No failed test (or more than one) of the report is the one asked for."""


def find(report: dict[str, Any], wanted: str) -> dict[str, Any]:
    """The failed test a user names: its node id as the reports name it, its script's name,
    or a part of its node id that no other failed test's has."""
    failed = [t for t in report.get("tests", []) if t["outcome"] in ("failed", "error")]
    named = [t for t in failed if wanted in (t["nodeid"], script_name(t["nodeid"]),
                                            relative_path(t["nodeid"]))] or \
        [t for t in failed if wanted in t["nodeid"]]
    if len(named) > 1:
        shown = "\n  ".join(t["nodeid"] for t in named[:10])
        more = f"\n  and {len(named) - 10} more" if len(named) > 10 else ""
        raise NotFound(f"{wanted!r} names {len(named)} failed tests; give more of the node "
                       f"id:\n  {shown}{more}")
    if not named:
        shown = "\n  ".join(t["nodeid"] for t in failed[:10])
        raise NotFound(f"no failed test of the report is {wanted!r}" +
                       (f"; its failed tests include:\n  {shown}" if failed else
                        " (no test failed)"))
    if not named[0].get("reproduction"):
        why = "it errored: its set-up, or boardcert itself" if named[0]["outcome"] == "error" \
            else "its failure carries no request to send again"
        raise NotFound(f"{named[0]['nodeid']} has no reproduction ({why})")
    return named[0]
