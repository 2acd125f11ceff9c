"""A failure's reproduction works after the run (issue 27): each failed test's script makes what
its requests need, sends them again with the ids put back and says whether the failure is still
there. For catalogued faults of several kinds (a value, a status, a sequence, a rejected request
that changes something, plugin data, a response shape, a wrong key, a race; a property
test's and a stateful test's failure) the script fails against the faulty server (exit 1) and
passes against the reference (exit 0), judging the condition that failed and nothing else,
also for a server whose bodies and ids differ from the reference's; "not reproduced" only when
that condition was judged again; it deletes what it made; no key is ever in it.
(benchmarks/reproduction.py does the same for every fault of the catalogue, --full for the
property and stateful tests' failures.)"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from faults import CONFORMANT, FAULTS, Variant, certify, combined, serving
from faults.asgi import Forward, Request, Response
from faults.harness import _env, suite_command

from boardcert.cli import main
from boardcert.outputs import bundle
from boardcert.paths import DEFAULT_PROFILE, ROOT
from boardcert.reproduce import answers, engine, script

pytestmark = pytest.mark.xdist_group("test_reproduce")  # one worker makes the module's runs

BY_NAME = {v.name: v for v in [*FAULTS, *CONFORMANT]}
PROVED = ("card-rename-not-saved",  # a value the answer gets wrong
          "name-limit-25001",  # a status: a 25,001-character name accepted
          "card-delete-keeps-card",  # a sequence: delete, then the card is still listed
          "card-create-rejected-but-created",  # a refused request that changed the project
          "plugin-data-not-stored",  # plugin data: PUT, then GET finds nothing
          "project-missing-updatedAt",  # a response shape, explicit and property tests
          "auth-any-key",  # a wrong key accepted: the script sends the wrong key again
          "rows-lost-when-created-at-once")  # a race: rows created together, sent so again
SCRIPTS_EACH = 6  # scripts run per fault (in the order of their names)
KEY = "repro-" + secrets.token_urlsafe(16)


def reference() -> Variant:
    return BY_NAME["reference"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each fault of PROVED certified with its requirement's tests: its report directory."""
    root = tmp_path_factory.mktemp("reproduce")

    def run(name: str) -> tuple[str, Path]:
        directory = root / name
        directory.mkdir()
        result = certify(BY_NAME[name], directory)
        assert result.failed(), result.summary()
        return name, directory / "report"

    with ThreadPoolExecutor(1 if os.environ.get("PYTEST_XDIST_WORKER") else 2) as pool:
        return dict(pool.map(run, PROVED))


def run_script(path: Path, base_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(path), "--base-url", base_url, *args],
                          env={**os.environ, "BOARDCERT_API_KEY": KEY}, capture_output=True,
                          text=True, timeout=120)


def scripts(report: Path) -> list[Path]:
    return sorted((report / script.DIRECTORY).glob("*.py"))[:SCRIPTS_EACH]


@pytest.mark.parametrize("name", PROVED)
def test_reproduction_fails_on_the_fault_and_passes_on_the_reference(name: str, runs):
    """Every failed test has a script; run again after the run, against a new server, it
    exits 1 on the faulty one and 0 on the reference."""
    report = runs[name]
    failed = [t for t in json.loads((report / "compliance.json").read_text())["tests"]
              if t["outcome"] == "failed"]
    assert failed and all(t.get("reproduction") for t in failed)
    assert len(list((report / script.DIRECTORY).glob("*.py"))) == len(failed)
    for variant, wanted in ((BY_NAME[name], 1), (reference(), 0)):
        with serving(variant, KEY) as base_url:
            for path in scripts(report):
                done = run_script(path, base_url)
                assert done.returncode == wanted, f"{variant.name} {path.name}:\n{done.stdout}" \
                                                  f"{done.stderr}"
                said = "REPRODUCED" if wanted else "NOT REPRODUCED"
                assert done.stdout.splitlines()[-1].startswith(said)


# Property-test and stateful-test failures (a generated request; a sequence along the links),
# sampled: (fault, the requirement's tests, budget, which kind of test's scripts are run)
GENERATED = [("card-rename-trimmed-on-store", "CARD-NAME-AS-SENT", "standard", "property"),
             ("project-missing-updatedAt", "PROJECT-TOP-LEVEL", "quick", "stateful")]


@pytest.mark.parametrize(("name", "select", "budget", "kind"), GENERATED,
                         ids=[g[0] for g in GENERATED])
