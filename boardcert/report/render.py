"""compliance.md and compliance.html from a compliance report (the dict of build.py).

The HTML is one self-contained file: its CSS and JavaScript are inline, it loads nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import Any

import jinja2
import markupsafe
import yaml

from boardcert import badge, requirements

LEVELS = requirements.LEVELS
_REQUEST = re.compile(r"^request: ", re.MULTILINE)


@cache
def environment(autoescape: bool) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("boardcert.report", "templates"),
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
    return env


def render_markdown(report: dict[str, Any]) -> str:
    return environment(False).get_template("compliance.md.j2").render(view(report))


def render_html(report: dict[str, Any]) -> str:
    return environment(True).get_template("compliance.html.j2").render(view(report))


def view(report: dict[str, Any]) -> dict[str, Any]:
    """The report plus what both templates derive from it."""
    by_level = {level: [r for r in report["requirements"] if r["level"] == level]
                for level in LEVELS}
    tests = {t["nodeid"]: t for t in report["tests"]}
    failures = [failure(t) for t in report["tests"] if t["outcome"] in ("failed", "error")]
    levels = {r["id"]: r["level"] for r in report["requirements"]}
    return {
        "r": report,
        "levels": LEVELS,
        "by_level": by_level,
        "tests": tests,
        "failures": failures,
        "requirement_levels": levels,
        "badge_svg": markupsafe.Markup(badge.render(report)),
        "profile_yaml": yaml.safe_dump(report["profile"]["content"], sort_keys=False,
                                       default_flow_style=None,
                                       allow_unicode=True, width=100).strip(),
    }


def failure(test: dict[str, Any]) -> dict[str, Any]:
    """A failed or errored test as shown: its summary and its exchanges, each with a curl."""
    message = test["message"] or ""
    found = _REQUEST.search(message)
    summary = message[:found.start()].strip() if found else message.strip()
    evidence = test["evidence"] or (message[found.start():] if found else "")
    return {
        "nodeid": test["nodeid"],
        "outcome": test["outcome"],
        "requirements": test["failed_requirements"] or test["requirements"],
        "operations": test["operations"],
        "summary": summary or f"the test {'errored' if test['outcome'] == 'error' else 'failed'}",
        "exchanges": exchanges(evidence),
    }


def exchanges(evidence: str) -> list[dict[str, str]]:
    """Split evidence text ("request: ...", "response: ...", "reproduce: curl ...") into
    exchanges: request, response and curl lines, the rest as detail."""
    starts = [m.start() for m in _REQUEST.finditer(evidence)]
    found = []
    for begin, end in zip(starts, [*starts[1:], len(evidence)], strict=False):
        block = evidence[begin:end].strip("\n")
        curl = ""
        kept = []
        for line in block.splitlines():
            if line.startswith("reproduce: "):
                curl = line.removeprefix("reproduce: ")
            else:
                kept.append(line)
        found.append({"text": "\n".join(kept).rstrip(), "curl": curl,
                      "request": kept[0].removeprefix("request: ") if kept else ""})
    return found


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
