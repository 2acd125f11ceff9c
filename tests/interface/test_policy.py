"""docs/policy.md, the conformance policy, is shipped and cited: every reading of the catalogue
(spec/requirements.yaml, spec/client-rules.yaml) is found, word for word, in one paragraph of
it; docs/requirements.md links each reading to that paragraph; every link to policy.md in the
docs and the reports resolves to a heading that exists; a doc that cites the policy links it."""

from __future__ import annotations

import re

import pytest
from samples import sample_report

from boardcert.interface import policy, requirements
from boardcert.outputs.report import render
from boardcert.paths import POLICY, ROOT, read_yaml
from boardcert.settings import run_facts

DOCS = ROOT / "docs"


def readings() -> list[tuple[str, str]]:
    """(id, reading) of every requirement and client rule that rests on the policy."""
    found = [(r.id, r.reading) for r in requirements.catalogue().values() if r.reading]
    rules = read_yaml(ROOT / "spec" / "client-rules.yaml")
    rules = rules.get("rules", []) if isinstance(rules, dict) else rules or []
    return found + [(r["id"], r["reading"]) for r in rules if r.get("reading")]


def headings() -> list[str]:
    text = POLICY.read_text(encoding="utf-8")
    return [policy.slug(h) for h in re.findall(r"^#{1,4} (.+)$", text, re.MULTILINE)]


def test_every_heading_of_the_policy_has_an_anchor_of_its_own():
    """No two paragraphs share an anchor: a link names exactly one."""
    assert len(headings()) == len(set(headings())) > 30


@pytest.mark.parametrize(("requirement", "reading"), readings(), ids=[i for i, _ in readings()])
def test_every_reading_is_in_a_paragraph_of_the_policy(requirement, reading):
    """Each part of the reading (parts joined by "...") stands in one paragraph of
    docs/policy.md, whitespace and code marks aside."""
    assert policy.anchor(reading) in headings()


def test_a_reading_the_policy_does_not_hold_is_refused():
    """Words in no paragraph, or parts that stand in two different paragraphs, are no
    reading of it: NotInPolicy, and no link."""
    with pytest.raises(policy.NotInPolicy, match="no paragraph of docs/policy.md"):
        policy.anchor("A server may answer 201 for a creation.")
    with pytest.raises(policy.NotInPolicy):  # "Card name limit" and "Moves" parts together
        policy.anchor("Exactly 25000 characters is accepted ... so every call that expects "
                      "success names an anchor.")
    assert policy.link("https://x/docs", "not a sentence of the policy") == ""
    assert policy.link("https://x/docs", "Ids may be any string") == \
        "https://x/docs/policy.md#choices-left-open"


def test_requirements_page_links_each_reading_to_its_paragraph():
    """Each entry with a reading links policy.md#anchor, the paragraph that holds it."""
    page = (DOCS / "requirements.md").read_text(encoding="utf-8")
    for req in requirements.catalogue().values():
        if req.reading:
            entry = re.search(rf"^## {re.escape(req.id)}\n.*?(?=^## |\Z)", page,
                              re.MULTILINE | re.DOTALL)
            assert entry and f"(policy.md#{policy.anchor(req.reading)})" in entry[0], req.id


def test_every_link_to_the_policy_resolves():
    """Links to policy.md#... in docs/, the README and the reports (under --docs-url) name a
    heading of the policy."""
    texts = [p.read_text(encoding="utf-8") for p in [*DOCS.glob("*.md"), ROOT / "README.md"]]
    built = sample_report("non-conformant")
    built["run"] = run_facts.record("quick", 1, ["run"], "https://example.org/docs")
    texts += [render.render_markdown(built), render.render_html(built)]
    linked = [a for t in texts for a in re.findall(r"policy\.md#([\w-]+)", t)]
    assert len(linked) > 30 and set(linked) <= set(headings())
    assert "policy.md#4-verdict-and-exit-codes" in texts[-1]  # the HTML report's note


def test_docs_that_cite_the_policy_link_it():
    """A page of docs/ that says "conformance policy" links policy.md (the words are shipped,
    not only cited)."""
    for path in DOCS.glob("*.md"):
        text = path.read_text(encoding="utf-8")
        if "conformance policy" in text and path.name != "policy.md":
            assert "policy.md" in text, path.name
