"""What several test modules build with (plain values and functions; the fixtures they share
are in tests/conftest.py): synthetic results and compliance reports, a report directory as a
run leaves it and its attestation plan, a bundle rewritten as a tamperer would, `boardcert`
in a child process and where the key leaked, and a client whose every answer comes late."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

from boardcert.http.client import Client, Exchange
from boardcert.interface import requirements, spec
from boardcert.outputs import attestations, badge, bundle, statements
from boardcert.outputs.report import ReportedRun, TestResult, build
from boardcert.paths import OPENAPI, REQUIREMENTS, ROOT
from boardcert.settings.config import load_profile, resolve

NOW = datetime(2026, 11, 22, 12, 1, 0, tzinfo=UTC)  # when the synthetic bundles are made


EVIDENCE = Exchange(
    "PATCH", "http://127.0.0.1:8080/projects/p1/cards/c1",
    {"X-API-Key": "***", "content-type": "application/json"}, b'{"name": "xxxx"}', status=200,
    headers={"content-type": "application/json"}, content=b'{"id": "c1", "name": "xxxx"}',
    elapsed=0.003).as_dict()


FAILURE = "[CARD-NAME-MAX-REJECTED] expected a 4xx for a name of 25001 characters; got status 200"


def catalogue() -> dict[str, requirements.Requirement]:
    return requirements.catalogue()


def passing(req_id: str) -> TestResult:
    req = catalogue()[req_id]
    return TestResult(f"suites/test_x.py::test_{req_id.lower()}", "passed", (req_id,),
                      req.operations)


def all_passing(*but: str) -> list[TestResult]:
    return [passing(i) for i in catalogue() if i not in but]


def reported_run() -> ReportedRun:
    started = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)
    profile = load_profile()
    return ReportedRun(started=started, finished=started + timedelta(seconds=42.5),
               base_url="http://127.0.0.1:8080", reference_server=False,
               profile_name=profile.name, profile_path=None,
               profile_content=profile.data)


def sample_tests(kind: str) -> list[TestResult]:
    """Results that give the verdict `kind`, with failures, skips and observations."""
    tests = all_passing("CARD-NAME-MAX-REJECTED", "CARD-RENAME", "PROJECT-DELETE", "ID-FORMAT")
    tests.append(TestResult("suites/test_projects.py::test_delete", "skipped",
                            ("PROJECT-DELETE",), (4,), "not assessed: bodies.delete_project"))
    tests.append(TestResult("suites/test_ids.py::test_ids", "passed", ("ID-FORMAT",), (2, 15),
                            observations=(("ID-FORMAT", "ids are numeric strings"),),
                            security_observations=(("AUTH-UNLISTED-OBSERVED",
                                                    "op 25 is open without a key"),)))
    if kind == "non-conformant":
        tests.append(TestResult("suites/test_cards.py::test_name_25001", "failed",
                                ("CARD-NAME-MAX-REJECTED",), (16,), FAILURE, (EVIDENCE,),
                                blamed=("CARD-NAME-MAX-REJECTED",)))
    else:
        tests.append(passing("CARD-NAME-MAX-REJECTED"))
    if kind in ("non-conformant", "conformant with warnings"):
        tests.append(TestResult("suites/test_cards.py::test_rename", "failed", ("CARD-RENAME",),
                                (16,), "[CARD-RENAME] expected the name to be 'b'; got 'a'"))
    else:
        tests.append(passing("CARD-RENAME"))
    if kind == "incomplete":
        tests = [t for t in tests if "SUCCESS-STATUS-200" not in t.requirements]
    return tests


def sample_report(kind: str) -> dict:
    return build(sample_tests(kind), reported_run())


STARTED = "2026-11-22T12:00:00Z"


def synthetic_report(failed: tuple[str, ...] = (), not_assessed: tuple[str, ...] = (),
                     started: str = STARTED) -> dict:
    """A compliance report shaped as spec/compliance.schema.json describes: every requirement
    passed but those named; operations follow their failed requirements."""
    reqs = []
    for req in requirements.catalogue().values():
        status = "failed" if req.id in failed else \
            "not assessed" if req.id in not_assessed else "passed"
        node = f"suites/test_x.py::test_{req.id.lower().replace('-', '_')}"
        reqs.append({
            "id": req.id, "level": req.level, "title": req.title, "text": req.text,
            "section": req.section, "quote": req.quote, "operations": list(req.operations),
            "status": status, "message": None if status == "passed" else f"{req.id} {status}",
            "tests": [] if status == "not assessed" else [{"nodeid": node, "outcome": status}],
            "failures": [{"test": node, "message": "no"}] if status == "failed" else [],
        })
    levels = {}
    for level in (*requirements.LEVELS, "all"):
        mine = [r for r in reqs if level in ("all", r["level"])]
        levels[level] = {s: sum(r["status"] == s for r in mine)
                         for s in ("passed", "failed", "not assessed")} | {"total": len(mine)}
    ops = []
    for op in spec.operations().values():
        bad = sorted(r["id"] for r in reqs if r["status"] == "failed" and r["level"] != "INFO"
                     and op.number in r["operations"])
        ops.append({"number": op.number, "method": op.method, "path": op.path,
                    "operationId": op.operation_id, "auth_required": op.auth_required,
                    "status": "failed" if bad else "passed", "failed_requirements": bad,
                    "outcomes": {"passed": 1, "failed": 0, "error": 0, "skipped": 0},
                    "tests": []})
    tests = [{"nodeid": t["nodeid"], "outcome": t["outcome"], "requirements": [r["id"]],
              "operations": r["operations"],
              "failed_requirements": [r["id"]] if r["status"] == "failed" else [],
              "duration_seconds": 0.1, "message": r["message"], "evidence": None}
             for r in reqs for t in r["tests"]]
    verdict, reason = _decide(levels)
    return {
        "format": "boardcert-compliance/1",
        "suite": {"name": "boardcert", "version": "0.1.0"},
        "interface_version": "0.0.1",
        "target": {"base_url": "http://127.0.0.1:8080", "reference_server": False},
        "profile": {"name": "reference", "path": None, "content": {}},
        "started": started, "finished": started.replace("12:00:00", "12:00:42"),
        "duration_seconds": 42.0, "verdict": verdict, "verdict_reason": reason,
        "counts": {"requirements": levels,
                   "operations": {s: sum(o["status"] == s for o in ops)
                                  for s in ("passed", "failed", "not assessed")},
                   "tests": {"passed": len(tests), "failed": 0, "error": 0, "skipped": 0,
                             "total": len(tests)},
                   "observations": 0},
        "requirements": reqs, "operations": ops, "observations": [], "tests": tests,
        "collection_errors": [],
    }


def _decide(levels: dict) -> tuple[str, str]:
    """The verdict of the conformance policy, section 4."""
    if levels["MUST"]["failed"]:
        return "non-conformant", "a MUST requirement failed"
    if levels["MUST"]["not assessed"]:
        return "incomplete", "a MUST requirement was not assessed"
    if levels["SHOULD"]["failed"]:
        return "conformant with warnings", "a SHOULD requirement failed"
    return "conformant", "all MUST and SHOULD requirements that were assessed passed"


def rewrite(path: Path, change: Callable[[dict[str, bytes]], None]) -> Path:
    """The same bundle with its entries changed by `change` (a tamperer with zip tools)."""
    with zipfile.ZipFile(path) as old:
        entries = {name: old.read(name) for name in old.namelist()}
    change(entries)
    path.unlink()
    with zipfile.ZipFile(path, "w") as new:
        for name, content in entries.items():
            new.writestr(name, content)
    return path


BUILD = statements.Subject("ghcr.io/acme/board", "ab" * 32)


def report_dir(tmp_path: Path, **report_args) -> Path:
    """A report directory as a run leaves it (synthetic content)."""
    directory = tmp_path / "run"
    directory.mkdir()
    report = synthetic_report(**report_args)
    report["profile"]["content"] = {"organization": "discover"}
    report["run"] = {"budget": "quick", "seed": 7, "versions": {}, "options": ["run"]}
    (directory / "compliance.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    badge.write(report, directory)
    return directory


def plan_for(directory: Path, key: Path | None, subjects: tuple = (BUILD,),
             strict: bool = False) -> attestations.Plan:
    return attestations.Plan(
        list(subjects), "1.2.3" if subjects else None, strict,
        bundle.load_private_key(key) if key else None,
        json.loads((directory / "compliance.json").read_bytes()),
        {"openapi": bundle.sha256(OPENAPI.read_bytes()),
         "requirements": bundle.sha256(REQUIREMENTS.read_bytes())})


KEY = "bcKEY-distinctive-5f0c2e9a71"  # must never be written anywhere


def boardcert(*args: str, env: dict[str, str] | None = None,
              patch: str = "") -> subprocess.CompletedProcess[str]:
    """`boardcert ARGS` in a child process from the checkout (`patch`: Python run first)."""
    code = f"import sys, boardcert.cli as cli\n{patch}\nsys.exit(cli.main(sys.argv[1:]))"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("BOARDCERT_")}
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, text=True,
                          capture_output=True, timeout=180, env=environment | (env or {}))


def leaks(directory: Path, *texts: str) -> list[str]:
    """Every file under `directory`, and each text, that contains the key."""
    found = [str(p) for p in directory.rglob("*") if p.is_file() and KEY.encode() in
             p.read_bytes()]
    return found + [f"console: ...{t[t.index(KEY) - 80:t.index(KEY) + 20]}..."
                    for t in texts if KEY in t]


LATE_KEY = "concurrency-test-key-9d1"


def late_client(seconds: float) -> tuple[Client, list[int]]:
    """A client over a transport that answers every request `seconds` late; the most requests
    it saw in flight at once."""
    busy, most, lock = [0], [0], threading.Lock()

    def handler(request: httpx.Request) -> httpx.Response:
        with lock:
            busy[0] += 1
            most[0] = max(most[0], busy[0])
        time.sleep(seconds)
        with lock:
            busy[0] -= 1
        if request.url.path.endswith("/broken"):
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(200, json={"path": request.url.path})

    target = resolve({"base_url": "http://127.0.0.1:9", "api_key": LATE_KEY}, {})
    return Client(target, transport=httpx.MockTransport(handler)), most
