"""The GitHub Action (action.yml) in one step: its `run:` steps, run with bash as a runner runs
a composite action's (a simulated GITHUB_* environment, `${{ ... }}` substituted), install
boardcert from the action's own checkout, certify a server, append compliance-summary.md to
the step summary, set the outputs and fail the job by boardcert's exit code; the API key is
masked and written nowhere. The `uses:` step (actions/upload-artifact) cannot run here: it is
skipped, and the test says so."""

from __future__ import annotations

import base64
import json
import os
import re
import secrets
import shutil
import subprocess
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from faults import FAULTS, serving

from boardcert.cli import main
from boardcert.outputs import bundle
from boardcert.paths import ROOT

pytestmark = pytest.mark.xdist_group("test_action")  # one worker makes the module's runs

ACTION = ROOT / "action.yml"
INPUTS = {"base-url", "api-key", "profile", "budget", "baseline", "subject", "strict",
          "sign-key", "args", "artifact-name"}
SERVER, REPOSITORY = "https://github.com", "acme/board-server"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
# the only `if:` a step has: always(), and that an earlier step set an output
CONDITION = re.compile(r"always\(\) && steps\.([\w-]+)\.outputs\.([\w-]+) != ''")


@dataclass
class Job:
    """What a job that ran the action shows: the exit code of its last step, the action's
    outputs, the step summary, the log, and the steps that were skipped."""

    code: int
    outputs: dict[str, str]
    summary: str
    log: str
    skipped: list[str] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)  # every GITHUB_OUTPUT file


def action() -> dict[str, Any]:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def substitute(text: str, context: dict[str, Any]) -> str:
    """`${{ inputs.x }}`, `${{ steps.id.outputs.x }}`, `${{ github.x }}`, `${{ runner.x }}`:
    what a composite action's run steps use (anything else fails the test, to be added
    here). The output of a step that did not run or did not set it is empty, as on GitHub."""
    def value(match: re.Match[str]) -> str:
        found: Any = context
        parts = match[1].split(".")
        for n, part in enumerate(parts):
            if parts[0] == "steps" and n > 0 and isinstance(found, dict) and part not in found:
                return ""  # a step that did not run, an output it did not set
            assert isinstance(found, dict) and part in found, f"unknown expression {match[0]}"
            found = found[part]
        return str(found)
    return EXPRESSION.sub(value, text)


def runs(step: dict[str, Any], context: dict[str, Any], failed: bool) -> bool:
    """Whether a runner runs the step: no `if`, and no step failed before; or its `if`
    (always(), and an earlier step's output set) holds."""
    if "if" not in step:
        return not failed
    condition = CONDITION.fullmatch(step["if"])
    assert condition, f"an `if` the simulation cannot evaluate: {step['if']}"
    return substitute(f"${{{{ steps.{condition[1]}.outputs.{condition[2]} }}}}", context) != ""


def outputs_of(path: Path) -> dict[str, str]:
    """A step's GITHUB_OUTPUT: `name=value` lines (and `name<<END` ... `END` blocks)."""
    found: dict[str, str] = {}
    lines = iter(path.read_text(encoding="utf-8").splitlines())
    for line in lines:
        if "<<" in line and "=" not in line.split("<<")[0]:
            name, end = line.split("<<", 1)
            found[name] = "\n".join(iter(lambda: next(lines), end))
        elif "=" in line:
            name, value = line.split("=", 1)
            found[name] = value
    return found


@pytest.fixture(scope="module")
def runner(tmp_path_factory) -> dict[str, Path]:
    """A runner's directories: the action's checkout where the runner puts it
    (_actions/OWNER/REPO/REF), and its temp directory (kept between jobs: the install is
    the second job installs again over the first's venv)."""
    base = tmp_path_factory.mktemp("runner")
    checkout = base / "_actions" / "acme" / "boardcert" / "v1"
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, text=True)
    if listed.returncode == 0:  # what a checkout of the repository holds
        for name in listed.stdout.splitlines():
            if (ROOT / name).is_file():
                (checkout / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, checkout / name)
    else:  # not a git checkout: the tree, without what running it leaves behind
        shutil.copytree(ROOT, checkout, ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "reports", "*.egg-info", "__pycache__", ".hypothesis"))
    (base / "temp").mkdir()
    return {"action": checkout, "temp": base / "temp"}


