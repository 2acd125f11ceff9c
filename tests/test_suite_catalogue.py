"""The suites and the requirement catalogue agree: every requirement is checked by some suite
test, every requirement id a suite test names is in the catalogue, and the committed list of
requirement -> tests (spec/requirement-tests.yaml) is current."""

from __future__ import annotations

import pytest

from boardcert.interface import requirements
from tools import requirement_tests

pytestmark = pytest.mark.xdist_group("test_suite_catalogue")  # one worker makes the module's runs


@pytest.fixture(scope="module")
def collected() -> dict[str, list[str]]:
    """Requirement ids of every suite test, by node id."""
    return requirement_tests.collect()


def test_every_suite_test_names_requirements(collected):
    """Each suite test carries at least one requirement id."""
    assert collected, "no suite tests were collected"
    unnamed = sorted(node for node, ids in collected.items() if not ids)
    assert not unnamed, f"suite tests without a requirement marker: {unnamed}"


def test_every_named_id_is_in_the_catalogue(collected):
    """A suite test names only ids of spec/requirements.yaml."""
    named = {i for ids in collected.values() for i in ids}
    unknown = sorted(named - set(requirements.catalogue()))
    assert not unknown, f"ids named by suite tests but absent from the catalogue: {unknown}"


def test_every_requirement_is_checked(collected):
    """Each requirement of the catalogue is named by at least one suite test."""
    named = {i for ids in collected.values() for i in ids}
    missing = sorted(set(requirements.catalogue()) - named)
    assert not missing, f"requirements no suite test checks: {missing}"


def test_requirement_tests_list_is_current(collected):
    """spec/requirement-tests.yaml is what collecting suites/ gives today."""
    committed = requirement_tests.LISTING.read_text(encoding="utf-8")
    assert committed == requirement_tests.render(collected), (
        f"{requirement_tests.LISTING.name} is stale: run `{requirement_tests.COMMAND}` and "
        "commit the result (review the change: it says which tests check what)")


def test_listing_is_grouped_by_requirement_and_function():
    """The list names each requirement in catalogue order, each test function once."""
    first, second = list(requirements.catalogue())[:2]
    listed = requirement_tests.listing({"suites/t.py::test_a[op1]": [second],
                                        "suites/t.py::test_a[op2]": [second, first],
                                        "suites/t.py::test_b": [second]})
    assert list(listed)[:2] == [first, second]
    assert listed[first] == ["suites/t.py::test_a"]
    assert listed[second] == ["suites/t.py::test_a", "suites/t.py::test_b"]
    assert all(tests == [] for req, tests in listed.items() if req not in (first, second))
