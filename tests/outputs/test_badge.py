"""badge.svg: parses as SVG, shows the verdict and the MUST count, coloured by verdict."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest
from samples import sample_report

from boardcert.outputs import badge

SVG = "{http://www.w3.org/2000/svg}"


def report(verdict: str, passed: int = 29, total: int = 29) -> dict:
    counts = {"passed": passed, "failed": total - passed, "not assessed": 0, "total": total}
    return {"verdict": verdict, "counts": {"requirements": {"MUST": counts}}}


@pytest.mark.parametrize(("verdict", "passed", "text", "fill"), [
    ("conformant", 29, "conformant 29/29 MUST", "#2ea043"),
    ("conformant with warnings", 29, "conformant with warnings 29/29 MUST", "#dfb317"),
    ("non-conformant", 27, "non-conformant 27/29 MUST", "#e05d44"),
    ("incomplete", 25, "incomplete 25/29 MUST", "#9f9f9f"),
])
def test_badge_text_and_colour(verdict, passed, text, fill):
    """The badge reads "boardcert | <verdict> N/M MUST" on the verdict's colour."""
    root = ElementTree.fromstring(badge.render(report(verdict, passed)))
    assert root.tag == f"{SVG}svg"
    assert root.findtext(f"{SVG}title") == f"boardcert: {text}"
    assert [t.text for t in root.iter(f"{SVG}text")] == ["boardcert"] * 2 + [text] * 2
    assert fill in [r.get("fill") for r in root.iter(f"{SVG}rect")]
    assert root.get("data-verdict") == verdict


def test_badge_is_self_contained_and_sized_to_its_text():
    """No links, scripts, images, fonts or ids (it also sits inline in the HTML report); a
    longer message makes a wider badge."""
    short = badge.render(report("conformant"))
    long = badge.render(report("conformant with warnings"))
    for forbidden in ("href", "<script", "<image", "@import", "url(", "id="):
        assert forbidden not in short
    width = int(ElementTree.fromstring(short).get("width"))
    assert 100 < width < int(ElementTree.fromstring(long).get("width"))


def test_shows_recognises_its_report_only():
    """shows(): a badge matches the report it was drawn from, not another verdict or count."""
    drawn = badge.render(report("conformant"))
    assert badge.shows(drawn, report("conformant"))
    assert not badge.shows(drawn, report("non-conformant", 28))
    assert not badge.shows(drawn.replace("#2ea043", "#e05d44"), report("conformant"))
    assert not badge.shows("<svg", report("conformant"))


def test_write_puts_badge_svg_beside_the_reports(tmp_path):
    path = badge.write(report("incomplete", 3), tmp_path)
    assert path == tmp_path / "badge.svg"
    assert "incomplete 3/29 MUST" in path.read_text(encoding="utf-8")


def test_report_write_puts_the_badge_beside_the_reports_and_in_the_html(tmp_path):
    """Every written report has its badge.svg; the HTML shows the same badge inline."""

    from boardcert.outputs import report as compliance

    built = sample_report("non-conformant")
    written = compliance.write(built, tmp_path)
    assert written["badge"] == tmp_path / "badge.svg"
    svg = written["badge"].read_text(encoding="utf-8")
    assert badge.shows(svg, built)
    assert svg.strip() in written["html"].read_text(encoding="utf-8")
    assert "](badge.svg)" in written["md"].read_text(encoding="utf-8")
