"""Serve a variant on a free loopback port, run boardcert against it, read the verdict."""

from __future__ import annotations

import atexit
import json
import os
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import uvicorn
import yaml

from boardcert.cli.session import PLUGINS, SPEED_CUTS, speed_left_out
from boardcert.paths import DEFAULT_PROFILE, REQUIREMENT_TESTS, ROOT, SUITES, user_cache

from .launcher import Launcher
from .variant import Variant

SUITE_TIMEOUT = 600


@contextmanager
def serving(variant: Variant, api_key: str) -> Iterator[str]:
    """The variant served by uvicorn in a thread; yields its base URL, stops it on exit
    without waiting for it: uvicorn's loop notices within a tenth of a second and then waits
    another before it closes (0.2 s a certification, some 300 of them in the test command);
    its daemon thread ends on its own, and every variant gets a port of its own."""
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
        server.should_exit = server.force_exit = True


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
    messages: dict[str, str]  # requirement id -> why it failed or was not assessed
    seconds: float
    output: str = field(repr=False, default="")
    reason: str = ""  # the verdict's reason

    def failed(self) -> list[str]:
        return sorted(i for i, s in self.statuses.items() if s == "failed")

    def summary(self) -> str:
        lines = [f"verdict {self.verdict!r}"]
        lines += [f"  {i} {s}: {(self.messages.get(i) or '')[:300]}"
                  for i, s in sorted(self.statuses.items()) if s != "passed"]
        return "\n".join(lines) + "\n" + self.output[-2000:]


# BOARDCERT_FAULTS_FULL=1: certify faults with the whole suite, not only their requirement's tests.
FULL = os.environ.get("BOARDCERT_FAULTS_FULL") == "1"


TESTS = Path(__file__).resolve().parents[1]  # tests/: `-p faults.<plugin>` in a run


def certify(variant: Variant, directory: Path, budget: str = "quick",
            full: bool = FULL, select: str | None = None,
            extra: tuple[str, ...] = (), settled: bool = False) -> Result:
    """Serve the variant and run the suites against it; the verdict of its compliance.json.
    A fault runs only its requirement's tests unless `full` (conformant variants: always all);
    `select` (a -m expression) chooses the tests instead; `extra`: more pytest arguments
    (after the variant's own); `settled`: a fault's run ends at the first test that fails its
    requirement (faults/settled.py: the verdict and that requirement's status are then known).
    """
    key = "variant-" + secrets.token_urlsafe(12)
    env = _env(key)
    if settled and variant.requirement:
        extra = ("-p", "faults.settled", "--settled-by", variant.requirement, *extra)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), env.get("PYTHONPATH")]))
    profile = write_profile(variant, directory)
    output = directory / "report"
    started = time.monotonic()
    if select is None:
        select = variant.requirement if variant.requirement and not full else None
    # As `boardcert run`: with the speed plugin, without its cuts (SPEED_CUTS) where it is off.
    plain = speed_left_out((*variant.args, *extra))
    with serving(variant, key) as base_url:
        done = run_suites([*suite_command(base_url, profile, output, budget, select),
                           *([] if plain else SPEED_CUTS), *variant.args, *extra],
                          env, directory / "output.txt")
    seconds = time.monotonic() - started
    compliance = output / "compliance.json"
    if not compliance.exists():
        return Result("no report", {}, {}, seconds, done.stdout + done.stderr)
    report = json.loads(compliance.read_text(encoding="utf-8"))
    requirements = report["requirements"]
    return Result(report["verdict"], {r["id"]: r["status"] for r in requirements},
                  {r["id"]: r["message"] for r in requirements}, seconds,
                  done.stdout + done.stderr, report["verdict_reason"])


# BOARDCERT_FORKS=0: each run its own process, not a fork of the launcher's zygote.
FORKS = os.environ.get("BOARDCERT_FORKS", "1") != "0" and hasattr(os, "fork")
LAUNCHER = Launcher()
atexit.register(LAUNCHER.close)


def run_suites(command: list[str], env: dict[str, str], output: Path
               ) -> subprocess.CompletedProcess[str]:
    """`python -m pytest ...` (the command suite_command made), as a fork of the launcher's
    zygote (launcher.py: the libraries imported once for all runs), or as a process of its own
    with BOARDCERT_FORKS=0; its output in `output` too."""
    if FORKS:
        return LAUNCHER.run(command[3:], env, ROOT, output, SUITE_TIMEOUT)
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=SUITE_TIMEOUT)
    output.write_text(done.stdout + done.stderr, encoding="utf-8")
    return done


def at_each_in_flight(variants: Mapping[tuple[str, int], Variant], root: Path,
                      extra: tuple[str, ...], selected: Mapping[str, tuple[str, ...]] = {}
                      ) -> dict[tuple[str, int], tuple[Result, Path]]:
    """Each (name, in_flight) variant certified with `extra` (or its variant's `selected`
    arguments) and `--in-flight in_flight`, two at a time (one under xdist), tests/ importable
    (`-p faults.exchanges`): each run's result and report directory."""
    width = 1 if os.environ.get("PYTEST_XDIST_WORKER") else 2
    with pytest.MonkeyPatch.context() as env, ThreadPoolExecutor(width) as pool:
        env.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(TESTS),
                                                               os.environ.get("PYTHONPATH")])))
        futures = {}
        for (name, in_flight), variant in variants.items():
            directory = root / f"{name}-{in_flight}"
            directory.mkdir()
            futures[(name, in_flight)] = directory, pool.submit(
                certify, variant, directory, select="",
                extra=(*selected.get(variant.name, extra), "--in-flight", str(in_flight)))
        return {key: (future.result(), directory / "report")
                for key, (directory, future) in futures.items()}


