"""What the interface leaves open in request bodies, found by probing (boardcert.discovery)."""

from __future__ import annotations

import pytest

from boardcert.conformance import NotAssessed


@pytest.mark.requirement("PROFILE-DISCOVERED")
def test_discovered_bodies_are_recorded(discovery, observe):
    """The bodies the server accepted for the operations whose body is not shown (the
    profile's own or ones discovery found) are recorded, one observation per profile key."""
    if not discovery.findings:
        raise NotAssessed("discovery (nothing was probed: --read-only)")
    for line in discovery.lines():
        observe("PROFILE-DISCOVERED", line)
