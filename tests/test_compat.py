"""The internals of other libraries that what a run generates and judges depends on
(boardcert.compat, issues 25 and 34): on the installed versions each takes effect; one that is
gone or changed stops the run with a boardcert error naming the library and its version (exit 4
under pytest, 2 under `boardcert run`), never a verdict. What only changes how a run goes
(boardcert.compat_fallbacks) takes the plain way instead, and the run facts say so."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from inspect import getmembers
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis.stateful import RULE_MARKER

from boardcert import compat, compat_fallbacks
from boardcert.errors import CompatError
from boardcert.interface import spec
from boardcert.paths import ROOT, SUITES

pytest_plugins = ["pytester"]


def test_hypothesis_draws_on_no_literal_of_boardcert_s_own_modules():
    """A provider of Hypothesis's finds no local literal once the pool is emptied (the
    process's: the plugin emptied it as it started)."""
    from hypothesis.internal.conjecture import providers

    compat.only_the_seed()
    found = providers.HypothesisProvider(None)._local_constants
    assert len(found) == 0


def test_a_missing_literal_pool_is_a_compat_error_naming_hypothesis(monkeypatch):
    """Hypothesis without `_get_local_constants` (renamed, say): CompatError naming
    hypothesis, its version and what would change; a provider that finds its literals
    elsewhere: the same."""
    from hypothesis.internal.conjecture import providers

    monkeypatch.delattr(providers, "_get_local_constants")
    with pytest.raises(CompatError, match=r"^hypothesis \d[\d.]*: its pool of local literals .*"
                                          r"would change what is generated, so the run stops"):
        compat.only_the_seed()
    monkeypatch.undo()
    monkeypatch.setattr(providers.HypothesisProvider, "_local_constants", "elsewhere")
    with pytest.raises(CompatError, match="a provider still finds them elsewhere"):
        compat.only_the_seed()


def _machine() -> type:
    from boardcert.properties import load_schema, state_machine

    return state_machine(load_schema())


def test_the_state_machine_chooses_only_rules_of_its_own():
    """Every rule that follows a link is boardcert's (drawn alike whatever the answer), and op 2
    is an entry point of its own."""
    machine = _machine()
    rules = [getattr(value, RULE_MARKER) for _, value in getmembers(machine)
             if getattr(value, RULE_MARKER, None) is not None]
    linked = [rule.function.__name__ for rule in rules if rule.bundles]
    assert linked and all(name.startswith("LINK__") for name in linked)
    assert f"RANDOM__{spec.operation(2).operation_id}" in machine.root_rules
    assert machine._get_target_for_result.__module__ == "boardcert.compat"


def test_a_missing_state_machine_internal_is_a_compat_error_at_start_up(monkeypatch):
    """schemathesis without a method the reshaping replaces: the start-up check stops."""
    from schemathesis.specs.openapi import stateful

    monkeypatch.delattr(stateful.OpenAPIStateMachine, "_feeds_later_steps")
    with pytest.raises(CompatError, match=r"^schemathesis \d[\d.]*: its state machine .*"
                                          r"_feeds_later_steps is gone"):
        compat.check()


def test_link_rules_left_unreplaced_are_a_compat_error(monkeypatch):
    """A reshaping that would leave schemathesis's own link rules in place (its rules no longer
    found as before) stops, rather than follow the server's answers."""
    from schemathesis.specs.openapi import stateful

    monkeypatch.setattr(stateful, "transition", lambda **kwargs: lambda self, input: None)
    with pytest.raises(CompatError, match="link rules not replaced"):
        _machine()


BREAK_POOL = """
from hypothesis.internal.conjecture import providers
del providers._get_local_constants  # as if Hypothesis had renamed it
"""

BREAK_MACHINE = """
from schemathesis.specs.openapi import stateful
stateful.transition = lambda **kwargs: lambda self, input: None  # rules found another way
"""


def _run(tmp_path: Path, breaker: str, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "breaker.py").write_text(breaker)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "BOARDCERT_"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def test_a_run_stops_when_the_literal_pool_is_gone(tmp_path):
    """pytest exits 4 with the error before any test; `boardcert run` exits 2 and writes no
    verdict."""
    done = _run(tmp_path, BREAK_POOL, "-m", "pytest", str(SUITES / "test_users.py"), "-q",
                "-p", "breaker", "-p", "no:cacheprovider", "--rootdir", str(ROOT))
    assert done.returncode == 4, done.stdout + done.stderr
    assert "hypothesis" in done.stderr and "so the run stops" in done.stderr
    output = tmp_path / "report"
    done = _run(tmp_path, BREAK_POOL, "-m", "boardcert.cli", "run", "--output", str(output),
                "--", str(SUITES / "test_users.py"), "-p", "breaker")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "so the run stops" in done.stderr and "CONFORMANT" not in done.stdout
    assert not (output / "compliance.json").exists()


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "two workers"])
def test_a_run_stops_when_the_state_machine_cannot_be_reshaped(tmp_path, workers):
    """A change the start-up check cannot see, met as the property tests are collected: the
    run stops (exit 4) saying why, serially and under pytest-xdist, never a verdict."""
    output = tmp_path / "report"
    done = _run(tmp_path, BREAK_MACHINE, "-m", "pytest", str(SUITES / "test_properties.py"),
                "-q", "-p", "breaker", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
                f"--report-dir={output}", "--budget", "quick", *workers)
    said = done.stdout + done.stderr
    assert done.returncode == 4, said
    assert "the property tests could not be collected" in said
    assert "link rules not replaced" in said
    assert "passed" not in said.splitlines()[-1]


