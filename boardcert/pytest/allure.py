"""What Allure shows of a run (a pytest plugin module, loaded with boardcert.pytest.plugin; inert
without `--alluredir`).

- Identity: Allure merges results that share a `historyId` into one test with retries.
  allure-pytest derives it from the test function's name and the pytest parameters, so every
  schemathesis `test_operation[...]` item would share one; each gets the parameters operation,
  method and path, so Allure counts what JUnit counts.
- Labels where they mean something: epic (the interface), a feature per operation for a test
  of a few operations, a story per requirement, the level as severity and tag; the marker
  tags boardcert adds for `-m` (`op16`, requirement ids) are dropped (they repeat the labels).
- Each exchange of a test is a step (`GET /users/me -> 200`), the failure's own marked failed;
  a property test's or the state machine's failing example (sent by schemathesis, not
  boardcert's client) a step too. A failed test's steps carry their request (with its curl
  line) and response attached, and the test its failure's exchanges (failures.py).
- `environment.properties` and `executor.json` beside the results: target, versions, budget,
  seed, profile file and its SHA-256. Never the key; no directory of the machine that ran it
  in any result (tracebacks show paths relative to the rootdir).

Hooks, not autouse fixtures, so that Allure shows no set-up or tear-down of boardcert's own.
Labels, parameters and steps are put on the test's result directly (allure.dynamic would go
through allure's hooks for each), through allure-pytest's reporter of the running test
(boardcert.compat_fallbacks.allure_reporter, checked as the run starts): when it does not fit
the installed allure-pytest, the results are allure-pytest's own and the run facts say so.
allure-pytest's listener and file writer are the speed plugin's (boardcert.speed), or its own.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from boardcert import INTERFACE_VERSION
from boardcert.compat import operation_label
from boardcert.compat_fallbacks import allure_reporter
from boardcert.http.evidence import request_text, response_text
from boardcert.interface import requirements, spec
from boardcert.outputs.record import Record
from boardcert.paths import without_machine_paths
from boardcert.pytest.failures import RECORDED
from boardcert.pytest.markers import item_operations, requirement_ids
from boardcert.pytest.stash import ALLURE_WRITTEN, TARGET
from boardcert.pytest.target import exchanges_of
from boardcert.settings import roles, run_facts
from boardcert.settings.run import in_session

SEVERITY = {"MUST": "critical", "SHOULD": "normal", "INFO": "trivial"}
FEATURES_SHOWN = 3  # a test of more operations is one feature, not one per operation
SEVERAL = "across operations"
ENVIRONMENT, EXECUTOR = "environment.properties", "executor.json"
STEPS_SHOWN = 50  # a test's last exchanges shown as steps (its failure's own always)
# Each attachment is a file: for every exchange of a passing test, 2,700 more files in a
# conformant run (1 to 3 s on a loaded disk). A passing test's steps go without.
ATTACH_PASSING = False


def _enabled(config: pytest.Config) -> bool:
    return config.pluginmanager.has_plugin("allure_listener")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    """Before allure-pytest computes the historyId (after its teardown): parameters and
    labels, put on the test's result as allure.dynamic would (without its hooks); after it:
    the marker tags dropped."""
    reporter = allure_reporter(item.config.pluginmanager.get_plugin("allure_listener"))
    test = reporter.get_test(None) if reporter is not None else None
    if test is None:
        return (yield)
    from allure_commons.model2 import Label, Parameter
    from allure_commons.utils import represent

    for name, value in parameters(item).items():
        shown = next((p for p in test.parameters if p.name == name), None)
        if shown is not None:
            shown.value = represent(value)
        else:
            test.parameters.append(Parameter(name=name, value=represent(value)))
    test.labels += [Label(name, value) for name, values in labels(item).items()
                    for value in values]
    record_exchanges(item, reporter, test)
    try:
        return (yield)
    finally:
        _drop_marker_tags(item, test)


def parameters(item: pytest.Item) -> dict[str, Any]:
    """The operation of a schemathesis item (they share one test function), else nothing:
    pytest's own parameters already tell parametrized tests apart."""
    number = spec.labels().get(operation_label(item) or "")
    if number is None:
        return {}
    op = spec.operation(number)
    return {"operation": number, "method": op.method, "path": op.path}


def labels(item: pytest.Item) -> dict[str, list[str]]:
    """Allure labels of a conformance test (one that names requirements), by label name."""
    ids = requirement_ids(item)
    if not ids:
        return {}
    catalogue = requirements.catalogue()
    ops = item_operations(item)
    level = min((catalogue[i].level for i in ids), key=requirements.LEVELS.index)
    features = [f"op {n:02d}: {spec.operation(n).label}" for n in ops] \
        if len(ops) <= FEATURES_SHOWN else [f"{SEVERAL} ({len(ops)})"]
    return {
        "epic": [f"Board Project Service Interface {INTERFACE_VERSION}"],
        "feature": features,
        "story": [f"{i}: {catalogue[i].title}" for i in ids],
        "requirement": ids,
        "operation": [str(n) for n in ops],
        "level": [level],
        "severity": [SEVERITY[level]],
        "tag": [level],
    }


