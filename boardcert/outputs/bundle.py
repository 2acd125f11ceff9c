"""certification.zip: a run's reports and evidence, sealed by a manifest of SHA-256 hashes and,
optionally, an Ed25519 signature; and the offline check that nothing in it was altered.

Inside the zip:

    compliance.json, compliance.md, compliance.html, junit.xml, badge.svg, allure-results/...
    inputs/openapi.yaml, inputs/requirements.yaml, inputs/profile.yaml   (what the run read)
    manifest.json   every other file's SHA-256 and size; suite version; the inputs' hashes;
                    the target (URL only); times; verdict
    manifest.sig    (when signed) the Ed25519 signature of manifest.json's exact bytes, base64
    attestations/*.intoto.json, certificate.intoto.jsonl   (boardcert.outputs.attestations) made
    from
                    manifest.json's bytes, so outside it: the manifest names them

    path = create(report_dir, profile=Path(...), sign_key=Path(...), attest=Plan(...))
    found = verify(path, public_key=Path(...))   # found.intact, found.problems, found.notes
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from boardcert import INTERFACE_VERSION, __version__
from boardcert.outputs import badge
from boardcert.paths import OPENAPI, REQUIREMENTS

BUNDLE_NAME, MANIFEST, SIGNATURE = "certification.zip", "manifest.json", "manifest.sig"
FORMAT = "boardcert-bundle/1"
REPORT = "compliance.json"
PASSPHRASE_ENV = "BOARDCERT_SIGN_KEY_PASSPHRASE"
KEY_NAMES = ("boardcert-signing-key.pem", "boardcert-signing-key.pub.pem")
_EPOCH = (1980, 1, 1, 0, 0, 0)  # fixed entry times: the same files give the same zip
# manifest fields that repeat compliance.json, checked against it by verify
_FROM_REPORT = ("verdict", "verdict_reason", "started", "finished", "duration_seconds",
                "target", "interface_version", "run")


class BundleError(Exception):
    """A bundle, key or report directory that cannot be used (a usage error)."""


class Attest(Protocol):
    """Entries made from the manifest's bytes, kept outside it
    (boardcert.outputs.attestations.Plan)."""

    @property
    def names(self) -> list[str]: ...

    def declared(self) -> dict[str, Any]: ...

    def entries(self, evidence_name: str, evidence: bytes) -> dict[str, bytes]: ...


# --- keys --------------------------------------------------------------------------------

def load_private_key(path: Path) -> Ed25519PrivateKey:
    """An Ed25519 private key from PEM (encrypted ones read the passphrase from
    BOARDCERT_SIGN_KEY_PASSPHRASE)."""
    passphrase = os.environ.get(PASSPHRASE_ENV)
    try:
        key = serialization.load_pem_private_key(
            path.read_bytes(), password=passphrase.encode() if passphrase else None)
    except OSError as exc:
        raise BundleError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except (ValueError, TypeError) as exc:
        raise BundleError(f"{path}: not a usable PEM private key ({exc})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise BundleError(f"{path}: not an Ed25519 key (boardcert keygen DIR makes one)")
    return key


def load_public_key(path: Path) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(path.read_bytes())
    except OSError as exc:
        raise BundleError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise BundleError(f"{path}: not a PEM public key ({exc})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise BundleError(f"{path}: not an Ed25519 public key")
    return key


def fingerprint(key: Ed25519PublicKey) -> str:
    """sha256 of the raw 32-byte public key, hex: names the key in manifests and output."""
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()


def keygen(directory: Path) -> tuple[Path, Path]:
    """Write a new key pair into directory (the private key readable by its owner only);
    never overwrites."""
    private, public = (directory / name for name in KEY_NAMES)
    for path in (private, public):
        if path.exists():
            raise BundleError(f"{path} exists; not overwriting it")
    directory.mkdir(parents=True, exist_ok=True)
    key = Ed25519PrivateKey.generate()
    private.touch(mode=0o600)
    private.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                          serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    public.write_bytes(key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return private, public


# --- making a bundle ---------------------------------------------------------------------

def sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def report_files(directory: Path) -> dict[str, bytes]:
    """Every file of a report directory by its zip name (POSIX, relative), but the bundle."""
    found = {}
    for path in sorted(directory.rglob("*")):
        if path.is_file() and path.name != BUNDLE_NAME:
            found[path.relative_to(directory).as_posix()] = path.read_bytes()
    if REPORT not in found:
        raise BundleError(f"{directory}: no {REPORT} to bundle")
    return found


def create(directory: Path, profile: Path | None = None, sign_key: Path | None = None,
           now: datetime | None = None, attest: Attest | None = None) -> Path:
    """Write directory/certification.zip from the report directory; returns its path."""
    key = load_private_key(sign_key) if sign_key else None
    outside = set(attest.names) if attest is not None else set()
    files = {name: content for name, content in report_files(directory).items()
             if name not in outside}
    report = json.loads(files[REPORT])
    inputs = {"openapi": ("inputs/openapi.yaml", OPENAPI),
              "requirements": ("inputs/requirements.yaml", REQUIREMENTS),
              "profile": ("inputs/profile.yaml", profile)}
    for name, source in inputs.values():
        if source is not None:
            files[name] = _read(source)
    manifest = build_manifest(report, files, inputs, now or datetime.now(UTC),
                              key.public_key() if key else None)
    if attest is not None:
        manifest["attestations"] = attest.declared()
    manifest_bytes = (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode()
    entries = {**files, MANIFEST: manifest_bytes}
    if key is not None:
        entries[SIGNATURE] = base64.b64encode(key.sign(manifest_bytes)) + b"\n"
    if attest is not None:
        entries.update(attest.entries(MANIFEST, manifest_bytes))
    path = directory / BUNDLE_NAME
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name in sorted(entries):
            bundle.writestr(zipfile.ZipInfo(name, _EPOCH), entries[name],
                            compress_type=zipfile.ZIP_DEFLATED)
    return path


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise BundleError(f"{path}: cannot read it ({exc.strerror or exc})") from None


def build_manifest(report: dict[str, Any], files: dict[str, bytes],
                   inputs: dict[str, tuple[str, Path | None]], now: datetime,
                   public_key: Ed25519PublicKey | None) -> dict[str, Any]:
    must = report["counts"]["requirements"]["MUST"]
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "created": now.isoformat(timespec="seconds").replace("+00:00", "Z"),
        "suite": {"name": "boardcert", "version": report.get("suite", {}).get(
            "version", __version__)},
        "interface_version": report.get("interface_version", INTERFACE_VERSION),
        "target": report["target"],
        "started": report["started"],
        "finished": report["finished"],
        "duration_seconds": report["duration_seconds"],
        "verdict": report["verdict"],
        "verdict_reason": report["verdict_reason"],
        "must": {"passed": must["passed"], "total": must["total"]},
        "revision": (report.get("revision") or {}).get("summary"),
        "run": report.get("run"),  # budget, seed, versions, options
        "inputs": {},
        "files": {name: {"sha256": sha256(content), "bytes": len(content)}
                  for name, content in sorted(files.items())},
    }
    for what, (name, source) in inputs.items():
        manifest["inputs"][what] = {
            "file": name if source is not None else None,
            "sha256": sha256(files[name]) if source is not None else None,
            "source": source.name if source is not None else None,
        }
    manifest["inputs"]["profile"]["name"] = report.get("profile", {}).get("name")
    if public_key is not None:
        manifest["signature"] = {"algorithm": "Ed25519", "file": SIGNATURE,
                                 "public_key_sha256": fingerprint(public_key)}
    return manifest


# --- verifying a bundle ------------------------------------------------------------------

@dataclass
class Verification:
    """What verify found: problems (the bundle was altered) and notes (facts, not faults)."""

    manifest: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    signed: bool = False
    signature_checked: bool = False
    refused: Counter[str] = field(default_factory=Counter)  # attestations.refuse: no alteration

    @property
    def intact(self) -> bool:
        return not self.problems


def verify(path: Path, public_key: Path | None = None,
           subjects: list[Any] | None = None) -> Verification:
    """Recompute every hash of the bundle, check the manifest against compliance.json, the
    badge against the verdict, the signature (against public_key when given) and the
    attestations (about `subjects`, statements.Subject, when given)."""
    key = load_public_key(public_key) if public_key else None
    if not path.is_file():
        raise BundleError(f"{path}: no such file")
    found = Verification()
    entries = _entries(path, found)
    if entries is None:
        return found
    manifest = _manifest(entries, found)
    if manifest is None:
        return found
    found.manifest = manifest
    check_files(entries, manifest, found)
    check_inputs(manifest, found)
    if REPORT in entries and REPORT in manifest.get("files", {}):
        check_report(entries[REPORT], entries.get(badge.BADGE_NAME), manifest, found)
    check_signature(entries, manifest, key, found)
    check_attestations(entries, manifest, key, subjects or [], found)
    return found


def _entries(path: Path, found: Verification) -> dict[str, bytes] | None:
    """The zip's files by name; None (with the problem noted) if it is not a readable zip."""
    try:
        with zipfile.ZipFile(path) as bundle:
            names = [i.filename for i in bundle.infolist() if not i.is_dir()]
            duplicated = sorted({n for n in names if names.count(n) > 1})
            if duplicated:
                found.problems.append(f"names stored twice: {', '.join(duplicated)}")
            return {name: bundle.read(name) for name in names}
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError) as exc:
        found.problems.append(f"not a readable zip file ({exc})")
        return None