def test_the_junit_slot_is_pytests_and_a_changed_one_stops_the_run(monkeypatch, pytester):
    """boardcert's junit.xml writer sits where pytest keeps its own (Hypothesis's statistics
    find it there); when pytest keeps it elsewhere, a run asked for junit.xml stops with a
    usage error naming pytest, not a junit.xml that silently lost its properties."""
    from _pytest import junitxml

    assert compat.junit_slot() is junitxml.xml_key
    monkeypatch.setattr(junitxml, "xml_key", "elsewhere")
    with pytest.raises(CompatError, match="pytest .*junit.xml writer"):
        compat.junit_slot()
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = pytester.runpytest_inprocess("-p", "boardcert.pytest.plugin",
                                          f"--junitxml={pytester.path / 'j.xml'}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "junit.xml writer" in result.stderr.str()


# --- schemathesis's failures, scenarios and items (issue 34) --------------------------------

CHECKED_ONCE = ("failure_classes", "probe_scenarios", "_schemathesis_item")


@pytest.fixture
def looked_at_again():
    """compat's checks of schemathesis look again (each is made once a process)."""
    for name in CHECKED_ONCE:
        getattr(compat, name).cache_clear()
    yield
    for name in CHECKED_ONCE:
        getattr(compat, name).cache_clear()


def test_schemathesis_failures_are_known_by_class_code_and_check():
    """Each failure judging names a requirement for is schemathesis's class with the code
    schemathesis keeps for it; an instance of a subclass is known as its base."""
    from schemathesis.core.failures import ServerError

    found = compat.failure_classes()
    assert list(found) == list(compat.FAILURES)
    assert {name: kind.code for name, kind in found.items()} == {
        name: code for name, (_, code, _) in compat.FAILURES.items()}

    class Later(ServerError):
        pass

    assert compat.failure_kind(Later(operation="op", status_code=502)) == "ServerError"


def test_a_renamed_failure_class_stops_the_run_at_start_up(monkeypatch, looked_at_again):
    """schemathesis with JsonSchemaError under another name: the start-up check stops, naming
    schemathesis, its version and the class (judging by the class's name would have dropped
    every schema failure, and passed)."""
    from schemathesis.openapi import checks

    monkeypatch.setattr(checks, "ResponseSchemaViolation", checks.JsonSchemaError, raising=False)
    monkeypatch.delattr(checks, "JsonSchemaError")
    with pytest.raises(CompatError, match=r"^schemathesis \d[\d.]*: its failures .*"
                                          r"JsonSchemaError.*so the run stops"):
        compat.check()


def test_a_failure_renumbered_or_of_another_check_stops_the_run(monkeypatch, looked_at_again):
    """A class whose code or check changed may mean something else: the run stops."""
    from schemathesis.core.failures import ServerError
    from schemathesis.openapi.checks import JsonSchemaError

    monkeypatch.setattr(JsonSchemaError, "code", "ST199")
    with pytest.raises(CompatError, match="JsonSchemaError is ST199, not ST108"):
        compat.check()
    monkeypatch.undo()
    compat.failure_classes.cache_clear()
    monkeypatch.setattr(ServerError, "checks", ("server_health",))
    with pytest.raises(CompatError, match="ServerError is not reported by not_a_server_error"):
        compat.check()


def test_a_failure_boardcert_does_not_know_is_a_compat_error_never_dropped():
    """A failure of a new class, or a custom check's that is not boardcert's: CompatError (the
    run stops after the test: tests/test_compat.py runs it), never "no failure"."""
    from schemathesis.core.failures import CustomFailure, Failure

    from boardcert.properties import CaseInfo, requirement_of

    class Novel(Failure):
        code = "ST199"

    info = CaseInfo(positive=True, probe=False, rejection=None)
    with pytest.raises(CompatError, match=r"a failure of its checks .*Novel ST199"):
        requirement_of(Novel(operation="op", message="m"), 3, info, 200)
    stranger = CustomFailure(operation="op", title="Custom check failed: `theirs`",
                             message="m", exception=AssertionError("theirs"))
    with pytest.raises(CompatError, match="Custom check failed: `theirs`"):
        requirement_of(stranger, 3, info, 200)


def test_other_probes_of_schemathesis_stop_the_run(monkeypatch, looked_at_again):
    """schemathesis counting another scenario as a request-shape probe: the run stops (boardcert
    would judge such a request as the operation's)."""
    from schemathesis.generation import meta

    monkeypatch.setattr(meta, "REQUEST_SHAPE_PROBES",
                        meta.REQUEST_SHAPE_PROBES | {meta.CoverageScenario.INVALID_FORMAT})
    with pytest.raises(CompatError, match="its coverage scenarios .*its probes are"):
        compat.check()


def test_schemathesis_items_that_keep_no_operation_stop_the_run(monkeypatch, looked_at_again):
    """An item that no longer says its operation would leave the property tests without
    requirement markers: the run stops."""
    from schemathesis.pytest.plugin import SchemathesisFunction

    def init(self, *args, **kwargs) -> None:  # keeps nothing
        pass

    monkeypatch.setattr(SchemathesisFunction, "__init__", init)
    with pytest.raises(CompatError, match="its pytest items .*no operation_label"):
        compat.check()


def test_a_rejection_is_read_from_the_body_not_the_words(monkeypatch):
    """The requirement a negative case's rejection proves is the same whatever schemathesis's
    description says (here every one reworded): it is read from the body sent."""
    from hypothesis import HealthCheck, given, settings
    from schemathesis import GenerationMode

    from boardcert.properties import CaseInfo, load_schema
    from boardcert.properties.cases import rejection_of

    operation = load_schema()[spec.operation(16).path]["PATCH"]
    seen: dict[str | None, int] = {}

    @given(operation.as_strategy(generation_mode=GenerationMode.NEGATIVE))
    @settings(max_examples=60, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def judged(case):
        before = CaseInfo.of(case)
        case.meta.phase.data.description = "Reworded"
        assert CaseInfo.of(case) == before
        assert before.rejection == rejection_of(case)
        seen[before.rejection] = seen.get(before.rejection, 0) + 1

    judged()
    assert {"CARD-NAME-REQUIRED", "CARD-NAME-STRING"} <= set(seen), seen


def _run_with_key(tmp_path: Path, breaker: str, key: str, *args: str
                  ) -> subprocess.CompletedProcess[str]:
    (tmp_path / "breaker.py").write_text(breaker)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "BOARDCERT_"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))
    env["BOARDCERT_API_KEY"] = key
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


