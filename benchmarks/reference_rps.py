"""Requests per second of the reference server under a bounded, mixed workload.

    /work/venv/bin/python benchmarks/reference_rps.py [--threads 4] [--rounds 100]

Starts the server in a child process, lets each thread (one keep-alive httpx client each) play
`rounds` rounds of a board's life (create, read, rename, move, metadata, delete), checks every
answer is a 200, prints the rate, and stops the server.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

from boardcert.reference.server import start  # noqa: E402

REQUESTS_PER_ROUND = 16


def _ok(response: httpx.Response) -> Any:
    if response.status_code != 200:
        raise RuntimeError(f"{response.request.method} {response.request.url}: {response.text}")
    return response.json()


def play_round(http: httpx.Client, project_id: str, column_id: str, n: int) -> None:
    """One round of REQUESTS_PER_ROUND requests inside an existing project."""
    base = f"/projects/{project_id}"
    cards = [
        _ok(http.post(f"{base}/columns/{column_id}/cards", json={"name": f"card {n}-{i}"}))["id"]
        for i in range(3)
    ]
    _ok(http.get(base))
    _ok(http.get("/users/me"))
    _ok(http.patch(f"{base}/cards/{cards[0]}", json={"name": f"renamed {n}"}))
    _ok(http.patch(f"{base}/rename", json={"name": f"project {n}"}))
    _ok(http.patch(f"{base}/cards/move", json={"ids": [cards[0]], "afterCardId": cards[2]}))
    _ok(http.post(f"{base}/cards/{cards[1]}/metadata", json={"key": "k", "value": str(n)}))
    body = {"key": "k", "value": str(n), "beforeCardId": cards[2]}
    _ok(http.patch(f"{base}/cards/move-by-metadata", json=body))
    _ok(http.request("DELETE", f"{base}/cards/{cards[1]}/metadata/k", json={}))
    _ok(http.put(f"/plugins/boardcert/entities/{cards[0]}/data/k", json={"value": n}))
    _ok(http.get("/plugins/boardcert/data/k", params={"entityId": cards[0]}))
    for card_id in cards:
        _ok(http.delete(f"{base}/cards/{card_id}"))


def run_thread(base_url: str, api_key: str, rounds: int) -> int:
    """Set up a project, play the rounds, delete the project; the number of requests sent."""
    with httpx.Client(base_url=base_url, headers={"X-API-Key": api_key}) as http:
        project = _ok(http.post("/organizations/1/projects", json={"name": "bench"}))
        base = f"/projects/{project['id']}"
        row_id = _ok(http.post(f"{base}/rows", json={"name": "row"}))["rows"][0]["id"]
        project = _ok(http.post(f"{base}/rows/{row_id}/columns", json={"name": "column"}))
        column_id = project["rows"][0]["columns"][0]["id"]
        for n in range(rounds):
            play_round(http, project["id"], column_id, n)
        _ok(http.delete(base))
    return 4 + rounds * REQUESTS_PER_ROUND


def main(argv: list[str] | None = None) -> int:
    """Run the workload and print the rate."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=100, help="rounds per thread")
    args = parser.parse_args(argv)
    api_key = secrets.token_urlsafe(16)
    with start(api_key) as server, ThreadPoolExecutor(args.threads) as pool:
        began = time.perf_counter()
        jobs = [
            pool.submit(run_thread, server.base_url, api_key, args.rounds)
            for _ in range(args.threads)
        ]
        total = sum(job.result() for job in jobs)
        elapsed = time.perf_counter() - began
    print(
        f"{total} requests from {args.threads} threads in {elapsed:.2f} s: "
        f"{total / elapsed:.0f} requests/s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
