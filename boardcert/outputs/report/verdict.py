"""The verdict of a compliance report (docs/policy.md, section 4), from its
requirements' statuses, and the reason in a sentence: what failed or was not assessed, and
the profile keys the not-assessed tests lacked or the server refused (their data, never
their messages).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from boardcert.outputs.report import partly as partly_assessed
from boardcert.paths import PROFILE_SCHEMA

PASSED, FAILED, NOT_ASSESSED = "passed", "failed", "not assessed"
STATUSES = (PASSED, FAILED, NOT_ASSESSED)
CONFORMANT = "conformant"
WARNINGS = "conformant with warnings"
NON_CONFORMANT = "non-conformant"
INCOMPLETE = "incomplete"
VERDICTS = (CONFORMANT, WARNINGS, NON_CONFORMANT, INCOMPLETE)
PROFILE_KEYS = frozenset(json.loads(PROFILE_SCHEMA.read_text(encoding="utf-8"))["properties"])


def decide(reqs: list[dict[str, Any]], cited: Mapping[str, Sequence[Any]] | None = None
           ) -> tuple[str, str]:
    """The verdict of docs/policy.md, section 4, and the reason in a sentence;
    `cited`: by requirement, the skipped tests its message gives (build.TestResult), whose
    profile keys the reason names."""
    def ids(level: str, status: str) -> list[str]:
        return [r["id"] for r in reqs if r["level"] == level and r["status"] == status]

    if failed := ids("MUST", FAILED):
        return NON_CONFORMANT, f"{_n(failed, 'MUST requirement')} failed: {_list(failed)}"
    if missing := ids("MUST", NOT_ASSESSED):
        return INCOMPLETE, f"{_n(missing, 'MUST requirement')} not assessed: " \
                           f"{_list(missing)}{_profile_hint(cited or {}, missing)}"
    partly = [f"{_n(found, f'{level} requirement')} passed but {partly_assessed.LABEL}: "
              f"{_list(found)}" for level in ("MUST", "SHOULD")
              if (found := partly_assessed.of(reqs, level))]
    said = "".join(f"; {text}" for text in partly)
    if warned := ids("SHOULD", FAILED):
        return WARNINGS, f"All MUST requirements passed; {_n(warned, 'SHOULD requirement')} " \
                         f"failed: {_list(warned)}{said}"
    if unknown := ids("SHOULD", NOT_ASSESSED):
        return CONFORMANT, f"All MUST requirements passed and no SHOULD failed; " \
                           f"{_n(unknown, 'SHOULD requirement')} not assessed: " \
                           f"{_list(unknown)}{said}"
    return CONFORMANT, f"All MUST and SHOULD requirements passed{said}"


def _profile_hint(cited: Mapping[str, Sequence[Any]], missing: list[str]) -> str:
    """The profile keys the server refused (api.misfit) and those the profile lacks, of the
    skipped tests the requirements not assessed cite, named in the verdict."""
    mine = [t for req in missing for t in cited.get(req, ())]
    keys = sorted({key for t in mine for key in t.misfit})
    lacking = sorted({key for t in mine for key in t.lacks if key in PROFILE_KEYS} - set(keys))
    hint = f"; the profile does not fit the server: set {', '.join(keys)} in your profile" \
        if keys else ""
    if lacking:
        them = "it" if len(lacking) == 1 else "them"
        hint += f"; the profile gives no {', '.join(lacking)}: set {them} in your profile"
    return hint


def _n(items: list[str], noun: str) -> str:
    return f"{len(items)} {noun}{'s' if len(items) != 1 else ''}"


def _list(items: list[str], shown: int = 6) -> str:
    more = f" and {len(items) - shown} more" if len(items) > shown else ""
    return ", ".join(items[:shown]) + more
