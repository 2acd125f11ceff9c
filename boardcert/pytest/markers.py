"""Requirement markers (pytest plugin module): `@pytest.mark.requirement("ID", ..., op=N)`
becomes the markers `<REQ-ID>` and `op<N>` and the test's identity (`identity(item)`: its
requirement ids and operations, which every record of its phases carries:
boardcert.pytest.failures); `--read-only` skips, before set-up, every test that may change the
server."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from boardcert.interface import requirements, spec
from boardcert.pytest.stash import READ_ONLY_SKIPPED, TARGET

READ_ONLY_SKIP = "not assessed: --read-only (this test changes the server)"
_NONE = requirements.Requirement("", "", "", "", "", "", ())
IDENTITY = pytest.StashKey[tuple[tuple[str, ...], tuple[int, ...]]]()  # ids, operations


def per_operation(requirement: str, numbers: Iterable[int]) -> list[Any]:
    """A test's `number` parameters, one per operation, each marked with `requirement` on its
    operation (`@pytest.mark.parametrize("number", per_operation("ID", (3, 5)))`)."""
    return [pytest.param(n, marks=pytest.mark.requirement(requirement, op=n), id=f"op{n}")
            for n in numbers]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "requirement(*ids, op=None): requirement ids checked")
    config.addinivalue_line("markers", "read_only: changes nothing on the server")
    config.addinivalue_line("markers", "read_only_check: a check of the --read-only smoke "
                            "run (deselected otherwise: a full run checks the same)")
    for number in spec.operations():
        config.addinivalue_line("markers", f"op{number}: touches operation {number}")
    for req_id in requirements.catalogue():
        config.addinivalue_line("markers", f"{req_id}: checks requirement {req_id}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    catalogue = requirements.catalogue()
    if not config.stash[TARGET].read_only:
        smoke = [i for i in items if i.get_closest_marker("read_only_check")]
        if smoke:
            config.hook.pytest_deselected(items=smoke)
            items[:] = [i for i in items if i not in smoke]
    for item in items:
        ids, ops = requirement_ids(item), item_operations(item)
        unknown = [i for i in ids if i not in catalogue]
        if unknown:
            raise pytest.UsageError(f"{item.nodeid} names unknown requirement ids {unknown}")
        for name in [*ids, *(f"op{n}" for n in ops)]:
            item.add_marker(name)
        if ids:
            item.stash[IDENTITY] = (tuple(ids), tuple(ops))
        if ids and config.stash[TARGET].read_only and item.get_closest_marker("read_only") is None:
            # Skipped before set-up, so no module or session fixture creates anything for it.
            item.add_marker(pytest.mark.skip(reason=READ_ONLY_SKIP))
            item.stash[READ_ONLY_SKIPPED] = True  # the record says why, as data


def identity(item: pytest.Item) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The requirement ids a collected test names and the operations it touches (none: it
    names no requirement)."""
    return item.stash.get(IDENTITY, ((), ()))


def requirement_ids(item: pytest.Item) -> list[str]:
    ids: list[str] = []
    for mark in item.iter_markers("requirement"):
        ids += [i for i in mark.args if i not in ids]
    return ids


def item_operations(item: pytest.Item) -> list[int]:
    """Operations a test touches: its marker's op= if given, else its requirements'."""
    ops: set[int] = set()
    for mark in item.iter_markers("requirement"):
        given = mark.kwargs.get("op")
        if given is not None:
            ops |= {given} if isinstance(given, int) else set(given)
        else:
            ops |= {n for i in mark.args
                    for n in requirements.catalogue().get(i, _NONE).operations}
    return sorted(ops)


@pytest.hookimpl(tryfirst=True)  # before any fixture is set up
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Under --read-only a test that may change the server is skipped (a hook, not an autouse
    fixture: Allure shows no set-up of boardcert's own)."""
    if item.config.stash[TARGET].read_only and item.get_closest_marker("read_only") is None \
            and requirement_ids(item):
        pytest.skip(READ_ONLY_SKIP)
