"""Every kind of failure the property tests can meet reaches the compliance report with its
requirement (issue 34): suites/test_properties.py against servers with one fault of each kind
that schemathesis's checks (and boardcert's own, registered as schemathesis checks) detect, so
that a failure that a new schemathesis drops on the way shows here, under `tox -e newest` too.
Each kind of boardcert.compat.FAILURES is either detected here or named with the reason it can
be no failure of a property test."""

from __future__ import annotations

import json
import secrets
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from boardcert import compat
from boardcert.interface import spec
from properties.servers import run_suite, serving, with_faults

# fault -> (operation, the requirement it breaks, the check that says so, the failure's kind)
DETECTED = {
    "5xx": (7, "NO-SERVER-ERROR", "not_a_server_error", "ServerError"),
    "schema": (15, "CARD-FIELD-TYPES", "response_schema_conformance", "JsonSchemaError"),
    "status 201": (5, "SUCCESS-STATUS-200", "status_code_conformance", "UndefinedStatusCode"),
    "malformed JSON": (6, "JSON-RESPONSES", "response_schema_conformance", "MalformedJson"),
    "not JSON": (10, "JSON-RESPONSES", "boardcert_json_payload", "CustomFailure"),
    "key ignored": (13, "AUTH-KEY-REQUIRED", "boardcert_key_required", "CustomFailure"),
    "over-long name cut": (16, "CARD-NAME-MAX-REJECTED", "negative_data_rejection",
                           "AcceptedNegativeData"),
    "longest name refused": (16, "CARD-NAME-MAX-ACCEPTED", "positive_data_acceptance",
                             "RejectedPositiveData"),
    "5xx to another content type": (16, "NO-SERVER-ERROR", "not_a_server_error",
                                    "ContentTypeServerError"),
}
# kinds no property test fails on, and why
NO_FAILURE_HERE = {
    "MissingContentType": "the content type is JSON-MEDIA-TYPE's, a SHOULD test_general judges",
    "UndefinedContentType": "likewise (content_type_conformance does not run)",
    "MalformedMediaType": "likewise",
    "DiscriminatorMismatch": "spec/openapi.yaml has no discriminator",
    "ContentDeserializationError": "every documented answer is JSON, whose errors are "
                                   "MalformedJson",
}
# the faults of one operation each run alone; the others together
RUNS = [[f for f, (op, *_) in DETECTED.items() if op != 16],
        *([f] for f, (op, *_) in DETECTED.items() if op == 16)]


def test_every_kind_of_failure_is_detected_here_or_said_why_not():
    """A kind boardcert.compat knows is either met by a fault below or named with its reason."""
    met = {kind for *_, kind in DETECTED.values()}
    assert met | set(NO_FAILURE_HERE) == set(compat.FAILURES)
    assert not met & set(NO_FAILURE_HERE)


def _run(faults: list[str], directory: Path) -> tuple[str, dict]:
    key = "detected-" + secrets.token_urlsafe(12)
    ops = sorted({DETECTED[f][0] for f in faults})
    with serving(with_faults(key, *faults)) as base_url:
        output = run_suite(base_url, key, "-m", " or ".join(f"op{n}" for n in ops),
                           "-k", "test_operation", f"--report-dir={directory}")
    assert key not in output
    return output, json.loads((directory / "compliance.json").read_text())


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, dict]]:
    """Each run's output and compliance.json, by fault (two runs at a time)."""
    with ThreadPoolExecutor(2) as pool:
        done = [(faults, pool.submit(_run, faults, tmp_path_factory.mktemp("run")))
                for faults in RUNS]
        return {fault: future.result() for faults, future in done for fault in faults}


@pytest.mark.parametrize("fault", DETECTED)
def test_the_fault_fails_its_operation_with_its_requirement_in_the_report(fault, reports):
    """The property test of the faulty operation failed, its failed requirements in
    compliance.json are the fault's, its message names the check and the kind's title, and
    the requirement is failed in the report's table."""
    number, requirement, check, kind = DETECTED[fault]
    output, report = reports[fault]
    item = f"suites/test_properties.py::test_operation[{spec.operation(number).label}]"
    test = next((t for t in report["tests"] if t["nodeid"] == item), None)
    assert test is not None, (item, output[-4000:])
    assert test["outcome"] == "failed", (test, output[-4000:])
    assert requirement in test["failed_requirements"], test
    title = compat.failure_classes()[kind].kind_title
    shown = f"[{requirement}] {check}: {title if kind != 'CustomFailure' else ''}"
    assert shown in test["message"], test["message"]
    found = {r["id"]: r for r in report["requirements"]}
    assert found[requirement]["status"] == "failed"
    assert report["verdict"] in ("non-conformant", "incomplete"), report["verdict_reason"]
