"""Regression runs and run diffs on synthetic compliance reports: what got worse fails, what
improved is listed, a known failure that passes now is flagged as stale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from samples import synthetic_report

from boardcert.interface import requirements
from boardcert.outputs import baseline


def write(report: dict, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report), encoding="utf-8")
    return path


# --- loading -----------------------------------------------------------------------------

def test_load_reads_a_file_a_directory_or_a_bundle(tmp_path):
    """A baseline may be compliance.json, its report directory or a certification.zip."""
    import zipfile

    written = write(synthetic_report(), tmp_path / "run" / "compliance.json")
    with zipfile.ZipFile(tmp_path / "certification.zip", "w") as bundle:
        bundle.writestr("compliance.json", written.read_text(encoding="utf-8"))
    for path in (written, written.parent, tmp_path / "certification.zip"):
        assert baseline.load(path)["verdict"] == "conformant"


@pytest.mark.parametrize(("content", "words"), [
    ("not json", "not a JSON compliance report"),
    ("[]", "not a JSON object"),
    ('{"verdict": "conformant", "requirements": [{"id": "X"}]}', "no requirements with"),
])
def test_load_rejects_what_is_not_a_report(tmp_path, content, words):
    path = tmp_path / "compliance.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(baseline.BaselineError, match=words):
        baseline.load(path)


def test_load_of_a_missing_file_says_so(tmp_path):
    with pytest.raises(baseline.BaselineError, match="cannot read it"):
        baseline.load(tmp_path / "nowhere")


def test_known_failures_file_ids_and_reasons(tmp_path):
    """One id a line, # for comments; the comment is the reason."""
    path = tmp_path / "known.txt"
    path.write_text("# our list\nCARD-NAME-MAX-ASTRAL   # UTF-16, fixed in 2.4\n\n"
                    "PROJECT-DELETE\n", encoding="utf-8")
    assert baseline.read_known_failures(path) == {
        "CARD-NAME-MAX-ASTRAL": "UTF-16, fixed in 2.4", "PROJECT-DELETE": ""}


@pytest.mark.parametrize("line", ["CARD-NAME-MAX-ASTRL", "CARD-RENAME PROJECT-DELETE"])
def test_known_failures_file_rejects_unknown_ids(tmp_path, line):
    """A typo in the list is an error, so that it cannot hide a failure."""
    path = tmp_path / "known.txt"
    path.write_text(f"{line}\n", encoding="utf-8")
    with pytest.raises(baseline.BaselineError, match=r"known.txt:1: .* is not a requirement"):
        baseline.read_known_failures(path)


# --- comparing with a baseline -----------------------------------------------------------

def ids(changes: list[baseline.Change]) -> list[str]:
    return [c.id for c in changes]


def test_passed_to_failed_or_not_assessed_is_worse():
    """A regression: what passed in the baseline fails or is not assessed now."""
    before = synthetic_report()
    now = synthetic_report(failed=("CARD-RENAME",), not_assessed=("PROJECT-DELETE",))
    found = baseline.compare(now, before, baseline_name="old.json")
    assert found.regressed
    assert ids(found.worse) == ["PROJECT-DELETE", "CARD-RENAME"]
    assert (found.worse[1].before, found.worse[1].now) == ("passed", "failed")


def test_known_failures_of_the_baseline_do_not_fail_the_run():
    """A non-conformant run whose failures were already failing is no regression."""
    before = synthetic_report(failed=("CARD-NAME-MAX-REJECTED",))
    now = synthetic_report(failed=("CARD-NAME-MAX-REJECTED",))
    found = baseline.compare(now, before, baseline_name="old.json")
    assert not found.regressed
    assert ids(found.known_failing) == ["CARD-NAME-MAX-REJECTED"]


def test_a_new_failure_of_a_requirement_not_assessed_before_is_worse():
    before = synthetic_report(not_assessed=("PLUGIN-DATA-DELETE",))
    now = synthetic_report(failed=("PLUGIN-DATA-DELETE",))
    assert ids(baseline.compare(now, before).worse) == ["PLUGIN-DATA-DELETE"]


def test_a_requirement_new_since_the_baseline_fails_only_when_failed():
    before = synthetic_report()
    before["requirements"] = [r for r in before["requirements"]
                              if r["id"] not in ("CARD-ALIAS", "CARD-RENAME")]
    now = synthetic_report(failed=("CARD-ALIAS",), not_assessed=("CARD-RENAME",))
    found = baseline.compare(now, before)
    assert ids(found.worse) == ["CARD-ALIAS"]
    assert found.worse[0].before is None


def test_improvements_are_listed_and_a_fixed_baseline_failure_is_stale():
    """Failed or not assessed before, passed now: improved; a fixed baseline failure is also
    flagged, so the baseline gets refreshed."""
    before = synthetic_report(failed=("CARD-RENAME",), not_assessed=("PROJECT-DELETE",))
    found = baseline.compare(synthetic_report(), before, baseline_name="old.json")
    assert not found.regressed
    assert ids(found.improved) == ["PROJECT-DELETE", "CARD-RENAME"]
    assert ids(found.stale) == ["CARD-RENAME"]
    assert found.stale[0].listed_in == "old.json"


