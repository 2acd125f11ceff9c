"""`boardcert run`: check the configuration and the target, choose the workers, run pytest
on the suites, then say the verdict (boardcert.cli.exits) and compare or bundle
(boardcert.cli.after_run)."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from boardcert.cli.after_run import AfterRun, after_run, prepare_after_run
from boardcert.cli.exits import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    REPORT_FILES,
    RunWatch,
    interrupting,
    outcome,
    stopped,
)
from boardcert.cli.session import (
    plan_arguments,
    pytest_arguments,
    pytest_main,
    redacted_console,
    speed_left_out,
)
from boardcert.errors import ConfigError, UnreachableError
from boardcert.http.redact import Redactor, for_key, short_key_warning
from boardcert.settings import workers
from boardcert.settings.run import Run, resolve_run
from boardcert.settings.run_facts import recorded_options

TIMED = 5  # requests after the preflight's that time the round trip (their mean counts)


def cmd_run(args: argparse.Namespace, extra: list[str]) -> int:
    args.speed = speed_on(args, extra)
    if args.speed:  # until pytest has collected the tests (boardcert.speed.overhead turns it on)
        gc.disable()
    try:
        return _run(args, extra)
    finally:
        gc.enable()


def speed_on(args: argparse.Namespace, extra: list[str]) -> bool:
    """Whether the run loads the speed plugin: not with --no-speed, nor when the pytest
    arguments after -- leave it out (-p no:boardcert.speed)."""
    return not (getattr(args, "no_speed", False) or speed_left_out(extra))


def _run(args: argparse.Namespace, extra: list[str]) -> int:
    _keep_bytecode()
    try:
        if args.max_failures is not None and args.max_failures < 1:
            raise ConfigError("--max-failures must be at least 1")
        run = resolve_run(vars(args), os.environ,
                          recorded_options(getattr(args, "command_line", [])))
        check_in_flight(args.in_flight, args.speed)
        output = None if run.plan else output_directory(args.output)
        after = prepare_after_run(args, run.target.profile.path)
    except ConfigError as exc:
        return stopped(exc)
    target = run.target
    if warning := short_key_warning(target.api_key):
        print(f"boardcert: warning: {warning}", file=sys.stderr)
    redactor = for_key(target.api_key)  # the console; the files: boardcert.pytest.masked
    if output is None:  # --plan, before the reachability check: a plan contacts nothing
        with redacted_console(redactor):
            code = pytest_main(plan_arguments(args, extra), RunWatch(), run)
        print(f"workers: {plan_workers(args, extra, target.base_url)}")
        return {0: EXIT_OK, 4: EXIT_USAGE}.get(code, EXIT_FAILED)
    with interrupting():
        return _certify(args, extra, run, output, after, redactor)


def _certify(args: argparse.Namespace, extra: list[str], run: Run, output: Path,
             after: AfterRun, redactor: Redactor) -> int:
    """The preflight, the session and what follows it (SIGTERM meanwhile: as Ctrl-C)."""
    target = run.target
    timing: list[float] = []
    if target.base_url and (stop := check_first(target, run.no_preflight, timing)):
        return stop
    args.workers_choice = workers_choice(args, extra, timing)
    in_flight = in_flight_choice(run, args.workers_choice, timing) if args.speed else None
    print(f"boardcert: {args.workers_choice.reason}" + (
        f"; {in_flight} requests in flight where tests are independent"
        if in_flight and in_flight > 1 else ""), file=sys.stderr)
    # it answered: the session checks it no more (the speed plugin then probes at once)
    run = replace(run, in_flight=run.in_flight or in_flight, checked=bool(timing),
                  in_flight_chosen=run.in_flight is None and in_flight is not None)
    watch = RunWatch()
    with redacted_console(redactor):
        code = pytest_main(pytest_arguments(args, extra, output), watch, run)
    return after_run(args, after, output, outcome(code, watch, output, args.strict),
                     watch.report)


def _keep_bytecode() -> None:
    """Keep compiled bytecode between runs, in the user's cache rather than the tree: without
    it (PYTHONDONTWRITEBYTECODE) every run recompiles schemathesis and hypothesis for pytest's
    assertion rewriting, seconds of each run."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "boardcert"
    if sys.dont_write_bytecode:
        sys.pycache_prefix = sys.pycache_prefix or str(cache / "pycache")
        sys.dont_write_bytecode = False
        # pytest-xdist's workers are new interpreters: the same for them (else each compiles
        # for seconds of CPU before its first test)
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ.setdefault("PYTHONPYCACHEPREFIX", sys.pycache_prefix)
    # Hypothesis's Unicode tables (seconds to compute) are kept there too, not in a .hypothesis/
    # of whatever directory the run starts in (computed again in each, and left behind).
    os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", str(cache / "hypothesis"))


