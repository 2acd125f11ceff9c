"""compliance.md and compliance.html from a compliance report (the dict of build.py).

The HTML is one self-contained file: its CSS and JavaScript are inline, it loads nothing.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from functools import cache
from typing import Any

import jinja2
import markupsafe
import yaml

from boardcert.http.evidence import exchange_text
from boardcert.interface import policy, requirements
from boardcert.outputs import badge
from boardcert.outputs.report import html, partly
from boardcert.outputs.report.build import BUG
from boardcert.paths import user_cache
from boardcert.reproduce.script import relative_path

LEVELS = requirements.LEVELS
SUMMARY_MAX = 60_000  # characters: a pull-request comment holds about 65,000
HEADLINE_MAX = 160  # characters of a failure message in the summary


@cache
def environment(autoescape: bool) -> jinja2.Environment:
    """The templates' environment; their compiled code is kept in the user's cache (each run
    compiled them again: 70 ms), one directory per escaping (the code differs)."""
    kept = user_cache("jinja2", "html" if autoescape else "text")
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("boardcert.outputs.report", "templates"),
        bytecode_cache=jinja2.FileSystemBytecodeCache(str(kept)) if kept else None,
        autoescape=autoescape,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["cell"] = markdown_cell
    env.filters["slug"] = slug
    env.filters["duration"] = duration
    env.filters["fence"] = fence
    env.filters["ranges"] = ranges
    env.filters["test_list"] = test_list
    env.filters["status_text"] = partly.status_text
    env.filters["fold"] = html.fold
    env.filters["why"] = html.why
    return env


def render_markdown(report: dict[str, Any]) -> str:
    return environment(False).get_template("compliance.md.j2").render(view(report))


def render_summary(report: dict[str, Any], artifact: tuple[str, str] | None = None) -> str:
    """compliance-summary.md: verdict, counts and one line per failed requirement, short
    enough for a pull-request comment or a CI step summary (SUMMARY_MAX characters).

    `artifact` (its name, and its URL or ""): for a CI job's summary page, where the report's
    files are not beside it: no relative link, each failed requirement links to its docs
    entry (the run's --docs-url), and the report files are named in that artefact."""
    shown = view(report)
    shown["failed"] = [failed_line(report, q, artifact is None) for level in LEVELS
                       for q in shown["by_level"][level] if q["status"] == "failed"]
    shown["full"], shown["beside"] = full_report(artifact), artifact is None
    text = environment(False).get_template("compliance-summary.md.j2").render(shown)
    if len(text) > SUMMARY_MAX:
        text = text[:SUMMARY_MAX - 200].rsplit("\n", 1)[0] + \
            f"\n\n… (cut: {shown['full']} has the rest)\n"
    return text


def full_report(artifact: tuple[str, str] | None) -> str:
    """Where the full report is, as the summary links it."""
    if artifact is None:
        return "[compliance.html](compliance.html)"
    name, url = artifact
    where = f"[{markdown_cell(name)}]({url})" if url else f"`{markdown_cell(name)}`"
    return f"compliance.html in the artefact {where}"


def render_html(report: dict[str, Any]) -> str:
    return environment(True).get_template("compliance.html.j2").render(view(report))


def view(report: dict[str, Any]) -> dict[str, Any]:
    """The report plus what both templates derive from it."""
    by_level = {level: [r for r in report["requirements"] if r["level"] == level]
                for level in LEVELS}
    tests = {t["nodeid"]: t for t in report["tests"]}
    failed = [t for t in report["tests"] if t["outcome"] in ("failed", "error")]
    levels = {r["id"]: r["level"] for r in report["requirements"]}
    return {
        "r": report,
        "levels": LEVELS,
        "by_level": by_level,
        "tests": tests,
        "failures": sorted(collapsed([failure(t) for t in failed]),
                           key=lambda f: html.failure_rank(f, levels)),
        "requirement_groups": html.requirement_groups(report),
        "failed_tests": len(failed),
        "requirement_levels": levels,
        "boardcert_errors": report.get("boardcert_errors", []),
        "kept": [{**k, "curl": kept_curl(report, k)} for k in report.get("kept", [])],
        "bug": BUG,
        "badge_svg": markupsafe.Markup(badge.render(report)),
        "doc": lambda requirement_id: docs_entry(report, requirement_id),
        "policy": lambda reading="", at="": policy_link(report, reading, at),
        "behind_verdict": behind_verdict(report),
        "profile_yaml": yaml.safe_dump(report["profile"]["content"], sort_keys=False,
                                       default_flow_style=None,
                                       allow_unicode=True, width=100).strip(),
    }


def docs_entry(report: dict[str, Any], requirement_id: str) -> str:
    """The URL of a requirement's entry in docs/requirements.md, under the run's --docs-url;
    "" when none was given (the reports then name `boardcert requirements ID`)."""
    base = (report.get("run") or {}).get("docs_url")
    return requirements.link(base, requirement_id) if base else ""


def policy_link(report: dict[str, Any], reading: str = "", at: str = "") -> str:
    """The URL of a paragraph of docs/policy.md under the run's --docs-url: the one that holds
    a reading's words, or the anchor `at`; "" without a docs URL (the reports then name the
    page)."""
    base = (report.get("run") or {}).get("docs_url")
    if not base:
        return ""
    return policy.link(base, reading) if reading else \
        f"{base.rstrip('/')}/{policy.PAGE}#{at}"


def behind_verdict(report: dict[str, Any]) -> list[str]:
    """The requirements the verdict rests on: the failed MUSTs, else the MUSTs not assessed
    (incomplete), else the failed SHOULDs (with warnings); none for conformant."""
    def having(level: str, status: str) -> list[str]:
        return [q["id"] for q in report["requirements"]
                if q["level"] == level and q["status"] == status]
    return having("MUST", "failed") or having("MUST", "not assessed") or \
        having("SHOULD", "failed")


def failure(test: dict[str, Any]) -> dict[str, Any]:
    """A failed or errored test as shown: its summary and its exchanges, each with a curl."""
    summary = (test["message"] or "").strip()
    if test.get("boardcert_error"):
        summary = f"{BUG}: {test['boardcert_error']}"
    return {
        "nodeid": test["nodeid"],
        "outcome": test["outcome"],
        "requirements": test["failed_requirements"] or test["requirements"],
        "operations": test["operations"],
        "summary": summary or f"the test {'errored' if test['outcome'] == 'error' else 'failed'}",
        "exchanges": [shown(x) for x in exchanges(test.get("evidence"))],
        "script": relative_path(test["nodeid"]) if test.get("reproduction") else None,
        "reproduce": f"boardcert reproduce . {shlex.quote(test['nodeid'])}",
    }


def collapsed(failures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Failures that say the same (requirements, outcome and first line of the summary) shown
    once, with the evidence of the first; the others are listed under it (`same`)."""
    kept: dict[tuple[Any, ...], dict[str, Any]] = {}
    for f in failures:
        key = (tuple(f["requirements"]), f["outcome"], headline(f["summary"]))
        if key in kept:
            kept[key]["same"].append(f["nodeid"])
        else:
            kept[key] = {**f, "same": []}
    return list(kept.values())


def test_list(tests: list[dict[str, Any]]) -> dict[str, Any]:
    """A requirement's tests as the HTML lists them: those that did not pass one by one, the
    passing ones as a count per test function (its parametrized cases together)."""
    passing: dict[str, int] = {}
    for t in tests:
        if t["outcome"] == "passed":
            function = t["nodeid"].split("[", 1)[0]
            passing[function] = passing.get(function, 0) + 1
    counts: dict[str, int] = {}
    for t in tests:
        counts[t["outcome"]] = counts.get(t["outcome"], 0) + 1
    return {"others": [t for t in tests if t["outcome"] != "passed"],
            "passing": sorted(passing.items()),
            "counts": ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))}


def kept_curl(report: dict[str, Any], kept: dict[str, Any]) -> str:
    """The curl line that deletes what --keep-failed left (the key as ***, as in the others)."""
    url = f"{(report['target'].get('base_url') or '').rstrip('/')}{kept['path']}"
    return " ".join(shlex.quote(p) for p in ("curl", "-sS", "-X", kept["method"], "-H",
                                             "X-API-Key: ***", url))


def exchanges(evidence: Any) -> list[dict[str, Any]]:
    """The exchanges of a test's evidence (a report before boardcert 0.2 kept it as text)."""
    if isinstance(evidence, str):
        return [{"text": evidence}] if evidence.strip() else []
    return list(evidence or [])


def shown(exchange: dict[str, Any]) -> dict[str, str]:
    """One exchange as the reports show it: the request line, the text and the curl line."""
    if "text" in exchange:
        return {"request": "", "text": exchange["text"], "curl": ""}
    return {"request": f"{exchange['method']} {exchange['url']}",
            "text": exchange_text(exchange, curl=False), "curl": exchange.get("curl") or ""}


def ranges(numbers: Iterable[int], sep: str = ", ", dash: str = "–") -> str:
    """Operation numbers, runs shortened: [1, 2, 3, 5] -> "1–3, 5"."""
    runs: list[list[int]] = []
    for n in sorted(numbers):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return sep.join(f"{r[0]}{dash}{r[-1]}" if len(r) > 2 else sep.join(map(str, r))
                    for r in runs)


def failed_line(report: dict[str, Any], requirement: dict[str, Any],
                beside: bool = True) -> str:
    """A failed requirement in the summary: level, id linking to its HTML section (when the
    summary is `beside` compliance.html, else to its docs entry, if any), title and the first
    line of why."""
    why = headline(requirement.get("message") or "").removeprefix(f"[{requirement['id']}] ")
    docs = docs_entry(report, requirement["id"])
    if beside:
        shown = f"[`{requirement['id']}`](compliance.html#req-{requirement['id']})" + \
            (f" ([what it means]({docs}))" if docs else "")
    else:
        shown = f"[`{requirement['id']}`]({docs})" if docs else f"`{requirement['id']}`"
    return (f"- **{requirement['level']}** {shown}: {markdown_cell(requirement['title'])}"
            + (f": {markdown_cell(why)}" if why else ""))


def headline(message: str) -> str:
    """The first line of a message, cut to HEADLINE_MAX characters."""
    first = next((line.strip() for line in str(message).splitlines() if line.strip()), "")
    return first if len(first) <= HEADLINE_MAX else first[:HEADLINE_MAX - 1] + "…"


def markdown_cell(value: Any) -> str:
    text = "" if value is None else str(value)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", "<br>")


def slug(value: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")


def duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"


def fence(text: str) -> str:
    """A Markdown code fence long enough for the text inside it."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)
