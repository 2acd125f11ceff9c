"""boardcert.properties and suites/test_properties.py: budgets, seed, requirement mapping, and
both directions against real servers: the reference passes, a faulty variant fails naming the
requirement it breaks, and the API key never shows."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import uvicorn

from boardcert import checks, properties, requirements, spec
from boardcert.errors import ConfigError
from boardcert.properties import arena, cases, hooks
from boardcert.reference.app import create_app
from boardcert.reference.server import free_port, start

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "suites" / "test_properties.py"


# --- budgets, seed and markers -------------------------------------------------------------

def test_budgets_by_name_and_number():
    """quick, standard and thorough are named budgets; a number is examples per operation."""
    assert properties.parse_budget(None) is properties.BUDGETS["standard"]
    assert properties.parse_budget("quick").max_examples < properties.parse_budget(
        "standard").max_examples < properties.parse_budget("thorough").max_examples
    assert properties.parse_budget("7").max_examples == 7


@pytest.mark.parametrize("value", ["fast", "0", "-3", "1.5"])
def test_an_invalid_budget_is_a_usage_error_naming_the_flag(value):
    """A bad --budget stops the run at start-up with a message naming --budget."""
    with pytest.raises(ConfigError, match="--budget"):
        properties.parse_budget(value)
    config = SimpleNamespace(option=SimpleNamespace(hypothesis_seed=None),
                             getoption=lambda name, default=None: value if name == "budget"
                             else default)
    with pytest.raises(pytest.UsageError, match="--budget"):
        hooks.pytest_configure(config)


def test_the_seed_is_fixed_unless_given():
    """Without --hypothesis-seed the seed is the default one, and Hypothesis gets it too."""
    run = properties.RUN
    saved = (run.budget, run.seed)
    try:
        for given, expected in ((None, properties.DEFAULT_SEED), ("42", 42)):
            option = SimpleNamespace(hypothesis_seed=given)
            config = SimpleNamespace(option=option, getoption=lambda name, default=None, o=option:
                                     getattr(o, name, default))
            hooks.pytest_configure(config)
            assert run.seed == expected and int(option.hypothesis_seed) == expected
            assert f"--hypothesis-seed {expected}" in hooks.pytest_report_header(config)[0]
    finally:
        run.budget, run.seed = saved


@pytest.mark.parametrize("number", range(1, 29))
def test_each_operation_names_only_known_non_info_requirements(number):
    """A per-operation item proves requirements of the catalogue, never an INFO one."""
    catalogue = requirements.catalogue()
    ids = properties.requirement_ids(number)
    assert ids and len(ids) == len(set(ids))
    assert all(catalogue[i].level != "INFO" for i in ids)
    if spec.operation(number).body_shown:
        assert "JSON-RESPONSES" in ids


def test_op16_names_its_exact_body_rules():
    """Only op 16's body is exact, so only its item claims the card-name rejections."""
    assert set(properties.NAME_REQUIREMENTS) <= set(properties.requirement_ids(16))
    assert not set(properties.NAME_REQUIREMENTS) & set(properties.requirement_ids(15))


def test_boardcert_checks_are_registered_schemathesis_checks():
    """Each check of boardcert.checks runs in schemathesis as boardcert_<name>, on the
    operations whose 200 schema it applies to only."""
    from schemathesis.checks import CHECKS

    names = set(CHECKS.get_all_names())
    assert {f"boardcert_{c.name}" for c in checks.CHECKS} <= names
    top_level, _ = properties.BOARDCERT_CHECKS["boardcert_project_top_level"]
    wrapped = _Response(200, {"project": {"id": "1"}})
    with pytest.raises(AssertionError, match="not at the top level"):
        top_level(None, wrapped, _case(3))
    top_level(None, wrapped, _case(15))  # a Card operation: not this check's business
    top_level(None, _Response(404, {}), _case(3))  # only 2xx bodies are judged


