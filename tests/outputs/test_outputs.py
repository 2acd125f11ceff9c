"""The outputs of a run hold up in the tools people open them with (issue 17): Allure counts
what JUnit and compliance.json count, and shows where and how the run was made.

One run against a server with four faults (module fixture, quick budget, the suites those
faults touch), read by every test here.
"""

from __future__ import annotations

import json
import re
import secrets
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import xmlschema
from faults import FAULTS, Variant, combined, serving
from faults.harness import SUITE_TIMEOUT, _env, suite_command

from boardcert.outputs.report import render_summary
from boardcert.paths import ROOT

pytestmark = pytest.mark.xdist_group("test_outputs")  # one worker makes the module's runs

FOUR = ("card-id-integer", "malformed-json-500", "auth-open-op1", "project-rename-wrong-type-500")
SUITES = ("test_properties.py", "test_errors.py", "test_auth.py")
DATA = Path(__file__).parents[1] / "data"


@contextmanager
def certified(variant: Variant, directory: Path, suites: tuple[str, ...],
              *extra: str) -> Iterator[dict[str, Any]]:
    """The suites run against the variant with every output; the server keeps running."""
    out = directory / "reports"
    key = "variant-" + secrets.token_urlsafe(12)
    with serving(variant, key) as base_url:
        command = suite_command(base_url, ROOT / "spec/profiles/reference.yaml", out, "quick")
        command = [p for p in command if not p.endswith("suites")]
        command += [f"--junitxml={out / 'junit.xml'}", f"--alluredir={out / 'allure-results'}",
                    *(str(ROOT / "suites" / s) for s in suites), *extra]
        done = subprocess.run(command, env=_env(key), cwd=ROOT, capture_output=True, text=True,
                              timeout=SUITE_TIMEOUT)
        assert (out / "compliance.json").exists(), done.stdout[-3000:] + done.stderr
        yield {"dir": out, "key": key, "base_url": base_url, "output": done.stdout + done.stderr,
               "compliance": json.loads((out / "compliance.json").read_text(encoding="utf-8"))}


@pytest.fixture(scope="module")
def faulty_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """compliance.json, junit.xml and allure-results of a run against the four faults; the
    server keeps running for the module (curl lines are replayed against it). The seed is one
    whose stateful scenarios meet a fault (both parts at quick: seeds 1, 5 and 6 of the first
    seven do; since the stateful test no longer probes the key, auth-open-op1 is not one)."""
    variant = combined("four-faults", *(f for f in FAULTS if f.name in FOUR))
    with certified(variant, tmp_path_factory.mktemp("four"), SUITES,
                   "--hypothesis-seed", "6") as run:
        yield run


def allure_results(directory: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8"))
            for p in (directory / "allure-results").glob("*-result.json")]


def junit_cases(directory: Path) -> list[ET.Element]:
    return list(ET.parse(directory / "junit.xml").getroot().iter("testcase"))


def test_allure_counts_what_junit_and_the_report_count(faulty_run):
    """One Allure test per test case (unique historyIds), and as many failed as JUnit and
    compliance.json say: no failure is hidden as a retry of another test; each failed one has
    its exchanges attached."""
    out, report = faulty_run["dir"], faulty_run["compliance"]
    results = allure_results(out)
    tests = {r["historyId"]: r for r in results}
    cases = junit_cases(out)
    assert len(tests) == len(results) == len(cases) == len(report["tests"])
    failed = {h for h, r in tests.items() if r["status"] in ("failed", "broken")}
    junit_failed = [c for c in cases if c.find("failure") is not None
                    or c.find("error") is not None]
    report_failed = [t for t in report["tests"] if t["outcome"] in ("failed", "error")]
    assert len(failed) == len(junit_failed) == len(report_failed) > 10
    bare = [r["name"] for h, r in tests.items() if h in failed and not r.get("attachments")]
    assert bare == []  # every failure has its exchanges attached


