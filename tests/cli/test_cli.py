"""The `boardcert` command: exit codes (conformance policy, section 4), the reports a run
writes, and that the API key appears in none of them nor on the console."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from samples import KEY, boardcert, leaks, sample_report

from boardcert import cli
from boardcert.cli import exits, session
from boardcert.http.redact import Redactor
from boardcert.interface import requirements
from boardcert.outputs import report
from boardcert.paths import DEFAULT_PROFILE, ROOT, RUN_INI, SUITES
from boardcert.reference.server import free_port, start
from boardcert.settings import run_facts
from boardcert.settings.config import load_profile

pytest_plugins = ["pytester"]


# --- end to end against the reference server ---------------------------------------------------

def test_run_writes_every_report_and_never_the_key(tmp_path):
    """A run against a server demanding the key writes compliance.json/.md/.html, junit.xml
    and allure-results; the key is in none of them and not on the console."""
    out = tmp_path / "reports"
    with start(api_key=KEY) as server:
        result = boardcert("run", "--base-url", server.base_url, "--api-key", KEY,
                           "--output", str(out), "--", "-x", "suites/test_users.py")
    assert result.returncode == 1, result.stdout + result.stderr  # only op 1: incomplete
    assert "boardcert: INCOMPLETE:" in result.stdout
    assert f"reports in {out}/" in result.stdout
    assert "PytestAssertRewriteWarning" not in result.stdout + result.stderr
    assert (f"reports in {out}/: compliance.html, compliance.md, compliance-summary.md, "
            "compliance.json, badge.svg, junit.xml, junit-properties.xml, allure-results/") in \
        result.stdout
    built = report.load(out)  # validated against spec/compliance.schema.json
    assert built["target"] == {"base_url": server.base_url, "reference_server": False}
    assert {t["outcome"] for t in built["tests"]} == {"passed"}
    assert built["run"]["budget"] == "standard" and built["run"]["seed"] == 20240618
    assert built["run"]["options"] == ["run", "--base-url", server.base_url, "--api-key",
                                       "--output", "reports", "--", "-x", "suites/test_users.py"]
    assert next(r for r in built["requirements"] if r["id"] == "USERS-ME-PROPERTIES")[
        "status"] == "passed"
    assert {p.name for p in out.iterdir()} == {"compliance.json", "compliance.md",
                                               "compliance-summary.md", "compliance.html",
                                               "junit.xml", "junit-properties.xml",
                                               "allure-results", "badge.svg",
                                               "attestations", "certificate.intoto.jsonl"}
    assert any(out.glob("allure-results/*-result.json"))
    assert "requirements: USERS-ME-PROPERTIES\n" in (out / "junit.xml").read_text()
    assert 'name="requirements" value="USERS-ME-PROPERTIES"' in (
        out / "junit-properties.xml").read_text()
    assert leaks(out, result.stdout, result.stderr) == []


@pytest.mark.parametrize(("key", "suites", "code"), [
    ("k", [], 0), ("test", ["suites/test_users.py", "suites/test_auth.py"], 1)])
def test_a_short_key_leaves_every_report_valid_and_readable(tmp_path, key, suites, code):
    """A one-letter key (the whole suite: conformant, exit 0) and the key `test` (a few
    suites: incomplete) are warned about, masked where they stand alone, and corrupt nothing:
    compliance.json validates, junit.xml parses, the reports and the console keep the words
    that merely contain the key (`suites/test_auth.py`, `quick`)."""
    out = tmp_path / "reports"
    with start(api_key=key) as server:
        # serial: the console names each module (under a loaded machine the round trip to
        # this server can reach milliseconds, and workers print none)
        result = boardcert("run", "--base-url", server.base_url, "--api-key", key,
                           "--budget", "quick", "--workers", "1", "--output", str(out), "--",
                           *suites)
    assert result.returncode == code, result.stdout[-3000:] + result.stderr
    assert "shorter than 8 characters" in result.stderr
    built = report.load(out)  # validated against spec/compliance.schema.json
    assert built["verdict"] == ("conformant" if code == 0 else "incomplete")
    assert ET.parse(out / "junit.xml").getroot().iter("testcase")
    assert "suites/test_users.py" in result.stdout and "quick" in result.stdout
    markdown, page = (out / "compliance.md").read_text(), (out / "compliance.html").read_text()
    assert "| MUST |" in markdown or "MUST" in markdown
    assert page.rstrip().endswith("</html>") and "<script>" in page and "<style>" in page
    mask = Redactor([key])
    for text in [result.stdout, result.stderr, markdown, (out / "junit.xml").read_text()]:
        assert mask.text(text) == text  # the key stands alone nowhere


def test_the_report_shows_the_merged_profile_and_names_only_the_users_file(tmp_path):
    """A profile naming one key: the reports show the profile the run used (the defaults with
    that key changed) and the file's name and SHA-256, never the directory it lives in."""
    mine = tmp_path / "deep" / "acme.yaml"
    mine.parent.mkdir()
    mine.write_text("plugin_id: boardcert\nexchange_code: null\n")
    out = tmp_path / "reports"
    result = boardcert("run", "--profile", str(mine), "--output", str(out), "--",
                       "suites/test_users.py")
    built = report.load(out)
    reference = yaml.safe_load(DEFAULT_PROFILE.read_text())
    assert built["profile"] == {
        "name": "acme", "path": "acme.yaml",
        "sha256": hashlib.sha256(mine.read_bytes()).hexdigest(),
        "content": {k: v for k, v in reference.items() if k != "exchange_code"} | {
            "name": "acme"},
        "discovered": []}, result.stdout[-2000:]
    for name in ("compliance.json", "compliance.md", "compliance.html"):
        text = (out / name).read_text()
        assert str(mine.parent) not in text and built["profile"]["sha256"] in text


