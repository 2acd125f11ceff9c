"""The client report: client-compatibility.json (spec/client-compatibility.schema.json), .md
and .html, from a `Book`. A finding is a client rule broken at one operation, with its level,
the interface's words, what the request did, what to do instead and the first request that
did it (the key masked).

The verdict: `incompatible` when a MUST rule is broken, `compatible with warnings` when a
SHOULD rule is, else `compatible` (INFO rules are notes).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
import jsonschema

from boardcert import INTERFACE_VERSION, __version__
from boardcert.http.redact import Redactor
from boardcert.paths import SPEC
from boardcert.traffic import rules
from boardcert.traffic.book import Book, Broken

FORMAT = "boardcert-client-compatibility/1"
SCHEMA = SPEC / "client-compatibility.schema.json"
JSON_NAME, MARKDOWN_NAME, HTML_NAME = ("client-compatibility.json", "client-compatibility.md",
                                       "client-compatibility.html")
COMPATIBLE, WARNINGS, INCOMPATIBLE = "compatible", "compatible with warnings", "incompatible"
VERDICTS = (COMPATIBLE, WARNINGS, INCOMPATIBLE)
LEVELS = (rules.MUST, rules.SHOULD, rules.INFO)


def build(book: Book, base_url: str, source: str, redactor: Redactor,
          vary: dict[str, Any] | None = None, finished: datetime | None = None
          ) -> dict[str, Any]:
    """The report (a dict); `base_url`: the server's, as the evidence names it; `source`:
    serve or proxy; `vary`: the choices of `boardcert serve --vary`."""
    finished = finished or datetime.now(UTC)
    findings = sorted((finding(b, base_url, redactor) for b in book.broken.values()),
                      key=lambda f: (LEVELS.index(f["level"]), f["where"], f["rule"]))
    verdict, reason = decide(findings, book.requests)
    return {
        "format": FORMAT,
        "suite": {"name": "boardcert", "version": __version__},
        "interface_version": INTERFACE_VERSION,
        "source": source,
        "server": {"base_url": base_url, "reference_server": source == "serve"},
        "started": _iso(book.started),
        "finished": _iso(finished),
        "duration_seconds": round((finished - book.started).total_seconds(), 3),
        "verdict": verdict,
        "verdict_reason": reason,
        "counts": {"requests": book.requests, "unanswered": book.unanswered,
                   "findings": {level: sum(f["level"] == level for f in findings)
                                for level in LEVELS}},
        "vary": vary,
        "operations": [{"label": u.label, "operation": u.operation, "kind": u.kind,
                        "requests": u.requests, "statuses": dict(u.statuses),
                        "rules": list(u.rules)} for u in book.used.values()],
        "findings": findings,
        "boardcert_errors": list(book.errors),
    }


def finding(broken: Broken, base_url: str, redactor: Redactor) -> dict[str, Any]:
    rule = rules.rule(broken.finding.rule)
    seen = broken.first
    exchange = seen.exchange(base_url, redactor).as_dict()
    try:
        instead = rule.instead.format_map(dict(broken.finding.fill))
    except (KeyError, ValueError):  # a template naming what the finding does not fill
        instead = rule.instead
    return {
        "rule": rule.id, "level": rule.level, "title": rule.title, "text": rule.text,
        "section": rule.section, "quote": rule.quote, "reading": rule.reading,
        "requirement": rule.requirement, "where": broken.label, "count": broken.count,
        "detail": redactor.text(broken.finding.detail), "instead": instead,
        "request": {"method": seen.method, "path": exchange["url"].removeprefix(
                        base_url.rstrip("/")), "body": exchange["request_body"]},
        "exchange": exchange,
    }


def decide(findings: list[dict[str, Any]], requests: int) -> tuple[str, str]:
    """The verdict and its reason in a sentence."""
    def ids(level: str) -> list[str]:
        return list(dict.fromkeys(f["rule"] for f in findings if f["level"] == level))

    if not requests:
        return COMPATIBLE, "No request was seen: nothing was judged"
    if broken := ids(rules.MUST):
        return INCOMPATIBLE, f"{_n(broken, 'MUST rule')} broken: {', '.join(broken)}"
    noted = f"; noted: {', '.join(ids(rules.INFO))}" if ids(rules.INFO) else ""
    if warned := ids(rules.SHOULD):
        return WARNINGS, f"No MUST rule broken; {_n(warned, 'SHOULD rule')} broken: " \
                         f"{', '.join(warned)}{noted}"
    return COMPATIBLE, f"No MUST or SHOULD rule broken in {requests} " \
                       f"request{'s' * (requests != 1)}{noted}"


def write(report: dict[str, Any], directory: Path) -> dict[str, Path]:
    """Validate the report and write client-compatibility.json, .md and .html."""
    validate(report)
    directory.mkdir(parents=True, exist_ok=True)
    paths = {"json": directory / JSON_NAME, "md": directory / MARKDOWN_NAME,
             "html": directory / HTML_NAME}
    paths["json"].write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n",
                             encoding="utf-8")
    view = {"r": report, "levels": LEVELS, "by_level": {
        level: [f for f in report["findings"] if f["level"] == level] for level in LEVELS}}
    paths["md"].write_text(_environment(False).get_template(f"{MARKDOWN_NAME}.j2").render(view),
                           encoding="utf-8")
    paths["html"].write_text(_environment(True).get_template(f"{HTML_NAME}.j2").render(view),
                             encoding="utf-8")
    return paths


@cache
def schema() -> dict[str, Any]:
    return json.loads(SCHEMA.read_text(encoding="utf-8"))


def validate(report: dict[str, Any]) -> None:
    """Raise ValueError naming the first problems if the report breaks its schema."""
    errors = sorted(jsonschema.Draft202012Validator(schema()).iter_errors(report),
                    key=lambda e: list(e.absolute_path))
    if errors:
        raise ValueError("; ".join(f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: "
                                   f"{e.message}" for e in errors[:5]))


@cache
def _environment(autoescape: bool) -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.PackageLoader("boardcert.traffic", "templates"),
                              autoescape=autoescape, undefined=jinja2.StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def _n(items: list[str], noun: str) -> str:
    return f"{len(items)} {noun}{'s' * (len(items) != 1)}"


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
