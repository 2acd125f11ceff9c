"""What `boardcert proxy` adds to a request on loopback (issue 35: at most 2 ms).

    .venv/bin/python benchmarks/proxy_overhead.py [--rounds 40] [--blocks 10]

Starts the reference server and, in a process of its own, `boardcert proxy` in front of it;
one keep-alive httpx client plays rounds of a board's life (benchmarks/reference_rps.py's 16
requests: creations, reads, renames, moves, metadata, plugin data, deletes) straight to the
server and through the proxy, in alternating blocks so that a change of the machine's load
touches both alike. Each request's time is taken from sending to its body read. Prints the
median and mean per request each way, their difference (the proxy's cost: forwarding and its
judging, which runs after each answer is sent and so delays the next request only by what it
still has to do), the load (`uptime`) before and after, and what the proxy's report counted
once it is stopped (SIGTERM).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from reference_rps import play_round  # noqa: E402

from boardcert.reference.server import free_port, start  # noqa: E402

COMMAND = [sys.executable, "-m", "boardcert.cli"]
FORWARDING_ONLY = [sys.executable, "-c", "import sys; from boardcert.traffic.book import Book; "
                   "Book.add = lambda self, seen: None; from boardcert.cli import main; "
                   "sys.exit(main())"]


class Timed(httpx.HTTPTransport):
    """A transport that notes each request's time, its answer read whole."""

    def __init__(self) -> None:
        super().__init__()
        self.times: list[float] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        began = time.perf_counter()
        response = super().handle_request(request)
        response.read()
        self.times.append(time.perf_counter() - began)
        return response


def board(http: httpx.Client) -> tuple[str, str]:
    project = http.post("/organizations/1/projects", json={"name": "bench"}).json()
    base = f"/projects/{project['id']}"
    row = http.post(f"{base}/rows", json={"name": "row"}).json()["rows"][0]["id"]
    column = http.post(f"{base}/rows/{row}/columns", json={"name": "column"}).json()
    return project["id"], column["rows"][0]["columns"][0]["id"]


def proxy(upstream: str, report: Path, key: str, command: list[str]
          ) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen([*command, "proxy", "--upstream", upstream, "--port",
                                str(port), "--report", str(report)],
                               cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            httpx.get(f"{url}/users/me", headers={"X-API-Key": key}, timeout=1)
            return process, url
        except httpx.TransportError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("the proxy did not start")


def cpu_ms(pid: int) -> float:
    """The CPU time (user and system) a process has used so far, in ms (Linux's /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40, help="rounds per block")
    parser.add_argument("--blocks", type=int, default=10, help="blocks each way, alternating")
    parser.add_argument("--without-judging", action="store_true",
                        help="the proxy's forwarding alone (Book.add does nothing): what the "
                        "judging costs is the difference")
    args = parser.parse_args(argv)
    key = secrets.token_urlsafe(16)
    print(f"before: {uptime()}")
    with start(key) as server, tempfile.TemporaryDirectory() as report:
        process, url = proxy(server.base_url, Path(report), key,
                             FORWARDING_ONLY if args.without_judging else COMMAND)
        ways: dict[str, Timed] = {"direct": Timed(), "proxied": Timed()}
        clients = {"direct": httpx.Client(base_url=server.base_url, transport=ways["direct"],
                                          headers={"X-API-Key": key}),
                   "proxied": httpx.Client(base_url=url, transport=ways["proxied"],
                                           headers={"X-API-Key": key})}
        boards = {way: board(http) for way, http in clients.items()}
        for way in ways.values():
            way.times.clear()
        cpu_before = cpu_ms(process.pid)
        for block in range(args.blocks):
            for way in (("direct", "proxied") if block % 2 == 0 else ("proxied", "direct")):
                for n in range(args.rounds):
                    play_round(clients[way], *boards[way], n)
        for http in clients.values():
            http.close()
        cpu = cpu_ms(process.pid) - cpu_before
        process.send_signal(signal.SIGTERM)
        process.wait(60)
        said = json.loads((Path(report) / "client-compatibility.json").read_text())
    print(f"after:  {uptime()}")
    shown: dict[str, Any] = {}
    for name, way in ways.items():
        ms = [t * 1000 for t in way.times]
        shown[name] = (statistics.median(ms), statistics.fmean(ms), len(ms))
        print(f"{name:8} median {shown[name][0]:.3f} ms, mean {shown[name][1]:.3f} ms "
              f"({shown[name][2]} requests)")
    print(f"overhead median {shown['proxied'][0] - shown['direct'][0]:.3f} ms, mean "
          f"{shown['proxied'][1] - shown['direct'][1]:.3f} ms per request")
    print(f"the proxy's CPU while it was timed: {cpu:.0f} ms, {cpu / shown['proxied'][2]:.3f} "
          "ms per request")
    print(f"the proxy judged {said['counts']['requests']} requests: client "
          f"{said['verdict']}; exit {process.returncode}"
          + (" (judging switched off)" if args.without_judging else ""))
    return 0


if __name__ == "__main__":
    os.environ.pop("BOARDCERT_API_KEY", None)
    raise SystemExit(main())
