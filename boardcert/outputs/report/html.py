"""What compliance.html arranges for someone fixing a server: requirements by status, failed
first, then not assessed, then passed but partly assessed, passed last (each group by level,
then in catalogue order); failures
MUST first; long texts (a curl line with a 25,000-character body) folded to a few lines, the
whole text one click away and copied whole."""

from __future__ import annotations

from typing import Any

from boardcert.interface import requirements

PARTLY = "passed (partly assessed)"  # a passed requirement some of whose cases were not
FIRST, LAST = ("failed", "not assessed", PARTLY), ("passed",)  # any other status: between
PREVIEW_LINES, LINE_CHARS = 8, 300  # a text longer than either is folded


def status_rank(status: str) -> int:
    if status in FIRST:
        return FIRST.index(status)
    return len(FIRST) + 1 if status in LAST else len(FIRST)


def group(requirement: dict[str, Any]) -> str:
    """A requirement's group: its status, a passed one partly assessed apart."""
    if requirement["status"] == "passed" and requirement.get("partly_assessed"):
        return PARTLY
    return requirement["status"]


def requirement_groups(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The requirements by group, in the order a fix takes them."""
    levels = requirements.LEVELS
    order = {r["id"]: n for n, r in enumerate(report["requirements"])}
    groups = sorted({group(r) for r in report["requirements"]}, key=status_rank)
    return [{"status": name,
             "rows": sorted((r for r in report["requirements"] if group(r) == name),
                            key=lambda r: (levels.index(r["level"]), order[r["id"]]))}
            for name in groups]


def failure_rank(failure: dict[str, Any], levels: dict[str, str]) -> tuple[int, int]:
    """Failures before errors, those of a MUST first."""
    named = [requirements.LEVELS.index(levels[i]) for i in failure["requirements"]
             if i in levels]
    return (failure["outcome"] == "error", min(named, default=len(requirements.LEVELS)))


def fold(text: str) -> dict[str, Any]:
    """A text as shown: whole when short, else its first lines, each cut short (the preview;
    None: short enough to show whole)."""
    lines = text.splitlines() or [""]
    if len(lines) <= PREVIEW_LINES and all(len(line) <= LINE_CHARS for line in lines):
        return {"preview": None, "lines": len(lines), "chars": len(text)}
    shown = [line if len(line) <= LINE_CHARS else f"{line[:LINE_CHARS]}…"
             for line in lines[:PREVIEW_LINES]]
    more = "\n…" if len(lines) > PREVIEW_LINES else ""
    return {"preview": "\n".join(shown) + more, "lines": len(lines), "chars": len(text)}


def why(message: str) -> str:
    """A requirement's message with the lines its tests share said once, counted: 23 tests
    that fail alike are one line, "(23 tests)"."""
    counts: dict[str, int] = {}
    for line in message.splitlines():
        if line.strip():
            counts[line.strip()] = counts.get(line.strip(), 0) + 1
    return "\n".join(f"{line} ({n} tests)" if n > 1 else line for line, n in counts.items())
