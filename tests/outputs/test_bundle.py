"""certification.zip: a bundle round trip, tampering of every kind rejected, and Ed25519
signatures valid, invalid and by the wrong key."""

from __future__ import annotations

import base64
import json
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from samples import KEY, boardcert, leaks, rewrite, synthetic_report

from boardcert.interface import requirements
from boardcert.outputs import badge, bundle
from boardcert.paths import DEFAULT_PROFILE, OPENAPI, REQUIREMENTS

MUSTS = sum(r.level == "MUST" for r in requirements.catalogue().values())

NOW = datetime(2026, 11, 22, 12, 1, 0, tzinfo=UTC)


@pytest.fixture
def report_dir(tmp_path: Path) -> Path:
    """A report directory as a run leaves it (synthetic content)."""
    directory = tmp_path / "run"
    (directory / "allure-results").mkdir(parents=True)
    report = synthetic_report(failed=("CARD-RENAME",))
    (directory / "compliance.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    (directory / "compliance.md").write_text("# Compliance report\n", encoding="utf-8")
    (directory / "compliance.html").write_text("<!doctype html><title>r</title>\n",
                                               encoding="utf-8")
    (directory / "junit.xml").write_text("<testsuites/>\n", encoding="utf-8")
    (directory / "allure-results" / "1-result.json").write_text("{}", encoding="utf-8")
    badge.write(report, directory)
    return directory


def make(report_dir: Path, sign: Path | None = None) -> Path:
    return bundle.create(report_dir, profile=DEFAULT_PROFILE, sign_key=sign, now=NOW)


def edit_json(entries: dict[str, bytes], name: str, **values) -> None:
    document = json.loads(entries[name])
    document.update(values)
    entries[name] = json.dumps(document, indent=2).encode()


# --- round trip --------------------------------------------------------------------------

def test_round_trip_is_intact(report_dir):
    """A bundle verifies as written: every file, the inputs, the manifest, the badge."""
    path = make(report_dir)
    assert path == report_dir / "certification.zip"
    found = bundle.verify(path)
    assert found.intact, found.problems
    assert not found.signed
    assert any("not signed" in note for note in found.notes)


def test_bundle_holds_reports_evidence_inputs_and_manifest(report_dir):
    with zipfile.ZipFile(make(report_dir)) as made:
        names = set(made.namelist())
        manifest = json.loads(made.read("manifest.json"))
    assert names == {"compliance.json", "compliance.md", "compliance.html", "junit.xml",
                     "badge.svg", "allure-results/1-result.json", "inputs/openapi.yaml",
                     "inputs/requirements.yaml", "inputs/profile.yaml", "manifest.json"}
    assert set(manifest["files"]) == names - {"manifest.json"}


def test_manifest_shape(report_dir):
    """The manifest: file hashes, suite version, input hashes, target URL, times, verdict."""
    with zipfile.ZipFile(make(report_dir)) as made:
        manifest = json.loads(made.read("manifest.json"))
        junit = made.read("junit.xml")
    report = json.loads((report_dir / "compliance.json").read_text(encoding="utf-8"))
    assert manifest["format"] == "boardcert-bundle/1"
    assert manifest["created"] == "2026-11-22T12:01:00Z"
    assert manifest["suite"] == {"name": "boardcert", "version": "0.1.0"}
    assert manifest["target"] == {"base_url": "http://127.0.0.1:8080",
                                  "reference_server": False}
    assert (manifest["started"], manifest["finished"]) == (report["started"],
                                                           report["finished"])
    assert (manifest["verdict"], manifest["must"]) == ("conformant with warnings",
                                                       {"passed": MUSTS, "total": MUSTS})
    assert manifest["files"]["junit.xml"] == {"sha256": bundle.sha256(junit),
                                              "bytes": len(junit)}
    inputs = manifest["inputs"]
    assert inputs["openapi"]["sha256"] == bundle.sha256(OPENAPI.read_bytes())
    assert inputs["requirements"]["sha256"] == bundle.sha256(REQUIREMENTS.read_bytes())
    assert inputs["profile"] == {"file": "inputs/profile.yaml", "source": "reference.yaml",
                                 "name": "reference",
                                 "sha256": bundle.sha256(DEFAULT_PROFILE.read_bytes())}
    assert "signature" not in manifest


def test_the_key_never_enters_the_manifest(report_dir):
    """The target is its URL alone: the manifest has no field for a key."""
    with zipfile.ZipFile(make(report_dir)) as made:
        text = made.read("manifest.json").decode()
    assert "key" not in json.loads(text)["target"] and "api_key" not in text


def test_same_reports_give_the_same_zip(report_dir):
    """Entries are sorted with fixed times: a bundle is reproducible."""
    first = make(report_dir).read_bytes()
    assert make(report_dir).read_bytes() == first


def test_a_directory_without_a_report_cannot_be_bundled(tmp_path):
    with pytest.raises(bundle.BundleError, match="no compliance.json"):
        bundle.create(tmp_path)


# --- tampering ---------------------------------------------------------------------------

def problems(path: Path, public_key: Path | None = None) -> list[str]:
    found = bundle.verify(path, public_key)
    assert not found.intact
    return found.problems


def test_an_edited_report_is_rejected(report_dir):
    """One byte changed in compliance.md inside the zip: its hash differs."""
    path = rewrite(make(report_dir), lambda e: e.update(
        {"compliance.md": e["compliance.md"].replace(b"Compliance", b"Compliancf")}))
    assert problems(path) == ["compliance.md: its SHA-256 differs from the manifest's "
                              "(altered)"]


def test_an_edited_manifest_is_rejected(report_dir):
    """The manifest's verdict made better than compliance.json's: caught."""
    path = rewrite(make(report_dir),
                   lambda e: edit_json(e, "manifest.json", verdict="conformant"))
    assert problems(path) == ["manifest.json: verdict differs from compliance.json's"]


def test_a_rehashed_verdict_change_is_still_caught(report_dir):
    """compliance.json's verdict changed and the manifest rehashed to match: the verdict no
    longer follows from the requirement statuses, and the badge disagrees."""
    def forge(entries: dict[str, bytes]) -> None:
        edit_json(entries, "compliance.json", verdict="conformant")
        manifest = json.loads(entries["manifest.json"])
        content = entries["compliance.json"]
        manifest["files"]["compliance.json"] = {"sha256": bundle.sha256(content),
                                                "bytes": len(content)}
        manifest["verdict"] = "conformant"
        entries["manifest.json"] = json.dumps(manifest).encode()

    found = problems(rewrite(make(report_dir), forge))
    assert "compliance.json: says 'conformant', but its requirement statuses give " \
           "'conformant with warnings'" in found
    assert "badge.svg: does not show the verdict and MUST count of compliance.json" in found


def test_a_removed_file_is_rejected(report_dir):
    path = rewrite(make(report_dir), lambda e: e.pop("junit.xml"))
    assert problems(path) == ["junit.xml: listed in the manifest but missing"]


def test_an_added_file_is_rejected(report_dir):
    path = rewrite(make(report_dir), lambda e: e.update({"allure-results/extra.json": b"{}"}))
    assert problems(path) == ["allure-results/extra.json: not listed in the manifest (added)"]


def test_a_swapped_input_is_rejected(report_dir):
    """inputs/profile.yaml replaced and rehashed in files but not in inputs: caught."""
    def swap(entries: dict[str, bytes]) -> None:
        entries["inputs/profile.yaml"] = b"name: other\n"
        manifest = json.loads(entries["manifest.json"])
        manifest["files"]["inputs/profile.yaml"]["sha256"] = bundle.sha256(b"name: other\n")
        manifest["files"]["inputs/profile.yaml"]["bytes"] = 12
        entries["manifest.json"] = json.dumps(manifest).encode()

    assert problems(rewrite(make(report_dir), swap)) == [
        "manifest.json: the profile hash does not match inputs/profile.yaml"]


def test_a_removed_manifest_or_a_damaged_zip_is_rejected(report_dir, tmp_path):
    assert problems(rewrite(make(report_dir), lambda e: e.pop("manifest.json"))) == [
        "no manifest.json: not a boardcert bundle, or it was removed"]
    damaged = tmp_path / "damaged.zip"
    damaged.write_bytes(make(report_dir).read_bytes()[:200])
    assert problems(damaged)[0].startswith("not a readable zip file")


def test_a_missing_bundle_is_a_usage_error(tmp_path):
    with pytest.raises(bundle.BundleError, match="no such file"):
        bundle.verify(tmp_path / "nothing.zip")


# --- signatures --------------------------------------------------------------------------

def test_signed_bundle_verifies_with_its_public_key(report_dir, keys):
    private, public = keys
    path = make(report_dir, sign=private)
    found = bundle.verify(path, public)
    assert found.intact, found.problems
    assert found.signed and found.signature_checked
    fingerprint = bundle.fingerprint(bundle.load_public_key(public))
    assert f"signature valid: signed by the key sha256:{fingerprint}" in found.notes
    with zipfile.ZipFile(path) as made:
        assert json.loads(made.read("manifest.json"))["signature"] == {
            "algorithm": "Ed25519", "file": "manifest.sig", "public_key_sha256": fingerprint}


def test_signed_bundle_without_a_public_key_is_intact_but_unchecked(report_dir, keys):
    found = bundle.verify(make(report_dir, sign=keys[0]))
    assert found.intact and found.signed and not found.signature_checked
    assert any("give --public-key to check it" in note for note in found.notes)


def test_signature_of_an_altered_manifest_is_invalid(report_dir, keys):
    """A manifest changed consistently (created time) still breaks the signature."""
    path = rewrite(make(report_dir, sign=keys[0]),
                   lambda e: edit_json(e, "manifest.json", created="2020-01-01T00:00:00Z"))
    assert bundle.verify(path).intact  # unsigned checks cannot see it ...
    assert problems(path, keys[1]) == [  # ... the signature does
        "manifest.sig: the signature does not match manifest.json for the key given"]


def test_a_forged_signature_is_invalid(report_dir, keys):
    forged = base64.b64encode(bytes(64)) + b"\n"
    path = rewrite(make(report_dir, sign=keys[0]), lambda e: e.update({"manifest.sig": forged}))
    assert problems(path, keys[1]) == [
        "manifest.sig: the signature does not match manifest.json for the key given"]


def test_signed_by_the_wrong_key(report_dir, keys, other_keys):
    path = make(report_dir, sign=other_keys[0])
    assert problems(path, keys[1])[0].startswith("signed by another key")


def test_removed_signature_is_rejected(report_dir, keys):
    path = rewrite(make(report_dir, sign=keys[0]), lambda e: e.pop("manifest.sig"))
    assert problems(path) == ["the manifest declares a signature but manifest.sig is missing"]


def test_an_unsigned_bundle_fails_when_a_signature_is_expected(report_dir, keys):
    assert problems(make(report_dir), keys[1]) == [
        "not signed, but a public key was given to check it with"]


def test_keygen_never_overwrites_and_keeps_the_private_key_private(keys):
    private, public = keys
    assert private.stat().st_mode & 0o077 == 0
    assert bundle.load_private_key(private).public_key() is not None
    with pytest.raises(bundle.BundleError, match="exists"):
        bundle.keygen(private.parent)


def test_unusable_keys_are_usage_errors(tmp_path, keys):
    (tmp_path / "junk.pem").write_text("not a key\n", encoding="utf-8")
    with pytest.raises(bundle.BundleError, match="not a usable PEM private key"):
        bundle.load_private_key(tmp_path / "junk.pem")
    with pytest.raises(bundle.BundleError, match="not a PEM public key"):
        bundle.load_public_key(tmp_path / "junk.pem")
    with pytest.raises(bundle.BundleError, match="not a PEM public key"):
        bundle.load_public_key(keys[0])  # the private key given as the public one


# --- the commands: boardcert run --bundle, verify, keygen ---------------------------------

def test_verify_command_exit_codes(report_dir, keys, other_keys, tmp_path, capsys):
    """0 intact, 1 altered or signed by another key (each named as what it is), 2 usage."""
    from boardcert import cli

    path = str(make(report_dir, sign=keys[0]))
    assert cli.main(["verify", path]) == 0
    assert cli.main(["verify", path, "--public-key", str(keys[1])]) == 0
    out = capsys.readouterr().out
    assert "INTACT: 9 files match their SHA-256" in out
    assert f"conformant with warnings ({MUSTS}/{MUSTS} MUST) for http://127.0.0.1:8080" in out
    assert "note: signature valid" in out
    assert cli.main(["verify", path, "--public-key", str(other_keys[1])]) == 1
    out = capsys.readouterr().out
    assert ": NOT SIGNED BY THIS KEY: " in out and "ALTERED" not in out, out
    rewrite(Path(path), lambda e: e.pop("junit.xml"))
    assert cli.main(["verify", path]) == 1
    assert "ALTERED: 1 problem(s):\n  - junit.xml: listed in the manifest but missing" in \
        capsys.readouterr().out
    assert cli.main(["verify", str(tmp_path / "none.zip")]) == 2
    assert cli.main(["verify", path, "--public-key", str(tmp_path / "none.pem")]) == 2
    assert cli.main(["verify"]) == 2


def test_keygen_command(tmp_path, capsys):
    from boardcert import cli

    assert cli.main(["keygen", str(tmp_path / "k")]) == 0
    assert "key sha256:" in capsys.readouterr().out
    assert cli.main(["keygen", str(tmp_path / "k")]) == 2


def test_run_bundle_signed_and_verified(tmp_path, keys):
    """A real run (operation 1 only) with --bundle --sign-key writes a certification.zip that
    `boardcert verify` finds intact and signed by that key, and that holds no key."""

    from boardcert.reference.server import start

    out = tmp_path / "out"
    with start(KEY) as server:
        result = boardcert("run", "--base-url", server.base_url, "--output", str(out),
                           "--sign-key", str(keys[0]), "--", "-m", "op1",
                           env={"BOARDCERT_API_KEY": KEY})
    assert result.returncode == 1, result.stdout + result.stderr  # only op 1: incomplete
    assert f"boardcert: wrote {out}/certification.zip (signed)" in result.stdout
    found = bundle.verify(out / "certification.zip", keys[1])
    assert found.intact and found.signature_checked, found.problems
    assert found.manifest["target"]["base_url"] == server.base_url
    assert found.manifest["verdict"] == "incomplete"
    with zipfile.ZipFile(out / "certification.zip") as made:
        assert not [n for n in made.namelist() if KEY.encode() in made.read(n)]
    assert leaks(out, result.stdout, result.stderr) == []