def run_action(runner: dict[str, Path], workspace: Path, inputs: dict[str, str]) -> Job:
    """The action's steps in order, as a runner runs them: each run step a bash script
    (`bash --noprofile --norc -eo pipefail`, in the workspace) with its own GITHUB_OUTPUT,
    one GITHUB_STEP_SUMMARY; after a failing step only the steps whose `if` says always()
    run. The job's code: the first failing step's exit code."""
    spec = action()
    summary = workspace.parent / f"{workspace.name}-summary.md"
    summary.write_text("")
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(("BOARDCERT_", "PYTHON", "PYTEST", "GITHUB_", "VIRTUAL_ENV"))}
    environ |= {"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(workspace),
                "GITHUB_ACTION_PATH": str(runner["action"]), "RUNNER_TEMP": str(runner["temp"]),
                "GITHUB_SERVER_URL": SERVER, "GITHUB_REPOSITORY": REPOSITORY,
                "GITHUB_SHA": "0" * 40, "GITHUB_JOB": "certify", "GITHUB_RUN_ID": "1",
                "GITHUB_RUN_ATTEMPT": "1", "RUNNER_OS": "Linux",
                "GITHUB_STEP_SUMMARY": str(summary)}
    defaults = {name: str(i.get("default", "")) for name, i in spec["inputs"].items()}
    context: dict[str, Any] = {"inputs": defaults | inputs, "steps": {},
                               "runner": {"temp": str(runner["temp"])},
                               "github": {"action_path": str(runner["action"])}}
    job = Job(0, {}, "", "")
    for number, step in enumerate(spec["runs"]["steps"]):
        if not runs(step, context, job.code != 0):
            job.skipped.append(step["name"])
            continue
        if "uses" in step:
            job.skipped.append(f"{step['name']} ({step['uses']}: not run outside GitHub)")
            continue
        output = workspace.parent / f"{workspace.name}-output-{number}"
        output.write_text("")
        job.written.append(output)
        env = environ | {"GITHUB_OUTPUT": str(output)} | {
            name: substitute(str(value), context) for name, value in step.get("env", {}).items()}
        script = workspace.parent / f"{workspace.name}-step-{number}.sh"
        script.write_text(substitute(step["run"], context))
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                              cwd=workspace, env=env, capture_output=True, text=True,
                              timeout=900)
        job.log += f"--- {step['name']} (exit {done.returncode})\n{done.stdout}{done.stderr}"
        if "id" in step:
            context["steps"][step["id"]] = {"outputs": outputs_of(output)}
        job.code = job.code or done.returncode
    job.outputs = {name: substitute(o["value"], context) for name, o in spec["outputs"].items()}
    job.summary = summary.read_text(encoding="utf-8")
    return job


def test_the_action_declares_its_inputs_and_runs_as_one_composite_step():
    """Inputs base-url (required), api-key, profile, budget, baseline, subject, strict,
    sign-key, args and artifact-name; outputs verdict, report-dir, exit-code and
    artifact-name; a composite action whose run steps name their shell, upload-artifact among
    its steps."""
    spec = action()
    assert set(spec["inputs"]) == INPUTS
    assert set(spec["outputs"]) == {"verdict", "report-dir", "exit-code", "artifact-name"}
    assert spec["inputs"]["base-url"]["required"] is True and "default" not in \
        spec["inputs"]["base-url"]
    assert spec["runs"]["using"] == "composite"
    steps = spec["runs"]["steps"]
    assert all(s["shell"] == "bash" for s in steps if "run" in s)
    assert [s["uses"] for s in steps if "uses" in s] == ["actions/upload-artifact@v4"]
    assert all(CONDITION.fullmatch(s["if"]) for s in steps if "if" in s)  # the simulation's
    text = ACTION.read_text(encoding="utf-8")
    assert text.count("${{ inputs.api-key }}") == 2  # the mask's env and the run's env only
    run = next(s["run"] for s in steps if s.get("id") == "run")
    assert "--api-key" not in run  # the key never on a command line (args refuses it too)