def record_exchanges(item: pytest.Item, logger: Any, test: Any) -> None:
    """The test's exchanges as steps of its Allure result; the failure's own (its evidence)
    marked failed, broken for a test that broke; a failed test's steps with their request and
    response attached."""
    from allure_commons.model2 import TestStepResult
    from allure_commons.types import AttachmentType
    from allure_commons.utils import now

    found = item.stash.get(RECORDED, Record())
    evidence = json.loads(json.dumps(found.evidence))  # as the report carries it
    failing = "broken" if found.error else "failed"
    attach = ATTACH_PASSING or bool(evidence)
    made = [e.as_dict() if attach else  # as_dict makes the curl line: only for attachments
            {"method": e.method, "url": e.url, "status": e.status, "elapsed_ms": e.elapsed * 1000}
            for e in exchanges_of(item)]
    shown = [x for n, x in enumerate(made) if n >= len(made) - STEPS_SHOWN or x in evidence]
    if len(shown) < len(made):
        test.steps.append(TestStepResult(
            name=f"{len(made) - len(shown)} earlier exchanges (not shown)", status="skipped",
            start=now(), stop=now()))
    shown += [x for x in evidence if x not in made]  # schemathesis sent it, or an earlier test
    for x in shown:
        started = now()
        target = urlsplit(x["url"])
        path = target.path + (f"?{target.query}" if target.query else "")
        step = TestStepResult(
            name=f"{x['method']} {path} -> {x['status'] or 'no response'}",
            status=failing if x in evidence else "passed", start=started,
            stop=started + round(x.get("elapsed_ms") or 0))
        if not attach:  # what allure's reporter would do, without its bookkeeping
            test.steps.append(step)
            continue
        logger.start_step(test.uuid, step_uuid := uuid.uuid4().hex, step)
        for name, text in (("request", request_text), ("response", response_text)):
            logger.attach_data(uuid.uuid4().hex, text(x), name=name,
                               attachment_type=AttachmentType.TEXT, parent_uuid=step_uuid)
        logger.stop_step(step_uuid)


def _drop_marker_tags(item: pytest.Item, result: Any) -> None:
    """The tags allure-pytest makes of the markers boardcert adds (`op16`, requirement ids)."""
    added = {*requirement_ids(item), *(f"op{n}" for n in item_operations(item))}
    result.labels = [label for label in result.labels
                     if not (label.name == "tag" and label.value in added)]


# --- environment and executor ------------------------------------------------------------

@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    directory = getattr(config.option, "allure_report_dir", None)
    if not directory or not _enabled(config) or roles.is_worker(config):
        return
    write_environment(Path(directory), environment(config))  # the key: pytest.masked
    done = config.stash.get(ALLURE_WRITTEN, set())  # saved with the paths replaced
    for path in Path(directory).iterdir():  # every worker's results are written by now
        if path.is_file() and path.name not in done:
            text = path.read_text(encoding="utf-8", errors="surrogateescape")
            shown = without_machine_paths(text, config.rootpath)
            if shown != text:
                path.write_text(shown, encoding="utf-8", errors="surrogateescape")


def environment(config: pytest.Config) -> dict[str, str]:
    """What Allure's overview shows of the run: what was tested, with what, how."""
    target = config.stash.get(TARGET, None)
    profile = target.profile if target is not None else None
    shown = {
        "target": "the bundled reference server" if in_session(config).bundled
        else (target.base_url if target else ""),
        "interface": INTERFACE_VERSION,
        **run_facts.versions(),
        "budget": in_session(config).budget.describe(),
        "seed": str(in_session(config).seed),
        "profile": profile.name if profile else "unknown",
    }
    if profile is not None and profile.path is not None:
        shown["profile.file"] = profile.path.name  # the name only: no path of this machine
        shown["profile.sha256"] = profile.sha256 or ""
    if target is not None and target.read_only:
        shown["mode"] = "read-only"
    return shown


def executor(facts: dict[str, str]) -> dict[str, Any]:
    """Allure's executor: boardcert, and the CI build when the run is one (GitHub Actions)."""
    found: dict[str, Any] = {"name": "boardcert", "type": "boardcert",
                             "buildName": f"boardcert {facts['boardcert']} against "
                                          f"{facts['target']}",
                             "reportName": f"boardcert: {facts['target']}"}
    run_id, server = os.environ.get("GITHUB_RUN_ID"), os.environ.get("GITHUB_SERVER_URL")
    repository = os.environ.get("GITHUB_REPOSITORY")
    if run_id and server and repository:
        found.update(name="GitHub Actions", type="github",
                     buildOrder=os.environ.get("GITHUB_RUN_NUMBER", run_id),
                     buildUrl=f"{server}/{repository}/actions/runs/{run_id}")
    return found


def write_environment(directory: Path, facts: dict[str, str]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    lines = [f"{name}={_escape(value)}" for name, value in facts.items()]
    (directory / ENVIRONMENT).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (directory / EXECUTOR).write_text(json.dumps(executor(facts), indent=2) + "\n",
                                      encoding="utf-8")


def _escape(value: str) -> str:
    """A value for a .properties file (backslashes, line breaks; non-ASCII as \\uXXXX)."""
    value = value.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    return "".join(c if ord(c) < 128 else f"\\u{ord(c):04x}" for c in value)