def test_generated_failures_reproduce_by_the_check_that_failed(name, select, budget, kind,
                                                               tmp_path):
    """A property test's failure (op 16 answered the name sent but stored it trimmed) and a
    stateful test's (a Project without updatedAt) are judged again by the condition that
    failed, never by the whole answer: exit 1 on the fault, 0 on the reference, whose
    answers hold other ids and names (the issue: 'NOT REPRODUCED' on the faulty server)."""
    result = certify(BY_NAME[name], tmp_path, budget=budget, select=select,
                     extra=("-k", "test_properties"))
    report = json.loads((tmp_path / "report" / "compliance.json").read_text())
    chosen = [t for t in report["tests"] if t.get("reproduction") and
              ("TestBoardWorkflow" in t["nodeid"]) == (kind == "stateful")][:2]
    assert chosen, result.summary()
    for test in chosen:
        kinds = {c["kind"] for s in test["reproduction"]["steps"]
                 for c in s.get("conditions", [])}
        assert kinds and "answer" not in kinds, (test["nodeid"], kinds)
        path = tmp_path / "report" / script.relative_path(test["nodeid"])
        for variant, wanted in ((BY_NAME[name], 1), (reference(), 0)):
            with serving(variant, KEY) as base_url:
                done = run_script(path, base_url)
            assert done.returncode == wanted, f"{variant.name} {path.name}:\n{done.stdout}"


def test_no_key_in_any_file_of_the_report(runs):
    """The key of a run is in no script nor any other file of its report (every key
    harness.certify makes starts with "variant-": not even that is there); the scripts read it
    from BOARDCERT_API_KEY."""
    for report in runs.values():
        for path in report.rglob("*"):
            if path.is_file():
                assert "variant-" not in path.read_text(encoding="utf-8", errors="replace"), path
        for path in (report / script.DIRECTORY).glob("*.py"):
            assert 'os.environ.get("BOARDCERT_API_KEY"' in path.read_text(encoding="utf-8")


def test_the_script_deletes_what_it_made(runs):
    """After the script, each project it made answers 404 (it deleted them, newest first)."""
    path = next(p for p in scripts(runs["plugin-data-not-stored"]) if "stored_value" in p.name)
    with serving(reference(), KEY) as base_url:
        done = run_script(path, base_url)
        deleted = re.findall(r"^clean-up: DELETE (\S+) -> 200", done.stdout, re.MULTILINE)
        made = re.findall(r"POST /organizations/\S+/projects -> 200", done.stdout)
        assert deleted and len([d for d in deleted if d.startswith("/projects/")]) == len(made)
        assert any(d.startswith("/plugins/") for d in deleted)  # the plugin data too
        for where in deleted:  # plugin data is read by op 27, with entityId in the query
            read = re.sub(r"^/plugins/([^/]+)/entities/([^/]+)/data/(.+)$",
                          r"/plugins/\1/data/\3?entityId=\2", where)
            assert httpx.get(f"{base_url}{read}", headers={"X-API-Key": KEY}).status_code == 404


def test_a_server_with_other_bodies_and_ids(tmp_path: Path):
    """A server whose bodies and ids differ from the reference's (no profile: the run found
    its bodies) is reproduced with the bodies the run sent and its own ids."""
    others = [BY_NAME["uuid-ids-extra-fields"], BY_NAME["bodies-elsewhere"]]
    faulty = combined("other-bodies-rename", *others, BY_NAME["card-rename-not-saved"])
    result = certify(faulty, tmp_path, select="CARD-RENAME")
    assert result.statuses["CARD-RENAME"] == "failed", result.summary()
    report = tmp_path / "report"
    (path,) = (report / script.DIRECTORY).glob("*.py")
    for variant, wanted in ((faulty, 1), (combined("other-bodies", *others), 0)):
        with serving(variant, KEY) as base_url:
            done = run_script(path, base_url)
            assert done.returncode == wanted, done.stdout + done.stderr
            assert re.search(r"/cards/[0-9a-f-]{36} -> 200", done.stdout)  # its UUIDs


def test_boardcert_reproduce_runs_the_script(runs, capfd):
    """`boardcert reproduce REPORT TEST` finds the test by a part of its node id, in a report
    directory, its compliance.json or a bundle, and exits as the script does; a test it
    cannot name is a usage error."""
    report = runs["card-rename-not-saved"]
    zipped = bundle.create(report)
    with serving(BY_NAME["card-rename-not-saved"], KEY) as faulty, \
            serving(reference(), KEY) as fine:
        for where in (report, report / "compliance.json", zipped):
            assert main(["reproduce", str(where), "test_rename_renames", "--base-url", faulty,
                         "--api-key", KEY]) == 1
        assert main(["reproduce", str(report), "suites/test_cards.py::test_rename_renames_the_card",
                     "--base-url", fine, "--api-key", KEY]) == 0
    capfd.readouterr()
    assert main(["reproduce", str(report), "no-such-test", "--api-key", KEY]) == 2
    assert "no failed test of the report is 'no-such-test'" in capfd.readouterr().err
    assert main(["reproduce", str(report / "nothing-here"), "x"]) == 2
    assert main(["reproduce", str(report), "test_rename_renames", "--print"]) == 0
    printed = capfd.readouterr().out
    assert printed.startswith("#!/usr/bin/env python3") and KEY not in printed


