"""Regression runs and run diffs: a run read against an earlier one (its baseline) and a list
of known failures.

A requirement got *worse* when the baseline had it passed and now it is failed or not
assessed, or when it fails now and did not fail before (a new failure): a regression run
fails on those alone. A requirement *improved* when it passes now and did not before. A
*known failure* (one the baseline had failed, or one listed in a known-failures file) that
passes now is *stale*: the list, or the baseline, wants updating. INFO requirements are never
failed (docs/policy.md, section 1), so they are never worse.

    current = load(Path("reports/new"))          # a compliance.json, its directory or a bundle
    found = compare(current, load(Path("reports/old")), read_known_failures(path))
    print(render_comparison(found)); found.regressed
    print(render_diff(diff(load(a), load(b))))   # `boardcert diff A B`

A known-failures file names one requirement id a line; `#` starts a comment (a reason):

    CARD-NAME-MAX-ASTRAL      # counts UTF-16 units; fixed in 2.4
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardcert.interface import requirements
from boardcert.outputs import report as compliance
from boardcert.settings import run_facts

PASSED, FAILED, NOT_ASSESSED = "passed", "failed", "not assessed"


class BaselineError(compliance.ReportError):
    """A baseline or known-failures file that cannot be read (a usage error)."""


# --- reading -----------------------------------------------------------------------------

def load(path: Path) -> dict[str, Any]:
    """A compliance report from compliance.json, a report directory or a certification.zip
    (boardcert.outputs.report.load, the one reader): only what comparisons need is checked, so
    reports of other suite versions load too."""
    try:
        return compliance.load(path, validated=False)
    except compliance.ReportError as exc:
        raise BaselineError(str(exc)) from None


def read_known_failures(path: Path) -> dict[str, str]:
    """Requirement id -> the reason given (the comment, or ""), in file order. An id that is
    not in the catalogue is an error, so that a typo cannot hide a failure."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    known: dict[str, str] = {}
    catalogue = requirements.catalogue()
    for number, line in enumerate(lines, start=1):
        entry, _, comment = line.partition("#")
        words = entry.split()
        if not words:
            continue
        if len(words) > 1 or words[0] not in catalogue:
            raise BaselineError(f"{path}:{number}: {entry.strip()!r} is not a requirement id "
                                "of spec/requirements.yaml (one id a line, # for comments)")
        known[words[0]] = comment.strip()
    return known


# --- a run against its baseline ----------------------------------------------------------

@dataclass
class Change:
    id: str
    level: str
    before: str | None  # None: not in the baseline (a new requirement, or no baseline)
    now: str | None  # None: no longer in the catalogue
    listed_in: str | None = None  # a stale known failure: the baseline or the file naming it

    def as_dict(self) -> dict[str, Any]:
        found = {"id": self.id, "level": self.level, "before": self.before, "now": self.now}
        if self.listed_in is not None:
            found["listed_in"] = self.listed_in
        return found


@dataclass
class Comparison:
    baseline: str | None  # where the baseline came from
    baseline_verdict: str | None
    baseline_started: str | None
    known_failures_file: str | None
    worse: list[Change] = field(default_factory=list)
    improved: list[Change] = field(default_factory=list)
    stale: list[Change] = field(default_factory=list)
    known_failing: list[Change] = field(default_factory=list)  # still failing, as expected

    @property
    def regressed(self) -> bool:
        return bool(self.worse)

    def as_dict(self) -> dict[str, Any]:
        """The `baseline` part of compliance.json."""
        return {
            "path": self.baseline,
            "verdict": self.baseline_verdict,
            "started": self.baseline_started,
            "known_failures_file": self.known_failures_file,
            "regressed": self.regressed,
            "worse": [c.as_dict() for c in self.worse],
            "improved": [c.as_dict() for c in self.improved],
            "stale_known_failures": [c.as_dict() for c in self.stale],
            "known_failures_still_failing": [c.id for c in self.known_failing],
        }


