"""DSSE envelopes (Dead Simple Signing Envelope, v1) signed with Ed25519, written and checked
with `cryptography` alone, so that standard verifiers (securesystemslib, cosign, slsa-verifier)
accept them.

    {"payloadType": "application/vnd.in-toto+json", "payload": base64(statement bytes),
     "signatures": [{"keyid": KEYID, "sig": base64(Ed25519(PAE(payloadType, payload)))}]}

PAE (pre-authentication encoding) = b"DSSEv1" SP len(type) SP type SP len(body) SP body, the
lengths in ASCII decimal. The payload is the statement's exact bytes, serialised once by the
caller: nothing here parses or re-serialises it before signing. KEYID is the key's id as
securesystemslib computes it (`SSlibKey.from_crypto(key).keyid`): the SHA-256, hex, of the
canonical JSON of {"keytype": "ed25519", "keyval": {"public": RAW-KEY-HEX}, "scheme": "ed25519"};
securesystemslib's `Envelope.verify` only tries a key whose id matches the signature's.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

IN_TOTO = "application/vnd.in-toto+json"


class EnvelopeError(ValueError):
    """Bytes that are not a DSSE envelope."""


def pae(payload_type: str, payload: bytes) -> bytes:
    """The bytes a DSSE signature signs."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %b %d %b" % (len(kind), kind, len(payload), payload)


def keyid(key: Ed25519PublicKey) -> str:
    """The key's id as securesystemslib computes it for an Ed25519 key."""
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    # canonical JSON: sorted keys, no spaces (the values are plain ASCII: nothing to escape)
    document = {"keytype": "ed25519", "keyval": {"public": raw.hex()}, "scheme": "ed25519"}
    return hashlib.sha256(json.dumps(document, sort_keys=True, separators=(",", ":"))
                          .encode("utf-8")).hexdigest()


def envelope(payload: bytes, key: Ed25519PrivateKey | None = None,
             payload_type: str = IN_TOTO) -> dict[str, Any]:
    """An envelope of the payload, signed by the key (no key: no signatures)."""
    signatures = []
    if key is not None:
        signature = key.sign(pae(payload_type, payload))
        signatures.append({"keyid": keyid(key.public_key()),
                           "sig": base64.b64encode(signature).decode("ascii")})
    return {"payloadType": payload_type,
            "payload": base64.b64encode(payload).decode("ascii"),
            "signatures": signatures}


def serialise(document: dict[str, Any]) -> bytes:
    """An envelope as one line of JSON (a file of its own, or a line of a .jsonl bundle)."""
    return json.dumps(document, separators=(",", ":")).encode("utf-8") + b"\n"


def parse(content: bytes) -> tuple[dict[str, Any], bytes]:
    """The envelope in `content` and its payload's bytes; EnvelopeError if it is none."""
    try:
        document = json.loads(content)
    except ValueError as exc:
        raise EnvelopeError(f"not JSON ({exc})") from None
    if not isinstance(document, dict) or not isinstance(document.get("payloadType"), str) \
            or not isinstance(document.get("payload"), str) \
            or not isinstance(document.get("signatures"), list):
        raise EnvelopeError("not a DSSE envelope (payloadType, payload, signatures)")
    return document, _b64(document["payload"], "payload")


def signed_by(document: dict[str, Any], payload: bytes, key: Ed25519PublicKey) -> bool:
    """Whether a signature of the envelope, under the key's id, is the key's signature of
    the PAE bytes (as securesystemslib's Envelope.verify decides with a threshold of 1)."""
    message = pae(document["payloadType"], payload)
    wanted = keyid(key)
    for entry in document["signatures"]:
        if not isinstance(entry, dict) or entry.get("keyid") != wanted:
            continue
        try:
            key.verify(_b64(entry.get("sig"), "sig"), message)
        except (InvalidSignature, EnvelopeError):
            continue
        return True
    return False


def keyids(document: dict[str, Any]) -> list[str]:
    """The key ids the envelope's signatures name."""
    return [str(entry.get("keyid")) for entry in document["signatures"]
            if isinstance(entry, dict)]


def _b64(text: Any, what: str) -> bytes:
    """Standard or URL-safe base64, as DSSE accepts either."""
    if not isinstance(text, str):
        raise EnvelopeError(f"{what} is not a base64 string")
    try:
        return base64.b64decode(text.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        raise EnvelopeError(f"{what} is not base64") from None
