"""The certificate others can check: in-toto statements in DSSE envelopes, verified by an
independent implementation (securesystemslib, in-toto-attestation's protobuf bindings), and
every tampering caught by securesystemslib and by `boardcert verify` alike."""

from __future__ import annotations

import base64
import json
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from google.protobuf import json_format
from in_toto_attestation.predicates.test_result.v0 import test_result_pb2
from in_toto_attestation.predicates.vsa.v1 import vsa_pb2
from in_toto_attestation.v1 import statement_pb2
from in_toto_attestation.v1.statement import Statement
from samples import BUILD, boardcert, plan_for, report_dir, rewrite, synthetic_report
from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import VerificationError
from securesystemslib.signer import SSlibKey

from boardcert.outputs import attestations, bundle, dsse, statements
from boardcert.outputs.attestations import JSONL, SUMMARY_FILE, TEST_RESULT_FILE
from boardcert.paths import DEFAULT_PROFILE, OPENAPI

NOW = datetime(2026, 11, 22, 12, 1, 0, tzinfo=UTC)
OTHER = statements.Subject("ghcr.io/acme/board", "cd" * 32)


def certify(directory: Path, key: Path | None = None, subjects: tuple = (BUILD,),
            strict: bool = False) -> Path:
    """What `boardcert run --bundle` does after the run: the bundle, then the attestations
    beside the reports."""
    plan = plan_for(directory, key, subjects, strict)
    path = bundle.create(directory, profile=DEFAULT_PROFILE,
                         sign_key=key, now=NOW, attest=plan)
    attestations.write(directory, plan.files)
    return path


def sslib_key(public: Path) -> SSlibKey:
    return SSlibKey.from_crypto(bundle.load_public_key(public))


def sslib_verify(content: bytes, public: Path) -> dict:
    """securesystemslib's verdict on an envelope: the statement, or VerificationError."""
    envelope = Envelope.from_dict(json.loads(content))
    envelope.verify([sslib_key(public)], 1)
    return json.loads(envelope.payload)


