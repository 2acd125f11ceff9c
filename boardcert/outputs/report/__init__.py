"""Compliance reports: compliance.json (built from a run's results), rendered as
compliance.md and a self-contained compliance.html.

    report = build(tests, run)          # a dict; spec/compliance.schema.json describes it
    write(report, directory)            # compliance.json, .md, -summary.md, .html, badge.svg,
                                        # reproduce/<test>.py for each failed test
    rebuild(directory)                  # the Markdown and HTML again, from compliance.json
"""

from __future__ import annotations

import json
import zipfile
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from boardcert.outputs import badge
from boardcert.outputs.report.build import VERDICTS, ReportedRun, TestResult, build
from boardcert.outputs.report.render import render_html, render_markdown, render_summary
from boardcert.paths import SPEC
from boardcert.reproduce import script

SCHEMA = SPEC / "compliance.schema.json"
JSON_NAME, MARKDOWN_NAME, HTML_NAME = "compliance.json", "compliance.md", "compliance.html"
SUMMARY_NAME = "compliance-summary.md"  # for pull requests and CI step summaries

__all__ = ["VERDICTS", "ReportError", "ReportedRun", "TestResult", "build", "load", "rebuild",
           "render_html", "render_markdown", "render_summary", "schema", "validate", "write"]


class ReportError(Exception):
    """compliance.json is missing, unreadable or not a compliance report."""


@cache
def schema() -> dict[str, Any]:
    """spec/compliance.schema.json."""
    return json.loads(SCHEMA.read_text(encoding="utf-8"))


@cache
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema())


@cache
def _fast_validator() -> Any:
    """The schema compiled by jsonschema-rs (schemathesis's dependency), or None."""
    try:
        import jsonschema_rs

        return jsonschema_rs.validator_for(schema())
    except Exception:  # noqa: BLE001 - not installed or cannot compile it: jsonschema alone
        return None


def validate(report: dict[str, Any]) -> None:
    """Raise ReportError naming the first problems if the report breaks its schema. A valid
    report is recognized by jsonschema-rs (1 ms for a whole run's report; jsonschema takes a
    quarter of a second); only one it rejects goes through jsonschema, which names the
    problems (and has the last word)."""
    fast = _fast_validator()
    try:
        if fast is not None and fast.is_valid(report):
            return
    except Exception:  # noqa: BLE001 - a value it cannot take: jsonschema judges
        pass
    errors = sorted(_validator().iter_errors(report), key=lambda e: list(e.absolute_path))
    if errors:
        raise ReportError("; ".join(
            f"{'/'.join(map(str, e.absolute_path)) or '(top level)'}: {e.message}"
            for e in errors[:5]))


def write(report: dict[str, Any], directory: Path) -> dict[str, Path]:
    """Validate the report and write its three files; returns their paths by suffix."""
    validate(report)
    directory.mkdir(parents=True, exist_ok=True)
    written = {"json": directory / JSON_NAME}
    text = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
    written["json"].write_text(text, encoding="utf-8")
    _written[written["json"].resolve()] = text
    return written | render_files(report, directory)


def render_files(report: dict[str, Any], directory: Path) -> dict[str, Path]:
    paths = {"md": directory / MARKDOWN_NAME, "html": directory / HTML_NAME,
             "summary": directory / SUMMARY_NAME}
    paths["md"].write_text(render_markdown(report), encoding="utf-8")
    paths["summary"].write_text(render_summary(report), encoding="utf-8")
    paths["html"].write_text(render_html(report), encoding="utf-8")
    paths["badge"] = badge.write(report, directory)
    if script.write(report, directory):
        paths["reproduce"] = directory / script.DIRECTORY
    return paths


# The text of each compliance.json this process wrote, validated before it was written: read
# back unchanged (boardcert run reads its own report for the verdict and the baseline), it is
# not validated again (a quarter of a second for a whole run's report).
_written: dict[Path, str] = {}


def load(path: Path, validated: bool = True) -> dict[str, Any]:
    """A compliance report, the one reader of compliance.json: the file, the report directory
    holding it, or a certification bundle (zip) that does. `validated` against
    spec/compliance.schema.json; else checked only for what a comparison reads (the verdict,
    each requirement's id, level and status), so that reports of other versions load too."""
    if path.is_dir():
        path = path / JSON_NAME
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as bundle:
                text = bundle.read(JSON_NAME).decode("utf-8")
        else:
            text = path.read_text(encoding="utf-8")
        report = json.loads(text)
    except KeyError:
        raise ReportError(f"{path}: a zip without {JSON_NAME}") from None
    except OSError as exc:
        raise ReportError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise ReportError(f"{path}: not a JSON compliance report ({exc})") from None
    if not validated:
        problem = _shape_problem(report)
        if problem:
            raise ReportError(f"{path}: not a compliance report ({problem})")
    elif _written.get(path.resolve()) != text:
        validate(report)
    return report


def _shape_problem(report: Any) -> str | None:
    if not isinstance(report, dict):
        return "not a JSON object"
    if not isinstance(report.get("verdict"), str):
        return "no verdict"
    reqs = report.get("requirements")
    if not isinstance(reqs, list) or not all(
            isinstance(r, dict) and {"id", "level", "status"} <= r.keys() for r in reqs):
        return "no requirements with id, level and status"
    return None


def rebuild(directory: Path) -> dict[str, Path]:
    """compliance.md and compliance.html again, from the directory's compliance.json."""
    report = load(directory)
    return render_files(report, directory if directory.is_dir() else directory.parent)
