"""Keyless signing of the attestations with Sigstore (`boardcert run --keyless`, the optional
extra `boardcert[sigstore]`): in CI with an ambient OpenID Connect identity (GitHub Actions
with `permissions: id-token: write`), each statement's exact bytes are signed as a DSSE
envelope under a short-lived Fulcio certificate for that identity and logged in Rekor. The
Sigstore bundle that comes back goes beside the envelope: attestations/NAME.sigstore.json.

It needs the network (Fulcio, Rekor, Sigstore's TUF root) and is never required: nothing else
in boardcert imports sigstore. docs/certificate.md says how to check the result.
"""

from __future__ import annotations

from typing import Any

from boardcert.outputs.attestations import keyless_name

INSTALL = "pip install 'boardcert[sigstore]'"


class KeylessError(Exception):
    """Keyless signing cannot be done here (no library, no identity, Sigstore refused)."""


def check_available() -> None:
    """The sigstore library is installed (else KeylessError saying how to install it)."""
    try:
        import sigstore.sign  # noqa: F401
    except ImportError:
        raise KeylessError(f"--keyless needs the sigstore library: {INSTALL}") from None


def ambient_identity() -> Any:
    """The CI's OpenID Connect identity token (GitHub Actions and the others `id` knows)."""
    from sigstore.oidc import IdentityError, IdentityToken, detect_credential

    try:
        token = detect_credential()
    except IdentityError as exc:
        raise KeylessError(f"--keyless: no identity from the CI ({exc})") from None
    if not token:
        raise KeylessError("--keyless: no ambient OpenID Connect identity (in GitHub Actions, "
                           "give the job `permissions: id-token: write`)")
    return IdentityToken(token)


def production_context() -> Any:
    """Sigstore's public-good instance (Fulcio, Rekor), its trust root fetched over TUF."""
    from sigstore.models import ClientTrustConfig
    from sigstore.sign import SigningContext

    return SigningContext.from_trust_config(ClientTrustConfig.production())


def sign(statements: dict[str, bytes], context: Any = None,
         identity: Any = None) -> dict[str, bytes]:
    """Each statement's bytes (by envelope name) signed keyless: Sigstore bundles (JSON) by
    their names. `context` and `identity` default to the public-good instance and the CI's
    identity."""
    check_available()
    from sigstore.dsse import Statement

    try:
        identity = identity if identity is not None else ambient_identity()  # no network
        context = context if context is not None else production_context()
        with context.signer(identity) as signer:
            return {keyless_name(name): signer.sign_dsse(Statement(payload)).to_json().encode()
                    for name, payload in statements.items()}
    except KeylessError:
        raise
    except Exception as exc:  # the network, TUF, Fulcio, Rekor: said plainly, not a traceback
        raise KeylessError(f"--keyless: signing failed ({type(exc).__name__}: {exc})") from None
