"""The suite certifies "conformant" every variant that differs from the reference server only
where the interface is silent (conformance policy, section 2; issue 7)."""

from __future__ import annotations

import secrets
import time

import httpx
import pytest
from faults import CONFORMANT, Certifier, Variant
from faults.harness import serving

# Variants whose certification mostly waits for their answers (each 20 ms late, each 0 to 10
# ms late, a second of 429s after every 200th request): certified side by side, on one worker
# (their xdist group), where one after another they would leave a core idle for most of 45 s.
WAITING = {"slow", "jittery-in-flight", "throttled-for-a-second"}


@pytest.fixture(scope="module")
def certifier(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    certifier = Certifier.for_module(request, tmp_path_factory.mktemp("conformant"),
                                     lambda variant: variant.name not in WAITING)
    yield certifier
    certifier.close()


@pytest.fixture(scope="module")
def waiting(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    # Side by side only where one worker runs them all (no xdist, or its groups kept): with
    # `--dist load` every worker would certify all three.
    grouped = request.config.getoption("dist", "no") in ("no", "loadgroup")
    certifier = Certifier.for_module(request, tmp_path_factory.mktemp("waiting"),
                                     lambda variant: variant.name in WAITING, at_once=grouped)
    yield certifier
    certifier.close()


def _params(variants: list[Variant]) -> list:
    return [pytest.param(v, id=v.name, marks=[pytest.mark.xdist_group("waiting-variants")]
                         if v.name in WAITING else []) for v in variants]


def test_there_are_enough_conformant_variants():
    """At least 6 conformant variants besides the reference itself."""
    assert len([v for v in CONFORMANT if v.name != "reference"]) >= 6
    assert all(v.requirement is None for v in CONFORMANT)


def test_the_waiting_variants_are_conformant_variants():
    """Each name of WAITING is a conformant variant's (a renamed one would be certified with
    the others, one at a time, and its group would hold nothing)."""
    assert {v.name for v in CONFORMANT} >= WAITING


@pytest.mark.parametrize("variant", _params(CONFORMANT))
def test_conformant_variant_is_certified(variant: Variant, request: pytest.FixtureRequest):
    """No MUST or SHOULD fails and nothing is left unassessed: the verdict is conformant."""
    certifier = request.getfixturevalue("waiting" if variant.name in WAITING else "certifier")
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
