"""Which revision of the interface a server matches, from its requirement results.

Section 9 of the interface dates two changes (2024-05-19, 2024-06-18) and lists undated
breaking changes already applied (the path and field history, `removed-paths`). Each
requirement that comes from one of them says so (`change:` in spec/requirements.yaml).
The revisions form a chain: the interface before the first dated change, then after each
dated change in date order, then the current interface (0.0.1) with the undated removals
applied too. A server matches the latest revision all of whose changes (and every earlier
one) have their MUST and SHOULD requirements passed.

    found = compute(report["requirements"])   # the `revision` part of compliance.json
    found["summary"]  # "matches the interface before 2024-06-18: missing the change of ..."
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from boardcert import INTERFACE_VERSION
from boardcert.interface import requirements

PASSED, FAILED, NOT_ASSESSED = "passed", "failed", "not assessed"
_DATED = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def chain(changes: Mapping[str, str] | None = None) -> list[str]:
    """The changes in the order they were applied: dated ones by date, undated ones last."""
    keys = list(requirements.changes() if changes is None else changes)
    dated = sorted(k for k in keys if _DATED.match(k))
    return dated + [k for k in keys if not _DATED.match(k)]


def compute(results: Iterable[Mapping[str, Any]],
            catalogue: Mapping[str, requirements.Requirement] | None = None,
            changes: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The revision part of a report, from its requirement results (id and status each)."""
    catalogue = requirements.catalogue() if catalogue is None else catalogue
    changes = requirements.changes() if changes is None else changes
    status = {r["id"]: r["status"] for r in results}
    parts = [change_result(key, changes[key], catalogue, status) for key in chain(changes)]
    matched: str | None = None
    for part in parts:
        if part["status"] != PASSED:
            break
        matched = part["change"]
    current = all(p["status"] == PASSED for p in parts)
    return {"matches": matched, "current": current, "summary": summary(parts, matched),
            "changes": parts}


def change_result(key: str, description: str, catalogue: Mapping[str, requirements.Requirement],
                  status: Mapping[str, str]) -> dict[str, Any]:
    """One change: its requirements (MUST and SHOULD; INFO never fails) and how they fared."""
    ids = [r.id for r in catalogue.values() if r.change == key and r.level != "INFO"]
    failed = [i for i in ids if status.get(i) == FAILED]
    missing = [i for i in ids if status.get(i, NOT_ASSESSED) == NOT_ASSESSED]
    state = FAILED if failed else NOT_ASSESSED if missing or not ids else PASSED
    return {
        "change": key,
        "dated": bool(_DATED.match(key)),
        "description": description,
        "status": state,
        "requirements": ids,
        "failed": failed,
        "not_assessed": missing,
        "operations": sorted({n for i in failed + missing for n in catalogue[i].operations}),
    }


def summary(parts: list[dict[str, Any]], matched: str | None) -> str:
    """One sentence: the revision matched, what the next one lacks, and any later surprise."""
    if all(p["status"] == PASSED for p in parts):
        return (f"matches the current interface ({INTERFACE_VERSION}): every dated change of "
                "section 9 and every breaking change of the path and field history is in place")
    gap = next(p for p in parts if p["status"] != PASSED)
    later = parts[parts.index(gap) + 1:]
    if gap["dated"]:
        where = f"the interface before {gap['change']}"
    else:
        where = f"the interface of {matched}" if matched else "an earlier interface"
        where += f", not the current one ({INTERFACE_VERSION})"
    if gap["status"] == FAILED:
        text = f"matches {where}: missing {_lack(gap)}"
    else:
        text = f"matches at least {where}; unconfirmed: {_lack(gap)}"
    if others := [p for p in later if p["status"] == FAILED]:
        text += "; also missing " + "; ".join(_lack(p) for p in others)
    if ahead := [p["change"] for p in later if p["status"] == PASSED and p["dated"]]:
        text += f"; yet the later change{'s' if len(ahead) > 1 else ''} " \
                f"{', '.join(ahead)} {'are' if len(ahead) > 1 else 'is'} in place"
    return text


def _lack(part: dict[str, Any]) -> str:
    of = "of " if part["dated"] else ""
    name = f"the change {of}{part['change']} ({part['description']})"
    if part["status"] == FAILED:
        return f"{name}, as {', '.join(part['failed'])} failed"
    if not part["requirements"]:
        return f"{name}, which no requirement checks"
    return f"{name}, as {', '.join(part['not_assessed'])} could not be assessed"