def _manifest(entries: dict[str, bytes], found: Verification) -> dict[str, Any] | None:
    if MANIFEST not in entries:
        found.problems.append(f"no {MANIFEST}: not a boardcert bundle, or it was removed")
        return None
    try:
        manifest = json.loads(entries[MANIFEST])
    except ValueError as exc:
        found.problems.append(f"{MANIFEST} is not JSON ({exc})")
        return None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or not isinstance(
            manifest.get("files"), dict):
        found.problems.append(f"{MANIFEST} is not a {FORMAT} manifest")
        return None
    return manifest


def check_files(entries: dict[str, bytes], manifest: dict[str, Any],
                found: Verification) -> None:
    """Every listed file is there with its hash and size; nothing else is there."""
    listed = manifest["files"]
    for name, expected in sorted(listed.items()):
        if name not in entries:
            found.problems.append(f"{name}: listed in the manifest but missing")
            continue
        content = entries[name]
        if not isinstance(expected, dict) or sha256(content) != expected.get("sha256"):
            found.problems.append(f"{name}: its SHA-256 differs from the manifest's (altered)")
        elif len(content) != expected.get("bytes"):
            found.problems.append(f"{name}: its size differs from the manifest's")
    attested = (manifest.get("attestations") or {}).get("files") or []
    for name in sorted(entries.keys() - listed.keys() - {MANIFEST, SIGNATURE, *attested}):
        found.problems.append(f"{name}: not listed in the manifest (added)")
    unsafe = [n for n in entries if n.startswith("/") or ".." in PurePosixPath(n).parts]
    for name in unsafe:
        found.problems.append(f"{name}: a path outside the bundle")


