"""Fixtures shared by boardcert's own test modules (plain helpers: tests/samples.py). This
directory on sys.path also makes samples, faults, hostile and traffic importable from every
test module, wherever in tests/ it sits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from boardcert.outputs import bundle
from boardcert.paths import user_cache

# Bytecode kept for every Python these tests start (pytest sessions, `boardcert` commands), in
# the user's cache, where `boardcert run` keeps its own: with PYTHONDONTWRITEBYTECODE set (as
# on the machines this project's CI runs on) each of them rewrote and compiled the asserts of
# the suites and the plugins again, seconds of CPU a session (test_compat.py alone: 24.9 s,
# 14.1 s with the cache). In the whole test command the first in-process `boardcert run` of a
# worker did the same for the rest of its session (boardcert.cli.run._keep_bytecode), so the
# command's time did not move; this makes it hold from the first test, in any order. The
# controller loads this before pytest-xdist starts its workers: they inherit it.
if os.environ.get("PYTHONDONTWRITEBYTECODE") and (_pycache := user_cache("pycache")):
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ.setdefault("PYTHONPYCACHEPREFIX", str(_pycache))


# Modules run first by a pytest-xdist worker. A worker is given one more unit of work (a test,
# or an xdist group's tests) whenever it has two or fewer left, so the last units of the
# collection decide how long one worker runs alone at the end: in collection order these three
# whole runs (23 s, one xdist group) came last, and the other worker ended 15 to 19 s sooner
# (two runs of the test command). First, they run beside the other worker's tests; the last
# are quick ones. (All the xdist groups first did worse: two of the heaviest at once, 525 s
# against 457 s.)
FIRST = ("tests/traffic/test_traffic_suite.py",)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a pytest-xdist worker, the tests of FIRST first, the rest in their order (every
    worker orders the same items the same way, as pytest-xdist requires)."""
    if hasattr(config, "workerinput"):
        items.sort(key=lambda item: item.nodeid.split("::")[0] not in FIRST)


@pytest.fixture(scope="session")
def keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return bundle.keygen(tmp_path_factory.mktemp("keys"))


@pytest.fixture(scope="session")
def other_keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return bundle.keygen(tmp_path_factory.mktemp("other-keys"))
