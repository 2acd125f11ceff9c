"""The verdict and every failure in the reports point at the failed requirement's entry of
docs/requirements.md: a link under --docs-url (compliance.html, compliance.md,
compliance-summary.md, JUnit's `docs`), else the command that prints the entry."""

from __future__ import annotations

import json
import re
import secrets
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from faults import FAULTS, serving
from samples import sample_report

from boardcert import cli
from boardcert.interface import requirements
from boardcert.outputs.report import render
from boardcert.paths import ROOT
from tools import requirements_page

DOCS = "https://forge.example/team/boardcert/blob/v1/docs"
FAILED = "CARD-NAME-MAX-REJECTED"
ENTRY = f"{DOCS}/requirements.md#card-name-max-rejected"


def run_against_a_fault(tmp_path: Path, *docs: str) -> Path:
    """`boardcert run` (op 16's tests) against the server that stores a 25001-character
    name; its report directory."""
    key = "docs-" + secrets.token_urlsafe(12)
    variant = next(v for v in FAULTS if v.name == "name-limit-25001")
    out = tmp_path / "out"
    with serving(variant, key) as base_url:
        done = subprocess.run(
            [sys.executable, "-m", "boardcert.cli", "run", "--base-url", base_url, "--api-key",
             key, "--budget", "quick", "--output", str(out), *docs, "--", "-m", "op16"],
            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr
    return out


def anchors() -> set[str]:
    page = requirements_page.PAGE.read_text(encoding="utf-8")
    return {requirements.anchor(h) for h in re.findall(r"^## (\S+)$", page, re.MULTILINE)}


def junit_docs(out: Path) -> tuple[list[str], list[str]]:
    """The `docs` lines of junit.xml's <system-out> and the `docs` properties of
    junit-properties.xml."""
    lines = [line for out_ in ET.parse(out / "junit.xml").getroot().iter("system-out")
             for line in (out_.text or "").splitlines() if line.startswith("docs: ")]
    props = [p.get("value") or "" for p in
             ET.parse(out / "junit-properties.xml").getroot().iter("property")
             if p.get("name") == "docs"]
    return lines, props


def test_under_docs_url_the_verdict_and_each_failure_link_to_the_entry(tmp_path):
    """With --docs-url, the failed requirement links to its entry from the HTML verdict, its
    row and its failure, from the Markdown verdict, table and failure, from the summary's
    line, and from each failed test's JUnit `docs`; every link's anchor is an entry's."""
    out = run_against_a_fault(tmp_path, "--docs-url", DOCS)
    built = json.loads((out / "compliance.json").read_text())
    assert built["run"]["docs_url"] == DOCS
    html = (out / "compliance.html").read_text()
    verdict = re.search(r'<p id="verdict-docs">.*?</p>', html, re.DOTALL)
    assert verdict and f'href="{ENTRY}"' in verdict[0]
    assert html.count(f'href="{ENTRY}"') >= 3  # verdict, row, failure
    markdown = (out / "compliance.md").read_text()
    assert f"What it means: [{FAILED}]({ENTRY})" in markdown
    assert f"[`{FAILED}`]({ENTRY})" in markdown and f"Failed: [{FAILED}]({ENTRY})" in markdown
    assert f"([what it means]({ENTRY}))" in (out / "compliance-summary.md").read_text()
    lines, props = junit_docs(out)
    assert lines and all(line == f"docs: {ENTRY}" for line in lines)
    assert props and all(value == ENTRY for value in props)
    linked = set(re.findall(rf"{re.escape(DOCS)}/requirements\.md#([\w-]+)", html + markdown))
    assert linked and linked <= anchors()


def test_without_docs_url_the_reports_name_the_command(tmp_path):
    """No --docs-url: no link leaves the report; the verdict names `boardcert requirements ID`
    and its HTML links go to the requirement's row; JUnit's `docs` names the command."""
    out = run_against_a_fault(tmp_path)
    html = (out / "compliance.html").read_text()
    assert "requirements.md#" not in html
    assert f'<a class="docs" href="#req-{FAILED}">{FAILED}</a>' in html
    assert "<code>boardcert requirements ID</code> prints each one" in html
    assert f"What it means: `{FAILED}` (`boardcert requirements ID` prints" in \
        (out / "compliance.md").read_text()
    lines, props = junit_docs(out)
    assert lines and all(line == f"docs: boardcert requirements {FAILED} (docs/requirements.md)"
                         for line in lines)


@pytest.mark.parametrize("kind", ["conformant", "non-conformant", "incomplete",
                                  "conformant with warnings"])
def test_the_verdict_points_at_what_it_rests_on(kind):
    """Failed MUSTs for non-conformant, MUSTs not assessed for incomplete, failed SHOULDs for
    warnings, nothing for conformant."""
    built = sample_report(kind)
    behind = render.behind_verdict(built)
    want = {"conformant": [], "non-conformant": [("MUST", "failed")],
            "incomplete": [("MUST", "not assessed")],
            "conformant with warnings": [("SHOULD", "failed")]}[kind]
    statuses = {(q["level"], q["status"]) for q in built["requirements"] if q["id"] in behind}
    assert statuses == set(want)
    assert ("verdict-docs" in render.render_html(built)) == bool(behind)


def test_boardcert_requirements_prints_an_entry(capsys):
    """`boardcert requirements ID` prints the requirement's entry of docs/requirements.md (as
    the wheel carries it); an unknown id is a usage error naming it."""
    assert cli.main(["requirements", FAILED.lower()]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith(f"## {FAILED}\n") and "Catalogued faults" in shown
    assert "`name-limit-25001`" in shown
    assert cli.main(["requirements", "NO-SUCH-REQUIREMENT"]) == 2
    assert "NO-SUCH-REQUIREMENT" in capsys.readouterr().err