def test_the_action_certifies_the_bundled_server(runner, tmp_path):
    """base-url `bundled`: boardcert starts its reference server; conformant, exit 0, the
    summary appended (it says the bundled server was certified, and names the artefact), the
    outputs set, the reports and the bundle in report-dir, the reports linking to the
    action's own docs at its ref; each line of subject is a --subject (the attestations then
    hold a verification summary)."""
    subjects = f"ghcr.io/acme/board@sha256:{'ab' * 32}\nboard-2.4.1.tar.gz@sha256:{'cd' * 32}\n"
    job = run_action(runner, tmp_path, {"base-url": "bundled", "budget": "quick",
                                        "subject": subjects})
    assert job.code == 0, job.log[-4000:]
    assert job.outputs["verdict"] == "conformant" and job.outputs["exit-code"] == "0"
    report = Path(job.outputs["report-dir"])
    assert report == tmp_path / "boardcert-report"
    assert (report / "compliance.json").is_file() and (report / "certification.zip").is_file()
    assert "compliance.json" in zipfile.ZipFile(report / "certification.zip").namelist()
    summary = (report / "attestations" / "verification-summary.intoto.json").read_text()
    assert "ab" * 32 in base64.b64decode(json.loads(summary)["payload"]).decode()
    assert "cd" * 32 in base64.b64decode(json.loads(summary)["payload"]).decode()
    assert "## boardcert: CONFORMANT" in job.summary, job.summary
    assert "Target the bundled reference server" in job.summary
    assert job.outputs["artifact-name"] == "boardcert-report-certify"
    assert "Full report: compliance.html in the artefact `boardcert-report-certify`" in \
        job.summary  # the upload's URL is GitHub's: here it is not run
    assert (report / "compliance.json").read_text().count(
        '"docs_url": "https://github.com/acme/boardcert/blob/v1/docs"') == 1
    assert job.skipped == ["Upload the reports and the bundle (actions/upload-artifact@v4: "
                           "not run outside GitHub)"]
    assert "](compliance" not in job.summary  # no link to a file the summary page lacks


def test_the_action_fails_the_job_for_a_faulty_server_and_never_shows_the_key(runner, tmp_path):
    """A server that breaks a MUST: verdict non-conformant, the job fails with boardcert's
    exit 1 (after the summary and outputs were written), the summary links the failed
    requirement to its entry; the key is masked once and appears in no log line, output,
    summary or report file. Only that requirement's tests run (args after `--` reach pytest):
    a failed MUST makes the verdict whatever else went unassessed."""
    key = "action-" + secrets.token_urlsafe(16)
    variant = next(v for v in FAULTS if v.name == "name-limit-25001")
    with serving(variant, key) as base_url:
        job = run_action(runner, tmp_path, {"base-url": base_url, "api-key": key,
                                            "budget": "quick", "artifact-name": "my-report",
                                            "args": "-- -m CARD-NAME-MAX-REJECTED"})
    assert job.code == 1, job.log[-4000:]
    assert job.outputs["verdict"] == "non-conformant" and job.outputs["exit-code"] == "1"
    assert job.outputs["artifact-name"] == "my-report"
    assert "## boardcert: NON-CONFORMANT" in job.summary
    assert ("[`CARD-NAME-MAX-REJECTED`](https://github.com/acme/boardcert/blob/v1/docs/"
            "requirements.md#card-name-max-rejected)") in job.summary
    assert "](compliance" not in job.summary
    assert job.log.count(f"::add-mask::{key}") == 1
    log = job.log.replace(f"::add-mask::{key}", "")
    places = [job.summary, log, *(p.read_text() for p in job.written)]
    assert not [p for p in places if key in p]
    report = Path(job.outputs["report-dir"])
    assert not [p for p in report.rglob("*") if p.is_file() and key.encode() in p.read_bytes()]