def check_inputs(manifest: dict[str, Any], found: Verification) -> None:
    """The inputs' hashes name the bundled copies."""
    inputs = manifest.get("inputs")
    if not isinstance(inputs, dict):
        found.problems.append(f"{MANIFEST}: no inputs")
        return
    for what in ("openapi", "requirements", "profile"):
        entry = inputs.get(what) or {}
        name = entry.get("file")
        if name is None:
            found.notes.append(f"the {what} input was not bundled")
        elif (manifest["files"].get(name) or {}).get("sha256") != entry.get("sha256"):
            found.problems.append(f"{MANIFEST}: the {what} hash does not match {name}")


def check_report(content: bytes, badge_svg: bytes | None, manifest: dict[str, Any],
                 found: Verification) -> None:
    """The manifest says what compliance.json says; the verdict follows from the requirement
    statuses; badge.svg is the badge of that report."""
    from boardcert.outputs.report.build import decide

    try:
        report = json.loads(content)
        must = report["counts"]["requirements"]["MUST"]
        verdict, _ = decide(report["requirements"])
    except (ValueError, KeyError, TypeError) as exc:
        found.problems.append(f"{REPORT}: not a readable compliance report ({exc})")
        return
    for key in _FROM_REPORT:
        if manifest.get(key) != report.get(key):
            found.problems.append(f"{MANIFEST}: {key} differs from {REPORT}'s")
    if manifest.get("suite", {}).get("version") != report.get("suite", {}).get("version"):
        found.problems.append(f"{MANIFEST}: the suite version differs from {REPORT}'s")
    if manifest.get("must") != {"passed": must["passed"], "total": must["total"]}:
        found.problems.append(f"{MANIFEST}: the MUST count differs from {REPORT}'s")
    if verdict != report.get("verdict"):
        found.problems.append(f"{REPORT}: says {report.get('verdict')!r}, but its "
                              f"requirement statuses give {verdict!r}")
    if badge_svg is not None and not badge.shows(badge_svg, report):
        found.problems.append(f"{badge.BADGE_NAME}: does not show the verdict and MUST count "
                              f"of {REPORT}")