def test_stale_entry_of_a_known_failures_list_is_flagged():
    """A listed known failure that passes now is flagged as stale, naming the list."""
    now = synthetic_report(failed=("CARD-NAME-MAX-ASTRAL",))
    known = {"CARD-NAME-MAX-ASTRAL": "", "PROJECT-DELETE": "flaky delete"}
    found = baseline.compare(now, None, known, known_name="known.txt")
    assert not found.regressed
    assert ids(found.stale) == ["PROJECT-DELETE"]
    assert found.stale[0].listed_in == "known.txt"
    text = baseline.render_comparison(found)
    assert "PROJECT-DELETE (SHOULD): new -> passed, yet a known failure in known.txt" in text


def test_without_a_baseline_an_unlisted_failure_is_worse():
    """With only a known-failures list every unlisted requirement is expected to pass."""
    now = synthetic_report(failed=("CARD-NAME-MAX-ASTRAL", "CARD-RENAME"),
                           not_assessed=("SUCCESS-STATUS-200",))
    found = baseline.compare(now, None, {"CARD-NAME-MAX-ASTRAL": ""}, known_name="k.txt")
    assert ids(found.worse) == ["SUCCESS-STATUS-200", "CARD-RENAME"]


def test_info_requirements_are_never_worse():
    before = synthetic_report()
    now = synthetic_report(not_assessed=("ID-FORMAT",))
    assert baseline.compare(now, before).worse == []


def test_comparison_as_the_baseline_part_of_the_report():
    before = synthetic_report(failed=("CARD-RENAME",))
    now = synthetic_report(failed=("PROJECT-RENAME",))
    part = baseline.compare(now, before, baseline_name="old.json").as_dict()
    assert part["regressed"] is True
    assert part["verdict"] == "conformant with warnings"
    assert part["worse"] == [{"id": "PROJECT-RENAME", "level": "SHOULD", "before": "passed",
                              "now": "failed"}]
    assert [c["id"] for c in part["improved"]] == ["CARD-RENAME"]
    assert json.loads(json.dumps(part)) == part


def test_render_comparison_lists_each_kind():
    before = synthetic_report(failed=("CARD-RENAME",))
    now = synthetic_report(failed=("PROJECT-RENAME",))
    text = baseline.render_comparison(baseline.compare(now, before, baseline_name="old.json"))
    assert text.splitlines()[0].startswith("compared with the baseline old.json "
                                           "(conformant with warnings, 2026-11-22T12:00:00Z)")
    assert "  worse (1):\n    PROJECT-RENAME (SHOULD): passed -> failed" in text
    assert "  improved (1):\n    CARD-RENAME (SHOULD): failed -> passed" in text


# --- diff --------------------------------------------------------------------------------

def test_diff_shows_requirements_operations_and_verdict():
    a = synthetic_report(failed=("CARD-NAME-MAX-REJECTED",))
    b = synthetic_report(failed=("ROWS-PROPERTY-REQUIRED",), started="2026-11-23T12:00:00Z")
    found = baseline.diff(a, b)
    assert [(c.id, c.before, c.now) for c in found.requirements] == [
        ("ROWS-PROPERTY-REQUIRED", "passed", "failed"),
        ("CARD-NAME-MAX-REJECTED", "failed", "passed")]
    assert [(n, was, now) for n, _, was, now in found.operations] == [
        (6, "passed", "failed"), (16, "failed", "passed")]
    text = baseline.render_diff(found, "old", "new")
    assert "verdict: non-conformant (unchanged)" in text
    assert "  worse   ROWS-PROPERTY-REQUIRED (MUST): passed -> failed" in text
    assert "  better  CARD-NAME-MAX-REJECTED (MUST): failed -> passed" in text
    assert "  op  6 GET /projects/{projectId}/rows: passed -> failed" in text
    assert "B: new: non-conformant, http://127.0.0.1:8080, started 2026-11-23T12:00:00Z" in text


def test_diff_of_a_verdict_change_and_of_identical_runs():
    a, b = synthetic_report(failed=("CARD-RENAME",)), synthetic_report()
    text = baseline.render_diff(baseline.diff(a, b))
    assert "verdict: conformant with warnings -> conformant" in text
    should = sum(r.level == "SHOULD" for r in requirements.catalogue().values())
    assert f"SHOULD passed: {should - 1}/{should} -> {should}/{should}" in text
    same = baseline.render_diff(baseline.diff(b, b))
    assert "requirements changed: 0" in same and "operations changed: 0" in same


def test_diff_names_requirements_that_came_or_went():
    a = synthetic_report()
    b = synthetic_report()
    b["requirements"] = [r for r in b["requirements"] if r["id"] != "CARD-ALIAS"]
    text = baseline.render_diff(baseline.diff(a, b))
    assert "  changed CARD-ALIAS (SHOULD): passed -> absent" in text


