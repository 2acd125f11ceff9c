"""Fixtures shared by boardcert's own test modules (plain helpers: tests/samples.py). This
directory on sys.path also makes samples, faults, hostile and traffic importable from every
test module, wherever in tests/ it sits."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardcert.outputs import bundle


@pytest.fixture(scope="session")
def keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return bundle.keygen(tmp_path_factory.mktemp("keys"))


@pytest.fixture(scope="session")
def other_keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return bundle.keygen(tmp_path_factory.mktemp("other-keys"))
