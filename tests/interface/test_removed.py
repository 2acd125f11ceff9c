"""boardcert.interface.removed: the 13 removed method+path pairs of section 9, as data the suites
fill."""

from __future__ import annotations

import re

import pytest

from boardcert.interface import spec
from boardcert.interface.removed import REMOVED, RemovedPath
from boardcert.settings.config import PLACEHOLDERS

PARAMETER = re.compile(r"\{\w+\}")


def test_thirteen_pairs_none_of_them_a_current_operation():
    """Section 9 removes 13 method+path pairs; none is an operation of section 4 today."""
    assert len(REMOVED) == len({p.test_id for p in REMOVED}) == 13
    current = {(op.method, PARAMETER.sub("{}", op.path)) for op in spec.operations().values()}
    assert not [p.test_id for p in REMOVED if (p.method, PARAMETER.sub("{}", p.path)) in current]


def test_each_names_the_operation_that_replaced_it():
    """`current` is an operation of section 4."""
    assert {p.current for p in REMOVED} <= set(spec.operations())


@pytest.mark.parametrize("removed", REMOVED, ids=lambda p: p.test_id)
def test_request_needs_only_what_placeholders_names(removed: RemovedPath):
    """`request` fills from exactly `placeholders()`, all of them placeholders the suite has."""
    assert removed.placeholders() <= PLACEHOLDERS
    method, path, _ = removed.request({name: f"<{name}>" for name in removed.placeholders()})
    assert method == removed.method and "{" not in path


def test_request_fills_and_quotes_path_values():
    """Path values are URL-quoted; the alias path's columnId is the other column."""
    alias = next(p for p in REMOVED if p.path.endswith("/alias"))
    values = {"project_id": "p/1", "column_id": "c1", "other_column_id": "c2", "card_id": "k 1"}
    method, path, body = alias.request(values)
    assert (method, path) == ("POST", "/projects/p%2F1/columns/c2/cards/k%201/alias")
    assert body is None