def test_a_key_with_no_target_is_a_usage_error(tmp_path, capsys):
    """`--api-key` with no `--base-url` would certify the bundled server, not the user's: a
    usage error (exit 2) that names --base-url, and no report."""
    assert cli.main(["run", "--api-key", KEY, "--output", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("boardcert: error: --api-key was given without --base-url") and \
        "--base-url URL, or BOARDCERT_BASE_URL" in err and KEY not in err
    assert not (tmp_path / "o").exists()


def test_every_output_names_the_bundled_reference_server(tmp_path):
    """No target, a key in the environment only: the console says the key is ignored, and
    the console's last verdict line, the summary, compliance.md and .html, Allure, the
    attestation, `verify` of the bundle and `diff` all say the bundled reference server was
    certified (never its loopback URL alone, which names nothing of the user's)."""
    out = tmp_path / "reports"
    result = boardcert("run", "--output", str(out), "--bundle", "--", "suites/test_users.py",
                       env={"BOARDCERT_API_KEY": KEY})
    console = result.stdout + result.stderr
    assert "boardcert: note: BOARDCERT_API_KEY is ignored: no --base-url (nor " \
        "BOARDCERT_BASE_URL) was given" in console, console[-3000:]
    assert "INCOMPLETE (the bundled reference server, not a server of yours: no --base-url " \
        "was given):" in result.stdout
    assert "Target the bundled reference server (`http://127.0.0.1:" in \
        (out / "compliance-summary.md").read_text()
    assert "(the bundled reference server)" in (out / "compliance.md").read_text()
    assert "(bundled reference server)" in (out / "compliance.html").read_text()
    environment = (out / "allure-results" / "environment.properties").read_text()
    assert "target=the bundled reference server\n" in environment
    statement = json.loads(base64.b64decode(json.loads(
        (out / "attestations" / "test-result.intoto.json").read_text())["payload"]))
    assert "127.0.0.1" not in json.dumps(statement)
    verified = boardcert("verify", str(out / "certification.zip"))
    assert "for the bundled reference server, run " in verified.stdout, verified.stdout
    compared = boardcert("diff", str(out), str(out))
    assert "the bundled reference server" in compared.stdout and "127.0.0.1" not in \
        compared.stdout, compared.stdout
    assert leaks(out, result.stdout, result.stderr) == []


def test_failing_run_shows_evidence_but_not_the_key(tmp_path):
    """Every request rejected (the server wants another key, ours comes from the
    environment; --no-preflight, which would stop at the refused key): non-conformant, with
    evidence and curl lines showing the key as ***."""
    out = tmp_path / "reports"
    with start(api_key="another-key-entirely") as server:
        result = boardcert("run", "--base-url", server.base_url, "--output", str(out),
                           "--no-preflight", "--", "suites/test_users.py",
                           env={"BOARDCERT_API_KEY": KEY})
    assert result.returncode == 1, result.stdout + result.stderr
    assert "boardcert: NON-CONFORMANT:" in result.stdout
    built = report.load(out)
    failed = [t for t in built["tests"] if t["outcome"] == "failed"]
    assert failed and all(x["request_headers"]["x-api-key"] == "***" and "***" in x["curl"]
                          for t in failed for x in t["evidence"])
    junit = (out / "junit-properties.xml").read_text()
    assert '<property name="evidence" value="[{' in junit and KEY not in junit
    assert "evidence: " in (out / "junit.xml").read_text()
    assert "pre class=\"curl\"" in (out / "compliance.html").read_text()
    attachments = list(out.glob("allure-results/*-attachment.txt"))
    assert attachments and any("***" in a.read_text() for a in attachments)  # the requests
    assert leaks(out, result.stdout, result.stderr) == []


def test_target_lost_during_the_run_exits_3(tmp_path, monkeypatch, capsys):
    """The plugin's pytest.exit(returncode=3) (here: nothing listens, and the command's own
    check is skipped) ends the command with 3, and no report is written."""
    monkeypatch.setattr(cli.run, "check_first", lambda target, only_reachable, timing=None: None)
    out = tmp_path / "reports"
    code = cli.main(["run", "--base-url", f"http://127.0.0.1:{free_port()}", "--api-key", KEY,
                     "--output", str(out), "--", "suites/test_users.py"])
    assert code == 3
    assert "cannot be reached" in capsys.readouterr().err
    assert not (out / "compliance.json").exists()


def test_target_lost_under_xdist_exits_3_once(tmp_path):
    """Under xdist a worker's pytest.exit reaches the controller: exit 3, one message."""
    out = tmp_path / "reports"
    result = boardcert("run", "--base-url", f"http://127.0.0.1:{free_port()}", "--output",
                       str(out), "--", "-n", "1", "suites/test_users.py",
                       env={"BOARDCERT_API_KEY": KEY},
                       patch="cli.run.check_first = lambda target, only_reachable, timing=None: "
                       "None")
    assert result.returncode == 3, result.stdout + result.stderr
    assert result.stderr.count("cannot be reached") == 1, result.stderr
    assert not (out / "compliance.json").exists()
    assert leaks(tmp_path, result.stdout, result.stderr) == []


# --- exit codes --------------------------------------------------------------------------

def heard(built: dict) -> exits.RunWatch:
    """A RunWatch that heard the report written (boardcert's hook, as a run calls it)."""
    watch = exits.RunWatch()
    watch.pytest_boardcert_report_written(report=built)
    return watch


@pytest.mark.parametrize(("verdict", "strict", "code"), [
    ("conformant", False, 0), ("conformant", True, 0),
    ("conformant with warnings", False, 0), ("conformant with warnings", True, 1),
    ("non-conformant", False, 1), ("incomplete", False, 1)])
def test_exit_code_follows_the_verdict(tmp_path, capsys, verdict, strict, code):
    built = sample_report(verdict)
    report.write(built, tmp_path)
    assert exits.outcome(1, heard(built), tmp_path, strict) == code
    assert f"boardcert: {verdict.upper()}:" in capsys.readouterr().out


def test_the_last_line_counts_the_errors_inside_boardcert(tmp_path, capsys):
    """A run in which tests broke inside boardcert ends saying how many, as boardcert's bug."""
    built = sample_report("incomplete")
    built["boardcert_errors"] = [{"test": "t::x", "error": "KeyError: 'rows'",
                                  "requirements": ["ROW-RENAME"]}] * 2
    report.write(built, tmp_path)
    exits.outcome(1, heard(built), tmp_path, False)
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("boardcert: 2 errors inside boardcert: a bug in boardcert, not "
                           "something the server did")


def test_no_report_written_is_a_failure(tmp_path, capsys):
    assert exits.outcome(2, exits.RunWatch(), tmp_path, False) == exits.EXIT_FAILED
    assert "no compliance report was written" in capsys.readouterr().err


def test_a_bad_profile_key_is_a_usage_error_naming_it(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nbodiez: {}\n")
    assert cli.main(["run", "--profile", str(bad), "--output", str(tmp_path / "o")]) == 2
    assert "unknown key bodiez (did you mean bodies?) under (top level)" in \
        capsys.readouterr().err  # as a mistyped flag gets the closest flag
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("argv", [["run", "--bogus"], ["run", "--base-url", "ftp://x"],
                                  ["run", "--base-url", "http://127.0.0.1:9"], ["frobnicate"]])
def test_usage_errors_exit_2(argv, monkeypatch, capsys):
    monkeypatch.delenv("BOARDCERT_API_KEY", raising=False)
    assert cli.main(argv) == 2
    assert capsys.readouterr().err


@pytest.mark.parametrize(("argv", "message"), [
    (["--budget", "fast"], "--budget 'fast': expected quick"),
    (["--budget", "0"], "--budget '0'"),
    (["--request-timeout", "0"], "--request-timeout must be a positive"),
    (["--rate-limit", "-1"], "--rate-limit must be a positive"),
    (["--max-body", "0"], "--max-body must be a positive")])
def test_bad_settings_are_usage_errors_like_the_others(argv, message, tmp_path, capsys):
    """A bad --budget or limit is refused before pytest starts, worded like every other usage
    error (`boardcert: error: ...`), with exit 2 and no report."""
    assert cli.main(["run", *argv, "--output", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"boardcert: error: {message}") and "ERROR:" not in err
    assert not (tmp_path / "o").exists()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_an_output_that_cannot_be_made_is_one_usage_error(tmp_path, capsys):
    """--output under a path no directory can be made in (/proc/x): exit 2 and one line
    before any test, no INTERNALERROR; a directory that can be made is left unmade until the
    run starts (the trial's directories removed again)."""
    assert cli.main(["run", "--output", "/proc/x/reports"]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        "boardcert: error: --output /proc/x/reports: cannot write reports there (No such file "
        "or directory)"] and "INTERNALERROR" not in captured.out
    deep = tmp_path / "a" / "b"
    assert cli.main(["run", "--output", str(deep), "--base-url", "http://127.0.0.1:9",
                     "--api-key", KEY]) == 3
    assert not (tmp_path / "a").exists()


def test_a_pytest_usage_error_exits_2(tmp_path, capsys):
    assert cli.main(["run", "--output", str(tmp_path / "o"), "--", "--no-such-pytest-flag"]) == 2
    assert "--no-such-pytest-flag" in capsys.readouterr().err


def test_an_unreachable_target_exits_3_before_any_test(tmp_path, capsys):
    url = f"http://127.0.0.1:{free_port()}"
    assert cli.main(["run", "--base-url", url, "--api-key", KEY, "--output",
                     str(tmp_path / "o")]) == 3
    err = capsys.readouterr().err
    assert f"the target {url} cannot be reached" in err and KEY not in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(("argv", "code", "words"), [
    (["--base-url", "http://127.0.0.1:{port}", "--api-key", KEY], 3, "cannot be reached"),
    (["--api-key", KEY], 2, "--api-key was given without --base-url"),
    (["--base-url", "ftp://h", "--api-key", KEY], 2, "expected an http:// or https:// URL"),
], ids=["unreachable", "no base URL", "bad base URL"])
def test_profile_discover_exits_like_run(argv, code, words, monkeypatch, capsys):
    """`profile --discover` stops as `run` does: 2 for the configuration, 3 for a target that
    cannot be reached, one `boardcert: error:` line."""
    monkeypatch.delenv("BOARDCERT_BASE_URL", raising=False)
    argv = [arg.format(port=free_port()) for arg in argv]
    assert cli.main(["profile", "--discover", *argv]) == code
    err = capsys.readouterr().err
    assert err.startswith("boardcert: error: ") and words in err and err.count("\n") == 1


def test_plan_names_the_workers_given_after_the_dashes_once(capsys):
    """--plan with pytest's -n after --: the workers line says where they come from, without
    the doubled word it had."""
    assert cli.main(["run", "--plan", "--", "-n", "2", str(SUITES / "test_users.py")]) == 0
    out = capsys.readouterr().out
    assert "workers: -n as given to pytest after --" in out and "workers: workers" not in out


def test_plan_reads_the_target_from_the_environment_like_the_plugin(monkeypatch, capsys):
    """--plan with the base URL and key in BOARDCERT_* variables (config.resolve's): the plan
    names that target and gives the workers' rule, as for --base-url."""
    monkeypatch.setenv("BOARDCERT_BASE_URL", "http://127.0.0.1:9/api/")
    monkeypatch.setenv("BOARDCERT_API_KEY", KEY)
    assert cli.main(["run", "--plan", "--", str(SUITES / "test_users.py")]) == 0
    out = capsys.readouterr().out
    assert "http://127.0.0.1:9/api" in out and "workers: chosen from the round trip" in out
    assert KEY not in out


def test_an_option_of_boardcert_run_after_the_dashes_is_refused(capsys):
    """`boardcert run` hands pytest the run it resolved: one of its options given to pytest
    after -- would be ignored, so the run stops (exit 2) saying where it goes."""
    assert cli.main(["run", "--plan", "--", "--budget", "quick", USERS]) == 2
    assert "--budget: an option of boardcert run, given to pytest after --: give it before --" \
        in capsys.readouterr().err


def test_an_output_directory_holding_a_report_is_refused(tmp_path, capsys):
    (tmp_path / "junit.xml").write_text("<testsuites/>")
    assert cli.main(["run", "--output", str(tmp_path)]) == 2
    assert "already holds a report (junit.xml)" in capsys.readouterr().err


# --- what reaches pytest -----------------------------------------------------------------

def test_pytest_never_gets_the_key_on_its_command_line(tmp_path):
    args = cli.build_parser().parse_args(["run", "--base-url", "http://h", "--api-key", KEY,
                                          "--profile", "p.yaml", "--budget", "quick"])
    argv = session.pytest_arguments(args, [], tmp_path)
    assert KEY not in " ".join(argv)
    assert {f"--report-dir={tmp_path}", f"--junitxml={tmp_path / 'junit.xml'}",
            f"--alluredir={tmp_path / 'allure-results'}"} <= set(argv)


USERS = str(SUITES / "test_users.py")


@pytest.mark.parametrize(("extra", "suites_added"), [
    ([], True), (["-m", "op16"], True), (["-k", "suites"], True),
    (["--profile", str(DEFAULT_PROFILE)], True), (["--hypothesis-seed", "3"], True),
    (["--ignore", USERS], True), (["-x", USERS], False), ([f"{USERS}::test_x"], False)])
def test_suites_are_run_unless_paths_are_given(extra, suites_added, pytester):
    """pytest's own parser decides what is a test path: an option's value never is."""
    pytester.plugins.append(session.SuitesUnlessPathsGiven())
    config = pytester.parseconfig("-p", "boardcert.pytest.plugin", *extra)
    assert (config.args == [str(SUITES)]) is suites_added


def test_the_workers_of_boardcert_run_get_the_suites_too(pytester):
    """pytest-xdist's workers parse pytest's original arguments: under `boardcert run` (told
    by its configuration file, -c boardcert/run.ini) the plugin adds the suites there too,
    never otherwise."""
    config = pytester.parseconfig("-p", "boardcert.pytest.plugin", "-c", str(RUN_INI),
                                  "-n", "2")
    assert config.args == [str(SUITES)]
    assert pytester.parseconfig("-p", "boardcert.pytest.plugin", "-c", str(RUN_INI),
                                f"{USERS}::test_x").args == [f"{USERS}::test_x"]
    assert pytester.parseconfig("-p", "boardcert.pytest.plugin").args != [str(SUITES)]

# --- report, profile, requirements --------------------------------------------------------

def test_report_rebuilds_markdown_and_html(tmp_path, capsys):
    report.write(sample_report("incomplete"), tmp_path)
    (tmp_path / "compliance.html").unlink()
    (tmp_path / "compliance.md").unlink()
    assert cli.main(["report", str(tmp_path)]) == 0
    assert (tmp_path / "compliance.html").exists() and (tmp_path / "compliance.md").exists()
    assert "incomplete" in capsys.readouterr().out


def test_report_ci_summary_links_nothing_beside_it(tmp_path, capsys):
    """`report --ci-summary NAME --artifact-url URL` prints the summary for a CI job's page:
    no relative link (the files are not beside it), the failed requirements linking to their
    docs entry, the report named in the artefact with its link; nothing is rebuilt."""
    built = sample_report("non-conformant")
    built["run"] = run_facts.record("quick", 1, ["run"], "https://example.org/b/docs")
    report.write(built, tmp_path)
    (tmp_path / "compliance.md").unlink()
    url = "https://github.com/acme/board/actions/runs/1/artifacts/2"
    assert cli.main(["report", str(tmp_path), "--ci-summary", "boardcert-report-certify",
                     "--artifact-url", url]) == 0
    out = capsys.readouterr().out
    assert "](compliance" not in out and not (tmp_path / "compliance.md").exists()
    assert "](https://example.org/b/docs/requirements.md#" in out
    assert f"compliance.html in the artefact [boardcert-report-certify]({url})" in out


def test_report_of_a_directory_without_a_report_is_a_usage_error(tmp_path, capsys):
    assert cli.main(["report", str(tmp_path)]) == 2
    assert "compliance.json" in capsys.readouterr().err


def test_profile_init_writes_a_commented_valid_template(tmp_path, capsys):
    path = tmp_path / "mine.yaml"
    assert cli.main(["profile", "--init", str(path)]) == 0
    text = path.read_text()
    assert text.startswith("# boardcert implementation profile")
    assert "# Operation 27" in text  # the reference profile's comments are kept
    profile = load_profile(path)
    reference = yaml.safe_load(DEFAULT_PROFILE.read_text())
    assert profile.name == "my-server"
    assert set(profile.data) == set(reference)
    assert cli.main(["profile", str(path)]) == 0
    assert "a valid profile" in capsys.readouterr().out


def test_profile_init_never_overwrites(tmp_path, capsys):
    path = tmp_path / "mine.yaml"
    path.write_text("mine\n")
    assert cli.main(["profile", "--init", str(path)]) == 2
    assert path.read_text() == "mine\n"
    assert "not overwriting" in capsys.readouterr().err


def test_profile_check_names_the_bad_key(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("plugin_idd: x\n")
    assert cli.main(["profile", str(path)]) == 2
    assert "plugin_idd" in capsys.readouterr().err


def test_requirements_lists_the_catalogue(capsys):
    assert cli.main(["requirements", "--level", "MUST"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(" MUST " in line for line in lines)


@pytest.mark.parametrize("level", ["must", "Should", "INFO"])
def test_requirements_level_is_case_insensitive(level, capsys):
    """--level must, Should and INFO each list that level only."""
    assert cli.main(["requirements", "--level", level]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(f" {level.upper()} " in line for line in lines)


def test_requirements_show_every_operation_number_whole(capsys):
    """The operations column holds every operation of each requirement, none cut short, and
    the titles still line up."""
    assert cli.main(["requirements"]) == 0
    lines = capsys.readouterr().out.splitlines()
    catalogue = requirements.catalogue()
    assert len(lines) == len(catalogue)
    for line in lines:
        req_id, ops = line.split()[0], line.split(" ops ")[1].split()[0]
        shown = [n for part in ops.split(",") for n in (
            range(int(part.split("-")[0]), int(part.split("-")[1]) + 1) if "-" in part
            else [int(part)])]
        assert shown == sorted(catalogue[req_id].operations), line
    assert len({len(line) - len(catalogue[line.split()[0]].title) for line in lines}) == 1


def test_a_run_loads_only_the_pytest_plugins_it_needs(tmp_path):
    """`boardcert run`'s pytest loads its own plugins and no other plugin of the environment
    (anyio's is installed here, with boardcert's dependencies), and rewrites the asserts of
    neither Hypothesis nor schemathesis (as pytest does for every distribution whose plugin it
    loads by itself). In a child: plugins and imports are the process's."""
    code = f"""
import sys, pytest
from boardcert.cli import session
class Seen:
    def pytest_configure(self, config):
        self.names = {{name for name, _ in config.pluginmanager.list_name_plugin()}}
seen = Seen()
pytest.main([*session._pytest_setup(), "--collect-only", "-q", {str(tmp_path)!r}],
            plugins=[seen])
rewritten = [m for m in ("hypothesis.core", "schemathesis.schemas")
             if type(sys.modules[m].__loader__).__name__ == "AssertionRewritingHook"]
print(sorted(seen.names & {{"anyio", "xdist", "allure_pytest", "hypothesispytest",
                            "schemathesis.pytest.plugin", "boardcert.pytest.plugin"}}), rewritten)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    said = done.stdout.strip().splitlines()
    assert said and said[-1] == (
        "['allure_pytest', 'boardcert.pytest.plugin', 'hypothesispytest', "
        "'schemathesis.pytest.plugin', 'xdist'] []"), done.stdout + done.stderr