def test_allure_counts_what_junit_counts_against_one_fault(tmp_path):
    """One fault (a Card id as a number) fails the schemathesis items of seven operations:
    Allure shows each as its own failed test with its evidence attached, as JUnit and
    compliance.json count them; junit.xml validates against junit-10.xsd; no output holds
    the checkout's path."""
    fault = next(f for f in FAULTS if f.name == "card-id-integer")
    with certified(fault, tmp_path, ("test_properties.py",)) as run:
        out = run["dir"]
        results = allure_results(out)
        failed = [r for r in results if r["status"] in ("failed", "broken")]
        junit_failed = [c for c in junit_cases(out) if c.find("failure") is not None]
        report_failed = [t for t in run["compliance"]["tests"] if t["outcome"] == "failed"]
    assert len({r["historyId"] for r in results}) == len(results) == len(
        run["compliance"]["tests"])
    assert len({r["historyId"] for r in failed}) == len(junit_failed) == len(report_failed) >= 5
    assert [r["name"] for r in failed if not r.get("attachments")] == []
    xmlschema.XMLSchema(DATA / "junit-10.xsd").validate(out / "junit.xml")
    assert [p.name for p in out.rglob("*") if p.is_file()
            and f"{ROOT}/" in p.read_text(encoding="utf-8", errors="replace")] == []


def test_each_exchange_is_an_allure_step_and_a_failed_tests_carry_request_and_response(
        faulty_run):
    """Every test's exchanges are steps; every failed result has a failed (or broken) step,
    the failure's own exchange, also for the schemathesis items and the state machine, whose
    failing example schemathesis sent; a failed test's steps have a request (with its curl
    line) and a response attached."""
    results = allure_results(faulty_run["dir"])
    failed = [r for r in results if r["status"] in ("failed", "broken")]
    bad = [r["name"] for r in failed
           if not any(s["status"] in ("failed", "broken") for s in r.get("steps", []))]
    assert bad == []
    for result in failed:
        for step in result["steps"]:
            if step["status"] != "skipped":
                names = [a["name"] for a in step["attachments"]]
                assert names == ["request", "response"], (result["name"], step["name"])
    names = {r["name"] for r in failed}
    assert "runTest" in names and any(n.startswith("test_operation[") for n in names), names
    passing = [r for r in results if r["status"] == "passed" and r.get("steps")]
    assert len(passing) > 100
    assert all(s["name"].split(" ")[0] in ("GET", "POST", "PATCH", "PUT", "DELETE")
               for r in passing for s in r["steps"] if s["status"] == "passed")
    step = next(s for r in failed for s in r["steps"] if s["status"] == "failed")
    request = (faulty_run["dir"] / "allure-results" / step["attachments"][0]["source"]
               ).read_text(encoding="utf-8")
    assert request.startswith(step["name"].split(" ")[0] + " http://") and "curl " in request


