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


@pytest.fixture(scope="session")
def keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return bundle.keygen(tmp_path_factory.mktemp("keys"))


@pytest.fixture(scope="session")
def other_keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return bundle.keygen(tmp_path_factory.mktemp("other-keys"))
