"""boardcert.interface.resources: the one table of what creates and deletes each kind agrees with
the
operations of spec/openapi.yaml."""

from __future__ import annotations

from boardcert.interface import spec
from boardcert.interface.resources import CREATED_BY, DELETED_BY, KINDS


def test_each_kind_is_deleted_by_a_delete_naming_it():
    """A kind's delete operation is a DELETE whose path names its id parameter."""
    for kind in KINDS:
        if kind.deletes is not None:
            op = spec.operation(kind.deletes)
            assert op.method == "DELETE", kind.name
            assert f"{{{kind.id_parameter}}}" in op.path, kind.name


def test_creations_are_writes_and_every_delete_is_listed():
    """Creating operations are POST or PUT; each DELETE of section 4 deletes one kind."""
    assert all(spec.operation(n).method in ("POST", "PUT") for n in CREATED_BY)
    deletes = {n for n, op in spec.operations().items() if op.method == "DELETE"}
    assert set(DELETED_BY) == deletes


def test_kinds_in_a_project_are_deleted_under_its_path():
    """What goes with its project is deleted by an operation under /projects/{projectId}."""
    for kind in KINDS:
        if kind.in_project:
            assert spec.operation(kind.deletes).path.startswith("/projects/{projectId}/")