def entries_of(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as made:
        return {name: made.read(name) for name in made.namelist()}


def reenvelope(content: bytes, change: Callable[[dict], None]) -> bytes:
    """The envelope with its statement changed and its signatures kept (a forger)."""
    document = json.loads(content)
    statement = json.loads(base64.b64decode(document["payload"]))
    change(statement)
    document["payload"] = base64.b64encode(statements.serialise(statement)).decode()
    return dsse.serialise(document)


# --- the same key id and PAE as securesystemslib ------------------------------------------

def test_keyid_and_pae_are_securesystemslibs():
    """The key id is securesystemslib's for the key; the signed bytes are its PAE."""
    for _ in range(5):
        key = Ed25519PrivateKey.generate().public_key()
        assert dsse.keyid(key) == SSlibKey.from_crypto(key).keyid
    payload = "{\"é\": \"DSSEv1 7\"}".encode()
    assert dsse.pae(dsse.IN_TOTO, payload) == Envelope(payload, dsse.IN_TOTO, {}).pae()
    assert dsse.pae("t", b"ab") == b"DSSEv1 1 t 2 ab"


# --- what is written -----------------------------------------------------------------------

def test_signed_certification_verifies_with_securesystemslib(tmp_path, keys):
    """Both envelopes, in the bundle and beside the reports, verify with the public key in
    securesystemslib; the .jsonl holds the same two; the statements parse as in-toto's."""
    directory = report_dir(tmp_path)
    entries = entries_of(certify(directory, keys[0]))
    assert {TEST_RESULT_FILE, SUMMARY_FILE, JSONL} <= entries.keys()
    for name in (TEST_RESULT_FILE, SUMMARY_FILE):
        assert (directory / name).read_bytes() == entries[name]
        statement = sslib_verify(entries[name], keys[1])
        assert statement["subject"][0]["digest"] == {"sha256": BUILD.sha256}
        parsed_by_in_toto(statement)
    lines = entries[JSONL].splitlines()
    assert [sslib_verify(line, keys[1])["predicateType"] for line in lines] == \
        [statements.TEST_RESULT, statements.VSA]
    assert (directory / JSONL).read_bytes() == entries[JSONL]


def parsed_by_in_toto(statement: dict) -> None:
    """The Statement layer parses strictly with in-toto's protobuf (as cosign parses it), and
    the predicate with its type's protobuf (extension fields ignored, as the spec says)."""
    parsed = json_format.ParseDict(statement, statement_pb2.Statement())
    Statement.copy_from_pb(parsed).validate()  # in-toto's own rules for a v1 statement
    predicate = dict(statement["predicate"])
    if statement["predicateType"] == statements.VSA:
        # in-toto-attestation 0.9.3 (PyPI's latest) declares verifiedLevels a string; the
        # spec and the upstream proto since 2025-01 (abb6190) a list of strings
        levels = predicate.pop("verifiedLevels")
        assert isinstance(levels, list) and all(isinstance(x, str) for x in levels)
    message = {statements.TEST_RESULT: test_result_pb2.TestResult(),
               statements.VSA: vsa_pb2.VerificationSummary()}[statement["predicateType"]]
    json_format.ParseDict(predicate, message, ignore_unknown_fields=True)


def test_the_signed_bytes_are_the_statement_as_serialised_once(tmp_path, keys):
    """The payload is exactly the statement's serialisation, and the signature is over its
    PAE bytes."""
    entries = entries_of(certify(report_dir(tmp_path), keys[0]))
    document, payload = dsse.parse(entries[TEST_RESULT_FILE])
    assert payload == statements.serialise(json.loads(payload))
    assert document["payloadType"] == "application/vnd.in-toto+json"
    assert dsse.signed_by(document, payload, bundle.load_public_key(keys[1]))


def test_test_result_says_what_compliance_json_says(tmp_path):
    """result and the requirement ids (passed, warned, failed, not assessed) are
    compliance.json's."""
    directory = report_dir(tmp_path, failed=("CARD-RENAME", "PROJECT-TOP-LEVEL"),
                           not_assessed=("CARD-ALIAS",))
    statement = payload_of(entries_of(certify(directory))[TEST_RESULT_FILE])
    report = json.loads((directory / "compliance.json").read_bytes())
    predicate = statement["predicate"]
    by_status = {s: [r["id"] for r in report["requirements"] if r["status"] == s]
                 for s in ("passed", "failed", "not assessed")}
    assert (report["verdict"], predicate["result"]) == ("non-conformant", "FAILED")
    assert predicate["passedTests"] == by_status["passed"]
    assert predicate["failedTests"] == ["PROJECT-TOP-LEVEL"]  # the MUST
    assert predicate["warnedTests"] == ["CARD-RENAME"]  # the SHOULD
    assert predicate[f"{statements.NS}notAssessedTests"] == ["CARD-ALIAS"]
    assert sorted(predicate["passedTests"] + predicate["failedTests"] +
                  predicate["warnedTests"] + ["CARD-ALIAS"]) == \
        sorted(r["id"] for r in report["requirements"])
    names = [c["name"] for c in predicate["configuration"]]
    assert names == ["openapi.yaml", "requirements.yaml", "profile", "boardcert"]
    assert predicate["configuration"][0]["digest"]["sha256"] == \
        bundle.sha256(OPENAPI.read_bytes())
    assert predicate["configuration"][3]["uri"] == "pkg:pypi/boardcert@0.1.0"
    assert (predicate[f"{statements.NS}budget"], predicate[f"{statements.NS}seed"]) == \
        ("quick", 7)


def test_a_partly_assessed_requirement_counts_as_passed_and_is_listed():
    """A requirement passed with some of its cases not assessed (issue 24's 'passed (partly
    assessed)': status passed, partly_assessed listing them) is in passedTests and in the
    partlyAssessedTests extension."""
    report = synthetic_report()
    report["requirements"][0]["status"] = "passed"
    report["requirements"][0]["partly_assessed"] = ["test_x[op3]: not assessed: no board"]
    found = statements.tests_by_result(report)
    first = report["requirements"][0]["id"]
    assert first in found["passed"] and found["partly"] == [first]


def payload_of(content: bytes) -> dict:
    return json.loads(dsse.parse(content)[1])


@pytest.mark.parametrize(("verdict", "strict", "result", "summary", "levels"), [
    ("conformant", False, "PASSED", "PASSED", ["_MUST", "_SHOULD"]),
    ("conformant", True, "PASSED", "PASSED", ["_MUST", "_SHOULD"]),
    ("conformant with warnings", False, "WARNED", "PASSED", ["_MUST"]),
    ("conformant with warnings", True, "WARNED", "FAILED", None),
    ("non-conformant", False, "FAILED", "FAILED", None),
    ("incomplete", False, "FAILED", "FAILED", None),
])
def test_verdict_to_result_and_summary(verdict, strict, result, summary, levels):
    """conformance-policy section 4: PASSED only for conformant, and for conformant with
    warnings unless --strict; the levels are boardcert's own, never SLSA_."""
    assert statements.outcome(verdict) == result
    found, verified = statements.levels(verdict, strict)
    assert found == summary
    assert verified == (["FAILED"] if levels is None else
                        [f"BOARDCERT_INTERFACE_0.0.1{suffix}" for suffix in levels])


def test_summary_fields(tmp_path, keys):
    """The summary names boardcert and its version, the target, the policy (interface and
    profile, the merged profile's digest) and the test-result envelope by its digest."""
    directory = report_dir(tmp_path, failed=("CARD-RENAME",))
    entries = entries_of(certify(directory, keys[0], strict=True))
    predicate = payload_of(entries[SUMMARY_FILE])["predicate"]
    report = json.loads((directory / "compliance.json").read_bytes())
    assert predicate["verifier"] == {"id": "pkg:pypi/boardcert@0.1.0"}
    assert predicate["timeVerified"] == report["finished"]
    assert predicate["resourceUri"] == "http://127.0.0.1:8080"
    assert predicate["policy"]["uri"] == \
        "https://boardcert.invalid/policy/interface/0.0.1/profile/reference"
    assert predicate["policy"]["digest"]["sha256"] == bundle.sha256(
        json.dumps({"organization": "discover"}, separators=(",", ":")).encode())
    assert predicate["inputAttestations"][0]["digest"]["sha256"] == \
        bundle.sha256(entries[TEST_RESULT_FILE])
    assert (predicate["verificationResult"], predicate["verifiedLevels"]) == \
        ("FAILED", ["FAILED"])  # conformant with warnings, --strict
    annotations = payload_of(entries[SUMMARY_FILE])["subject"][0]["annotations"]
    assert annotations[f"{statements.NS}targetUrl"] == "http://127.0.0.1:8080"
    assert annotations[f"{statements.NS}serverVersion"] == "1.2.3"


def test_without_a_subject_the_run_is_the_subject(tmp_path):
    """No --subject: a test result about manifest.json (compliance.json without a bundle),
    unsigned: an envelope with no signatures; no verification summary."""
    directory = report_dir(tmp_path)
    entries = entries_of(certify(directory, subjects=()))
    assert SUMMARY_FILE not in entries and not (directory / SUMMARY_FILE).exists()
    document, payload = dsse.parse(entries[TEST_RESULT_FILE])
    assert document["signatures"] == []
    assert json.loads(payload)["subject"] == [
        {"name": "manifest.json", "digest": {"sha256": bundle.sha256(entries["manifest.json"])}}]
    plain = plan_for(directory, None, ())
    files = plain.entries("compliance.json", (directory / "compliance.json").read_bytes())
    assert payload_of(files[TEST_RESULT_FILE])["subject"][0]["name"] == "compliance.json"
    assert bundle.verify(directory / "certification.zip").intact


def test_a_bundle_with_attestations_verifies_and_keeps_its_old_checks(tmp_path, keys):
    """The manifest names the attestations (they are made from it, so not hashed in it);
    verify finds the bundle intact, every envelope signed and saying what compliance.json
    says; anything else added is still caught."""
    path = certify(report_dir(tmp_path), keys[0])
    manifest = json.loads(entries_of(path)["manifest.json"])
    assert manifest["attestations"]["files"] == [TEST_RESULT_FILE, SUMMARY_FILE, JSONL]
    assert TEST_RESULT_FILE not in manifest["files"]
    found = bundle.verify(path, keys[1], [BUILD])
    assert found.intact, found.problems
    assert sum("signature valid (keyid" in note for note in found.notes) == 2
    assert sum("says what compliance.json says" in note for note in found.notes) == 2
    rewrite(path, lambda e: e.update({"attestations/extra.intoto.json": b"{}"}))
    assert "attestations/extra.intoto.json: not listed in the manifest (added)" in \
        bundle.verify(path).problems


# --- tampering: securesystemslib and boardcert verify both refuse --------------------------

def tampered(path: Path, name: str, change: Callable[[dict], None]) -> None:
    rewrite(path, lambda e: e.update({name: reenvelope(e[name], change)}))


def test_a_tampered_payload_fails_everywhere(tmp_path, keys):
    """A statement changed under its signature: securesystemslib refuses it; boardcert
    verify refuses the bundle and the lone envelope."""
    path = certify(report_dir(tmp_path, failed=("PROJECT-TOP-LEVEL",)), keys[0])
    tampered(path, TEST_RESULT_FILE, lambda s: s["predicate"].update(result="PASSED"))
    forged = entries_of(path)[TEST_RESULT_FILE]
    with pytest.raises(VerificationError):
        sslib_verify(forged, keys[1])
    problems = bundle.verify(path, keys[1]).problems
    assert any(p.startswith(f"{TEST_RESULT_FILE}: the signature by the key given (keyid ")
               and p.endswith("does not match the statement: altered") for p in problems)
    assert any("says other than compliance.json and the manifest: result" in p
               for p in problems)
    lone = tmp_path / "forged.intoto.json"
    lone.write_bytes(forged)
    assert attestations.check_file(lone, bundle.load_public_key(keys[1]), []).problems


def test_the_wrong_key_fails_everywhere(tmp_path, keys, other_keys):
    """Envelopes checked with another key: securesystemslib and boardcert verify refuse."""
    path = certify(report_dir(tmp_path), keys[0])
    for name in (TEST_RESULT_FILE, SUMMARY_FILE):
        with pytest.raises(VerificationError):
            sslib_verify(entries_of(path)[name], other_keys[1])
    found = bundle.verify(path, other_keys[1])
    assert sum(": signed by another key (keyid " in p for p in found.problems) == 2
    assert attestations.headline(found) == "NOT SIGNED BY THIS KEY"


def test_a_swapped_subject_digest_fails_everywhere(tmp_path, keys):
    """Another build's digest put in the statement: the signature no longer holds
    (securesystemslib, boardcert verify), and verify --subject names the mismatch."""
    path = certify(report_dir(tmp_path), keys[0])
    tampered(path, SUMMARY_FILE,
             lambda s: s["subject"][0]["digest"].update(sha256=OTHER.sha256))
    with pytest.raises(VerificationError):
        sslib_verify(entries_of(path)[SUMMARY_FILE], keys[1])
    problems = bundle.verify(path, keys[1], [BUILD]).problems
    assert any(p.startswith(f"{SUMMARY_FILE}: the signature by the key given") for p in problems)
    assert any(p.startswith(f"{SUMMARY_FILE}: not about {BUILD.as_text()}") for p in problems)
    assert any(p == f"{SUMMARY_FILE}: its subject differs from the manifest's"
               for p in problems)


def test_an_unsigned_forgery_is_caught_by_what_it_contradicts(tmp_path):
    """Unsigned envelopes prove nothing alone: a changed predicate is caught against
    compliance.json, another subject against the manifest and against --subject."""
    path = certify(report_dir(tmp_path, failed=("PROJECT-TOP-LEVEL",)))
    tampered(path, TEST_RESULT_FILE,
             lambda s: s["predicate"].update(failedTests=[], result="PASSED"))
    assert bundle.verify(path).problems == [
        f"{JSONL}: differs from the envelopes in attestations/",
        f"{TEST_RESULT_FILE}: says other than compliance.json and the manifest: result, "
        "failedTests",
        f"{SUMMARY_FILE}: says other than compliance.json and the manifest: inputAttestations"]
    problems = bundle.verify(path, subjects=[OTHER]).problems
    for name in (TEST_RESULT_FILE, SUMMARY_FILE):
        assert f"{name}: not about {OTHER.as_text()} (its subject: {BUILD.as_text()})" in \
            problems


def test_removed_signatures_and_attestations_are_caught(tmp_path, keys):
    """A signed bundle whose envelopes lost their signatures, or lost an envelope."""
    path = certify(report_dir(tmp_path), keys[0])

    def unsign(entries: dict[str, bytes]) -> None:
        document = json.loads(entries[SUMMARY_FILE])
        document["signatures"] = []
        entries[SUMMARY_FILE] = dsse.serialise(document)

    rewrite(path, unsign)
    assert f"{SUMMARY_FILE}: not signed, though the bundle is (signatures removed)" in \
        bundle.verify(path).problems
    rewrite(path, lambda e: e.pop(SUMMARY_FILE))
    assert bundle.verify(path).problems == [f"{SUMMARY_FILE}: named by the manifest but missing"]


# --- the commands ---------------------------------------------------------------------------

def test_verify_attestation_command(tmp_path, keys, other_keys, capsys):
    """verify --attestation: 0 intact (a .json or the .jsonl), 1 altered, another key or
    another subject, and it says which (a changed statement is ALTERED; a good one checked
    with another key is NOT SIGNED BY THIS KEY; another build is THE SUBJECT DIFFERS); 2
    usage."""
    from boardcert import cli

    directory = report_dir(tmp_path)
    certify(directory, keys[0])
    envelope, lines = str(directory / SUMMARY_FILE), str(directory / JSONL)
    assert cli.main(["verify", "--attestation", envelope, "--public-key", str(keys[1]),
                     "--subject", BUILD.as_text()]) == 0
    out = capsys.readouterr().out
    assert "INTACT: 1 attestation(s)" in out
    assert f"verification summary PASSED (conformant) about {BUILD.as_text()}" in out
    assert cli.main(["verify", "--attestation", lines, "--public-key", str(keys[1])]) == 0
    assert "INTACT: 2 attestation(s)" in capsys.readouterr().out
    assert cli.main(["verify", "--attestation", envelope, "--public-key",
                     str(other_keys[1])]) == 1
    out = capsys.readouterr().out
    assert ": NOT SIGNED BY THIS KEY: 1 problem(s):" in out and "ALTERED" not in out
    assert "signed by another key (keyid" in out
    assert cli.main(["verify", "--attestation", envelope, "--subject", OTHER.as_text()]) == 1
    out = capsys.readouterr().out
    assert f"not about {OTHER.as_text()}" in out and ": THE SUBJECT DIFFERS: " in out
    assert cli.main(["verify", "--attestation", envelope, "--public-key", str(other_keys[1]),
                     "--subject", OTHER.as_text()]) == 1
    assert ": NOT SIGNED BY THIS KEY and THE SUBJECT DIFFERS: 2 problem(s)" in \
        capsys.readouterr().out
    forged = tmp_path / "forged.intoto.json"
    forged.write_bytes(reenvelope((directory / SUMMARY_FILE).read_bytes(),
                                  lambda s: s["predicate"].update(verificationResult="FAILED")))
    assert cli.main(["verify", "--attestation", str(forged), "--public-key",
                     str(keys[1])]) == 1
    assert ": ALTERED: 1 problem(s):" in capsys.readouterr().out
    assert cli.main(["verify", "--attestation", str(tmp_path / "none.json")]) == 2
    assert cli.main(["verify", "--attestation", envelope, "--subject", "board@sha1:ab"]) == 2
    assert "--subject 'board@sha1:ab': expected NAME@sha256:HEX" in capsys.readouterr().err
    assert cli.main(["verify"]) == 2
    assert cli.main(["verify", str(directory / "certification.zip"), "--attestation",
                     envelope]) == 2


@pytest.mark.parametrize(("text", "problem"), [
    ("ghcr.io/acme/board@sha256:" + "AB" * 32, None),
    ("registry:5000/team/app@v2@sha256:" + "0" * 64, None),
    ("board@sha256:" + "a" * 63, "expected NAME@sha256:HEX"),
    ("@sha256:" + "a" * 64, "expected NAME@sha256:HEX"),
    ("board:sha256:" + "a" * 64, "expected NAME@sha256:HEX"),
    ("board@sha512:" + "a" * 64, "expected NAME@sha256:HEX"),
])
def test_subject_syntax(text, problem):
    """NAME@sha256:HEX: the last @sha256: splits; hex is 64 digits, kept in lower case."""
    if problem is None:
        subject = statements.parse_subject(text)
        assert subject.sha256 == text[-64:].lower() and "@sha256" not in subject.name
    else:
        with pytest.raises(ValueError, match=problem):
            statements.parse_subject(text)


@pytest.mark.parametrize(("argv", "message"), [
    (["--subject", "board@sha256:123"], "--subject 'board@sha256:123': expected NAME@sha256"),
    (["--subject", f"b@sha256:{'a' * 64}", "--subject", f"b@sha256:{'b' * 64}"],
     "--subject: b given more than once"),
    (["--server-version", "1.2"], "--server-version describes the build given by --subject"),
])
def test_run_refuses_a_malformed_subject_before_it_starts(tmp_path, capsys, argv, message):
    """A malformed --subject is a usage error naming the flag (exit 2), before any test."""
    from boardcert import cli

    assert cli.main(["run", *argv, "--output", str(tmp_path / "o")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_certifying_the_bundled_server_writes_a_certificate_others_can_check(tmp_path, keys):
    """Acceptance: a certification of the bundled server with --subject and --sign-key writes
    both envelopes beside the reports and in the bundle; securesystemslib verifies them; the
    test result's result and ids are compliance.json's; boardcert verify finds all intact
    and catches a swapped subject."""

    out = tmp_path / "out"
    result = boardcert("run", "--budget", "quick", "--output", str(out), "--strict",
                       "--subject", BUILD.as_text(), "--server-version", "1.2.3",
                       "--sign-key", str(keys[0]))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"wrote 2 attestations (signed): {out}/attestations/ and {out / JSONL}" in \
        result.stdout
    report = json.loads((out / "compliance.json").read_bytes())
    assert report["verdict"] == "conformant"
    result_statement = sslib_verify((out / TEST_RESULT_FILE).read_bytes(), keys[1])
    summary = sslib_verify((out / SUMMARY_FILE).read_bytes(), keys[1])
    predicate = result_statement["predicate"]
    assert predicate["result"] == "PASSED"
    assert predicate["passedTests"] == [r["id"] for r in report["requirements"]
                                        if r["status"] == "passed"]
    assert predicate[f"{statements.NS}notAssessedTests"] == [
        r["id"] for r in report["requirements"] if r["status"] == "not assessed"]
    assert predicate["failedTests"] == predicate["warnedTests"] == []
    assert summary["predicate"]["verificationResult"] == "PASSED"
    assert summary["predicate"]["resourceUri"] == \
        "pkg:pypi/boardcert@0.1.0#reference-server"  # not its loopback URL
    assert boardcert("verify", str(out / "certification.zip"), "--public-key", str(keys[1]),
                     "--subject", BUILD.as_text()).returncode == 0
    tampered(out / "certification.zip", SUMMARY_FILE,
             lambda s: s["subject"][0]["digest"].update(sha256=OTHER.sha256))
    checked = boardcert("verify", str(out / "certification.zip"), "--public-key",
                        str(keys[1]), "--subject", BUILD.as_text())
    assert checked.returncode == 1 and ": ALTERED: " in checked.stdout  # changed in the zip