def check_target(args: argparse.Namespace, **given: Any) -> Any:
    """The target as the plugin will resolve it (`config.resolve`: the same flags and
    variables), checked here so that errors come first and plainly; its base URL is empty
    for the bundled reference server."""
    from boardcert.settings.config import FLAGS, resolve

    return resolve({name: getattr(args, name, None) for name in FLAGS} | given, os.environ)


def check_in_flight(given: int | None, speed: bool = True) -> None:
    """More than one request in flight (--in-flight or BOARDCERT_IN_FLIGHT, checked when the
    run was resolved) needs the speed plugin."""
    if not speed and given is not None and given > 1:
        raise ConfigError(f"--in-flight {given} needs the speed plugin: not with --no-speed "
                          f"(the plain path sends one request at a time)")


def check_first(target: Any, only_reachable: bool,
                timing: list[float] | None = None) -> int | None:
    """The preflight (or, with --no-preflight, only whether anything answers), before pytest
    starts: the exit code of a run that stops here with its message, else None. `timing`
    gets the seconds each answered request took (the round trip that chooses the workers)."""
    from boardcert.http import preflight
    from boardcert.http.client import Client

    client = Client(target)
    try:
        if only_reachable:
            why = preflight.reachable(client)
            if why:
                raise UnreachableError(f"the target {target.base_url} cannot be reached: {why}")
        else:
            for note in preflight.examine(client):
                print(f"boardcert: note: {note}", file=sys.stderr)
        if timing is not None:  # several: answers that take a random time, a busy machine
            for _ in range(TIMED):
                preflight.reachable(client)
            timing.extend(e.elapsed for e in client.log if e.status is not None)
    except (ConfigError, UnreachableError) as exc:
        return stopped(exc)
    finally:
        client.close()
    return None


def workers_choice(args: argparse.Namespace, extra: list[str], timing: list[float]) -> Any:
    """How many test workers: --workers, else `-n` after `--` (pytest's, left as given), else
    chosen from the round trip of the preflight's requests (none timed: the bundled server)."""
    if args.workers is not None:
        return workers.given(args.workers)
    if _workers_in(extra):
        return workers.Choice(1, "-n as given to pytest after --")  # extra carries -n
    return workers.choose(workers.round_trip(timing), args.rate_limit,
                          load=workers.machine_load())


def in_flight_choice(run: Run, choice: workers.Choice, timing: list[float]) -> int | None:
    """Requests each test process keeps in flight (boardcert.speed.in_flight), chosen from the
    round trip; None when --in-flight or BOARDCERT_IN_FLIGHT decides (or nothing was timed)."""
    if run.in_flight is not None or not timing:
        return None
    return workers.in_flight(workers.round_trip(timing), run.target.rate_limit, choice.workers)


def plan_workers(args: argparse.Namespace, extra: list[str], base_url: str) -> str:
    """What --plan says of the workers (it contacts nothing, so it gives the rule)."""
    if args.workers is not None or _workers_in(extra) or not base_url:
        return workers_choice(args, extra, []).reason
    return workers.RULE


def _workers_in(extra: list[str]) -> bool:
    return any(arg.startswith(("-n", "--numprocesses")) for arg in extra)


def output_directory(given: str | None) -> Path:
    if given:
        path = Path(given)
        if path.exists() and not path.is_dir():
            raise ConfigError(f"--output {given}: exists and is not a directory")
        held = [name for name in REPORT_FILES if (path / name).exists()]
        if held:  # a new run's allure results would mix with the old ones
            raise ConfigError(f"--output {given}: already holds a report ({', '.join(held)})")
        check_writable(path, f"--output {given}")
        return path
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path, n = Path("reports") / stamp, 1
    while path.exists():
        n += 1
        path = Path("reports") / f"{stamp}-{n}"
    return path


def check_writable(path: Path, flag: str) -> None:
    """That the run can make `path` and write in it, tried before any test (a directory it
    made for the trial is removed again: a run stopped by the preflight leaves nothing)."""
    made: list[Path] = []
    try:
        for directory in [*reversed(path.parents), path]:
            if not directory.exists():
                directory.mkdir()
                made.append(directory)
        probe = path / f".boardcert-{os.getpid()}"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise ConfigError(f"{flag}: cannot write reports there ({exc.strerror or exc})"
                          ) from None
    finally:
        for directory in reversed(made):
            directory.rmdir()