def test_failures_map_to_requirements_and_choices_left_open_are_no_failures():
    """A 201 breaks SUCCESS-STATUS-200, a 3xx does not (the interface names no status for
    it); a +json content type is JSON; a wrong one breaks JSON-RESPONSES."""
    from schemathesis.openapi.checks import UndefinedContentType, UndefinedStatusCode

    info = properties.CaseInfo(positive=True, probe=False, rejection=None)

    def status(code: int) -> str | None:
        failure = UndefinedStatusCode(operation="op", status_code=code, message="",
                                      defined_status_codes=["200"], allowed_status_codes=[200])
        return properties.requirement_of(failure, 3, info, code)

    def content_type(value: str) -> str | None:
        failure = UndefinedContentType(operation="op", content_type=value, message="",
                                       defined_content_types=["application/json"])
        return properties.requirement_of(failure, 3, info, 200)

    assert status(201) == status(204) == "SUCCESS-STATUS-200"
    assert status(302) is None
    assert content_type("application/vnd.board+json; charset=utf-8") is None
    assert content_type("text/plain") == "JSON-RESPONSES"


def test_positive_bodies_mix_profile_fuzzed_and_open_deterministically():
    """Most positive cases send the profile's body; some put a generated value into it; some
    send the generated body as it is; the choice depends on the generated body only."""
    profile_body = {"name": "bc-name"}
    generated = [{"k": i} for i in range(200)] + [[i] for i in range(200)]
    sent = [arena._mix(profile_body, g) for g in generated]
    assert sent == [arena._mix(profile_body, g) for g in generated]
    kinds = [("profile" if s == profile_body else "open" if s == g else "fuzzed")
             for s, g in zip(sent, generated, strict=True)]
    assert kinds.count("profile") > len(kinds) / 2
    assert kinds.count("open") and kinds.count("fuzzed")
    assert all(s["name"] == g for s, g, k in zip(sent, generated, kinds, strict=True)
               if k == "fuzzed")


def test_only_op16_at_exactly_25000_ascii_characters_must_be_accepted():
    """Acceptance is judged only where the interface demands it: op 16, {"name": 25000 x "a"};
    not an empty name (INFO), not emoji (SHOULD), not extra fields, not other operations."""
    def acceptance(number: int, body: Any) -> str | None:
        return cases._acceptance(SimpleNamespace(body=body, **vars(_case(number))))

    assert acceptance(16, {"name": "a" * 25000}) == "CARD-NAME-MAX-ACCEPTED"
    assert acceptance(16, {"name": "a" * 24999}) is None
    assert acceptance(16, {"name": ""}) is None
    assert acceptance(16, {"name": "\U0001F600" * 25000}) is None
    assert acceptance(16, {"name": "a" * 25000, "x": 1}) is None
    assert acceptance(15, {"name": "a" * 25000}) is None


class _Response:
    def __init__(self, status: int, body: Any) -> None:
        self.status_code, self._body = status, body

    def json(self) -> Any:
        return self._body


def _case(number: int) -> Any:
    return SimpleNamespace(operation=SimpleNamespace(definition=SimpleNamespace(
        raw={"x-operation": number})))


# --- both directions against servers -------------------------------------------------------

CARD_PATH = re.compile(r"/projects/[^/]+/cards/(?!move$|move-by-metadata$)[^/]+")
ROWS_PATH = re.compile(r"/projects/[^/]+/rows")
CARDS_PATH = re.compile(r"/projects/[^/]+/columns/[^/]+/cards")


