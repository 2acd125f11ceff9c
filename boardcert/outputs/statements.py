"""The in-toto statements (https://in-toto.io/Statement/v1) of a certification, built from its
compliance.json: a test result (https://in-toto.io/attestation/test-result/v0.1) and, for a
server build named by --subject, a SLSA verification summary
(https://slsa.dev/verification_summary/v1). Pure functions of their inputs: `boardcert verify`
builds them again from the bundle and compares (docs/certificate.md describes every field).

What the predicates have no field for goes in extension fields named by URIs under `NS`.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from boardcert import INTERFACE_VERSION
from boardcert.outputs.report.build import (
    CONFORMANT,
    FAILED,
    NOT_ASSESSED,
    PASSED,
    WARNINGS,
)

STATEMENT = "https://in-toto.io/Statement/v1"
TEST_RESULT = "https://in-toto.io/attestation/test-result/v0.1"
VSA = "https://slsa.dev/verification_summary/v1"
NS = "https://boardcert.invalid/attestation/"  # boardcert's extension fields and annotations
DSSE_MEDIA_TYPE = "application/vnd.in-toto.test-result+dsse"
_SUBJECT = re.compile(r"(?P<name>.+)@sha256:(?P<hex>[0-9a-fA-F]{64})")


@dataclass(frozen=True)
class Subject:
    """A server build the operator says was certified: a name and its SHA-256."""

    name: str
    sha256: str

    def as_text(self) -> str:
        return f"{self.name}@sha256:{self.sha256}"


def parse_subject(text: str, flag: str = "--subject") -> Subject:
    """NAME@sha256:HEX (an OCI image digest, a release artefact's SHA-256); ValueError naming
    the flag for anything else."""
    found = _SUBJECT.fullmatch(text.strip())
    if not found or not found["name"].strip():
        raise ValueError(f"{flag} {text!r}: expected NAME@sha256:HEX (a name, then the 64 hex "
                         "digits of a SHA-256), e.g. ghcr.io/acme/board@sha256:9f86d0...")
    return Subject(found["name"].strip(), found["hex"].lower())


def parse_subjects(texts: list[str] | None, flag: str = "--subject") -> list[Subject]:
    subjects = [parse_subject(text, flag) for text in texts or ()]
    names = [s.name for s in subjects]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"{flag}: {', '.join(twice)} given more than once")
    return subjects


def sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def serialise(statement: dict[str, Any]) -> bytes:
    """A statement's bytes: made once, signed as they are."""
    return json.dumps(statement, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def build_subjects(subjects: list[Subject], report: dict[str, Any],
                   server_version: str | None) -> list[dict[str, Any]]:
    """The --subject builds as resource descriptors; the target URL and the server version
    are annotations: the operator's claims (boardcert cannot prove which build answered)."""
    annotations: dict[str, Any] = {f"{NS}targetUrl": target_uri(report)}
    if server_version:
        annotations[f"{NS}serverVersion"] = server_version
    annotations[f"{NS}claimedBy"] = "operator"
    return [{"name": s.name, "digest": {"sha256": s.sha256}, "annotations": dict(annotations)}
            for s in subjects]


def evidence_subject(name: str, content: bytes) -> list[dict[str, Any]]:
    """Without --subject: the run's own evidence (manifest.json, else compliance.json)."""
    return [{"name": name, "digest": {"sha256": sha256(content)}}]


def target_uri(report: dict[str, Any]) -> str:
    """The target's URL (no key is ever part of it); a URI naming the bundled reference
    server when that is what was certified (its loopback URL names nothing of the user's)."""
    if report["target"].get("reference_server") or not report["target"].get("base_url"):
        return f"pkg:pypi/boardcert@{report['suite']['version']}#reference-server"
    return report["target"]["base_url"]


def profile_digest(report: dict[str, Any]) -> str:
    """SHA-256 of the merged profile (compliance.json's profile.content) as canonical JSON:
    keys sorted, no spaces, UTF-8."""
    content = report["profile"]["content"]
    return sha256(json.dumps(content, sort_keys=True, ensure_ascii=False,
                             separators=(",", ":")).encode("utf-8"))


def outcome(verdict: str) -> str:
    """The test result's `result` (docs/policy.md, section 4)."""
    return {CONFORMANT: "PASSED", WARNINGS: "WARNED"}.get(verdict, "FAILED")


def tests_by_result(report: dict[str, Any]) -> dict[str, list[str]]:
    """Requirement ids by what became of them: passed (a partly assessed one too), warned
    (a SHOULD failed), failed (a MUST failed), not assessed, partly assessed."""
    found: dict[str, list[str]] = {key: [] for key in
                                   ("passed", "warned", "failed", "unassessed", "partly")}
    for req in report["requirements"]:
        status = req["status"]
        if status == FAILED:
            found["failed" if req["level"] == "MUST" else "warned"].append(req["id"])
        elif status == NOT_ASSESSED:
            found["unassessed"].append(req["id"])
        elif status == PASSED:
            found["passed"].append(req["id"])
            if req.get("partly_assessed"):
                found["partly"].append(req["id"])
    return found


def configuration(report: dict[str, Any], inputs: dict[str, str]) -> list[dict[str, Any]]:
    """What the run was configured by: the OpenAPI document, the requirement catalogue, the
    merged profile (by SHA-256) and boardcert itself (by version)."""
    version = report["suite"]["version"]
    return [
        {"name": "openapi.yaml", "digest": {"sha256": inputs["openapi"]},
         "mediaType": "application/yaml"},
        {"name": "requirements.yaml", "digest": {"sha256": inputs["requirements"]},
         "mediaType": "application/yaml"},
        {"name": "profile", "digest": {"sha256": profile_digest(report)},
         "mediaType": "application/json",
         "annotations": {f"{NS}profileName": report["profile"]["name"]}},
        {"name": "boardcert", "uri": f"pkg:pypi/boardcert@{version}"},
    ]


def test_result(report: dict[str, Any], subject: list[dict[str, Any]],
                inputs: dict[str, str]) -> dict[str, Any]:
    """The test-result statement of a run: requirement ids as the tests."""
    tests = tests_by_result(report)
    counts = report["counts"]["requirements"]
    predicate: dict[str, Any] = {
        "result": outcome(report["verdict"]),
        "configuration": configuration(report, inputs),
        "passedTests": tests["passed"],
        "warnedTests": tests["warned"],
        "failedTests": tests["failed"],
        f"{NS}verdict": report["verdict"],
        f"{NS}verdictReason": report["verdict_reason"],
        f"{NS}notAssessedTests": tests["unassessed"],
        f"{NS}partlyAssessedTests": tests["partly"],
        f"{NS}counts": {level: counts[level] for level in ("MUST", "SHOULD", "INFO")},
        f"{NS}interfaceVersion": report["interface_version"],
        f"{NS}started": report["started"],
        f"{NS}finished": report["finished"],
    }
    if report.get("run"):
        predicate[f"{NS}budget"] = report["run"]["budget"]
        predicate[f"{NS}seed"] = report["run"]["seed"]
    if report.get("read_only"):
        predicate[f"{NS}readOnly"] = True
    return {"_type": STATEMENT, "subject": subject, "predicateType": TEST_RESULT,
            "predicate": predicate}


def levels(verdict: str, strict: bool) -> tuple[str, list[str]]:
    """The summary's verificationResult and verifiedLevels: PASSED only for conformant (and
    for conformant with warnings unless --strict); never a SLSA_ level."""
    level = f"BOARDCERT_INTERFACE_{INTERFACE_VERSION}"
    if verdict == CONFORMANT:
        return "PASSED", [f"{level}_MUST", f"{level}_SHOULD"]
    if verdict == WARNINGS and not strict:
        return "PASSED", [f"{level}_MUST"]
    return "FAILED", ["FAILED"]


def policy_uri(report: dict[str, Any]) -> str:
    return (f"https://boardcert.invalid/policy/interface/{report['interface_version']}"
            f"/profile/{quote(report['profile']['name'], safe='')}")


def verification_summary(report: dict[str, Any], subject: list[dict[str, Any]],
                         strict: bool, test_result_name: str,
                         test_result_envelope: bytes) -> dict[str, Any]:
    """The verification summary of a run about the --subject builds."""
    version = report["suite"]["version"]
    result, verified = levels(report["verdict"], strict)
    predicate = {
        "verifier": {"id": f"pkg:pypi/boardcert@{version}"},
        "timeVerified": report["finished"],
        "resourceUri": target_uri(report),
        "policy": {"uri": policy_uri(report), "digest": {"sha256": profile_digest(report)}},
        "inputAttestations": [{"name": test_result_name,
                               "digest": {"sha256": sha256(test_result_envelope)},
                               "mediaType": DSSE_MEDIA_TYPE}],
        "verificationResult": result,
        "verifiedLevels": verified,
        f"{NS}verdict": report["verdict"],
        f"{NS}strict": strict,
    }
    return {"_type": STATEMENT, "subject": subject, "predicateType": VSA,
            "predicate": predicate}
