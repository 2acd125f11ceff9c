"""--keyless (boardcert[sigstore]) without the network: the statements' exact bytes reach the
sigstore library's own in-toto Statement and DSSE signing, the bundles land beside their
envelopes and in certification.zip, and what cannot be done is said plainly. Real keyless
signing (Fulcio, Rekor) needs the network and an OIDC identity: documented, not run here."""

from __future__ import annotations

import json
import sys
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from samples import NOW, plan_for, report_dir, rewrite
from sigstore import dsse as sigstore_dsse

from boardcert.outputs import attestations, bundle, dsse, keyless, statements
from boardcert.outputs.attestations import SUMMARY_FILE, TEST_RESULT_FILE

STATEMENT = statements.serialise({
    "_type": statements.STATEMENT, "subject": [{"name": "b", "digest": {"sha256": "ab" * 32}}],
    "predicateType": statements.TEST_RESULT, "predicate": {"result": "PASSED"}})
TEST_BUNDLE, SUMMARY_BUNDLE = (attestations.keyless_name(n)
                               for n in (TEST_RESULT_FILE, SUMMARY_FILE))


class Signed:
    """What Signer.sign_dsse returns, as far as boardcert reads it (`to_json`)."""

    def __init__(self, envelope: sigstore_dsse.Envelope) -> None:
        self.envelope = envelope

    def to_json(self) -> str:
        return json.dumps({"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
                           "dsseEnvelope": json.loads(self.envelope.to_json())})


class Context:
    """A signing context whose signer signs as sigstore's Signer does (sigstore.dsse._sign,
    an ephemeral P-256 key) but asks no Fulcio for a certificate and no Rekor for an entry."""

    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.given: list[sigstore_dsse.Statement] = []

    @contextmanager
    def signer(self, identity: object) -> Iterator[Context]:
        assert identity == "an identity token"
        yield self

    def sign_dsse(self, statement: sigstore_dsse.Statement) -> Signed:
        self.given.append(statement)
        return Signed(sigstore_dsse._sign(self.key, statement))


def test_keyless_signs_the_statements_exact_bytes(tmp_path, keys):
    """Each statement goes to sigstore's Statement as the very bytes of its envelope; its PAE
    is ours; the bundles sit beside the envelopes and in the zip, and verify finds them
    signing the same statements."""
    directory = report_dir(tmp_path)
    context = Context()
    plan = plan_for(directory, keys[0])
    plan.keyless = partial(keyless.sign, context=context, identity="an identity token")
    path = bundle.create(directory, sign_key=keys[0], now=NOW, attest=plan)
    attestations.write(directory, plan.files)
    with zipfile.ZipFile(path) as zipped:
        entries = {name: zipped.read(name) for name in zipped.namelist()}
    assert json.loads(entries["manifest.json"])["attestations"]["files"] == [
        TEST_RESULT_FILE, SUMMARY_FILE, attestations.JSONL, TEST_BUNDLE, SUMMARY_BUNDLE]
    for envelope_name, bundle_name in ((TEST_RESULT_FILE, TEST_BUNDLE),
                                       (SUMMARY_FILE, SUMMARY_BUNDLE)):
        assert (directory / bundle_name).read_bytes() == entries[bundle_name]
        inner = json.dumps(json.loads(entries[bundle_name])["dsseEnvelope"])
        signed = sigstore_dsse._verify(context.key.public_key(),
                                       sigstore_dsse.Envelope._from_json(inner))
        payload = dsse.parse(entries[envelope_name])[1]
        assert signed == payload
        assert sigstore_dsse._pae(dsse.IN_TOTO, payload) == dsse.pae(dsse.IN_TOTO, payload)
    assert [s._contents for s in context.given] == \
        [dsse.parse(entries[n])[1] for n in (TEST_RESULT_FILE, SUMMARY_FILE)]
    found = bundle.verify(path, keys[1])
    assert found.intact, found.problems
    assert sum("signed keyless (Sigstore) over the same statement" in n
               for n in found.notes) == 2


def test_a_keyless_bundle_of_another_statement_is_caught(tmp_path, keys):
    """A Sigstore bundle swapped for one of another statement: verify says so."""
    directory = report_dir(tmp_path)
    plan = plan_for(directory, None)
    plan.keyless = partial(keyless.sign, context=Context(), identity="an identity token")
    path = bundle.create(directory, now=NOW, attest=plan)
    rewrite(path, lambda e: e.update({TEST_BUNDLE: e[SUMMARY_BUNDLE]}))
    assert bundle.verify(path).problems == [
        f"{TEST_BUNDLE}: not a Sigstore bundle of the same statement"]


def test_no_identity_in_ci_is_said_plainly(monkeypatch):
    """In GitHub Actions without `id-token: write`, the library finds no token: a
    KeylessError naming it, before any request."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.delenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN", raising=False)
    with pytest.raises(keyless.KeylessError, match="--keyless: no identity from the CI"):
        keyless.ambient_identity()


def test_a_signing_failure_is_an_error_not_a_traceback():
    """Sigstore failing (the network, Fulcio) is a KeylessError with its reason."""
    class Refusing(Context):
        def sign_dsse(self, statement: sigstore_dsse.Statement) -> Signed:
            raise ConnectionError("fulcio.sigstore.dev unreachable")

    with pytest.raises(keyless.KeylessError, match="ConnectionError: fulcio.sigstore.dev"):
        keyless.sign({TEST_RESULT_FILE: STATEMENT}, Refusing(), "an identity token")


def test_without_the_extra_keyless_is_a_usage_error(tmp_path, monkeypatch, capsys):
    """No sigstore library: --keyless is refused before the run, saying how to install it."""
    from boardcert import cli

    monkeypatch.setitem(sys.modules, "sigstore.sign", None)
    assert cli.main(["run", "--keyless", "--output", str(tmp_path / "o")]) == 2
    assert "--keyless needs the sigstore library: pip install 'boardcert[sigstore]'" in \
        capsys.readouterr().err
    assert not (tmp_path / "o").exists()
