"""The suite certifies "conformant" every variant that differs from the reference server only
where the interface is silent (conformance policy, section 2; issue 7)."""

from __future__ import annotations

import secrets
import time

import httpx
import pytest
from faults import CONFORMANT, Certifier, Variant
from faults.harness import serving


@pytest.fixture(scope="module")
def certifier(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    certifier = Certifier.for_module(request, tmp_path_factory.mktemp("conformant"))
    yield certifier
    certifier.close()


def test_there_are_enough_conformant_variants():
    """At least 6 conformant variants besides the reference itself."""
    assert len([v for v in CONFORMANT if v.name != "reference"]) >= 6
    assert all(v.requirement is None for v in CONFORMANT)


@pytest.mark.parametrize("variant", CONFORMANT, ids=lambda v: v.name)
def test_conformant_variant_is_certified(variant: Variant, certifier: Certifier):
    """No MUST or SHOULD fails and nothing is left unassessed: the verdict is conformant."""
    result = certifier.result(variant)
    assert result.verdict == "conformant", result.summary()


def test_throttled_for_a_second_refuses_a_retry_sent_sooner_than_asked():
    """The window of throttled-for-a-second holds: the 200th request is answered 429 with
    Retry-After: 1, a retry sent at once is refused again, one sent after the second asked
    is carried out (so the variant tells a client that waits from one that does not)."""
    variant = next(v for v in CONFORMANT if v.name == "throttled-for-a-second")
    key = "variant-" + secrets.token_urlsafe(12)
    with serving(variant, key) as url, httpx.Client(base_url=url,
                                                    headers={"X-API-Key": key}) as http:
        statuses = [http.get("/users/me").status_code for _ in range(200)]
        assert statuses[:199] == [200] * 199 and statuses[199] == 429
        at_once = http.get("/users/me")
        assert (at_once.status_code, at_once.headers["retry-after"]) == (429, "1")
        time.sleep(1.05)
        assert http.get("/users/me").status_code == 200