def statuses(report: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Requirement id -> (level, status)."""
    return {r["id"]: (r["level"], r["status"]) for r in report["requirements"]}


def compare(current: dict[str, Any], baseline: dict[str, Any] | None = None,
            known: dict[str, str] | None = None, *, baseline_name: str | None = None,
            known_name: str | None = None) -> Comparison:
    """The current run read against a baseline run and/or a known-failures list. Without a
    baseline every requirement is expected to pass unless listed."""
    known = known or {}
    before = statuses(baseline) if baseline is not None else {}
    found = Comparison(
        baseline=baseline_name, known_failures_file=known_name,
        baseline_verdict=baseline.get("verdict") if baseline else None,
        baseline_started=baseline.get("started") if baseline else None)
    for req_id, (level, now) in statuses(current).items():
        if level == "INFO":
            continue
        was = before[req_id][1] if req_id in before else None
        expected = was if baseline is not None else PASSED
        listed_in = (known_name or "the known failures") if req_id in known else (
            baseline_name or "the baseline") if was == FAILED else None
        change = Change(req_id, level, was, now)
        if listed_in is not None:
            if now == PASSED:
                found.stale.append(Change(req_id, level, was, now, listed_in))
            elif now == FAILED:
                found.known_failing.append(change)
        elif now == FAILED or (now == NOT_ASSESSED and expected == PASSED):
            found.worse.append(change)
        if now == PASSED and was in (FAILED, NOT_ASSESSED):
            found.improved.append(change)
    return found


def render_comparison(found: Comparison) -> str:
    """The comparison for the console (and the reports)."""
    against = []
    if found.baseline:
        against.append(f"the baseline {found.baseline} ({found.baseline_verdict}, "
                       f"{found.baseline_started})")
    if found.known_failures_file:
        against.append(f"the known failures of {found.known_failures_file}")
    lines = [f"compared with {' and '.join(against)}:"]
    sections = (("worse", found.worse, "worse"), ("improved", found.improved, "better"),
                ("stale known failures", found.stale, "stale"))
    for title, changes, kind in sections:
        if not changes:
            lines.append(f"  {title}: none")
            continue
        lines.append(f"  {title} ({len(changes)}):")
        lines += [f"    {_line(c, kind)}" for c in changes]
    if found.known_failing:
        lines.append(f"  known failures still failing: {len(found.known_failing)} "
                     f"({', '.join(c.id for c in found.known_failing)})")
    return "\n".join(lines)


def _line(change: Change, kind: str) -> str:
    before = change.before or "new"
    text = f"{change.id} ({change.level}): {before} -> {change.now}"
    if kind == "stale":
        text += f", yet a known failure in {change.listed_in}: update that list"
    return text


# --- two runs side by side ---------------------------------------------------------------

@dataclass
class Diff:
    a: dict[str, Any]
    b: dict[str, Any]
    requirements: list[Change]  # every requirement whose status differs (or that came or went)
    operations: list[tuple[int, str, str | None, str | None]]  # number, label, before, now

    @property
    def verdicts(self) -> tuple[str, str]:
        return self.a["verdict"], self.b["verdict"]


def diff(a: dict[str, Any], b: dict[str, Any]) -> Diff:
    """What changed from run a to run b."""
    before, after = statuses(a), statuses(b)
    reqs = []
    for req_id in [*before, *(i for i in after if i not in before)]:
        was, now = before.get(req_id), after.get(req_id)
        if (was and was[1]) != (now and now[1]):
            level = (now or was)[0]
            reqs.append(Change(req_id, level, was and was[1], now and now[1]))
    ops_a = {o["number"]: o for o in a.get("operations", [])}
    ops_b = {o["number"]: o for o in b.get("operations", [])}
    ops = []
    for number in sorted(ops_a.keys() | ops_b.keys()):
        was, now = ops_a.get(number), ops_b.get(number)
        if (was or {}).get("status") != (now or {}).get("status"):
            op = now or was or {}
            ops.append((number, f"{op.get('method', '?')} {op.get('path', '?')}",
                        was and was.get("status"), now and now.get("status")))
    return Diff(a, b, reqs, ops)


def render_diff(found: Diff, name_a: str = "A", name_b: str = "B") -> str:
    """The diff for the console."""
    a, b = found.a, found.b
    lines = [f"A: {name_a}: {_run_line(a)}", f"B: {name_b}: {_run_line(b)}"]
    verdict_a, verdict_b = found.verdicts
    lines.append(f"verdict: {verdict_a} -> {verdict_b}" if verdict_a != verdict_b
                 else f"verdict: {verdict_a} (unchanged)")
    for level in requirements.LEVELS:
        count_a, count_b = _passed(a, level), _passed(b, level)
        if count_a != count_b:
            lines.append(f"{level} passed: {count_a} -> {count_b}")
    for what, key in (("target", "target"), ("profile", "profile"), ("suite", "suite")):
        if _brief(a.get(key)) != _brief(b.get(key)):
            lines.append(f"{what}: {_brief(a.get(key))} -> {_brief(b.get(key))}")
    if (a.get("profile") or {}).get("content") != (b.get("profile") or {}).get("content") \
            and _brief(a.get("profile")) == _brief(b.get("profile")):
        lines.append(f"profile: {_brief(a.get('profile'))}: its content differs")
    lines += run_facts.differences(a.get("run"), b.get("run"))
    if a.get("revision") and b.get("revision") and \
            a["revision"].get("summary") != b["revision"].get("summary"):
        lines.append(f"revision: {a['revision']['summary']}\n       -> {b['revision']['summary']}")
    groups: dict[str, list[Change]] = {"worse": [], "better": [], "changed": []}
    for change in found.requirements:
        groups[_direction(change)].append(change)
    lines.append(f"requirements changed: {len(found.requirements)}")
    for title, changes in groups.items():
        for c in changes:
            lines.append(f"  {title:7} {c.id} ({c.level}): {c.before or 'absent'} -> "
                         f"{c.now or 'absent'}")
    lines.append(f"operations changed: {len(found.operations)}")
    for number, label, was, now in found.operations:
        lines.append(f"  op {number:2} {label}: {was or 'absent'} -> {now or 'absent'}")
    return "\n".join(lines)


def _direction(change: Change) -> str:
    if change.before is None or change.now is None:
        return "changed"
    if change.now == FAILED or (change.before == PASSED and change.level != "INFO"):
        return "worse"
    if change.now == PASSED:
        return "better"
    return "changed"


def _passed(report: dict[str, Any], level: str) -> str:
    chosen = [r for r in report["requirements"] if r["level"] == level]
    return f"{sum(r['status'] == PASSED for r in chosen)}/{len(chosen)}"


def _run_line(report: dict[str, Any]) -> str:
    target = report.get("target") or {}
    where = "the bundled reference server" if target.get("reference_server") else \
        target.get("base_url") or "target not recorded"
    return f"{report['verdict']}, {where}, started {report.get('started', '?')}"


def _brief(part: Any) -> str:
    if not isinstance(part, dict):
        return str(part)
    if "base_url" in part:
        return "the bundled reference server" if part.get("reference_server") else \
            str(part.get("base_url") or "target not recorded")
    if "version" in part:
        return f"{part.get('name', '')} {part['version']}".strip()
    return str(part.get("name", part))
