"""Compliance reports built from synthetic results: statuses, verdicts (conformance policy,
section 4), the JSON Schema, Markdown and HTML, and the results plugin under pytest."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from samples import EVIDENCE, FAILURE, all_passing, catalogue, reported_run, sample_report

from boardcert.outputs import report
from boardcert.outputs.report import TestResult, build

pytest_plugins = ["pytester"]


def status(built: dict, req_id: str) -> str:
    return next(r for r in built["requirements"] if r["id"] == req_id)["status"]


# --- verdicts ------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", report.VERDICTS)
def test_each_verdict(kind):
    """Each sample gives its verdict, and the report is valid against its schema."""
    built = sample_report(kind)
    report.validate(built)
    assert built["verdict"] == kind


def test_all_must_and_should_passing_is_conformant():
    """Every requirement passing: conformant."""
    built = build(all_passing(), reported_run())
    assert (built["verdict"], built["counts"]["requirements"]["all"]["passed"]) == \
        ("conformant", len(catalogue()))


def test_a_should_failing_gives_warnings_and_names_it():
    built = build([*all_passing("CARD-RENAME"), TestResult(
        "t::rename", "failed", ("CARD-RENAME",), (16,), "[CARD-RENAME] expected ...")],
        reported_run())
    assert built["verdict"] == "conformant with warnings"
    assert "CARD-RENAME" in built["verdict_reason"]


def test_a_must_failing_wins_over_a_must_not_assessed():
    """A failure is definite: non-conformant, even when another MUST was not assessed."""
    tests = [*all_passing("CARD-NAME-MAX-REJECTED", "SUCCESS-STATUS-200"),
             TestResult("t::limit", "failed", ("CARD-NAME-MAX-REJECTED",), (16,), FAILURE)]
    built = build(tests, reported_run())
    assert built["verdict"] == "non-conformant"
    assert status(built, "SUCCESS-STATUS-200") == "not assessed"


def test_no_tests_at_all_is_incomplete_and_nothing_passes():
    """A requirement with no test is not assessed, never passed."""
    built = build([], reported_run())
    report.validate(built)
    assert built["verdict"] == "incomplete"
    assert {r["status"] for r in built["requirements"]} == {"not assessed"}
    assert {o["status"] for o in built["operations"]} == {"not assessed"}
    assert built["counts"]["requirements"]["all"]["not assessed"] == len(catalogue())


def test_a_should_not_assessed_does_not_stop_conformance():
    built = build(all_passing("CARD-RENAME"), reported_run())
    assert status(built, "CARD-RENAME") == "not assessed"
    assert built["verdict"] == "conformant"
    assert "1 SHOULD requirement not assessed: CARD-RENAME" in built["verdict_reason"]


# --- requirement statuses --------------------------------------------------------------------

def test_skipped_tests_leave_a_requirement_not_assessed_with_the_reason():
    tests = [TestResult("t::a", "skipped", ("PROJECT-DELETE",), (4,), "not assessed: bodies.x"),
             TestResult("t::b", "skipped", ("PROJECT-DELETE",), (4,), "not assessed: bodies.x")]
    entry = next(r for r in build(tests, reported_run())["requirements"]
                 if r["id"] == "PROJECT-DELETE")
    assert (entry["status"], entry["message"]) == ("not assessed", "not assessed: bodies.x")


def test_one_passed_test_among_skipped_ones_passes():
    ops = catalogue()["PROJECT-DELETE"].operations
    tests = [TestResult("t::a", "skipped", ("PROJECT-DELETE",), ops, "not assessed: x"),
             TestResult("t::b", "passed", ("PROJECT-DELETE",), ops)]
    assert status(build(tests, reported_run()), "PROJECT-DELETE") == "passed"


def test_a_requirement_with_cases_not_assessed_passes_partly_assessed(tmp_path):
    """A MUST whose operations all have a passing test, while one of its tests was not
    assessed, another stopped at a failure of another requirement and a passing one recorded
    an operation unchecked (not the stateful test's reach or what its checks never judge):
    passed, partly assessed, with those reasons in compliance.json (valid), counted apart,
    named in the verdict's reason (still conformant) and in every rendering."""
    req = catalogue()["REMOVED-PATH-NO-EFFECT"]
    ops = req.operations
    structural = {3: "op 3: no generated request was sent", 5: "op 5: its checks do not judge it"}
    tests = [*all_passing(),
             TestResult("suites/t.py::test_a", "passed", (req.id,), ops,
                        unassessed={req.id: structural}),
             TestResult("suites/t.py::test_b[POST /exchange-code]", "skipped", (req.id,), (28,),
                         "not assessed: what POST /exchange-code could change"),
             TestResult("suites/t.py::test_c", "passed", (req.id,), (9,),
                         unassessed={req.id: {9: NO_2XX}}),
             TestResult("suites/t.py::test_d", "failed", (req.id, "NO-SERVER-ERROR"), (7,),
                        "[NO-SERVER-ERROR] a 500", blamed=("NO-SERVER-ERROR",))]
    built = build(tests, reported_run())
    report.validate(built)
    entry = next(r for r in built["requirements"] if r["id"] == req.id)
    assert entry["status"] == "passed"
    assert entry["partly_assessed"] == [
        "test_b[POST /exchange-code]: what POST /exchange-code could change",
        f"test_c: {NO_2XX}", "test_d: stopped at a failure of NO-SERVER-ERROR first"]
    assert status(built, "PROJECT-DELETE") == "passed"  # its tests all checked it: fully
    assert built["counts"]["requirements"]["MUST"]["partly assessed"] == 1
    assert built["counts"]["requirements"]["MUST"]["passed"] == \
        built["counts"]["requirements"]["MUST"]["total"]
    assert built["verdict"] == "conformant with warnings"  # NO-SERVER-ERROR failed
    assert f"1 MUST requirement passed but partly assessed: {req.id}" in built["verdict_reason"]
    others = [r for r in built["requirements"] if r["id"] != req.id and r["partly_assessed"]]
    assert [r["id"] for r in others] == []  # all_passing(): fully assessed
    written = report.write(built, tmp_path)
    row = next(line for line in written["md"].read_text().splitlines()
               if f"`{req.id}`" in line)
    assert row.startswith("| passed (partly assessed: test_b[POST /exchange-code]: what")
    page = written["html"].read_text()
    assert "passed (partly assessed)</span>" in page[page.index(f'id="req-{req.id}"'):]
    from boardcert.pytest.results import console_summary
    lines = console_summary(built)
    assert [line for line in lines if "partly assessed" in line] == [
        "1 requirement passed but partly assessed (some of their cases were not; the reports "
        "list them)"]  # one line, whatever the count: the list is the reports'
    assert not any(req.id in line for line in lines)


ALL_OPS = tuple(range(1, 29))
NO_2XX = "op 28: no generated request got a 2xx (statuses seen: 400 x 12)"


def per_operation(outcome: str = "passed", **by_op: str) -> list[TestResult]:
    """One test of SUCCESS-STATUS-200 per operation; `op23="plugin_id"` skips that
    operation's, not assessed for lack of that profile key (as data, and in its message)."""
    return [TestResult(f"t::op{n}", "skipped" if f"op{n}" in by_op else outcome,
                       ("SUCCESS-STATUS-200",), (n,),
                       f"not assessed: {by_op[f'op{n}']}" if f"op{n}" in by_op else "",
                       lacks=(by_op[f"op{n}"],) if f"op{n}" in by_op else ())
            for n in ALL_OPS]


def test_a_requirement_passes_only_when_each_of_its_operations_passed():
    """Passed needs a passing test on every operation the requirement lists; one operation
    with only skipped tests leaves it not assessed, naming the operation, the reason and (in the
    verdict) the profile key; a test marked with several operations counts for each."""
    assert status(build([*all_passing("SUCCESS-STATUS-200"), *per_operation()], reported_run()),
                  "SUCCESS-STATUS-200") == "passed"
    built = build([*all_passing("SUCCESS-STATUS-200"),
                   *per_operation(op23="plugin_id")], reported_run())
    entry = next(r for r in built["requirements"] if r["id"] == "SUCCESS-STATUS-200")
    assert (entry["status"], entry["message"]) == ("not assessed",
                                                   "not assessed on op 23: plugin_id")
    assert built["verdict"] == "incomplete"
    assert "set it in your profile" in built["verdict_reason"]
    assert "plugin_id" in built["verdict_reason"]
    combined = [TestResult("t::all", "passed", ("SUCCESS-STATUS-200",), ALL_OPS),
                TestResult("t::op23", "skipped", ("SUCCESS-STATUS-200",), (23,), "not assessed")]
    assert status(build(combined, reported_run()), "SUCCESS-STATUS-200") == "passed"


def test_a_test_does_not_count_where_it_recorded_a_requirement_unassessed():
    """A property item whose requests got no 2xx passes but records the response requirements
    unassessed on its operation: they are not assessed, with its reason; the others it names
    (NO-SERVER-ERROR) count."""
    tests = [*all_passing("SUCCESS-STATUS-200", "NO-SERVER-ERROR"), *per_operation(),
             TestResult("t::no-server-error", "passed", ("NO-SERVER-ERROR",), ALL_OPS[:-1])]
    tests[-2] = TestResult("t::op28", "passed", ("SUCCESS-STATUS-200", "NO-SERVER-ERROR"), (28,),
                           unassessed={"SUCCESS-STATUS-200": {28: NO_2XX}})
    built = build(tests, reported_run())
    entry = next(r for r in built["requirements"] if r["id"] == "SUCCESS-STATUS-200")
    assert (entry["status"], entry["message"]) == ("not assessed",
                                                   f"not assessed on op 28: {NO_2XX}")
    assert status(built, "NO-SERVER-ERROR") == "passed"


def test_a_failure_on_one_operation_fails_a_requirement_unassessed_elsewhere():
    """A failure anywhere wins over operations that were not assessed."""
    tests = [*all_passing("SUCCESS-STATUS-200"), *per_operation(op23="plugin_id")]
    tests[len(tests) - 28] = TestResult("t::op1", "failed", ("SUCCESS-STATUS-200",), (1,),
                                        "[SUCCESS-STATUS-200] got 201")
    assert status(build(tests, reported_run()), "SUCCESS-STATUS-200") == "failed"


def test_an_errored_test_leaves_its_requirement_not_assessed():
    """Errored is "could not be assessed" (policy, section 4): incomplete, not passed."""
    tests = [*all_passing("OPERATION-IMPLEMENTED"),
             TestResult("t::a", "passed", ("OPERATION-IMPLEMENTED",), (1,)),
             TestResult("t::b", "error", ("OPERATION-IMPLEMENTED",), (2,), "RuntimeError: boom")]
    built = build(tests, reported_run())
    assert status(built, "OPERATION-IMPLEMENTED") == "not assessed"
    assert built["verdict"] == "incomplete"


def test_an_info_failure_is_an_observation_never_a_failure():
    tests = [*all_passing("ERROR-FORMAT"),
             TestResult("t::errors", "failed", ("ERROR-FORMAT",), (16,), "[ERROR-FORMAT] odd")]
    built = build(tests, reported_run())
    report.validate(built)
    assert status(built, "ERROR-FORMAT") == "passed"
    assert built["verdict"] == "conformant"
    assert [o["text"] for o in built["observations"]] == ["test failed: [ERROR-FORMAT] odd"]


def test_a_failure_counts_against_the_requirements_it_names():
    """A test of a MUST and a SHOULD failing on the SHOULD fails only the SHOULD; a
    requirement the test does not name still fails; the message text is never read."""
    tests = [*all_passing("CARD-NAME-MAX-REJECTED", "REJECTED-CHANGES-NOTHING", "CARD-ALIAS",
                          "SUCCESS-STATUS-200"),
             TestResult("t::both", "failed", ("CARD-NAME-MAX-REJECTED",
                                              "REJECTED-CHANGES-NOTHING"), (16,),
                        "[CARD-NAME-MAX-REJECTED] said the text, not the data",
                        blamed=("REJECTED-CHANGES-NOTHING",)),
             TestResult("t::alias", "failed", ("CARD-ALIAS",), (20,),
                        "expected status 200; got 201", blamed=("SUCCESS-STATUS-200",))]
    built = build(tests, reported_run())
    assert status(built, "REJECTED-CHANGES-NOTHING") == "failed"
    assert status(built, "CARD-NAME-MAX-REJECTED") == "not assessed"
    assert status(built, "SUCCESS-STATUS-200") == "failed"
    assert status(built, "CARD-ALIAS") == "not assessed"
    assert built["verdict"] == "non-conformant"


def test_a_failure_naming_no_requirement_fails_all_the_test_names():
    tests = [TestResult("t::x", "failed", ("CARD-RENAME", "CARD-ALIAS"), (16,), "assert 1 == 2")]
    built = build(tests, reported_run())
    assert status(built, "CARD-RENAME") == status(built, "CARD-ALIAS") == "failed"


def test_operations_cover_1_to_28_with_their_spec_facts():
    built = sample_report("non-conformant")
    ops = built["operations"]
    assert [o["number"] for o in ops] == list(range(1, 29))
    op16 = ops[15]
    assert (op16["method"], op16["path"]) == ("PATCH", "/projects/{projectId}/cards/{cardId}")
    assert op16["status"] == "failed"
    assert "CARD-NAME-MAX-REJECTED" in op16["failed_requirements"]
    assert "suites/test_cards.py::test_name_25001" in op16["tests"]


def test_observations_are_collected_and_security_is_flagged():
    built = sample_report("conformant")
    found = {o["requirement"]: o for o in built["observations"]}
    assert found["ID-FORMAT"]["text"] == "ids are numeric strings"
    assert found["ID-FORMAT"]["security"] is False
    assert found["AUTH-UNLISTED-OBSERVED"]["security"] is True


def test_run_facts_are_reported():
    built = sample_report("conformant")
    assert built["interface_version"] == "0.0.1"
    assert built["target"] == {"base_url": "http://127.0.0.1:8080", "reference_server": False}
    assert built["profile"]["name"] == "reference"
    assert built["profile"]["content"]["plugin_id"] == "boardcert"
    assert (built["started"], built["finished"]) == ("2026-11-22T12:00:00Z",
                                                     "2026-11-22T12:00:42Z")
    assert built["duration_seconds"] == 42.5


# --- the schema --------------------------------------------------------------------------

def test_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(json.loads(report.SCHEMA.read_text()))


@pytest.mark.parametrize("breakage", ["info failed", "passed without tests", "27 operations",
                                      "unknown verdict"])
def test_schema_rejects_impossible_reports(breakage):
    built = sample_report("conformant")
    info = next(r for r in built["requirements"] if r["level"] == "INFO")
    if breakage == "info failed":
        info["status"] = "failed"
    elif breakage == "passed without tests":
        next(r for r in built["requirements"] if r["status"] == "passed")["tests"] = []
    elif breakage == "27 operations":
        built["operations"].pop()
    else:
        built["verdict"] = "fine"
    with pytest.raises(report.ReportError):
        report.validate(built)


# --- rendering ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", report.VERDICTS)
def test_markdown_and_html_state_the_same_facts(kind, tmp_path):
    built = sample_report(kind)
    written = report.write(built, tmp_path)
    markdown = written["md"].read_text()
    page = written["html"].read_text()
    assert markdown.startswith(f"# Compliance report: {kind.upper()}")
    assert f'data-verdict="{kind}"' in page
    for text in (markdown, page):
        assert text.count("/projects/{projectId}/cards/{cardId}") >= 2  # ops 16 and 17
        assert "CARD-NAME-MAX-REJECTED" in text
        assert "plugin_id: boardcert" in text  # the profile
        assert "ids are numeric strings" in text  # an observation
    assert len(re.findall(r'<tr class="op ', page)) == 28
    assert len(re.findall(r"^\| \d+ \| (GET|PUT|POST|PATCH|DELETE) \|", markdown, re.M)) == 28


def test_readings_are_marked_in_every_report(tmp_path):
    """A MUST that is a policy reading carries its words in compliance.json and is marked in
    the Markdown and HTML requirement rows; a MUST resting on a sentence is not."""
    built = sample_report("conformant")
    rows = {r["id"]: r for r in built["requirements"]}
    assert rows["CARD-NAME-MAX-MULTIBYTE"]["reading"].startswith("Length counts Unicode")
    assert rows["SUCCESS-STATUS-200"]["reading"] is None
    written = report.write(built, tmp_path)
    markdown, page = written["md"].read_text(), written["html"].read_text()
    row = next(line for line in markdown.splitlines() if "`CARD-NAME-MAX-MULTIBYTE`" in line)
    assert "(reading: Length counts Unicode code points" in row
    assert "(reading:" not in next(line for line in markdown.splitlines()
                                   if "`SUCCESS-STATUS-200`" in line)
    html_row = page[page.index('id="req-CARD-NAME-MAX-MULTIBYTE"'):]
    assert '<div class="why reading"' in html_row[:html_row.index("</tr>")]


def test_failures_show_evidence_and_a_curl_line(tmp_path):
    written = report.write(sample_report("non-conformant"), tmp_path)
    page, markdown = written["html"].read_text(), written["md"].read_text()
    assert '<pre class="curl" data-whole>curl -sS -X PATCH' in page
    assert "response: 200 (application/json" in page
    assert "```sh\ncurl -sS -X PATCH -H &#39;X-API-Key" not in markdown  # not escaped twice
    assert "```sh\ncurl -sS -X PATCH -H 'X-API-Key: ***'" in markdown


def test_html_is_self_contained(tmp_path):
    """No external stylesheet, script, image, font or import: one file, no network."""
    page = report.write(sample_report("non-conformant"), tmp_path)["html"].read_text()
    assert not re.search(r"<link\b|<script[^>]+src=|<img\b|<iframe\b|@import|url\(", page)
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "<style>" in page and "<script>" in page


def test_html_escapes_what_servers_send(tmp_path):
    tests = [TestResult("t::x", "failed", ("CARD-RENAME",), (16,),
                        "[CARD-RENAME] expected <b>x</b>; got <script>alert(1)</script>")]
    page = report.render_html(build(tests, reported_run()))
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_html_lists_a_requirements_passing_tests_as_a_count_per_function():
    """A requirement's tests that did not pass are listed one by one (open when it failed);
    its passing ones as a count per test function, not 28 lines of node ids."""
    tests = [TestResult(f"suites/test_p.py::test_operation[op{n}]", "passed",
                        ("NO-SERVER-ERROR",), (n,)) for n in range(1, 29)]
    tests += [TestResult("suites/test_e.py::test_bad_body[op2-x]", "failed",
                         ("NO-SERVER-ERROR",), (2,), "[NO-SERVER-ERROR] got 500"),
              TestResult("suites/test_e.py::test_bad_body[op5-x]", "skipped",
                         ("NO-SERVER-ERROR",), (5,), "not assessed: bodies.x")]
    page = report.render_html(build(tests, reported_run()))
    row = page[page.index('id="req-NO-SERVER-ERROR"'):]
    row = row[:row.index("</tr>")]
    assert '<details class="tests" open><summary>30 tests: 1 failed, 28 passed, 1 skipped' in row
    assert "<code>suites/test_e.py::test_bad_body[op2-x]</code>" in row
    assert "<code>suites/test_e.py::test_bad_body[op5-x]</code>" in row
    assert "<code>suites/test_p.py::test_operation</code> 28 passed" in row
    assert "test_operation[op" not in row


def test_rebuild_writes_the_same_markdown_and_html(tmp_path):
    written = report.write(sample_report("conformant with warnings"), tmp_path)
    before = {k: p.read_text() for k, p in written.items()}
    written["md"].unlink()
    written["html"].unlink()
    report.rebuild(tmp_path)
    assert {k: p.read_text() for k, p in written.items()} == before


def test_load_rejects_a_file_that_is_not_a_report(tmp_path):
    (tmp_path / "compliance.json").write_text('{"verdict": "conformant"}')
    with pytest.raises(report.ReportError, match="required property"):
        report.load(tmp_path)
    with pytest.raises(report.ReportError, match="cannot read"):
        report.load(tmp_path / "missing")


# --- the results plugin under pytest ------------------------------------------------------

SUITE = '''
import pytest
from boardcert.http.client import Exchange
from boardcert.settings.config import NotAssessed
from boardcert.errors import Violation

ANSWER = Exchange("POST", "http://127.0.0.1:1/projects/p/cards", {"X-API-Key": "***"},
                  b'{"name": 1}', status=500, content=b"boom")

@pytest.mark.requirement("CARD-RENAME")
def test_should_fails():
    raise AssertionError("[CARD-RENAME] expected the name to be 'b'; got 'a'")

@pytest.mark.requirement("PROJECT-DELETE")
def test_not_assessed():
    raise NotAssessed("bodies.delete_project")

@pytest.mark.requirement("ID-FORMAT", "AUTH-UNLISTED-OBSERVED")
def test_observes(observe):
    observe("ID-FORMAT", "ids are numeric strings")
    observe("AUTH-UNLISTED-OBSERVED", "op 25 answered 200", security=True)

@pytest.mark.requirement("USERS-ME-PROPERTIES")
def test_passes():
    pass

@pytest.mark.requirement("ROW-RENAME")
def test_breaks():
    raise KeyError("rows")

@pytest.mark.requirement("CARD-ALIAS")
def test_hypothesis_breaks():
    from hypothesis.errors import FlakyStrategyDefinition
    raise FlakyStrategyDefinition("Inconsistent data generation!")

@pytest.mark.requirement("PROJECT-TOP-LEVEL", "CARD-FIELD-TYPES", "NO-SERVER-ERROR")
def test_property_failure():
    # As Hypothesis reports distinct failures: a group; the text names no requirement at the
    # start of a line (the old pattern missed it), the data does.
    raise ExceptionGroup("2 distinct failures", [
        Violation("op 15 broke 1 check:\\n  [NO-SERVER-ERROR] not_a_server_error",
                  ["NO-SERVER-ERROR"], [ANSWER]),
        Violation("op 15 broke 1 check:\\n  [NO-SERVER-ERROR] again", ["NO-SERVER-ERROR"])])
'''


@pytest.mark.parametrize("workers", [[], ["-n", "1"]], ids=["in-process", "xdist"])
def test_results_plugin_writes_the_report(pytester: pytest.Pytester, tmp_path: Path, workers):
    """Outcomes, skip reasons, observations, the requirements a failure names and its
    exchanges reach compliance.json and the JUnit XML, under xdist too."""
    pytester.makepyfile(test_suite=SUITE)
    out = tmp_path / "out"
    args = ["-p", "boardcert.pytest.plugin", "--report-dir", str(out), "--junitxml",
            str(tmp_path / "junit.xml"), *workers]
    result = (pytester.runpytest_subprocess if workers else pytester.runpytest)(*args)
    result.stdout.fnmatch_lines(["*boardcert compliance*", "verdict: incomplete; report: *"])
    built = report.load(out)
    outcomes = {t["nodeid"].split("::")[1]: t["outcome"] for t in built["tests"]}
    assert outcomes == {"test_should_fails": "failed", "test_not_assessed": "skipped",
                        "test_observes": "passed", "test_passes": "passed",
                        "test_breaks": "error", "test_hypothesis_breaks": "error",
                        "test_property_failure": "failed"}
    assert status(built, "CARD-RENAME") == "failed"
    assert status(built, "ROW-RENAME") == "not assessed"
    assert next(r for r in built["requirements"] if r["id"] == "PROJECT-DELETE")[
        "message"] == "not assessed: bodies.delete_project"
    assert [(o["text"], o["security"]) for o in built["observations"]] == [
        ("ids are numeric strings", False), ("op 25 answered 200", True)]
    assert status(built, "NO-SERVER-ERROR") == "failed"
    assert status(built, "PROJECT-TOP-LEVEL") == status(built, "CARD-FIELD-TYPES") == \
        "not assessed"
    failed = next(t for t in built["tests"] if t["nodeid"].endswith("test_property_failure"))
    assert failed["failed_requirements"] == ["NO-SERVER-ERROR"]
    assert failed["message"].startswith("op 15 broke 1 check:")  # no "[gw0] linux" line
    assert [(x["method"], x["status"]) for x in failed["evidence"]] == [("POST", 500)]
    junit = (tmp_path / "junit-properties.xml").read_text()
    assert '<property name="failed_requirements" value="NO-SERVER-ERROR"' in junit
    assert '<property name="evidence" value="[{' in junit
    assert "failed_requirements: NO-SERVER-ERROR\nevidence: 1 exchange " in (
        tmp_path / "junit.xml").read_text()
    assert (out / "compliance.md").exists() and (out / "compliance.html").exists()


@pytest.mark.parametrize("workers", [[], ["-n", "1"]], ids=["in-process", "xdist"])
def test_an_exception_inside_boardcert_is_named_a_bug_in_boardcert(
        pytester: pytest.Pytester, tmp_path: Path, workers):
    """A test that breaks (a KeyError, a Hypothesis error: not a check about the server) is an
    error named "a bug in boardcert" in the console, compliance.json, .md and .html; its
    requirement is not assessed, never failed."""
    pytester.makepyfile(test_suite=SUITE)
    out = tmp_path / "out"
    args = ["-p", "boardcert.pytest.plugin", "--report-dir", str(out), *workers]
    result = (pytester.runpytest_subprocess if workers else pytester.runpytest)(*args)
    bug = "this is a bug in boardcert: KeyError: 'rows' in test_suite.py::test_breaks"
    result.stdout.fnmatch_lines([
        "*= boardcert errors =*", bug, "this is a bug in boardcert: FlakyStrategyDefinition: "
        "Inconsistent data generation! in test_suite.py::test_hypothesis_breaks",
        "2 errors inside boardcert: *not something the server did"])
    built = report.load(out)
    assert built["boardcert_errors"] == [
        {"test": "test_suite.py::test_breaks", "error": "KeyError: 'rows'",
         "requirements": ["ROW-RENAME"]},
        {"test": "test_suite.py::test_hypothesis_breaks",
         "error": "FlakyStrategyDefinition: Inconsistent data generation!",
         "requirements": ["CARD-ALIAS"]}]
    assert status(built, "CARD-ALIAS") == "not assessed"
    row = next(r for r in built["requirements"] if r["id"] == "ROW-RENAME")
    assert (row["status"], row["message"]) == ("not assessed", f"not assessed: {bug}")
    assert next(t for t in built["tests"] if t["nodeid"].endswith("test_breaks"))[
        "failed_requirements"] == []
    markdown, page = (out / "compliance.md").read_text(), (out / "compliance.html").read_text()
    assert "## Errors inside boardcert" in markdown and bug.split(":")[0] in markdown
    assert 'id="boardcert-errors"' in page and "KeyError: &#39;rows&#39;" in page


def test_failures_link_their_reproduction(tmp_path):
    """A failure with a reproduction links its script in the Markdown and the HTML, and the
    report directory holds the script; JUnit's line names it."""
    from boardcert.outputs.junit import output_lines
    from boardcert.reproduce.script import relative_path

    recipe = {"format": 1, "test": "suites/test_cards.py::test_rename", "requirements": [],
              "message": "[CARD-RENAME] x", "base_url": "http://127.0.0.1:8080",
              "timeout": 10.0, "max_body": 1024, "ids": {}, "names": {}, "used": [],
              "steps": [{"method": "GET", "path": ["/users/me"], "query": [], "key": "***",
                         "headers": {}, "body": None, "shown": True,
                         "conditions": [{"kind": "status", "want": "200"}]}]}
    tests = [*all_passing("CARD-RENAME"), TestResult(
        "suites/test_cards.py::test_rename", "failed", ("CARD-RENAME",), (16,),
        "[CARD-RENAME] x", (EVIDENCE,), reproduction=recipe)]
    written = report.write(build(tests, reported_run()), tmp_path)
    script = relative_path("suites/test_cards.py::test_rename")
    assert (tmp_path / script).is_file()
    assert f"[`{script}`]({script})" in written["md"].read_text()
    assert f'<a class="script" href="{script}">' in written["html"].read_text()
    (line,) = output_lines([("reproduce", script)])
    assert line.startswith(f"reproduce: {script} (") and f"python3 {script}" in line


def test_what_keep_failed_left_is_listed_with_how_to_delete_it(tmp_path):
    """What --keep-failed left is in compliance.json once (with the tests that used it), and
    the Markdown and HTML say how to delete it: boardcert cleanup, or curl lines."""
    used = ({"kind": "project", "params": {"projectId": "p 1"}},)
    tests = [*all_passing("CARD-RENAME", "CARD-NAME-MAX-REJECTED"),
             TestResult("t::a", "failed", ("CARD-RENAME",), (16,), "[CARD-RENAME] x", kept=used),
             TestResult("t::b", "failed", ("CARD-NAME-MAX-REJECTED",), (16,), FAILURE,
                        kept=used)]
    built = build(tests, reported_run())
    assert built["kept"] == [{"kind": "project", "params": {"projectId": "p 1"},
                              "method": "DELETE", "path": "/projects/p%201",
                              "tests": ["t::a", "t::b"]}]
    written = report.write(built, tmp_path)
    line = "curl -sS -X DELETE -H 'X-API-Key: ***' http://127.0.0.1:8080/projects/p%201"
    for text in (written["md"].read_text(), written["html"].read_text()):
        assert "boardcert cleanup ." in text
        assert line.replace("'", "&#39;") in text or line in text
    assert "kept" not in build(all_passing(), reported_run())
