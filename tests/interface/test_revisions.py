"""Interface revisions: each requirement's `change` follows section 9, and the revision a
server matches is computed from which change-tagged requirements passed."""

from __future__ import annotations

import pytest
from samples import all_passing, reported_run

from boardcert.interface import requirements, revisions

# Section 9 of the interface, requirement by requirement: the golden list of change tags.
# 2024-05-19 "card and project response properties modified": top-level Project fields (the
# inner Project property removed), Cards gaining createdFlair and url (and their types).
# 2024-06-18 "card metadata operations added and rows response modified": operations 21, 22
# and the required `rows` of operation 6. Undated breaking changes (the path and field
# history, "removed-paths"): former paths and dropped properties. Additions without a date
# (userToken, afterCardId/beforeCardId) have no dated change to point at.
EXPECTED_CHANGES = {
    "PROJECT-TOP-LEVEL": "2024-05-19",
    "PROJECT-NOT-WRAPPED": "2024-05-19",
    "CARD-FIELD-TYPES": "2024-05-19",
    "CARD-URL-FLAIR": "2024-05-19",
    "ROWS-PROPERTY-REQUIRED": "2024-06-18",
    "CARD-METADATA-ADD": "2024-06-18",
    "CARD-METADATA-REMOVE": "2024-06-18",
    "CARD-METADATA-REMOVE-BODY": "2024-06-18",
    "USERS-ME-NO-ACCESS-TOKENS": "removed-paths",
    "EXCHANGE-NO-ACCESS-TOKEN": "removed-paths",
    "REMOVED-PATH-NOT-SERVED": "removed-paths",
    "REMOVED-PATH-NO-EFFECT": "removed-paths",
}


def results(**statuses: str) -> list[dict]:
    """Every requirement passed, but those given (REQ_ID_WITH_UNDERSCORES="failed")."""
    given = {k.replace("_", "-"): v for k, v in statuses.items()}
    return [{"id": i, "status": given.get(i, "passed")} for i in requirements.catalogue()]


def test_change_tags_follow_section_9():
    """The change of each requirement is the one section 9 gives (reviewed golden list)."""
    tagged = {r.id: r.change for r in requirements.catalogue().values() if r.change}
    assert tagged == EXPECTED_CHANGES


def test_chain_is_dated_changes_then_undated():
    """Dated changes in date order, then the undated removals of the path and field history."""
    assert revisions.chain() == ["2024-05-19", "2024-06-18", "removed-paths"]


def test_all_passing_matches_the_current_interface():
    found = revisions.compute(results())
    assert found["current"] is True
    assert found["matches"] == "removed-paths"
    assert found["summary"].startswith("matches the current interface (0.0.1)")
    assert {c["status"] for c in found["changes"]} == {"passed"}


def test_missing_metadata_operations_match_the_interface_before_2024_06_18():
    """Operations 21 and 22 failing: the server matches the interface before 2024-06-18."""
    found = revisions.compute(results(CARD_METADATA_ADD="failed",
                                      CARD_METADATA_REMOVE_BODY="failed"))
    assert (found["matches"], found["current"]) == ("2024-05-19", False)
    assert found["summary"].startswith("matches the interface before 2024-06-18: missing the "
                                       "change of 2024-06-18 (card metadata operations added")
    assert "CARD-METADATA-ADD, CARD-METADATA-REMOVE-BODY failed" in found["summary"]
    june = found["changes"][1]
    assert (june["change"], june["status"]) == ("2024-06-18", "failed")
    assert {21, 22} <= set(june["operations"])


def test_wrapped_project_matches_the_interface_before_2024_05_19():
    found = revisions.compute(results(PROJECT_NOT_WRAPPED="failed", PROJECT_TOP_LEVEL="failed"))
    assert found["matches"] is None
    assert found["summary"].startswith("matches the interface before 2024-05-19")
    assert "the later change 2024-06-18 is in place" in found["summary"]


def test_former_paths_still_served_match_2024_06_18_not_current():
    found = revisions.compute(results(REMOVED_PATH_NOT_SERVED="failed"))
    assert found["matches"] == "2024-06-18"
    assert found["summary"].startswith("matches the interface of 2024-06-18, not the current "
                                       "one (0.0.1): missing the change removed-paths")


def test_several_gaps_are_all_named():
    found = revisions.compute(results(ROWS_PROPERTY_REQUIRED="failed",
                                      EXCHANGE_NO_ACCESS_TOKEN="failed"))
    assert found["matches"] == "2024-05-19"
    assert "ROWS-PROPERTY-REQUIRED failed; also missing the change removed-paths" in \
        found["summary"]


def test_not_assessed_is_unconfirmed_not_missing():
    """A change whose requirements were not assessed is not claimed, nor called missing."""
    found = revisions.compute(results(ROWS_PROPERTY_REQUIRED="not assessed"))
    assert found["matches"] == "2024-05-19"
    assert found["changes"][1]["status"] == "not assessed"
    assert found["summary"].startswith("matches at least the interface before 2024-06-18; "
                                       "unconfirmed: the change of 2024-06-18")
    assert "ROWS-PROPERTY-REQUIRED could not be assessed" in found["summary"]


def test_a_requirement_absent_from_the_results_is_not_assessed():
    found = revisions.compute([r for r in results() if r["id"] != "CARD-URL-FLAIR"])
    assert found["changes"][0]["not_assessed"] == ["CARD-URL-FLAIR"]
    assert found["matches"] is None


@pytest.mark.parametrize("level", ["INFO"])
def test_info_requirements_never_block_a_revision(level):
    """INFO is never failed (policy section 1), so it takes no part in a revision."""
    catalogue = {"X-ONE": requirements.Requirement("X-ONE", level, "t", "t", "9", "q", (1,),
                                                   "2024-05-19")}
    found = revisions.compute([{"id": "X-ONE", "status": "not assessed"}], catalogue,
                              {"2024-05-19": "something"})
    assert found["changes"][0]["requirements"] == []
    assert found["changes"][0]["status"] == "not assessed"
    assert "which no requirement checks" in found["summary"]


def test_the_report_carries_the_revision_in_json_markdown_and_html(tmp_path):
    """compliance.json has `revision` (valid against its schema); the Markdown and the HTML
    say which revision the server matches."""

    from boardcert.outputs import report

    failing = report.TestResult("suites/test_rows.py::test_rows", "failed",
                                ("ROWS-PROPERTY-REQUIRED",), (6,),
                                "[ROWS-PROPERTY-REQUIRED] expected an object with rows")
    built = report.build([*all_passing("ROWS-PROPERTY-REQUIRED"), failing], reported_run())
    written = report.write(built, tmp_path)
    assert built["revision"]["matches"] == "2024-05-19"
    summary = built["revision"]["summary"]
    assert summary.startswith("matches the interface before 2024-06-18")
    assert f"| Revision | {summary} |" in written["md"].read_text(encoding="utf-8")
    assert f"Interface revision: {summary}." in written["html"].read_text(encoding="utf-8")