def check_signature(entries: dict[str, bytes], manifest: dict[str, Any],
                    key: Ed25519PublicKey | None, found: Verification) -> None:
    declared = manifest.get("signature")
    signature = entries.get(SIGNATURE)
    found.signed = signature is not None
    if declared is None and signature is not None:
        found.problems.append(f"{SIGNATURE} is there but the manifest declares no signature")
        return
    if declared is not None and signature is None:
        found.problems.append(f"the manifest declares a signature but {SIGNATURE} is missing")
        return
    from boardcert.outputs.attestations import OTHER_KEY, refuse

    if signature is None:
        if key is not None:
            refuse(found, OTHER_KEY, "not signed, but a public key was given to check it with")
        else:
            found.notes.append("not signed: intact means consistent, not proven authentic")
        return
    named = declared.get("public_key_sha256", "?") if isinstance(declared, dict) else "?"
    if key is None:
        found.notes.append(f"signed by the key sha256:{named}; not checked (give "
                           "--public-key to check it)")
        return
    found.signature_checked = True
    if fingerprint(key) != named:
        refuse(found, OTHER_KEY, f"signed by another key (sha256:{named}), not by the key "
               f"given (sha256:{fingerprint(key)})")
        return
    try:
        key.verify(base64.b64decode(signature.strip(), validate=True), entries[MANIFEST])
    except (InvalidSignature, ValueError):
        found.problems.append(f"{SIGNATURE}: the signature does not match {MANIFEST} for the "
                              "key given")
    else:
        found.notes.append(f"signature valid: signed by the key sha256:{fingerprint(key)}")


def check_attestations(entries: dict[str, bytes], manifest: dict[str, Any],
                       key: Ed25519PublicKey | None, subjects: list[Any],
                       found: Verification) -> None:
    """The attestations made from the manifest (boardcert.outputs.attestations.check_bundle)."""
    from boardcert.outputs import attestations

    try:
        report = json.loads(entries[REPORT])
        attestations.check_bundle(entries, manifest, report, key, subjects, found)
    except (KeyError, ValueError, TypeError, AttributeError) as exc:
        found.problems.append(f"the attestations cannot be checked against {REPORT} ({exc})")