def test_the_baseline_part_is_valid_and_shown_in_the_reports(tmp_path):
    """The comparison, as `baseline` in compliance.json, validates against the schema and
    is listed in the Markdown and the HTML."""
    from boardcert.outputs import report

    now = synthetic_report(failed=("PROJECT-RENAME",))
    found = baseline.compare(now, synthetic_report(failed=("CARD-RENAME",)),
                             {"CARD-ALIAS": ""}, baseline_name="old/compliance.json",
                             known_name="known.txt")
    now["baseline"] = found.as_dict()
    written = report.write(now, tmp_path)
    markdown = written["md"].read_text(encoding="utf-8")
    assert "**regression**, something got worse" in markdown
    assert "| worse | `PROJECT-RENAME` | SHOULD | passed | failed |" in markdown
    assert "| stale known failure (listed in `known.txt`) | `CARD-ALIAS` |" in markdown
    page = written["html"].read_text(encoding="utf-8")
    assert '<tr data-change="improved"><td>improved</td><td><code>CARD-RENAME</code>' in page


# --- the command: boardcert run --baseline/--known-failures, boardcert diff ---------------

def after(tmp_path: Path, now: dict, exit_code: int = 1, strict: bool = False,
          before: dict | None = None, known: str | None = None) -> tuple[int, dict]:
    """What `boardcert run` does once the suite has written `now` (its exit code so far)."""
    import argparse

    from boardcert.cli import after_run
    from boardcert.outputs import report

    output = tmp_path / "run"
    report.write(now, output)
    args = argparse.Namespace(baseline=None, known_failures=None, strict=strict, bundle=False,
                              sign_key=None, profile=None, subject=None,
                              server_version=None, keyless=False)
    if before is not None:
        args.baseline = str(write(before, tmp_path / "old" / "compliance.json"))
    if known is not None:
        args.known_failures = str(tmp_path / "known.txt")
        Path(args.known_failures).write_text(known, encoding="utf-8")
    code = after_run.after_run(args, after_run.prepare_after_run(args), output, exit_code,
                               report.load(output))
    return code, report.load(output)


def test_run_with_a_baseline_exits_1_when_something_got_worse(tmp_path, capsys):
    code, found = after(tmp_path, synthetic_report(failed=("CARD-RENAME",)), exit_code=0,
                        before=synthetic_report())
    assert code == 1
    assert found["baseline"]["worse"][0]["id"] == "CARD-RENAME"
    assert "boardcert: REGRESSION: 1 requirement(s) got worse (exit 1" in capsys.readouterr().out


def test_run_with_a_baseline_exits_0_for_a_non_conformant_server_that_got_no_worse(
        tmp_path, capsys):
    """The known MUST failure stays; another improved: no regression, exit 0."""
    before = synthetic_report(failed=("CARD-NAME-MAX-REJECTED", "CARD-RENAME"))
    code, found = after(tmp_path, synthetic_report(failed=("CARD-NAME-MAX-REJECTED",)),
                        before=before)
    assert (code, found["verdict"]) == (0, "non-conformant")
    out = capsys.readouterr().out
    assert "improved (1):\n    CARD-RENAME (SHOULD): failed -> passed" in out
    assert "boardcert: NO REGRESSION: nothing got worse (exit 0" in out


def test_stale_known_failure_is_flagged_and_fails_only_with_strict(tmp_path, capsys):
    now = synthetic_report(failed=("CARD-NAME-MAX-ASTRAL",))
    code, found = after(tmp_path / "a", now, known="CARD-NAME-MAX-ASTRAL\nPROJECT-DELETE\n")
    assert code == 0
    assert [s["id"] for s in found["baseline"]["stale_known_failures"]] == ["PROJECT-DELETE"]
    assert "yet a known failure in" in capsys.readouterr().out
    strict, _ = after(tmp_path / "b", now, known="PROJECT-DELETE\n", strict=True)
    assert strict == 1


def test_unreadable_baseline_or_known_failures_are_usage_errors(tmp_path, capsys):
    """A bad --baseline or --known-failures stops the run before any test: exit 2."""
    from boardcert import cli

    (tmp_path / "known.txt").write_text("NOT-AN-ID\n", encoding="utf-8")
    out = str(tmp_path / "out")
    assert cli.main(["run", "--output", out, "--baseline", str(tmp_path / "none")]) == 2
    assert cli.main(["run", "--output", out, "--known-failures",
                     str(tmp_path / "known.txt")]) == 2
    err = capsys.readouterr().err
    assert "cannot read it" in err and "'NOT-AN-ID' is not a requirement id" in err
    assert not (tmp_path / "out").exists()


def test_diff_command(tmp_path, capsys):
    from boardcert import cli

    a = write(synthetic_report(), tmp_path / "a" / "compliance.json")
    b = write(synthetic_report(failed=("CARD-RENAME",)), tmp_path / "b" / "compliance.json")
    assert cli.main(["diff", str(a.parent), str(b)]) == 0
    out = capsys.readouterr().out
    assert "verdict: conformant -> conformant with warnings" in out
    assert "  worse   CARD-RENAME (SHOULD): passed -> failed" in out
    assert cli.main(["diff", str(a), str(tmp_path / "missing.json")]) == 2
