"""The suite certifies "conformant" every variant that differs from the reference server only
where the interface is silent (conformance policy, section 2; issue 7)."""

from __future__ import annotations

import pytest
from faults import CONFORMANT, Certifier, Variant


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
