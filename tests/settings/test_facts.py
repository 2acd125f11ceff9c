"""Run facts: the budget, seed, versions and options of a run are recorded (never the key),
carried into the bundle manifest, and `boardcert diff` says when two runs differ in them."""

from __future__ import annotations

import copy
import json

import pytest
from samples import all_passing, reported_run, synthetic_report

from boardcert.outputs import baseline, bundle, report
from boardcert.outputs.report.build import ReportedRun
from boardcert.paths import DEFAULT_PROFILE
from boardcert.settings import run_facts

pytest_plugins = ["pytester"]

RUN = {"budget": "quick", "seed": 20240618,
       "versions": {"boardcert": "0.1.0", "schemathesis": "4.32.5", "hypothesis": "6.150.0",
                    "pytest": "9.1.1", "python": "3.11.7"},
       "options": ["run", "--budget", "quick", "--api-key"]}


@pytest.mark.parametrize("argv", [
    ["run", "--api-key", "SECRET", "--budget", "quick"],
    ["run", "--api-key=SECRET", "--budget", "quick"],
    ["run", "--api", "SECRET", "--budget", "quick"],
    ["run", "--api-k=SECRET", "--budget", "quick"]])
def test_the_key_value_is_dropped_from_the_options(argv):
    """--api-key (and argparse's abbreviations of it) keeps its flag and loses its value."""
    assert run_facts.without_key(argv) == ["run", "--api-key", "--budget", "quick"]


def test_absolute_paths_are_recorded_by_their_file_name():
    """A report names no directory of the machine: absolute paths keep their file name."""
    argv = ["run", "--profile", "/home/me/acme.yaml", "--output=/tmp/r/out", "--api-key=K",
            "--", "/srv/suites/test_users.py", "suites/test_cards.py"]
    assert run_facts.recorded_options(argv) == [
        "run", "--profile", "acme.yaml", "--output=out", "--api-key", "--", "test_users.py",
        "suites/test_cards.py"]


def test_other_options_are_kept_whole():
    argv = ["run", "--base-url", "http://h", "--alluredir", "x", "--", "-m", "op1"]
    assert run_facts.without_key(argv) == argv


def test_the_record_names_budget_seed_versions_and_options():
    """The run section holds the budget, the seed, boardcert/schemathesis/hypothesis/python
    versions and the options, and validates against the compliance schema."""
    found = run_facts.record("standard", 7, run_facts.without_key(["run", "--api-key", "K"]))
    assert found["budget"] == "standard" and found["seed"] == 7
    assert {"boardcert", "schemathesis", "hypothesis", "python"} <= set(found["versions"])
    assert found["options"] == ["run", "--api-key"]
    report.validate(synthetic_report() | {"run": found})


def test_the_reports_show_the_run_facts(tmp_path):
    """compliance.json, .md and .html record budget, seed, versions and options."""

    base = reported_run()
    built = report.build(all_passing(), ReportedRun(**{**base.__dict__, "facts": RUN}))
    report.write(built, tmp_path)
    assert report.load(tmp_path)["run"] == RUN  # valid against spec/compliance.schema.json
    for name in ("compliance.md", "compliance.html"):
        text = (tmp_path / name).read_text()
        assert "quick" in text and "20240618" in text and "schemathesis 4.32.5" in text
        assert "run --budget quick --api-key" in text


def test_the_bundle_manifest_records_the_run_facts(tmp_path):
    """The manifest carries the run facts; a manifest whose facts differ from the report's is
    caught by verify."""
    directory = tmp_path / "run"
    directory.mkdir()
    (directory / "compliance.json").write_text(json.dumps(synthetic_report() | {"run": RUN}))
    path = bundle.create(directory, profile=DEFAULT_PROFILE)
    found = bundle.verify(path)
    assert found.intact, found.problems
    assert found.manifest["run"] == RUN


def test_diff_says_when_budget_seed_versions_or_options_differ():
    """Two runs of another budget, seed, schemathesis version and options: diff names each."""
    a = synthetic_report() | {"run": RUN}
    changed = copy.deepcopy(RUN)
    changed.update(budget="standard", seed=1, options=["run"])
    changed["versions"]["schemathesis"] = "4.33.0"
    b = synthetic_report() | {"run": changed}
    text = baseline.render_diff(baseline.diff(a, b))
    assert "budget: quick -> standard" in text and "seed: 20240618 -> 1" in text
    assert "schemathesis version: 4.32.5 -> 4.33.0" in text
    assert "options: run --budget quick --api-key\n      -> run" in text
    same = baseline.render_diff(baseline.diff(a, copy.deepcopy(a)))
    assert "budget" not in same and "version:" not in same and "options" not in same


def test_diff_with_a_report_of_an_older_version_says_not_recorded():
    text = baseline.render_diff(baseline.diff(synthetic_report(), synthetic_report() | {
        "run": RUN}))
    assert "budget: not recorded -> quick" in text


def test_a_plain_pytest_run_records_its_options_without_the_key(pytester):
    """Run as plain pytest (no `boardcert run`), the report records pytest's own options with
    --api-key's value dropped, and the budget and seed it used. (A key is given with its
    target: a key with none is a usage error.)"""
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest_subprocess(
        "-p", "boardcert.pytest.plugin", "-p", "no:cacheprovider", "--no-preflight",
        "--base-url", "http://127.0.0.1:9", "--api-key", "SECRET-k3y", "--budget", "7",
        "--report-dir", "out", "-q")
    assert result.ret == 0, result.stdout.str()
    found = report.load(pytester.path / "out")["run"]
    assert found["budget"] == "7" and found["seed"] == 20240618
    assert found["options"][-13:] == ["-p", "boardcert.pytest.plugin", "-p", "no:cacheprovider",
                                      "--no-preflight", "--base-url", "http://127.0.0.1:9",
                                      "--api-key",
                                      "--budget", "7", "--report-dir", "out", "-q"]
    assert "SECRET-k3y" not in json.dumps(found)


def test_diff_says_when_the_profile_content_differs_under_the_same_name():
    """Two runs with a profile of the same name but other content: diff says so."""
    a = synthetic_report()
    b = copy.deepcopy(a)
    b["profile"]["content"] = {"plugin_id": "other"}
    assert "profile: reference: its content differs" in baseline.render_diff(
        baseline.diff(a, b))
    assert "its content differs" not in baseline.render_diff(baseline.diff(a, copy.deepcopy(a)))
