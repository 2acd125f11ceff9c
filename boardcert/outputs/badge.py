"""badge.svg: the verdict and the MUST count as a small self-contained SVG badge.

    boardcert | conformant 29/29 MUST

Drawn from a compliance report (the dict of compliance.json), coloured by verdict; it loads
nothing (no fonts, no links), so it can be committed beside a README or served as is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.etree import ElementTree
from xml.sax.saxutils import escape

BADGE_NAME = "badge.svg"
LABEL = "boardcert"
COLOURS = {
    "conformant": "#2ea043",
    "conformant with warnings": "#dfb317",
    "non-conformant": "#e05d44",
    "incomplete": "#9f9f9f",
}
_LABEL_COLOUR = "#555"
_SVG = "{http://www.w3.org/2000/svg}"
# Approximate advance widths of 11px Verdana, enough to size the two halves.
_WIDTHS = {**dict.fromkeys("ijl.,:;!|'", 3.1), **dict.fromkeys("ftr()/ I", 4.6),
           **dict.fromkeys("mw", 9.8), **dict.fromkeys("MW", 10.3)}


def message(report: dict[str, Any]) -> str:
    """The right half: "conformant 29/29 MUST"."""
    must = report["counts"]["requirements"]["MUST"]
    return f"{report['verdict']} {must['passed']}/{must['total']} MUST"


def colour(verdict: str) -> str:
    return COLOURS.get(verdict, COLOURS["incomplete"])


def text_width(text: str) -> float:
    return sum(_WIDTHS.get(c, 7.5 if c.isupper() else 6.8) for c in text)


def render(report: dict[str, Any]) -> str:
    """The badge as SVG text."""
    right = message(report)
    left_w = round(text_width(LABEL) + 12)
    right_w = round(text_width(right) + 12)
    width = left_w + right_w
    title = escape(f"{LABEL}: {right}")
    fill = colour(report["verdict"])
    # plain shapes only (no gradients, clip paths or url() references), so that the badge
    # can also sit inline in compliance.html without ids that might clash
    return f"""\
<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" \
aria-label="{title}" data-verdict="{escape(report['verdict'])}">
  <title>{title}</title>
  <rect width="{width}" height="20" rx="3" fill="{fill}"/>
  <rect width="{left_w}" height="20" rx="3" fill="{_LABEL_COLOUR}"/>
  <rect x="{left_w - 3}" width="3" height="20" fill="{_LABEL_COLOUR}"/>
  <g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" \
font-size="11">
{_text(left_w / 2, LABEL)}
{_text(left_w + right_w / 2, right)}
  </g>
</svg>
"""


def _text(x: float, text: str) -> str:
    shown = escape(text)
    return (f'    <text x="{x:g}" y="15" fill="#010101" fill-opacity=".3">{shown}</text>\n'
            f'    <text x="{x:g}" y="14">{shown}</text>')


def shows(svg: bytes | str, report: dict[str, Any]) -> bool:
    """Whether a badge (of this or another suite version) shows the report's verdict, MUST
    count and colour: its title and the fill of its right half."""
    try:
        root = ElementTree.fromstring(svg)
    except ElementTree.ParseError:
        return False
    title = root.findtext(f"{_SVG}title")
    fills = {rect.get("fill") for rect in root.iter(f"{_SVG}rect")}
    return title == f"{LABEL}: {message(report)}" and colour(report["verdict"]) in fills


def write(report: dict[str, Any], directory: Path) -> Path:
    """Write badge.svg into the report directory; returns its path."""
    path = directory / BADGE_NAME
    path.write_text(render(report), encoding="utf-8")
    return path