def same_both_ways(runs: Mapping[tuple[str, int], tuple[Result, Path]], name: str,
                   in_flight: int) -> Result:
    """Asserts that the run of `name` with `in_flight` requests in flight has the verdict,
    every requirement's status and every test's outcome of its run one at a time; that one."""
    (serial, one), (side_by_side, many) = runs[(name, 1)], runs[(name, in_flight)]
    assert serial.statuses, serial.summary()
    assert (side_by_side.verdict, side_by_side.statuses) == (serial.verdict, serial.statuses), \
        side_by_side.summary()
    assert outcomes(many) == outcomes(one)
    return serial


def outcomes(report: Path) -> dict[str, tuple[str, list[str]]]:
    """Each test's outcome and failed requirements, by node id (a report's compliance.json)."""
    tests = json.loads((report / "compliance.json").read_text(encoding="utf-8"))["tests"]
    return {t["nodeid"]: (t["outcome"], t["failed_requirements"]) for t in tests}


def _modules(select: str | None) -> list[str]:
    """What to collect for `select`: the modules of its tests where it names a requirement,
    else the suites' directory."""
    tests = yaml.safe_load(REQUIREMENT_TESTS.read_text(encoding="utf-8")).get(select or "")
    if not tests:
        return [str(SUITES)]
    return sorted({str(ROOT / test.split("::")[0]) for test in tests})


def suite_command(base_url: str, profile: Path, output: Path, budget: str,
                  select: str | None = None) -> list[str]:
    """The suites under pytest with the compliance report, as `boardcert run` runs them but
    without its JUnit and Allure output (a third of the CPU time of a run).

    --tb=native: pytest's own traceback style parses the source of every frame, ~0.4 s a
    failure, minutes for a server that fails hundreds of tests.

    --no-preflight: as `boardcert run` passes it (it runs the preflight itself); a fault that
    breaks GET /users/me for the key is for the tests to report (test_preflight.py checks
    what the preflight makes of every variant).

    --disable-plugin-autoload and the plugins a run loads (as `boardcert run` has them): no
    other plugin of the environment takes part, and pytest rewrites the asserts of none of
    the libraries (those the launcher's zygote imported ahead among them).

    select: a requirement id; only the tests that name it run (`-m ID`), which is what a fault
    of that requirement must be caught by, in a few seconds instead of a whole run; and only
    the modules that hold them are collected (spec/requirement-tests.yaml: not the property
    tests' schema, half a second of each certification, where none of them names it)."""
    plugins = [arg for name in PLUGINS for arg in ("-p", name)]
    return [sys.executable, "-m", "pytest", *_modules(select), "-q", "--disable-plugin-autoload",
            *plugins, "-p", "no:cacheprovider",
            "--rootdir", str(ROOT), "--tb=native", "--no-preflight", "--base-url", base_url,
            "--profile", str(profile), "--budget", budget, f"--report-dir={output}",
            *(["-m", select] if select else [])]


def _env(api_key: str) -> dict[str, str]:
    """The key by environment (never on a command line); bytecode cached where `boardcert run`
    caches it, so that pytest does not recompile schemathesis for assertion rewriting."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "BOARDCERT_"))}
    if cache := user_cache("pycache"):
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.setdefault("PYTHONPYCACHEPREFIX", str(cache))
    return {**env, "BOARDCERT_API_KEY": api_key}


class Certifier:
    """Runs certifications `workers` at a time, so that a plain `pytest` run is parallel too.

    Under pytest-xdist each worker already runs one test at a time: no prefetching there,
    unless `at_once`: all the variants certified side by side from the first result asked
    (for variants whose certification mostly waits for their answers). `settled`: each
    fault's run ends at its first test that fails the fault's requirement (certify)."""

    def __init__(self, variants: list[Variant], directory: Path, budget: str = "quick",
                 at_once: bool = False, settled: bool = False) -> None:
        under_xdist = bool(os.environ.get("PYTEST_XDIST_WORKER")) and not at_once
        self.workers = (max(1, len(variants)) if at_once else 1 if under_xdist
                        else max(1, os.cpu_count() or 1))
        self.variants = [] if under_xdist else variants
        self.budget = budget
        self.settled = settled
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
                                                          self.budget, settled=self.settled)
        return self.futures[variant.name]

    @classmethod
    def for_module(cls, request: Any, directory: Path, which: Callable[[Variant], bool] =
                   lambda _variant: True, at_once: bool = False, settled: bool = False
                   ) -> Certifier:
        """A certifier that queues the variants of the module's selected tests (those of
        them `which` takes)."""
        selected = [item.callspec.params["variant"] for item in request.session.items
                    if item.module is request.module and hasattr(item, "callspec")]
        return cls([v for v in selected if which(v)], directory, at_once=at_once,
                   settled=settled)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
