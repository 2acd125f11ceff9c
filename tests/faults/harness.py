"""Serve a variant on a free loopback port, run boardcert against it, read the verdict."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
import yaml

from boardcert import requirements
from boardcert.paths import DEFAULT_PROFILE, ROOT

from .variant import Variant

BIN = Path(sys.executable).parent
SUITE_TIMEOUT = 600


@contextmanager
def serving(variant: Variant, api_key: str) -> Iterator[str]:
    """The variant served by uvicorn in a thread; yields its base URL, stops it on exit."""
    config = uvicorn.Config(variant.app(api_key), host="127.0.0.1", port=0,
                            log_level="critical", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"variant {variant.name} did not start")
            time.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def write_profile(variant: Variant, directory: Path) -> Path:
    """The reference profile with the variant's overrides (tests/faults/profiles/) on top."""
    if variant.profile_path is None:
        return DEFAULT_PROFILE
    data = yaml.safe_load(DEFAULT_PROFILE.read_text(encoding="utf-8"))
    overrides = yaml.safe_load(variant.profile_path.read_text(encoding="utf-8"))
    for key, value in overrides.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) and data.get(key) else value
    path = directory / "profile.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@dataclass
class Result:
    """What boardcert said about one server: the verdict and each requirement's status."""

    verdict: str
    statuses: dict[str, str]  # requirement id -> passed, failed, not assessed
    seconds: float
    output: str = field(repr=False, default="")

    def failed(self) -> list[str]:
        return sorted(i for i, s in self.statuses.items() if s == "failed")

    def summary(self) -> str:
        return f"verdict {self.verdict!r}, failed {self.failed()}\n{self.output[-3000:]}"


def suite_command(base_url: str, profile: Path, output: Path, budget: str) -> list[str]:
    """`boardcert run` when it writes compliance.json, else the suites under plain pytest."""
    if _cli_writes_reports():
        return [str(BIN / "boardcert"), "run", "--base-url", base_url, "--profile", str(profile),
                "--budget", budget, "--output", str(output)]
    return [sys.executable, "-m", "pytest", str(ROOT / "suites"), "-q", "-p", "no:cacheprovider",
            "--rootdir", str(ROOT), "--base-url", base_url, "--profile", str(profile),
            "--budget", budget, "--junitxml", str(output / "junit.xml")]


def _cli_writes_reports() -> bool:
    return "--output" in (ROOT / "boardcert" / "cli.py").read_text(encoding="utf-8")


def certify(variant: Variant, directory: Path, budget: str = "quick") -> Result:
    """Serve the variant and run boardcert against it; its verdict and statuses."""
    key = "variant-" + secrets.token_urlsafe(12)
    profile = write_profile(variant, directory)
    started = time.monotonic()
    with serving(variant, key) as base_url:
        env = {**os.environ, "BOARDCERT_API_KEY": key, "PYTHONHASHSEED": "0"}
        env.pop("PYTEST_XDIST_WORKER", None)
        done = subprocess.run(suite_command(base_url, profile, directory, budget), env=env,
                              cwd=ROOT, capture_output=True, text=True, timeout=SUITE_TIMEOUT)
    seconds = time.monotonic() - started
    output = done.stdout + done.stderr
    verdict, statuses = read_report(directory)
    return Result(verdict, statuses, seconds, output)


def read_report(directory: Path) -> tuple[str, dict[str, str]]:
    """(verdict, statuses) from compliance.json, or worked out from the JUnit XML."""
    compliance = directory / "compliance.json"
    if compliance.exists():
        import json

        report = json.loads(compliance.read_text(encoding="utf-8"))
        return report["verdict"], {r["id"]: r["status"] for r in report["requirements"]}
    return from_junit(directory / "junit.xml")


def from_junit(path: Path) -> tuple[str, dict[str, str]]:
    """The conformance policy's verdict over the JUnit XML (until compliance.json exists)."""
    if not path.exists():
        return "incomplete", {}
    outcomes: dict[str, set[str]] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        outcome = "passed"
        if case.find("failure") is not None or case.find("error") is not None:
            outcome = "failed"
        elif case.find("skipped") is not None:
            outcome = "skipped"
        for req in (props.get("requirements") or "").split():
            outcomes.setdefault(req, set()).add(outcome)
    statuses = {}
    for req in requirements.catalogue():
        seen = outcomes.get(req, set())
        statuses[req] = ("failed" if "failed" in seen else
                         "passed" if "passed" in seen else "not assessed")
    return verdict(statuses), statuses


def verdict(statuses: dict[str, str]) -> str:
    levels = {i: r.level for i, r in requirements.catalogue().items()}
    def at(level: str, status: str) -> bool:
        return any(levels.get(i) == level and s == status for i, s in statuses.items())
    if at("MUST", "failed"):
        return "non-conformant"
    if at("MUST", "not assessed"):
        return "incomplete"
    return "conformant with warnings" if at("SHOULD", "failed") else "conformant"


class Certifier:
    """Runs certifications `workers` at a time, so that a plain `pytest` run is parallel too.

    Under pytest-xdist each worker already runs one test at a time: no prefetching there."""

    def __init__(self, variants: list[Variant], directory: Path, budget: str = "quick") -> None:
        under_xdist = bool(os.environ.get("PYTEST_XDIST_WORKER"))
        self.workers = 1 if under_xdist else max(1, os.cpu_count() or 1)
        self.variants = [] if under_xdist else variants
        self.budget = budget
        self.pool: ThreadPoolExecutor | None = None
        self.futures: dict[str, Future[Result]] = {}
        self.directory = directory

    def result(self, variant: Variant) -> Result:
        if self.pool is None:
            self.pool = ThreadPoolExecutor(self.workers)
            for queued in self.variants:
                self._submit(queued)
        return self._submit(variant).result()

    def _submit(self, variant: Variant) -> Future[Result]:
        if variant.name not in self.futures:
            directory = self.directory / variant.name
            directory.mkdir()
            assert self.pool is not None
            self.futures[variant.name] = self.pool.submit(certify, variant, directory,
                                                          self.budget)
        return self.futures[variant.name]

    @classmethod
    def for_module(cls, request: Any, directory: Path) -> Certifier:
        """A certifier that queues the variants of the module's selected tests."""
        selected = [item.callspec.params["variant"] for item in request.session.items
                    if item.module is request.module and hasattr(item, "callspec")]
        return cls(selected, directory)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
