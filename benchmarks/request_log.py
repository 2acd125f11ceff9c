"""Whether two runs send the same requests in the same order: the request log of a whole
`boardcert run` (serial: the reference server answers on loopback, so one process, one request
at a time) from this checkout, beside the same run from another git revision and/or with
`--no-speed`, compared request by request.

Each run gets a fresh reference server (its ids count from 1 again) behind a recorder: method,
path and query, how the key was sent, and the body with the run's fresh names
(`bc-project-<hex>`) normalized; a run of DELETEs of one kind (clean-up deletes neighbours side
by side) is compared as a set. The same seed (the default) draws the same generated requests.

    python benchmarks/request_log.py [--against main~3] [--no-speed] [--budget quick]
                                     [--keep DIR] [-- more boardcert run arguments]

Prints each run's count and, for each run beside the first, "the same N requests in the same
order" or the first requests that differ. A measurement, not a test.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout

from parallel import worktree  # noqa: E402 (benchmarks/, beside this file)

from boardcert.reference.app import create_app  # noqa: E402
from boardcert.reference.server import free_port  # noqa: E402

FRESH = re.compile(rb"bc-([a-z-]+)-[0-9a-f]{10}")
FRESH_TEXT = re.compile(r"bc-([a-z-]+)-[0-9a-f]{10}")


class Recorder:
    """ASGI wrapper: each request as (method, path?query, key sent, body normalized)."""

    def __init__(self, app: Any, api_key: str) -> None:
        self.app, self.key, self.log = app, api_key.encode(), []
        self.lock = threading.Lock()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope["headers"])
        given = headers.get(b"x-api-key")
        key = "none" if given is None else "key" if given == self.key else "other"
        query = scope.get("query_string", b"")
        path = FRESH_TEXT.sub(r"bc-\1-X", scope["path"] + (f"?{query.decode()}" if query else ""))
        entry = [scope["method"], path, key, ""]
        with self.lock:
            self.log.append(entry)
        body = bytearray()

        async def recorded() -> Any:
            message = await receive()
            if message["type"] == "http.request":
                body.extend(message.get("body", b""))
                if not message.get("more_body"):
                    entry[3] = FRESH.sub(rb"bc-\1-X", bytes(body)).decode("utf-8", "replace")
            return message

        await self.app(scope, recorded, send)


def logged_run(checkout: Path, args: list[str], scratch: Path, name: str) -> tuple[list, str]:
    """The request log of one `boardcert run` from `checkout`, and its verdict line."""
    key = secrets.token_urlsafe(16)
    recorder = Recorder(create_app(key), key)
    server = uvicorn.Server(uvicorn.Config(recorder, host="127.0.0.1", port=free_port(),
                                           log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOARDCERT_")}
    env |= {"BOARDCERT_API_KEY": key,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(checkout), env.get("PYTHONPATH")]))}
    command = [sys.executable, "-m", "boardcert.cli", "run", "--base-url",
               f"http://127.0.0.1:{port}", "--output", str(scratch / name), *args]
    try:
        done = subprocess.run(command, cwd=scratch, env=env, capture_output=True, text=True,
                              check=False)
    finally:
        server.should_exit = True
        thread.join(10)
    said = (done.stdout + done.stderr).splitlines()
    verdict = next((line for line in said[::-1] if "(exit" in line), f"exit {done.returncode}")
    return recorder.log, verdict


def in_order(log: list) -> list:
    """The log with each run of consecutive DELETEs of one kind sorted: clean-up deletes
    neighbours side by side (boardcert.workbench.ledger), in whatever order their answers come."""
    found: list = []
    block: list = []
    for entry in [*log, None]:
        kind = entry and entry[0] == "DELETE" and re.sub(r"\d+", "N", entry[1])
        if block and (not kind or kind != re.sub(r"\d+", "N", block[0][1])):
            found += sorted(block)
            block = []
        if kind:
            block.append(entry)
        elif entry is not None:
            found.append(entry)
    return found


def differences(first: list, other: list, shown: int = 5) -> list[str]:
    """Where two logs part: the first requests that differ (index, one, other)."""
    lines = []
    for index in range(max(len(first), len(other))):
        a = first[index] if index < len(first) else None
        b = other[index] if index < len(other) else None
        if a != b:
            lines.append(f"  #{index}: {json.dumps(a)[:300]}\n      {json.dumps(b)[:300]}")
            if len(lines) >= shown:
                break
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", help="a git revision to run beside this checkout")
    parser.add_argument("--no-speed", action="store_true",
                        help="also run this checkout with --no-speed")
    parser.add_argument("--budget", default="quick")
    parser.add_argument("--keep", type=Path, help="write each run's log here (JSON lines)")
    parser.add_argument("extra", nargs="*", help="more `boardcert run` arguments (after --)")
    options = parser.parse_args()
    args = ["--budget", options.budget, *options.extra]
    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    with tempfile.TemporaryDirectory() as scratch_name, worktree(options.against) as other:
        scratch = Path(scratch_name)
        runs = {"this checkout": (ROOT, args)}
        if options.against:
            runs[options.against] = (other, args)
        if options.no_speed:
            runs["this checkout --no-speed"] = (ROOT, [*args, "--no-speed"])
        names = list(runs)

        def one(name: str) -> tuple[list, str]:
            checkout, given = runs[name]
            return logged_run(checkout, given, scratch, f"run-{names.index(name)}")

        with concurrent.futures.ThreadPoolExecutor(len(runs)) as pool:
            found = dict(zip(names, pool.map(one, names), strict=True))
    first_name = next(iter(found))
    first = in_order(found[first_name][0])
    for name, (log, verdict) in found.items():
        print(f"{name:28} {len(log):6} requests   {verdict}")
        if options.keep:
            options.keep.mkdir(parents=True, exist_ok=True)
            safe = re.sub(r"[^\w.-]+", "_", name)
            (options.keep / f"{safe}.jsonl").write_text(
                "".join(json.dumps(entry) + "\n" for entry in log), encoding="utf-8")
    same = True
    for name, (log, _) in list(found.items())[1:]:
        parted = differences(first, in_order(log))
        if parted:
            same = False
            print(f"{name} differs from {first_name}:", *parted, sep="\n")
        else:
            print(f"{name}: the same {len(log)} requests in the same order as {first_name}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