# --- --keep-failed ---------------------------------------------------------------------------

class Projects:
    """The ids of the projects op 2 made, recorded in front of a variant."""

    def __init__(self) -> None:
        self.made: list[str] = []

    async def handle(self, request: Request, forward: Forward) -> Response:
        answer = await forward(request)
        body = answer.json()
        if request.op == 2 and answer.status == 200 and isinstance(body, dict):
            self.made.append(str(body.get("id")))
        return answer

    def variant(self) -> Variant:
        return Variant("projects-recorded", "", None, lambda _key: self.handle)


@contextmanager
def recorded(variant: Variant) -> Iterator[tuple[str, Projects]]:
    projects = Projects()
    with serving(combined(f"{variant.name}-recorded", projects.variant(), variant), KEY) as url:
        yield url, projects


def test_keep_failed_leaves_what_failed_tests_used(tmp_path: Path, monkeypatch, capsys):
    """With --keep-failed the failed test's project stays (its curl line answers as in the
    run, not 404), every other project is deleted, the report lists what stayed, and
    `boardcert cleanup` deletes it, on the server the report names (no --base-url needed;
    without a key it names --api-key alone)."""
    monkeypatch.delenv("BOARDCERT_API_KEY", raising=False)
    monkeypatch.delenv("BOARDCERT_BASE_URL", raising=False)
    with recorded(BY_NAME["card-rename-not-saved"]) as (base_url, projects):
        command = [*suite_command(base_url, DEFAULT_PROFILE, tmp_path, "quick", "CARD-RENAME"),
                   "--keep-failed"]
        subprocess.run(command, env=_env(KEY), cwd=ROOT, capture_output=True, timeout=600)
        report = json.loads((tmp_path / "compliance.json").read_text())
        kept = {r["params"]["projectId"] for r in report["kept"]}
        assert kept and kept < set(projects.made)
        for project in projects.made:
            status = httpx.get(f"{base_url}/projects/{project}",
                               headers={"X-API-Key": KEY}).status_code
            assert status == (200 if project in kept else 404), project
        failed = next(t for t in report["tests"] if t["outcome"] == "failed")
        curl = re.sub(r"(?i)'x-api-key: \*\*\*'", shlex.quote(f"X-API-Key: {KEY}"),
                      failed["evidence"][-1]["curl"])  # the key put back, as the README says
        answer = json.loads(subprocess.run(curl, shell=True, capture_output=True,
                                           text=True).stdout)
        assert answer["id"] == failed["evidence"][-1]["url"].rsplit("/", 1)[1]
        html = (tmp_path / "compliance.html").read_text()
        assert "boardcert cleanup" in html and all(f"/projects/{p}" in html for p in kept)
        for path in tmp_path.rglob("*"):
            if path.is_file():
                assert KEY not in path.read_text(encoding="utf-8", errors="replace"), path
        capsys.readouterr()
        assert main(["cleanup", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert "--api-key (or BOARDCERT_API_KEY) is required" in err and base_url in err
        assert "--base-url is required" not in err
        assert main(["cleanup", str(tmp_path), "--api-key", KEY]) == 0
        for project in kept:
            assert httpx.get(f"{base_url}/projects/{project}",
                             headers={"X-API-Key": KEY}).status_code == 404


def test_a_refused_key_names_the_key(runs, capfd):
    """`boardcert reproduce` with a wrong key cannot make what the failure needs (exit 3) and
    says the key may be wrong, naming --api-key and BOARDCERT_API_KEY."""
    with serving(BY_NAME["card-rename-not-saved"], KEY) as faulty:
        assert main(["reproduce", str(runs["card-rename-not-saved"]), "test_rename_renames",
                     "--base-url", faulty, "--api-key", "wrong-" + KEY]) == 3
    last = capfd.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("NOT FINISHED: step 1 ") and "is the key right?" in last
    assert "--api-key" in last and "BOARDCERT_API_KEY" in last


def test_without_keep_failed_nothing_is_kept(runs):
    """A run without --keep-failed leaves nothing, and says so to `boardcert cleanup`."""
    report = json.loads((runs["card-rename-not-saved"] / "compliance.json").read_text())
    assert "kept" not in report
    assert main(["cleanup", str(runs["card-rename-not-saved"])]) == 0


# --- the engine's judgement, without a server ------------------------------------------------

def answer(status: int, body: Any) -> answers.Answer:
    return answers.Answer(status, {"content-type": "application/json"},
                         json.dumps(body).encode())


def judged(condition: dict[str, Any], got: answers.Answer, *readings: answers.Answer) -> bool:
    replay = engine.Replay({"names": {}, "timeout": 1, "max_body": 1 << 20}, "http://x", "k")
    replay.ids = {"card1": "77"}
    return replay.judge(condition, got, list(readings))[0]


def test_conditions_hold_only_on_the_failure():
    """Each kind of condition holds on an answer that shows the failure, not on one without."""
    card = {"id": "77", "name": "new", "url": "/c/77", "metadata": [{"id": "k", "value": "1"}]}
    cases = [
        ({"kind": "status", "want": "4xx"}, answer(200, {}), answer(422, {})),
        ({"kind": "status", "want": "200"}, answer(404, {}), answer(200, {})),
        ({"kind": "status-was", "was": 500}, answer(500, {}), answer(400, {})),
        ({"kind": "missing", "at": ["updatedAt"]}, answer(200, {}), answer(200, {"updatedAt": 1})),
        ({"kind": "present", "at": ["user", "accessTokens"]},
         answer(200, {"user": {"accessTokens": []}}), answer(200, {"user": {}})),
        ({"kind": "type", "at": ["url"], "want": ["string"]}, answer(200, {"url": None}),
         answer(200, card)),
        ({"kind": "value", "at": ["name"], "want": "new"}, answer(200, {"name": "old"}),
         answer(200, card)),
        ({"kind": "value", "at": ["id"], "want": {"$boardcert": [{"id": "card1"}]}},
         answer(200, {"id": "78"}), answer(200, {"id": 77})),
    ]
    for condition, failing, passing in cases:
        assert judged(condition, failing), condition
        assert not judged(condition, passing), condition
    read = answer(200, {"name": "a", "updatedAt": "1"})
    moved = answer(200, {"name": "a", "updatedAt": "2"})
    changed = {"kind": "changed"}
    assert judged(changed, answer(400, {}), read, read, answer(200, {"name": "b"}))
    assert not judged(changed, answer(400, {}), read, moved, moved)  # it moves on its own
    assert judged({"kind": "no-answer"}, answers.Answer(failure="timeout", error="late"))
    replay = engine.Replay({"names": {}, "timeout": 1, "max_body": 1 << 20}, "http://x", "k")
    assert replay.judge({"kind": "missing", "at": ["plugins"], "status": 200},
                        answer(404, {"error": "no such plugin"}), [])[0] is None  # unjudged
    same = {"kind": "answer", "answer": {"status": 200, "json": {
        "id": {"$boardcert": [{"id": "card1"}]}, "at": "2024-01-01T00:00:00Z"}}}
    for other in (answer(200, {"id": "77", "at": "2025-02-02T10:00:00.5Z"}),
                  answer(200, {"id": "77"}), answer(404, {})):
        assert judged(same, other) is None  # a failure that names no condition: never judged


def test_not_reproduced_only_when_a_condition_was_judged(capsys):
    """A script whose failure named only its answer says NOT FINISHED (exit 3), never NOT
    REPRODUCED nor REPRODUCED: the answer, the same or another, does not show whether the
    failed check holds (a time, a name may be just what failed)."""
    recipe = {"test": "t::x", "message": "[X] failed", "base_url": "http://127.0.0.1:9",
              "timeout": 1, "max_body": 1 << 20, "ids": {}, "names": {}, "steps": [{
                  "method": "GET", "label": "op 1", "op": 1, "path": ["/users/me"],
                  "query": [], "key": None, "headers": {}, "body": None, "shown": True,
                  "conditions": [{"kind": "answer",
                                  "answer": {"status": 200, "json": {"a": 1}}}]}]}
    lines: list[str] = []
    with serving(reference(), KEY) as base_url:
        code = engine.main(recipe, ["--base-url", base_url], lines.append)
    assert code == engine.UNFINISHED and lines[-1].startswith("NOT FINISHED: step 1: "), lines
    assert "its answer proves neither way" in lines[-1]


def test_script_names_are_file_names():
    """A script's name is the test's, readable; parameters and long ids get a short hash."""
    assert script.script_name("suites/test_cards.py::test_rename_renames_the_card") == \
        "test_cards-test_rename_renames_the_card.py"
    named = script.script_name("suites/test_x.py::test_y[POST /a/{b} é" + "x" * 200 + "]")
    assert re.fullmatch(r"test_x-test_y_POST_a_b_[\w.-]{40,80}-[0-9a-f]{6}\.py", named)