RENAME_FAILURE = """
from schemathesis.openapi import checks
checks.ResponseSchemaViolation = checks.JsonSchemaError  # as if schemathesis had renamed it
del checks.JsonSchemaError
"""

NEW_FAILURE = """
import schemathesis.checks
from schemathesis.core.failures import Failure


class ServerFault(Failure):  # as if schemathesis reported a 5xx with a class of a new name
    code = "ST199"
    checks = ("not_a_server_error",)

    def __init__(self, *, operation, status_code, **kwargs):
        super().__init__(operation=operation, message=f"answered {status_code}")


schemathesis.checks.ServerError = ServerFault
"""

REWORDED = """
from schemathesis.generation import meta

for kind in (meta.CoveragePhaseData, meta.FuzzingPhaseData, meta.StatefulPhaseData,
             meta.ExamplesPhaseData):  # every description of a generated case worded otherwise
    slot = kind.__dict__["description"]
    kind.description = property(
        lambda self, slot=slot: None if slot.__get__(self) is None else "Reworded",
        lambda self, value, slot=slot: slot.__set__(self, value))
"""


def test_a_renamed_failure_class_turns_a_run_into_exit_2(tmp_path):
    """`boardcert run` with schemathesis's JsonSchemaError renamed: exit 2 with the reason, no
    verdict."""
    output = tmp_path / "report"
    done = _run(tmp_path, RENAME_FAILURE, "-m", "boardcert.cli", "run", "--output",
                str(output), "--", str(SUITES / "test_users.py"), "-p", "breaker")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "schemathesis" in done.stderr and "JsonSchemaError" in done.stderr
    assert "so the run stops" in done.stderr and "CONFORMANT" not in done.stdout
    assert not (output / "compliance.json").exists()


