"""Servers for the property tests' end-to-end runs: the reference server with bugs (faulty_app)
or with answers that change on replay (busy_app), served on a loopback port, and the property
suite run against one in a fresh process."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

from boardcert.reference.app import create_app
from boardcert.reference.server import free_port

ROOT = Path(__file__).resolve().parent.parent.parent
SUITE = ROOT / "suites" / "test_properties.py"

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