def faulty_app(api_key: str) -> Any:
    """The reference server with three bugs, each in its own operation:
    op 7 crashes (500) on a body without `name` (it forgot rowName), op 15 answers `url: null`,
    op 16 cuts an over-long name to 25000 characters instead of rejecting it."""
    app = create_app(api_key)

    async def wrapped(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        method, path, body = scope["method"], scope["path"], await _read(receive)
        data = _loads(body)
        if method == "POST" and ROWS_PATH.fullmatch(path) and isinstance(data, dict) \
                and "name" not in data:
            return await _answer(send, 500, {"error": "KeyError: 'name'"})
        if method == "PATCH" and CARD_PATH.fullmatch(path) and isinstance(data, dict) \
                and isinstance(data.get("name"), str) and len(data["name"]) > 25000:
            body = json.dumps({**data, "name": data["name"][:25000]}).encode()
        status, headers, answer = await _forward(app, scope, body)
        if method == "POST" and CARDS_PATH.fullmatch(path) and status == 200:
            answer = json.dumps({**json.loads(answer), "url": None}).encode()
            headers = [(k, v) for k, v in headers if k != b"content-length"]
            headers.append((b"content-length", str(len(answer)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": answer})

    return wrapped


async def _read(receive: Any) -> bytes:
    body, more = b"", True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    return body


def _loads(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


async def _answer(send: Any, status: int, body: Any) -> None:
    raw = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]})
    await send({"type": "http.response.body", "body": raw})


async def _forward(app: Any, scope: dict, body: bytes) -> tuple[int, list, bytes]:
    sent = False
    answer: dict[str, Any] = {"status": 500, "headers": [], "body": b""}

    async def receive() -> dict:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict) -> None:
        if message["type"] == "http.response.start":
            answer["status"], answer["headers"] = message["status"], list(message["headers"])
        elif message["type"] == "http.response.body":
            answer["body"] += message.get("body", b"")

    headers = [(k, v) for k, v in scope["headers"] if k != b"content-length"]
    headers.append((b"content-length", str(len(body)).encode()))
    await app({**scope, "headers": headers}, receive, send)
    return answer["status"], answer["headers"], answer["body"]


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """An ASGI app served by uvicorn on a free loopback port, in a thread."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error",
                                           access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def run_suite(base_url: str, api_key: str, *args: str, budget: str = "quick") -> str:
    """The property suite against a server, in a fresh process: its output."""
    env = {**os.environ, "BOARDCERT_API_KEY": api_key}  # never on the command line
    result = subprocess.run(
        [sys.executable, "-m", "pytest", str(SUITE), "--base-url", base_url, "--budget", budget,
         "-p", "no:cacheprovider", "-q", "-rfs", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    return f"exit {result.returncode}\n{result.stdout}{result.stderr}"


def _against_reference(key: str) -> str:
    with start(key) as server:
        return run_suite(server.base_url, key)


def _against_faulty(key: str) -> str:
    with serving(faulty_app(key)) as base_url:
        return run_suite(base_url, key, "-m", "op7 or op15 or op16")


@pytest.fixture(scope="module")
def runs() -> dict[str, tuple[str, str]]:
    """Both runs at once (each is mostly start-up): name -> (API key, output)."""
    keys = {"reference": "ref-" + secrets.token_urlsafe(16),
            "faulty": "faulty-" + secrets.token_urlsafe(16)}
    with ThreadPoolExecutor(2) as pool:
        futures = {"reference": pool.submit(_against_reference, keys["reference"]),
                   "faulty": pool.submit(_against_faulty, keys["faulty"])}
        return {name: (keys[name], future.result()) for name, future in futures.items()}


def test_the_reference_server_passes_the_property_tests(runs):
    """Against the conformant reference server nothing is reported (no false alarm)."""
    key, output = runs["reference"]
    assert output.startswith("exit 0"), output[-6000:]
    assert "29 passed" in output
    assert key not in output


def test_a_faulty_server_fails_naming_the_requirements(runs):
    """Each bug fails the item of its operation with its requirement, the check, and a curl
    reproduction whose key is ***; the key itself appears nowhere."""
    key, output = runs["faulty"]
    assert output.startswith("exit 1"), output[-6000:]
    failed = {line for line in output.splitlines() if line.startswith("FAILED")}
    expected = {
        "POST /projects/{projectId}/rows]": "[NO-SERVER-ERROR] not_a_server_error",
        "POST /projects/{projectId}/columns/{columnId}/cards]":
            "[CARD-FIELD-TYPES] response_schema_conformance",
        "PATCH /projects/{projectId}/cards/{cardId}]":
            "[CARD-NAME-MAX-REJECTED] negative_data_rejection",
    }
    for item, message in expected.items():
        assert any(item in line for line in failed), (item, output[-6000:])
        assert message in output, (message, output[-6000:])
    assert "[CARD-FIELD-TYPES] boardcert_card_field_types" in output
    assert "reproduce: curl -sS -X PATCH -H 'x-api-key: ***'" in output  # as the client sent it
    assert key not in output


# --- the stateful test chooses its rules from what Hypothesis drew -------------------------

CREATES = {("POST", ROWS_PATH), ("POST", re.compile(r"/organizations/[^/]+/projects")),
           ("POST", re.compile(r"/projects/[^/]+/rows/[^/]+/columns")), ("POST", CARDS_PATH),
           ("POST", re.compile(r"/projects/[^/]+/cards/[^/]+/metadata")),
           ("POST", re.compile(r"/projects/[^/]+/plugins/[^/]+"))}


def busy_app(api_key: str) -> Any:
    """The reference server answering every second create 429 Too Many Requests: a conformant
    answer (any 4xx may refuse), but not the same one when a scenario is replayed."""
    app, count = create_app(api_key), iter(range(10**9))

    async def wrapped(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and any(
                scope["method"] == method and path.fullmatch(scope["path"])
                for method, path in CREATES) and next(count) % 2:
            return await _answer(send, 429, {"error": "slow down"})
        return await app(scope, receive, send)

    return wrapped


def test_the_workflow_does_not_depend_on_what_the_server_answered():
    """Against a server whose answers change between a scenario and its replay the stateful test
    still passes at the standard budget (schemathesis's own machine stopped with
    FlakyStrategyDefinition "while selecting a rule to run" here, for every seed tried)."""
    key = "busy-" + secrets.token_urlsafe(16)
    with serving(busy_app(key)) as base_url:
        output = run_suite(base_url, key, "-k", "Workflow", budget="standard")
    assert output.startswith("exit 0"), output[-6000:]
    assert "1 passed" in output and "Flaky" not in output, output[-6000:]


def test_a_failure_the_workflow_finds_still_fails():
    """A server fault met along a link (op 15, reached from a column the scenario created,
    answers the card id as a JSON integer) fails the stateful test naming its requirement."""
    from faults import FAULTS
    from faults import serving as serve_variant

    variant = next(v for v in FAULTS if v.name == "card-id-integer")
    key = "fault-" + secrets.token_urlsafe(16)
    with serve_variant(variant, key) as base_url:
        output = run_suite(base_url, key, "-k", "Workflow", budget="standard")
    assert output.startswith("exit 1"), output[-6000:]
    assert "[CARD-FIELD-TYPES]" in output and "op 15" in output, output[-6000:]
    assert key not in output


def test_a_scenario_that_cannot_be_replayed_is_not_assessed():
    """Hypothesis's own errors around the stateful test are a skip that says why."""
    from hypothesis.errors import FlakyStrategyDefinition

    with pytest.raises(pytest.skip.Exception, match="not assessed: .*replayed deterministically"), \
            properties.replayable():
        raise FlakyStrategyDefinition("Inconsistent data generation!")
    with pytest.raises(AssertionError), properties.replayable():
        raise AssertionError("a check failed")


def test_the_workflow_names_only_requirements_the_operations_also_assess():
    """A skipped stateful test leaves no requirement unassessed: each one it names is named by
    the items of the operations it runs."""
    named = {req for n in properties.stateful_operations() for req in properties.requirement_ids(n)}
    assert set(properties.workflow_requirements()) <= named
