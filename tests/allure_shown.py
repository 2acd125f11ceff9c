"""What Allure shows of a directory of allure-results, test by test, with what differs from
run to run normalized (uuids, times, file names, ports, addresses, boardcert's random names):
for comparing the results of two runs (tests/speed/test_allure_listener.py,
benchmarks/allure_same.py)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

# The tear-down wrapper's frame first: in a checkout under /tmp its path is <tmp> after that.
PATTERNS = [(re.compile(r'  File "[^"]*(allure_commons/_allure|boardcert/speed/allure_listener)'
                        r'\.py", line \d+, in \w+\n.*\n( *\^+\n)?'), "  <tear-down wrapper>\n"),
            (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<uuid>"),
            (re.compile(r"127\.0\.0\.1:\d+"), "127.0.0.1:<port>"),
            (re.compile(r"0x[0-9a-f]{6,}"), "0x<address>"),
            (re.compile(r"/tmp/[^\s'\"]+"), "<tmp>"),
            (re.compile(r"\bbc-([a-z]+)-[0-9a-f]{8,}"), r"bc-\1-<random>"),  # boardcert's names
            (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?"), "<timestamp>"),
            (re.compile(r"\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT"), "<date>"),
            (re.compile(r"\b\d+(\.\d+)? ?ms\b"), "<ms>"),
            (re.compile(r"(x-schemathesis-testcaseid: )\w+"), r"\1<id>"),
            (re.compile(r'("userToken": ?")[^"]+'), r"\1<token>")]  # the server's tokens



def _text(value: str) -> str:
    for pattern, replacement in PATTERNS:
        value = pattern.sub(replacement, value)
    return value


def _attachments(found: list[dict[str, Any]], directory: Path) -> list[dict[str, Any]]:
    return [{"name": _text(a.get("name", "")), "type": a.get("type"),
             "content": _text((directory / a["source"]).read_text(errors="replace"))}
            for a in found]


def _steps(steps: list[dict[str, Any]], directory: Path) -> list[dict[str, Any]]:
    return [{"name": _text(s.get("name", "")), "status": s.get("status"),
             "statusDetails": _details(s.get("statusDetails")),
             "parameters": s.get("parameters", []),
             "attachments": _attachments(s.get("attachments", []), directory),
             "steps": _steps(s.get("steps", []), directory)} for s in steps]


def _details(details: dict[str, Any] | None) -> dict[str, str] | None:
    return {k: _text(str(v)) for k, v in details.items()} if details else None


def _fixture(found: dict[str, Any]) -> tuple[str, str, str]:
    return found["name"], found.get("status", ""), json.dumps(_details(
        found.get("statusDetails")), sort_keys=True)


def shown(directory: Path) -> dict[str, Any]:
    """What Allure shows of the results in `directory`, by test; and the fixtures of
    containers that name no test."""
    results = [json.loads(p.read_text()) for p in directory.glob("*-result.json")]
    containers = [json.loads(p.read_text()) for p in directory.glob("*-container.json")]
    keys = {r["uuid"]: f"{r.get('fullName')} | {r['name']} | "
                       f"{json.dumps(r.get('parameters', []), sort_keys=True)}" for r in results}
    tests: dict[str, Any] = {}
    for r in results:
        labels = sorted((label["name"], re.sub(r"^\d+-", "<pid>-", label["value"])
                         if label["name"] == "thread" else label["value"])
                        for label in r.get("labels", []))
        tests[keys[r["uuid"]]] = {
            "name": r["name"], "status": r.get("status"),
            "statusDetails": _details(r.get("statusDetails")), "labels": labels,
            "parameters": r.get("parameters", []), "historyId": r.get("historyId"),
            "testCaseId": r.get("testCaseId"), "fullName": r.get("fullName"),
            "titlePath": r.get("titlePath"), "description": r.get("description"),
            "links": r.get("links", []), "steps": _steps(r.get("steps", []), directory),
            "attachments": _attachments(r.get("attachments", []), directory),
            "befores": [], "afters": []}
    orphans: Counter[tuple[str, str, str]] = Counter()
    for c in containers:
        befores = [_fixture(f) for f in c.get("befores", [])]
        afters = [_fixture(f) for f in c.get("afters", [])]
        if not c.get("children"):
            orphans.update(befores + afters)
        for child in c.get("children", []):
            test = tests[keys[child]] if child in keys else None
            if test is None:
                orphans[("(a child that is no result)", child, "")] += 1
                continue
            test["befores"] += befores
            test["afters"] += afters
    for test in tests.values():
        test["befores"].sort()
        test["afters"].sort()
    return {"tests": tests, "orphans": orphans, "results": len(results),
            "containers": len(containers), "files": len(list(directory.iterdir()))}


def differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What differs between two `shown`, test by test."""
    found = []
    for key in sorted(old["tests"].keys() | new["tests"].keys()):
        a, b = old["tests"].get(key), new["tests"].get(key)
        if a is None or b is None:
            found.append(f"{key}: only in the {'new' if a is None else 'old'} run")
            continue
        for field in a:
            if a[field] != b[field]:
                found.append(f"{key}: {field}\n{_where(str(a[field]), str(b[field]))}")
    if old["orphans"] != new["orphans"]:
        found.append(f"fixtures of containers that name no test: old - new "
                     f"{dict(old['orphans'] - new['orphans'])}, new - old "
                     f"{dict(new['orphans'] - old['orphans'])}")
    return found


def _where(old: str, new: str, around: int = 150) -> str:
    """Where two texts part: around their first difference."""
    at = next((n for n, (x, y) in enumerate(zip(old, new, strict=False)) if x != y),
              min(len(old), len(new)))
    start = max(0, at - around)
    return f"    old ...{old[start:at + around]}...\n    new ...{new[start:at + around]}..."
