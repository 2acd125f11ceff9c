"""Servers for the property tests' end-to-end runs: the reference server with bugs (faulty_app,
or any of FAULTS with `with_faults`) or with answers that change on replay (busy_app), served on
a loopback port, and the property suite run against one in a fresh process."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import uvicorn

from boardcert.reference.app import create_app

ROOT = Path(__file__).resolve().parent.parent.parent
SUITE = ROOT / "suites" / "test_properties.py"

CARD_PATH = re.compile(r"/projects/[^/]+/cards/(?!move$|move-by-metadata$)[^/]+")
ROWS_PATH = re.compile(r"/projects/[^/]+/rows")
CARDS_PATH = re.compile(r"/projects/[^/]+/columns/[^/]+/cards")


def faulty_app(api_key: str) -> Any:
    """The reference server with three bugs, each in its own operation:
    op 7 crashes (500) on a body without `name` (it forgot rowName), op 15 answers `url: null`,
    op 16 cuts an over-long name to 25000 characters instead of rejecting it."""
    return with_faults(api_key, "5xx", "schema", "over-long name cut")


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


async def _answer(send: Any, status: int, body: Any, headers: tuple = ()) -> None:
    raw = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode()),
        *headers]})
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


# --- one fault at a time ------------------------------------------------------------------------

Answer = tuple[int, list, bytes]  # status, headers, body
Forward = Callable[[dict, bytes], Awaitable[Answer]]  # the reference server's answer to a request
Fault = Callable[[dict, bytes, Forward, str], Awaitable[Answer]]  # (request, body, forward, key)


def _json(status: int, body: Any) -> Answer:
    raw = json.dumps(body).encode()
    return status, [(b"content-type", b"application/json"),
                    (b"content-length", str(len(raw)).encode())], raw


def _body(answer: Answer, body: bytes, content_type: bytes | None = None) -> Answer:
    """The answer with another body (and content type)."""
    headers = [(k, v) for k, v in answer[1] if k != b"content-length"
               and (content_type is None or k != b"content-type")]
    headers.append((b"content-length", str(len(body)).encode()))
    if content_type is not None:
        headers.append((b"content-type", content_type))
    return answer[0], headers, body


async def _crash_without_name(scope: dict, body: bytes, forward: Forward, key: str) -> Answer:
    data = _loads(body)
    if isinstance(data, dict) and "name" not in data:
        return _json(500, {"error": "KeyError: 'name'"})
    return await forward(scope, body)


async def _url_null(scope: dict, body: bytes, forward: Forward, key: str) -> Answer:
    answer = await forward(scope, body)
    if answer[0] != 200:
        return answer
    return _body(answer, json.dumps({**json.loads(answer[2]), "url": None}).encode())


async def _created(scope: dict, body: bytes, forward: Forward, key: str) -> Answer:
    answer = await forward(scope, body)
    return (201, *answer[1:]) if answer[0] == 200 else answer


async def _cut_json(scope: dict, body: bytes, forward: Forward, key: str) -> Answer:
    answer = await forward(scope, body)
    return _body(answer, answer[2][:-1]) if answer[0] == 200 else answer


async def _plain_text(scope: dict, body: bytes, forward: Forward, key: str) -> Answer:
    answer = await forward(scope, body)
    return _body(answer, b"renamed", b"text/plain") if answer[0] == 200 else answer


async def _key_ignored(scope: dict, body: bytes, forward: Forward, key: str) -> Answer:
    headers = [(k, v) for k, v in scope["headers"] if k != b"x-api-key"]
    return await forward({**scope, "headers": [*headers, (b"x-api-key", key.encode())]}, body)


def _name_longer_than(limit: int) -> Fault:
    async def fault(scope: dict, body: bytes, forward: Forward, key: str) -> Answer:
        data = _loads(body)
        name = data.get("name") if isinstance(data, dict) else None
        if isinstance(name, str) and len(name) > limit:  # cut to `limit`, not refused
            body = json.dumps({**data, "name": name[:limit]}).encode()
        return await forward(scope, body)
    return fault


async def _refuse_the_longest_name(scope: dict, body: bytes, forward: Forward, key: str) -> Answer:
    data = _loads(body)
    if isinstance(data, dict) and isinstance(data.get("name"), str) \
            and len(data["name"]) == 25000:
        return _json(400, {"error": "name too long"})
    return await forward(scope, body)


async def _crash_on_other_content_types(scope: dict, body: bytes, forward: Forward,
                                        key: str) -> Answer:
    given = dict(scope["headers"]).get(b"content-type", b"application/json")
    if not given.startswith(b"application/json"):
        return _json(500, {"error": "cannot parse"})
    return await forward(scope, body)


ROWS_OF = re.compile(r"/projects/[^/]+/rows")
# name -> (method, path, the fault): each breaks one operation one way, as schemathesis's
# checks and boardcert's own see it (tests/properties/test_detected.py)
FAULTS: dict[str, tuple[str, re.Pattern, Fault]] = {
    "5xx": ("POST", ROWS_PATH, _crash_without_name),
    "schema": ("POST", CARDS_PATH, _url_null),
    "status 201": ("PATCH", re.compile(r"/projects/[^/]+/rename"), _created),
    "malformed JSON": ("GET", ROWS_OF, _cut_json),
    "not JSON": ("PATCH", re.compile(r"/projects/[^/]+/rows/[^/]+/rename"), _plain_text),
    "key ignored": ("PATCH", re.compile(r"/projects/[^/]+/columns/[^/]+/rename"), _key_ignored),
    "over-long name cut": ("PATCH", CARD_PATH, _name_longer_than(25000)),
    "longest name refused": ("PATCH", CARD_PATH, _refuse_the_longest_name),
    "5xx to another content type": ("PATCH", CARD_PATH, _crash_on_other_content_types),
}


def with_faults(api_key: str, *names: str) -> Any:
    """The reference server with the faults of FAULTS named."""
    app = create_app(api_key)
    faults = [FAULTS[name] for name in names]

    async def wrapped(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        fault = next((f for method, path, f in faults if scope["method"] == method
                      and path.fullmatch(scope["path"])), None)
        if fault is None:
            return await app(scope, receive, send)
        status, headers, answer = await fault(scope, await _read(receive), partial(_forward, app),
                                              api_key)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": answer})

    return wrapped


CREATES = {("POST", ROWS_PATH), ("POST", re.compile(r"/organizations/[^/]+/projects")),
           ("POST", re.compile(r"/projects/[^/]+/rows/[^/]+/columns")), ("POST", CARDS_PATH),
           ("POST", re.compile(r"/projects/[^/]+/cards/[^/]+/metadata")),
           ("POST", re.compile(r"/projects/[^/]+/plugins/[^/]+"))}


def busy_app(api_key: str) -> Any:
    """The reference server answering every second create 429 Too Many Requests: a conformant
    answer (any 4xx may refuse), but not the same one when a scenario is replayed. It asks
    for no wait (Retry-After: 0): the client's pause where none is asked, a second each, made
    this test wait a minute and a half for nothing it checks."""
    app, count = create_app(api_key), iter(range(10**9))

    async def wrapped(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and any(
                scope["method"] == method and path.fullmatch(scope["path"])
                for method, path in CREATES) and next(count) % 2:
            return await _answer(send, 429, {"error": "slow down"}, ((b"retry-after", b"0"),))
        return await app(scope, receive, send)

    return wrapped


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """An ASGI app served by uvicorn on a free loopback port, in a thread (the port the
    server bound itself: no other test, on another pytest-xdist worker, can take it between)."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error",
                                           access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1] if server.started else 0
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