def test_a_failure_of_a_new_class_met_mid_run_turns_it_into_exit_2(tmp_path):
    """A 5xx that schemathesis reports with a class boardcert does not know: `boardcert run`
    stops after that test with exit 2 and the reason; the report, if read, says incomplete."""
    from properties.servers import serving, with_faults

    key = "compat-" + secrets.token_urlsafe(12)
    output = tmp_path / "report"
    with serving(with_faults(key, "5xx")) as base_url:
        done = _run_with_key(tmp_path, NEW_FAILURE, key, "-m", "boardcert.cli", "run",
                             "--base-url", base_url, "--budget", "quick", "--output",
                             str(output), "--", str(SUITES / "test_properties.py"), "-m", "op7",
                             "-k", "test_operation", "-p", "breaker")
    said = done.stdout + done.stderr
    assert done.returncode == 2, said
    assert "a failure of its checks is not what boardcert knows" in said and "ServerFault" in said
    assert key not in said
    report = json.loads((output / "compliance.json").read_text())
    assert report["verdict"] == "incomplete"
    assert "ServerFault" in report["verdict_reason"]


def test_reworded_descriptions_change_no_verdict(tmp_path):
    """Every description schemathesis gives a case worded otherwise: op 16 accepting an
    over-long name still fails CARD-NAME-MAX-REJECTED (read from the body sent, not the
    words), never a pass."""
    from properties.servers import SUITE, serving, with_faults

    key = "compat-" + secrets.token_urlsafe(12)
    with serving(with_faults(key, "over-long name cut")) as base_url:
        done = _run_with_key(tmp_path, REWORDED, key, "-m", "pytest", str(SUITE), "--base-url",
                             base_url, "--budget", "quick", "-p", "no:cacheprovider", "-q",
                             "-m", "op16", "-k", "test_operation", "-p", "breaker")
    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert "[CARD-NAME-MAX-REJECTED] negative_data_rejection" in said


# --- what is done the plain way when it does not fit (boardcert.compat_fallbacks) ------------

@pytest.fixture
def fallbacks_looked_at_again():
    compat_fallbacks._why.cache_clear()
    yield
    compat_fallbacks._why.cache_clear()


def test_nothing_is_done_the_plain_way_on_the_installed_versions():
    """Each internal compat_fallbacks leans on fits here (tox -e newest: the newest allowed)."""
    assert compat_fallbacks.fallbacks() == {}


def _break_fallback(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import atexit

    from _pytest import python
    from allure_commons.reporter import AllureReporter

    if name == "Allure labels, parameters and steps":
        monkeypatch.delattr(AllureReporter, "start_step")
    elif name == "set-ups made at the first test":
        monkeypatch.setattr(python.Function, "_initrequest", lambda self: None)
    elif name == "exit without the interpreter's teardown":
        monkeypatch.delattr(atexit, "_run_exitfuncs")
    else:
        raise AssertionError(f"no way to break {name}")


@pytest.mark.parametrize("name", [what for what, *_ in compat_fallbacks._SOFT])
def test_an_internal_that_does_not_fit_takes_the_plain_way_named_in_the_run_facts(
        name, monkeypatch, fallbacks_looked_at_again, pytestconfig):
    """The misfit is named with its library's version in the run facts (compliance.json's
    `run.fallbacks`) and the console's header; what leans on it takes the plain way."""
    from boardcert.pytest.console import pytest_report_header
    from boardcert.settings import run_facts

    _break_fallback(name, monkeypatch)
    found = compat_fallbacks.fallbacks()
    assert list(found) == [name], found
    facts = run_facts.record("quick", 1, [])
    assert [f["what"] for f in facts["fallbacks"]] == [name]
    header = pytest_report_header(pytestconfig)
    assert any(line.startswith(f"boardcert: the plain way: {name} (") for line in header)
    listener = SimpleNamespace(allure_logger=object())
    item = SimpleNamespace(_request="its request")
    if name == "Allure labels, parameters and steps":
        assert compat_fallbacks.allure_reporter(listener) is None
    elif name == "set-ups made at the first test":
        assert compat_fallbacks.fixture_request(item) is None
    else:
        with pytest.raises(SystemExit) as exited:
            compat_fallbacks.leave(3)
        assert exited.value.code == 3
    assert compat_fallbacks.allure_reporter(None) is None


def test_the_allure_check_leaves_the_running_test_alone():
    """allure's reporters share their items within a thread: the check tries a reporter in a
    thread of its own, so the running test stays the one boardcert labels (a check that left
    its own test behind took every label off the tests after the first)."""
    from allure_commons.model2 import TestResult
    from allure_commons.reporter import AllureReporter

    reporter, running = AllureReporter(), TestResult(uuid="running")
    reporter.schedule_test("running", running)
    try:
        assert compat_fallbacks._allure_misfit() is None
        assert reporter.get_test(None) is running
        assert AllureReporter().get_test(None) is running  # shared, as allure-pytest's are
    finally:
        reporter.drop_test("running")


def test_run_facts_name_no_fallback_when_everything_fits():
    """A run whose internals all fit records no `fallbacks` (reports stay as they were)."""
    from boardcert.settings import run_facts

    assert "fallbacks" not in run_facts.record("quick", 1, [])
