"""The certificate others can check: a run's in-toto statements in DSSE envelopes, written
beside the reports and into certification.zip, and the offline check of them.

    attestations/test-result.intoto.json           the test result (always)
    attestations/verification-summary.intoto.json  the SLSA verification summary (--subject)
    certificate.intoto.jsonl                       both envelopes, one a line

Each envelope is signed with --sign-key's Ed25519 key (unsigned runs write envelopes with no
signatures). The test result's subject is the --subject builds, else the run's own evidence:
manifest.json in a bundle (the envelopes are made from its bytes, so they sit outside it; the
manifest names them and records the subjects), compliance.json without one.

    plan = Plan(subjects, server_version, strict, key)
    files = plan.entries("compliance.json", report_bytes)        # {zip name: bytes}
    found = check_file(path, public_key, subjects)                 # a lone envelope (.jsonl too)
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from boardcert.outputs import dsse, statements
from boardcert.outputs.statements import Subject

TEST_RESULT_FILE = "attestations/test-result.intoto.json"
SUMMARY_FILE = "attestations/verification-summary.intoto.json"
JSONL = "certificate.intoto.jsonl"
KINDS = {statements.TEST_RESULT: "test result", statements.VSA: "verification summary"}
KEYLESS_SUFFIX = ".sigstore.json"  # outputs.keyless: a Sigstore bundle beside its envelope


def keyless_name(envelope_name: str) -> str:
    """attestations/test-result.intoto.json -> attestations/test-result.sigstore.json"""
    return envelope_name.removesuffix(".intoto.json") + KEYLESS_SUFFIX


@dataclass
class Plan:
    """What a run asked of its attestations; `entries` makes them (once)."""

    subjects: list[Subject] = field(default_factory=list)
    server_version: str | None = None
    strict: bool = False
    key: Ed25519PrivateKey | None = None
    report: dict[str, Any] = field(default_factory=dict)
    inputs: dict[str, str] = field(default_factory=dict)  # openapi, requirements: SHA-256
    # --keyless: statements' bytes by envelope name -> Sigstore bundles by name (keyless.sign)
    keyless: Callable[[dict[str, bytes]], dict[str, bytes]] | None = None
    files: dict[str, bytes] = field(default_factory=dict)

    @property
    def envelopes(self) -> list[str]:
        return [TEST_RESULT_FILE, *([SUMMARY_FILE] if self.subjects else [])]

    @property
    def names(self) -> list[str]:
        keyless = [keyless_name(n) for n in self.envelopes] if self.keyless else []
        return [*self.envelopes, JSONL, *keyless]

    def subject(self) -> list[dict[str, Any]]:
        return statements.build_subjects(self.subjects, self.report, self.server_version)

    def declared(self) -> dict[str, Any]:
        """What the bundle's manifest says of the attestations made from it."""
        return {"files": self.names, "subjects": self.subject(), "strict": self.strict,
                "signed": self.key is not None}

    def entries(self, evidence_name: str, evidence: bytes) -> dict[str, bytes]:
        """The envelopes (and the .jsonl) by zip name; the subject without --subject is the
        evidence given (manifest.json's bytes, or compliance.json's)."""
        subject = self.subject() if self.subjects else \
            statements.evidence_subject(evidence_name, evidence)
        made = {TEST_RESULT_FILE: statements.serialise(
            statements.test_result(self.report, subject, self.inputs))}
        files = {TEST_RESULT_FILE: self._envelope(made[TEST_RESULT_FILE])}
        if self.subjects:
            made[SUMMARY_FILE] = statements.serialise(statements.verification_summary(
                self.report, subject, self.strict, TEST_RESULT_FILE, files[TEST_RESULT_FILE]))
            files[SUMMARY_FILE] = self._envelope(made[SUMMARY_FILE])
        files[JSONL] = b"".join(files.values())
        if self.keyless:
            files.update(self.keyless(made))
        self.files = files
        return files

    def _envelope(self, statement: bytes) -> bytes:
        return dsse.serialise(dsse.envelope(statement, self.key))


def write(directory: Path, files: dict[str, bytes]) -> list[Path]:
    """Write the attestations beside the reports; their paths."""
    written = []
    for name, content in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        written.append(path)
    return written


# --- checking ----------------------------------------------------------------------------

