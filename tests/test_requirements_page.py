"""docs/requirements.md, what a server author reads after a failure, is current: generated from
the catalogue, the committed test list and the fault catalogue, an entry per requirement under
the anchor the reports link to."""

from __future__ import annotations

import re

from faults import FAULTS

from boardcert.interface import requirements
from tools import requirements_page
from tools.requirement_tests import LISTING


def slug(heading: str) -> str:
    """The anchor GitHub (and GitLab) give a Markdown heading: lower case, punctuation but
    hyphens and underscores dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_the_page_is_current():
    """docs/requirements.md is what the catalogue, spec/requirement-tests.yaml and
    tests/faults/ give today."""
    committed = requirements_page.PAGE.read_text(encoding="utf-8")
    assert committed == requirements_page.current(), (
        f"{requirements_page.PAGE.name} is stale: run `{requirements_page.COMMAND}` and commit "
        "the result")


def test_each_requirement_has_an_entry_under_its_anchor():
    """One `## ID` heading per requirement, in catalogue order, whose slug is the anchor the
    reports link to."""
    page = requirements_page.PAGE.read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", page, flags=re.MULTILINE)
    assert headings == list(requirements.catalogue())
    assert all(slug(h) == requirements.anchor(h) for h in headings)
    assert requirements.link("https://example.test/docs/", "CARD-NAME-MAX-REJECTED") == \
        "https://example.test/docs/requirements.md#card-name-max-rejected"


def test_an_entry_gives_level_words_reading_tests_and_faults():
    """Each entry holds its level, the quote it rests on, 'a reading' exactly for readings,
    every test of the committed list and every catalogued fault of that requirement."""
    page = requirements_page.PAGE.read_text(encoding="utf-8")
    entries = dict(re.findall(r"^## (\S+)\n(.*?)(?=^## |\Z)", page,
                              flags=re.MULTILINE | re.DOTALL))
    listed = requirements_page.listed_tests()
    for req in requirements.catalogue().values():
        entry = entries[req.id]
        assert f"**{req.level}**" in entry and f"> {req.quote}" in entry
        assert ("· a reading" in entry) == bool(req.reading), req.id
        assert all(f"- `{test}`" in entry for test in listed[req.id])
        assert all(f"- `{f.name}`: " in entry for f in FAULTS if f.requirement == req.id)
    assert set(listed) == set(requirements.catalogue()), LISTING


def test_the_counts_on_the_page_are_the_catalogue_s():
    """The page's count of requirements by level is read from the catalogue."""
    page = requirements_page.PAGE.read_text(encoding="utf-8")
    catalogue = requirements.catalogue().values()
    counts = ", ".join(f"{sum(r.level == level for r in catalogue)} {level}"
                       for level in requirements.LEVELS)
    assert f": {len(catalogue)} in all, {counts}." in page
