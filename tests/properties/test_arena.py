"""boardcert.properties.arena: the bodies positive cases send."""

from __future__ import annotations

from boardcert.properties import arena


def test_positive_bodies_mix_profile_fuzzed_and_open_deterministically():
    """Most positive cases send the profile's body; some put a generated value into it; some
    send the generated body as it is; the choice depends on the generated body only."""
    profile_body = {"name": "bc-name"}
    generated = [{"k": i} for i in range(200)] + [[i] for i in range(200)]
    sent = [arena._mix(profile_body, g) for g in generated]
    assert sent == [arena._mix(profile_body, g) for g in generated]
    kinds = [("profile" if s == profile_body else "open" if s == g else "fuzzed")
             for s, g in zip(sent, generated, strict=True)]
    assert kinds.count("profile") > len(kinds) / 2
    assert kinds.count("open") and kinds.count("fuzzed")
    assert all(s["name"] == g for s, g, k in zip(sent, generated, kinds, strict=True)
               if k == "fuzzed")

