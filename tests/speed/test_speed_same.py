"""The same verdict with and without the speed plugin (issue 25), for a handful of servers: a
conformant variant (the whole suite), a fault the batched auth path judges, one the property
tests find side by side and one of a removed path judged between two readings. Each is
certified at one seed the fast way (8 requests in flight; the conformant one also on two
workers: the speed plugin's scheduling and shared discovery) and the plain way
(-p no:boardcert.speed): the same verdict, failed requirements and statuses, and each test's
outcome. benchmarks/speed_same.py does the same for every server of tests/faults/ and
tests/independent/."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from faults import CONFORMANT, FAULTS, certify
from faults.harness import outcomes

from boardcert.settings.budget import DEFAULT_SEED

pytestmark = pytest.mark.xdist_group("test_speed_same")  # one worker makes the module's runs

FAST = ("--in-flight", "8")
PLAIN = ("-p", "no:boardcert.speed")
SEED = ("--hypothesis-seed", str(DEFAULT_SEED))
# server -> the pytest arguments of its fast way (a fault runs its requirement's tests only)
SERVERS = {"uuid-ids-extra-fields": (*FAST, "-n", "2"),
           "auth-acts-then-401": FAST,  # AUTH-REJECTED-CHANGES-NOTHING: test_auth's batches
           "card-create-wrong-type-500": FAST,  # NO-SERVER-ERROR: property tests side by side
           "removed-card-archive-acts": FAST}  # REMOVED-PATH-NO-EFFECT: between two readings


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], tuple]:
    """Each server certified both ways, two certifications at a time."""
    variants = {v.name: v for v in [*FAULTS, *CONFORMANT]}
    root = tmp_path_factory.mktemp("speed-same")

    def certified(name: str, way: str) -> tuple:
        directory = root / f"{name}-{way}"
        directory.mkdir()
        extra = (*SEED, *(SERVERS[name] if way == "fast" else PLAIN))
        return certify(variants[name], directory, extra=extra), directory / "report"

    with ThreadPoolExecutor(2) as pool:
        futures = {(name, way): pool.submit(certified, name, way)
                   for name in SERVERS for way in ("fast", "plain")}
        return {key: future.result() for key, future in futures.items()}


@pytest.mark.parametrize("name", list(SERVERS))
def test_the_verdict_is_the_same_with_and_without_the_speed_plugin(name, runs):
    """The verdict, the failed requirements, every requirement's status and every test's
    outcome are the same both ways (and a fault is caught both ways)."""
    (fast, fast_report), (plain, plain_report) = runs[(name, "fast")], runs[(name, "plain")]
    assert plain.statuses, plain.summary()
    assert (fast.verdict, fast.failed()) == (plain.verdict, plain.failed()), fast.summary()
    assert fast.statuses == plain.statuses, fast.summary()
    assert outcomes(fast_report) == outcomes(plain_report)
    requirement = next((v.requirement for v in FAULTS if v.name == name), None)
    if requirement is None:
        assert plain.verdict == "conformant", plain.summary()
    else:
        assert requirement in plain.failed(), plain.summary()