@pytest.mark.skipif(not shutil.which("allure"), reason="no allure command (Allure 2 or 3)")
def test_the_allure_report_counts_what_compliance_json_counts(faulty_run, tmp_path):
    """Allure's own summary (Allure 2: widgets/summary.json; Allure 3: summary.json) of the
    four-fault run: as many tests and failures as compliance.json."""
    done = subprocess.run(["allure", "generate", str(faulty_run["dir"] / "allure-results"),
                           "-o", str(tmp_path / "report")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    found = [p for p in (tmp_path / "report" / "widgets" / "summary.json",
                         tmp_path / "report" / "summary.json") if p.exists()]
    summary = json.loads(found[0].read_text(encoding="utf-8"))
    counts = summary.get("statistic") or summary["stats"]
    tests = faulty_run["compliance"]["counts"]["tests"]
    assert (counts["total"], counts["failed"] + counts.get("broken", 0)) == (
        tests["total"], tests["failed"] + tests["error"])


def test_each_schemathesis_operation_is_its_own_allure_test(faulty_run):
    """The 28 test_operation items carry operation, method and path as parameters."""
    operations = [r for r in allure_results(faulty_run["dir"])
                  if r["name"].startswith("test_operation[")]
    assert len(operations) == 28
    shown = {tuple(p["value"] for p in r["parameters"]) for r in operations}
    assert len(shown) == 28
    assert ("16", "'PATCH'", "'/projects/{projectId}/cards/{cardId}'") in shown


def test_allure_labels_mean_something_and_no_internal_fixture_shows(faulty_run):
    """Every test has its epic, feature, story per requirement, requirement, operation, level,
    severity and tag; the state machine is one feature, not one per operation; no marker tags;
    no set-up or tear-down of boardcert's own (hooks, not autouse fixtures)."""
    out = faulty_run["dir"]
    for result in allure_results(out):
        labels = [(label["name"], label["value"]) for label in result["labels"]]
        named = {n for n, _ in labels}
        assert {"epic", "feature", "story", "requirement", "operation", "level", "severity",
                "tag"} <= named, (result["name"], labels)
        stories = [v.split(":")[0] for n, v in labels if n == "story"]
        assert stories == [v for n, v in labels if n == "requirement"], result["name"]
        features = [v for n, v in labels if n == "feature"]
        assert len(features) <= 3, (result["name"], features)
        assert not [v for n, v in labels if n == "tag" and v.startswith("op")], result["name"]
    containers = [json.loads(p.read_text(encoding="utf-8"))
                  for p in (out / "allure-results").glob("*-container.json")]
    shown = {f["name"] for c in containers for f in c.get("befores", []) + c.get("afters", [])}
    assert "target" in shown and not {"_allure_labels", "_read_only_guard"} & shown, shown
    package = ROOT / "boardcert"
    assert [p.name for p in package.rglob("*.py") if "autouse=True" in p.read_text()] == []


def test_allure_environment_and_executor_name_the_run_never_the_key(faulty_run):
    """environment.properties and executor.json: target, versions, budget, seed, profile file
    and its SHA-256; not the key."""
    results = faulty_run["dir"] / "allure-results"
    environment = dict(line.split("=", 1) for line in
                       (results / "environment.properties").read_text().splitlines())
    assert environment["target"] == faulty_run["base_url"]
    assert {"boardcert", "schemathesis", "budget", "seed", "profile", "profile.file",
            "profile.sha256"} <= environment.keys()
    assert environment["profile.file"] == "reference.yaml"
    executor = json.loads((results / "executor.json").read_text())
    assert executor["name"] and faulty_run["base_url"] in executor["buildName"]
    for path in results.iterdir():
        assert faulty_run["key"] not in path.read_text(errors="replace"), path.name


# --- junit.xml ---------------------------------------------------------------------------

def test_junit_validates_against_the_jenkins_junit_10_schema(faulty_run):
    """junit.xml validates against the Jenkins xunit plugin's junit-10.xsd (tests/data): no
    testcase properties; each test's requirements and operations, and a failed test's
    evidence with its curl lines, are lines of its <system-out>."""
    path = faulty_run["dir"] / "junit.xml"
    xmlschema.XMLSchema(DATA / "junit-10.xsd").validate(path)
    cases = junit_cases(faulty_run["dir"])
    assert not [c for c in cases if c.find("properties") is not None]
    for case in cases:
        out = "".join(e.text or "" for e in case.findall("system-out"))
        assert re.search(r"^requirements: [A-Z]", out, re.M), case.get("name")
        if case.find("failure") is not None:
            assert re.search(r"^evidence: \d+ exchanges? ", out, re.M), case.get("name")
    curls = [c for c in cases if c.find("failure") is not None and "\ncurl " in "".join(
        e.text or "" for e in c.findall("system-out"))]
    assert len(curls) > 10


def test_junit_properties_keeps_testcase_properties_for_the_tools_that_read_them(faulty_run):
    """junit-properties.xml: the same tests with testcase properties (requirements,
    operations, a failed test's evidence as a JSON list), valid against
    tests/data/junit-xunit1.xsd, and not against junit-10.xsd."""
    path = faulty_run["dir"] / "junit-properties.xml"
    xmlschema.XMLSchema(DATA / "junit-xunit1.xsd").validate(path)
    assert not xmlschema.XMLSchema(DATA / "junit-10.xsd").is_valid(path)
    cases = list(ET.parse(path).getroot().iter("testcase"))
    assert len(cases) == len(junit_cases(faulty_run["dir"]))
    for case in cases:
        names = {p.get("name") for p in case.iter("property")}
        assert {"requirements", "operations"} <= names, case.get("name")
        if case.find("failure") is not None:
            evidence = next(p.get("value") for p in case.iter("property")
                            if p.get("name") == "evidence")
            assert json.loads(evidence)[0]["method"], case.get("name")


def test_junit_failure_messages_name_the_requirement_and_what_is_wrong(faulty_run):
    """Every failure's message is one line under 200 characters starting with [REQ-ID] and
    saying more than that the test failed."""
    for case in junit_cases(faulty_run["dir"]):
        for element in [*case.findall("failure"), *case.findall("error")]:
            message = element.get("message")
            assert "\n" not in message and len(message) < 200, message
            assert re.match(r"\[[A-Z0-9-]+\] \S", message), message
            assert not re.search(r"broke \d+ checks?:$|Hypothesis found", message), message
            assert len(element.text or "") < 9000


# --- summary, sizes, paths ---------------------------------------------------------------

def test_the_summary_has_the_verdict_counts_and_a_linked_line_per_failed_requirement(
        faulty_run):
    """compliance-summary.md: verdict, counts, and one line per failed requirement linking
    to its section of compliance.html; far under 60,000 characters."""
    out, report = faulty_run["dir"], faulty_run["compliance"]
    summary = (out / "compliance-summary.md").read_text(encoding="utf-8")
    page = (out / "compliance.html").read_text(encoding="utf-8")
    assert report["verdict"].upper() in summary and len(summary) < 60_000
    assert f"Tests: {report['counts']['tests']['total']}:" in summary
    failed = [r["id"] for r in report["requirements"] if r["status"] == "failed"]
    assert len(failed) >= 4
    for req_id in failed:
        assert summary.count(f"](compliance.html#req-{req_id})") == 1, req_id
        assert f'id="req-{req_id}"' in page


def test_the_summary_stays_under_60000_characters_whatever_fails(faulty_run):
    """Every requirement failed with a 20,000-character message: the summary still fits a
    pull-request comment."""
    report = json.loads(json.dumps(faulty_run["compliance"]))
    for requirement in report["requirements"]:
        requirement["status"], requirement["message"] = "failed", "x" * 20_000
    text = render_summary(report)
    assert len(text) < 60_000
    assert text.count("](compliance.html#req-") == len(report["requirements"])


def test_repeated_failures_are_shown_once_in_the_full_reports(faulty_run):
    """Tests that fail the same way (same requirements and first line) share one entry with
    one set of exchanges; the others are listed under it."""
    out, report = faulty_run["dir"], faulty_run["compliance"]
    markdown = (out / "compliance.md").read_text(encoding="utf-8")
    failed = [t for t in report["tests"] if t["outcome"] in ("failed", "error")]
    entries = markdown.split("## Failures", 1)[1].count("\n### `")
    assert entries < len(failed) / 2
    assert "The same failure in" in markdown
    assert 'class="same"' in (out / "compliance.html").read_text(encoding="utf-8")


def test_no_output_names_a_directory_of_the_machine(faulty_run):
    """No file the run wrote holds the checkout's path, the Python installation's or the home
    directory (tracebacks and skip reasons show paths relative to the root)."""
    machine = {str(ROOT), sys.prefix, sys.base_prefix, str(Path.home())}
    found = [f"{path.name}: {directory}" for path in faulty_run["dir"].rglob("*")
             if path.is_file() for directory in machine
             if f"{directory}/" in path.read_text(encoding="utf-8", errors="replace")]
    assert found == []


# --- reproductions -----------------------------------------------------------------------

# Requests whose answer does not depend on what the run created (and cleaned up).
REPLAYABLE = re.compile(r"^https?://[^/]+/(users/me|organizations/[^/]+/projects)/?(\?|$)")


def test_the_curl_line_of_a_failure_gets_the_same_status_again(faulty_run):
    """Each failing exchange's curl line, the key put back for ***, sent again to the faulty
    server gets the status the run got: the exact bytes of a body that is not UTF-8, no key
    header where none was sent, the key check's own request without the key."""
    replayed: dict[str, tuple[int, int]] = {}
    for test in faulty_run["compliance"]["tests"]:
        for exchange in test["evidence"] if test["outcome"] == "failed" else ():
            curl = exchange.get("curl") or ""
            if exchange["status"] and REPLAYABLE.match(exchange["url"]) and curl not in replayed:
                line = curl.replace("***", faulty_run["key"]) + " -o /dev/null -w '%{http_code}'"
                done = subprocess.run(["sh", "-c", line], capture_output=True, text=True,
                                      timeout=30)
                replayed[curl] = (exchange["status"], int(done.stdout or 0))
    assert {curl: s for curl, s in replayed.items() if s[0] != s[1]} == {}
    assert any(c.startswith("printf ") for c in replayed), "no body that is not UTF-8"
    no_key = [c for c in replayed if "x-api-key" not in c.lower()]
    assert no_key and all(replayed[c][1] == 200 for c in no_key)  # auth-open-op1 lets it in