@pytest.mark.parametrize(("inputs", "says"), [
    ({"base-url": ""}, "base-url is empty (an unset variable such as vars.BOARD_URL is an "
                       "empty string)"),
    ({"base-url": "http://127.0.0.1:9", "strict": "yes"}, "strict is 'yes': true or false"),
    ({"base-url": "http://127.0.0.1:9", "args": "--seed 7 --api-key k"},
     "args: --api-key is not for args"),
    ({"base-url": "http://127.0.0.1:9", "args": "--output=x"}, "args: --output is not for args"),
    ({"base-url": "http://127.0.0.1:9", "args": "--seed '7"}, "args: No closing quotation"),
], ids=["empty base-url", "strict", "key in args", "output in args", "unbalanced quote"])
def test_bad_inputs_stop_the_job_before_anything_is_installed(runner, tmp_path, inputs, says):
    """An empty base-url (an unset `vars.` variable) never certifies anything: the job fails at
    the first step, exit 2, with an error annotation; so do a strict that is not true or
    false and args that hold what an input carries or that do not split."""
    job = run_action(runner, tmp_path, inputs)
    assert job.code == 2, job.log[-3000:]
    assert f"::error title=boardcert::{says}" in job.log, job.log[-3000:]
    assert "Install boardcert" in job.skipped and "Run boardcert" in job.skipped
    assert job.outputs == {"verdict": "", "report-dir": "", "exit-code": "",
                           "artifact-name": ""}
    assert job.summary == ""


def test_strict_signed_with_args(runner, tmp_path):
    """A server that fails a SHOULD only (conformant with warnings): strict fails the job
    (exit 1); sign-key signs the attestations and certification.zip (`boardcert verify`
    checks them with the public key), its file deleted after the run and its lines masked,
    never written; args reach `boardcert run` as a shell splits them (`--seed 7`, a quoted
    version with a space)."""
    key = "action-" + secrets.token_urlsafe(16)
    keys = tmp_path / "keys"
    private, public = bundle.keygen(keys)
    pem = private.read_text()
    secret = [line for line in pem.splitlines() if not line.startswith("-----")]
    workspace = tmp_path / "work"
    workspace.mkdir()
    variant = next(v for v in FAULTS if v.name == "card-rename-trimmed-on-store")
    subject = f"ghcr.io/acme/board@sha256:{'ef' * 32}"
    with serving(variant, key) as base_url:
        job = run_action(runner, workspace, {
            "base-url": base_url, "api-key": key, "budget": "quick", "strict": "true",
            "sign-key": pem, "subject": subject,
            "args": "--seed 7 --server-version '2.4 beta'"})
    assert job.code == 1, job.log[-4000:]
    assert job.outputs["verdict"] == "conformant with warnings", job.log[-4000:]
    assert job.outputs["exit-code"] == "1"
    report = Path(job.outputs["report-dir"])
    built = json.loads((report / "compliance.json").read_text())
    assert built["run"]["seed"] == 7 and "--strict" in built["run"]["options"]
    statement = json.loads(base64.b64decode(json.loads(
        (report / "attestations" / "verification-summary.intoto.json").read_text())["payload"]))
    assert "2.4 beta" in json.dumps(statement)
    assert main(["verify", str(report / "certification.zip"), "--public-key", str(public),
                 "--subject", subject]) == 0
    assert not list(runner["temp"].glob("boardcert-sign-key-*"))  # deleted after the run
    assert all(f"::add-mask::{line}" in job.log for line in secret)
    log = re.sub(r"::add-mask::.*", "", job.log)
    places = [job.summary, log, *(p.read_text() for p in job.written),
              *(p.read_bytes().decode("utf-8", "replace") for p in report.rglob("*")
                if p.is_file())]
    assert not [p for p in places if any(line in p for line in secret) or key in p]


def test_docs_ci_lists_every_input_and_output():
    """docs/ci.md's tables name exactly the action's inputs and its outputs."""
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    tables = re.findall(r"^\| (input|output) \| what \|\n\|---\|---\|\n((?:\|.*\n)+)", text,
                        re.MULTILINE)
    named = {kind: set(re.findall(r"^\| `([\w-]+)` \|", rows, re.MULTILINE))
             for kind, rows in tables}
    assert named == {"input": set(action()["inputs"]), "output": set(action()["outputs"])}
