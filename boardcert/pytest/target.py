"""The server under test (pytest plugin module): the run's target (boardcert.pytest.handover),
the bundled reference server (one for all pytest-xdist workers: settings.ToWorkers), the
`target` and `client` fixtures, the preflight, a target that stops answering, and each test's
exchanges."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from boardcert.errors import ConfigError, UnreachableError
from boardcert.http import preflight
from boardcert.http.client import Client, Exchange
from boardcert.paths import SUITES
from boardcert.pytest import quiet
from boardcert.pytest.handover import run_of
from boardcert.pytest.stash import CLIENT, LOG_START, PREFLIGHT_NOTES, TARGET, THROWAWAY
from boardcert.settings import roles
from boardcert.settings.config import Target


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    """With --base-url: the preflight, once per run (on the xdist controller), before
    collection; a misconfigured run stops here with its message (exit 2, or 3 for a target
    that cannot be reached). Not in pytest_sessionstart: pytest would print the message
    twice."""
    config = session.config
    run, target = run_of(config), config.stash[TARGET]
    _launch_bundled(config)
    if run.bundled or run.no_preflight or run.plan or config.option.collectonly \
            or roles.is_worker(config) or run.checked:
        return
    try:
        config.stash[PREFLIGHT_NOTES] = preflight.check(target)
    except UnreachableError as exc:
        pytest.exit(str(exc), returncode=3)
    except ConfigError as exc:
        pytest.exit(str(exc), returncode=2)


def _launch_bundled(config: pytest.Config) -> None:
    """No base URL, one process: the bundled reference server starts now, while pytest
    collects (a second of start-up on the other core), and the `target` fixture waits for
    it. Not for --plan or --collect-only (they contact nothing), nor under pytest-xdist
    (settings.ToWorkers starts it)."""
    option = config.option
    if config.stash[TARGET].base_url or run_of(config).plan or option.collectonly \
            or roles.is_worker(config) or getattr(option, "numprocesses", None) \
            or not any(_in_suites(arg) for arg in config.args):
        return
    bundled(config)


def bundled(config: pytest.Config) -> tuple[Any, str]:
    """The run's bundled reference server and its key: the one place that starts it (on the
    first call; it answers within a second: `wait_until_up`) and mints the key; stopped at
    the end (thrown away: killed, not shut down in order)."""
    found = config.stash.get(LAUNCHED, None)
    if found is None:
        from boardcert.reference.server import launch

        key = secrets.token_urlsafe(24)
        server = launch(api_key=key)
        config.add_cleanup(lambda: server.stop(grace=0))
        found = config.stash[LAUNCHED] = (server, key)
    return found


def _in_suites(arg: str) -> bool:
    """Whether a test path of the command line is (in) the suites, whose tests need the
    target (boardcert's own tests start servers of their own)."""
    path = Path(arg.split("::")[0]).resolve()
    return path == SUITES or SUITES in path.parents


LAUNCHED = pytest.StashKey[tuple[Any, str]]()  # the bundled server, launched, and its key


@pytest.fixture(scope="session")
def target(request: pytest.FixtureRequest) -> Iterator[Target]:
    """The server under test; the bundled reference server when no base URL was given."""
    configured = request.config.stash[TARGET]
    if configured.base_url:
        yield configured
        return
    server, key = bundled(request.config)
    server.wait_until_up(key)
    started = replace(configured, base_url=server.base_url, api_key=key)
    request.config.stash[TARGET] = started  # the report's facts and redaction read it
    request.config.stash[THROWAWAY] = True  # nothing to clean up: boardcert.pytest.cleanup
    yield started


def users_server(config: pytest.Config) -> bool:
    """Whether the target is the user's (a base URL given), not the bundled reference server
    (which boardcert starts and waits for)."""
    return not run_of(config).bundled


@pytest.fixture(scope="session")
def client(target: Target, request: pytest.FixtureRequest) -> Iterator[Client]:
    """One keep-alive client per worker. When nothing checked the target before (pytest run
    directly with --no-preflight), it stops the run (exit 3) if the target is unreachable; the
    preflight already did, on the xdist controller before any test reaches a worker, or in
    `boardcert run` (Run.checked)."""
    client = Client(target)
    client.gate = quiet.gate(request.config)
    request.config.stash[CLIENT] = client
    run = run_of(request.config)
    unchecked = not run.bundled and run.no_preflight and not run.checked
    try:
        why = preflight.reachable(client) if unchecked else None  # an answer's faults: tests'
    except ConfigError as exc:  # a TLS handshake refused: http or https?
        client.close()
        pytest.exit(str(exc), returncode=2)  # as the preflight does
    if why:
        client.close()
        pytest.exit(f"target {target.base_url} cannot be reached: {why}", returncode=3)
    yield client
    client.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)  # before any fixture is set up
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """Marks where the client's log stands, so that `exchanges_of` finds the test's own."""
    client = item.config.stash.get(CLIENT, None)
    item.stash[LOG_START] = (client, len(client.log) if client is not None else 0)
    if client is not None:
        client.begin_test()
    return (yield)


def exchanges_of(item: pytest.Item) -> list[Exchange]:
    """The exchanges of the test so far (of its set-up, for a session fixture's first use)."""
    current = item.config.stash.get(CLIENT, None)
    if current is None:
        return []
    client, start = item.stash.get(LOG_START, (None, 0))
    return current.log[start if current is client else 0:]  # else: made in this set-up


def pytest_runtest_teardown(item: pytest.Item) -> None:
    """A target that stops answering during the run (requests in a row refused or timed out,
    and GET /users/me unanswered too) ends it with exit 3 after the test that found it, and
    a report that says so, rather than failing every test that follows, each after a
    timeout."""
    client = item.config.stash.get(CLIENT, None)
    if client is None or not client.gone:
        return
    why = preflight.silent(client)
    if why:
        target = item.config.stash[TARGET]
        pytest.exit(f"target {target.base_url} stopped answering during the run: {why}",
                    returncode=3)
