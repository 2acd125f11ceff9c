"""The internals of other libraries that what a run generates depends on (boardcert.compat,
issue 25): on the installed versions each takes effect; one that is gone or changed stops the
run with a boardcert error naming the library and its version (exit 4 under pytest, 2 under
`boardcert run`), never a verdict."""

from __future__ import annotations

import os
import subprocess
import sys
from inspect import getmembers
from pathlib import Path

import pytest
from hypothesis.stateful import RULE_MARKER

from boardcert import compat
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
