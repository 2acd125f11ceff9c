"""`boardcert run --seed N` reaches Hypothesis and schemathesis: the same seed sends the same
requests, another seed other requests; the header's advice names the flag that does it."""

from __future__ import annotations

import re
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

from properties.servers import serving

from boardcert.paths import ROOT
from boardcert.reference.app import create_app

KEY = "seed-" + secrets.token_urlsafe(16)
UNIQUE = re.compile(r"bc-[\w-]+?-[0-9a-f]{10}")  # workbench.board.unique: random on purpose
SELECTED = "rename or Workflow2"  # the property tests of the renames, one stateful part


def logging_app(log: list[tuple[str, str, str, str]]) -> Any:
    """The reference server, noting each request: method, path, query, body (names that
    boardcert makes unique at random stand as one)."""
    app = create_app(KEY)

    async def wrapped(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        body: list[bytes] = []

        async def noting() -> dict:
            message = await receive()
            body.append(message.get("body", b""))
            return message

        await app(scope, noting, send)  # one request at a time: noted in the order sent
        log.append((scope["method"], UNIQUE.sub("bc-NAME", scope["path"]),
                    UNIQUE.sub("bc-NAME", scope["query_string"].decode()),
                    UNIQUE.sub("bc-NAME", b"".join(body).decode("utf-8", "replace"))))

    return wrapped


def requests_of_a_run(seed: str, tmp_path: Path) -> list[tuple[str, str, str, str]]:
    """What a fresh reference server received from `boardcert run --seed SEED` (quick, serial,
    one request at a time: the order is the run's own)."""
    log: list[tuple[str, str, str, str]] = []
    with serving(logging_app(log)) as base_url:
        done = subprocess.run(
            [sys.executable, "-m", "boardcert.cli", "run", "--base-url", base_url,
             "--api-key", KEY, "--budget", "quick", "--seed", seed, "--workers", "1",
             "--in-flight", "1", "--output", str(tmp_path / f"run-{len(list(tmp_path.iterdir()))}"),
             "--", "suites/test_properties.py", "-k", SELECTED],
            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert f"reproduce with --seed {seed}" in done.stdout, done.stdout[-3000:] + done.stderr
    summary = re.search(r"=+ (\d+ passed.*?) in [\d.]+s", done.stdout)
    assert summary and "failed" not in summary[1], done.stdout[-3000:] + done.stderr
    return log


def test_the_same_seed_sends_the_same_requests_and_another_seed_others(tmp_path):
    """Two runs with --seed 7 send the same requests in the same order (a fresh server each
    time); a run with --seed 8 sends other ones."""
    first = requests_of_a_run("7", tmp_path)
    again = requests_of_a_run("7", tmp_path)
    other = requests_of_a_run("8", tmp_path)
    assert len(first) > 50, len(first)
    assert first == again
    assert first != other
    assert set(first) ^ set(other)  # other bodies, not the same ones in another order