# What a problem says of the check, besides "altered" (a file changed): not signed by the key
# given, or about another build than --subject.
OTHER_KEY, OTHER_SUBJECT = "not signed by this key", "the subject differs"


@dataclass
class Checked:
    """What a check found: problems (altered, or not what was asked) and notes."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    statements: dict[str, dict[str, Any]] = field(default_factory=dict)  # by envelope name
    refused: Counter[str] = field(default_factory=Counter)  # problems that are no alteration


def refuse(found: Any, why: str, problem: str) -> None:
    """A problem that says the file is not what was asked (OTHER_KEY, OTHER_SUBJECT), not
    that it changed."""
    found.problems.append(problem)
    found.refused[why] += 1


def headline(found: Any) -> str:
    """What a check with problems found, in a few words: ALTERED when any file changed, else
    which of "not signed by this key" and "the subject differs" it is."""
    if len(found.problems) > sum(found.refused.values()):
        return "ALTERED"
    return " and ".join(why.upper() for why in (OTHER_KEY, OTHER_SUBJECT) if found.refused[why])


def check_envelope(name: str, content: bytes, key: Ed25519PublicKey | None,
                   subjects: list[Subject], found: Any,
                   must_be_signed: bool = False) -> dict[str, Any] | None:
    """One envelope: a DSSE envelope of an in-toto statement, signed by the key (when given),
    about every --subject digest given. The statement, or None (problems noted)."""
    try:
        document, payload = dsse.parse(content)
        statement = json.loads(payload)
    except (dsse.EnvelopeError, ValueError) as exc:
        found.problems.append(f"{name}: not a readable attestation ({exc})")
        return None
    if document["payloadType"] != dsse.IN_TOTO or not isinstance(statement, dict) \
            or statement.get("_type") != statements.STATEMENT \
            or not isinstance(statement.get("subject"), list):
        found.problems.append(f"{name}: not an in-toto statement "
                              f"({dsse.IN_TOTO}, {statements.STATEMENT})")
        return None
    ids = dsse.keyids(document)
    if key is not None:
        if dsse.signed_by(document, payload, key):
            found.notes.append(f"{name}: signature valid (keyid {dsse.keyid(key)})")
        elif dsse.keyid(key) in ids:  # the key's own signature no longer fits: changed
            found.problems.append(f"{name}: the signature by the key given (keyid "
                                  f"{dsse.keyid(key)}) does not match the statement: altered")
        elif ids:
            refuse(found, OTHER_KEY, f"{name}: signed by another key (keyid "
                   f"{', '.join(ids)}), not by the key given (keyid {dsse.keyid(key)})")
        else:
            refuse(found, OTHER_KEY, f"{name}: not signed, but a public key was given")
    elif ids:
        found.notes.append(f"{name}: signed by keyid {', '.join(ids)}; not checked (give "
                           "--public-key to check it)")
    elif must_be_signed:
        found.problems.append(f"{name}: not signed, though the bundle is (signatures removed)")
    digests = {s.get("digest", {}).get("sha256") for s in statement["subject"]
               if isinstance(s, dict) and isinstance(s.get("digest"), dict)}
    for subject in subjects:
        if subject.sha256 not in digests:
            refuse(found, OTHER_SUBJECT, f"{name}: not about {subject.as_text()} (its "
                   f"subject: {_names(statement)})")
    return statement


def check_file(path: Path, key: Ed25519PublicKey | None, subjects: list[Subject]) -> Checked:
    """A lone envelope file, or a .jsonl of them (one a line)."""
    found = Checked()
    lines = [line for line in path.read_bytes().splitlines() if line.strip()]
    if not lines:
        found.problems.append(f"{path.name}: empty")
    for number, line in enumerate(lines, 1):
        name = path.name if len(lines) == 1 else f"{path.name} line {number}"
        statement = check_envelope(name, line, key, subjects, found)
        if statement is not None:
            found.statements[name] = statement
    return found


def check_bundle(entries: dict[str, bytes], manifest: dict[str, Any], report: dict[str, Any],
                 key: Ed25519PublicKey | None, subjects: list[Subject], found: Any) -> None:
    """A bundle's attestations: those its manifest names are there, signed when the bundle
    is, about the --subject digests given, and say what compliance.json and the manifest say
    (built again from them and compared)."""
    declared = manifest.get("attestations")
    if not isinstance(declared, dict):
        if subjects:
            refuse(found, OTHER_SUBJECT, "no attestations in the bundle to check --subject "
                   "against")
        else:
            found.notes.append("no attestations (a bundle made without them)")
        return
    names = [n for n in declared.get("files", [])
             if n != JSONL and not n.endswith(KEYLESS_SUFFIX)]
    missing = [n for n in declared.get("files", []) if n not in entries]
    for name in missing:
        found.problems.append(f"{name}: named by the manifest but missing")
    if missing:
        return
    if entries[JSONL] != b"".join(entries[n] for n in names):
        found.problems.append(f"{JSONL}: differs from the envelopes in attestations/")
    inputs = {what: (manifest["inputs"].get(what) or {}).get("sha256")
              for what in ("openapi", "requirements")}
    subject = declared.get("subjects") or \
        statements.evidence_subject("manifest.json", entries["manifest.json"])
    expected = {TEST_RESULT_FILE: statements.test_result(report, subject, inputs)}
    if SUMMARY_FILE in names:
        expected[SUMMARY_FILE] = statements.verification_summary(
            report, subject, bool(declared.get("strict")), TEST_RESULT_FILE,
            entries[TEST_RESULT_FILE])
    for name in names:
        statement = check_envelope(name, entries[name], key, subjects, found,
                                   must_be_signed="signature" in manifest)
        if statement is not None:
            _compare(name, statement, expected.get(name), found)
        if keyless_name(name) in declared["files"]:
            check_keyless(keyless_name(name), entries[keyless_name(name)], entries[name], found)


def check_keyless(name: str, content: bytes, envelope: bytes, found: Any) -> None:
    """A Sigstore bundle signs the same statement as its envelope (offline, that much: its
    certificate and log entry are checked by Sigstore's tools, docs/certificate.md)."""
    try:
        inner = json.loads(content)["dsseEnvelope"]
        same = dsse.parse(json.dumps(inner).encode())[1] == dsse.parse(envelope)[1]
    except (ValueError, KeyError, TypeError, dsse.EnvelopeError):
        same = False
    if same:
        found.notes.append(f"{name}: signed keyless (Sigstore) over the same statement; its "
                           "certificate and log entry not checked here (sigstore verify)")
    else:
        found.problems.append(f"{name}: not a Sigstore bundle of the same statement")


def _compare(name: str, statement: dict[str, Any], expected: dict[str, Any] | None,
             found: Any) -> None:
    """The statement is the one the bundle's compliance.json and manifest give."""
    if expected is None:
        found.problems.append(f"{name}: not an attestation boardcert makes")
        return
    for key in ("_type", "predicateType", "subject"):
        if statement.get(key) != expected[key]:
            found.problems.append(f"{name}: its {key} differs from the manifest's")
    predicate = statement.get("predicate")
    if not isinstance(predicate, dict):
        found.problems.append(f"{name}: no predicate")
        return
    differing = [k for k in dict.fromkeys([*expected["predicate"], *predicate])
                 if predicate.get(k) != expected["predicate"].get(k)]
    if differing:
        found.problems.append(f"{name}: says other than compliance.json and the manifest: "
                              f"{', '.join(_short(k) for k in differing)}")
    else:
        kind = KINDS[expected["predicateType"]]
        said = predicate.get("result") or predicate.get("verificationResult")
        found.notes.append(f"{name}: the {kind} ({said}) says what compliance.json says")


def _short(key: str) -> str:
    return key.removeprefix(statements.NS)


def describe(statement: dict[str, Any]) -> str:
    """A line saying what a statement says, and about what."""
    predicate = statement.get("predicate")
    predicate = predicate if isinstance(predicate, dict) else {}
    kind = KINDS.get(str(statement.get("predicateType")), str(statement.get("predicateType")))
    said = predicate.get("result") or predicate.get("verificationResult") or "?"
    verdict = predicate.get(f"{statements.NS}verdict")
    return f"{kind} {said}{f' ({verdict})' if verdict else ''} about {_names(statement)}"


def _names(statement: dict[str, Any]) -> str:
    named = []
    for subject in statement["subject"]:
        digest = subject.get("digest") if isinstance(subject, dict) else None
        if isinstance(digest, dict):
            named.append(f"{subject.get('name', '_')}@sha256:{digest.get('sha256')}")
    return ", ".join(named) or "nothing"
