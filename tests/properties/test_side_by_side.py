"""boardcert.speed.side_by_side (issue 16): with requests in flight the property tests of a
unit run side by side; one that passed there passes with the requests it made (its own), any
other runs again one request at a time, so the verdict, each requirement's status and each
test's outcome are those of a serial run, against a conformant server and a faulty one."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from faults import CONFORMANT, FAULTS, Result
from faults.catalogue import ONE_AT_A_TIME
from faults.exchanges import read, sent
from faults.harness import at_each_in_flight, same_both_ways

from boardcert.interface import spec

pytestmark = pytest.mark.xdist_group("test_side_by_side")  # one worker makes the module's runs

PROPERTIES_ONLY = ("-k", "test_properties and test_operation", "-p", "faults.exchanges")
IN_FLIGHT = 4
BY_NAME = {v.name: v for v in [*CONFORMANT, *FAULTS, ONE_AT_A_TIME]}
# the reference; a fault the property tests flag (a card id as a JSON integer); one that
# answers one request at a time
VARIANTS = ["reference", "card-id-integer", "one-at-a-time"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], tuple[Result, Path]]:
    """The property tests against each variant, one request at a time and IN_FLIGHT at once."""
    return at_each_in_flight({(name, n): BY_NAME[name] for name in VARIANTS
                              for n in (1, IN_FLIGHT)},
                             tmp_path_factory.mktemp("side-by-side"), PROPERTIES_ONLY)



@pytest.mark.parametrize("name", VARIANTS)
def test_verdict_is_the_same_side_by_side(name, runs):
    """The verdict, every requirement's status and every test's outcome side by side are the
    serial run's; the fault is flagged both ways."""
    serial = same_both_ways(runs, name, IN_FLIGHT)
    if name == "card-id-integer":
        assert BY_NAME[name].requirement in serial.failed(), serial.summary()


def _own(test: str, exchanges: list[list[object]]) -> int:
    """How many of a property test's requests went to its own operation."""
    label = test.split("[", 1)[1].rstrip("]")
    method, template = label.split(" ", 1)
    path = re.compile(re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$")
    return sum(1 for m, p, _key, _status in exchanges
               if m == method and path.match(str(p).split("?")[0]))


def test_each_property_test_shows_its_own_requests(runs):
    """Against the reference, each property test shows as many requests to its own operation
    side by side as one at a time (the same examples: the same seed), so its evidence and
    Allure steps are its own; and they were made side by side: nearly all while the first test
    ran (one that the tests beside it kept from a 2xx runs again in its turn), where one at a
    time each test sent its own."""
    serial, side_by_side = (read(runs[("reference", n)][1]) for n in (1, IN_FLIGHT))
    assert serial.keys() == side_by_side.keys() and len(serial) == len(spec.operations())
    counts = [Counter({t: _own(t, x) for t, x in run.items()}) for run in (serial, side_by_side)]
    assert counts[0] == counts[1] and all(counts[0].values()), counts
    sending = [sent(runs[("reference", width)][1]) for width in (1, IN_FLIGHT)]
    assert all(sending[0].values())  # one at a time: each its own
    first = next(iter(sending[1].values()))  # side by side: (nearly) all while the first ran
    assert first > 0.8 * sum(sending[1].values()), sending[1]
