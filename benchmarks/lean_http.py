"""CPU a request costs the client, through httpx's own transport (httpcore, h11) and through
the speed plugin's (boardcert.speed.lean_http: http.client), against the reference server in
a process of its own: the same boardcert Client, GET /users/me and PATCH with a body, in
rounds side by side (sent as the speed plugin sends them: straight to the transport).

    python benchmarks/lean_http.py [--requests 2000] [--rounds 3]

A measurement, not a test: quote it with the load average it prints.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout

from boardcert.http.client import Client  # noqa: E402
from boardcert.reference.server import start  # noqa: E402
from boardcert.settings.config import Target, load_profile  # noqa: E402
from boardcert.speed import lean_http, patches  # noqa: E402


def per_request(base_url: str, key: str, lean: bool, requests: int) -> tuple[float, float]:
    """Milliseconds of this process's CPU and of wall time a request, one way (each request
    straight to the transport, as under the speed plugin, where its check allows)."""
    Client.make_transport = staticmethod(lean_http.make_transport) if lean else None
    if patches.direct_transport() is None:
        Client.dispatch = staticmethod(patches.send_direct)
    client = Client(Target(base_url, key, load_profile()))
    try:
        for _ in range(20):  # the connection made, the paths parsed
            client.request("GET", "/users/me")
        cpu, wall = time.process_time(), time.perf_counter()
        for n in range(requests):
            if n % 2:
                client.request("GET", "/users/me")
            else:
                client.request("PATCH", "/projects/none/rename", json={"name": "x" * 200})
        return ((time.process_time() - cpu) / requests * 1000,
                (time.perf_counter() - wall) / requests * 1000)
    finally:
        client.close()
        Client.make_transport = None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    key = "bench-" + secrets.token_urlsafe(12)
    found: dict[str, list[tuple[float, float]]] = {"httpx": [], "lean": []}
    print(f"load average {os.getloadavg()[0]:.2f} at the start; {args.requests} requests a "
          f"way a round")
    with start(api_key=key) as server:
        for n in range(args.rounds):
            for way in found:
                found[way].append(per_request(server.base_url, key, way == "lean",
                                              args.requests))
                cpu, wall = found[way][-1]
                print(f"  round {n + 1}  {way:6} {cpu:.3f} ms CPU, {wall:.3f} ms wall a request",
                      flush=True)
    cpu = {way: statistics.median(c for c, _ in runs) for way, runs in found.items()}
    print(f"median CPU a request: httpx {cpu['httpx']:.3f} ms, lean {cpu['lean']:.3f} ms "
          f"(lean / httpx {cpu['lean'] / cpu['httpx']:.2f})")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
