"""Users and projects (operations 1-5) of the reference server."""

from __future__ import annotations

import re
import time

import httpx

PROJECT_KEYS = {"id", "name", "createdAt", "updatedAt", "rows", "cards", "plugins"}
ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def test_users_me_shape(client: httpx.Client, expect) -> None:
    """Operation 1 answers the organization, organizations, the user and no accessTokens."""
    me = expect.ok(client.get("/users/me"))
    assert {"currentOrganization", "currentProject", "organizations", "user"} <= set(me)
    assert me["organizations"] == [me["currentOrganization"]]
    assert set(me["user"]) == {"id", "name"}
    assert "accessTokens" not in client.get("/users/me").text


def test_current_project_follows_creation_and_use(client: httpx.Client, new_board, expect) -> None:
    """The current project is the last one created or used, and null once it is deleted."""
    first, second = new_board(name="first"), new_board(name="second")
    assert expect.ok(client.get("/users/me"))["currentProject"]["id"] == second.project_id
    expect.ok(client.get(first.base))
    assert expect.ok(client.get("/users/me"))["currentProject"] == first.project()
    expect.ok(client.delete(first.base))
    assert expect.ok(client.get("/users/me"))["currentProject"] is None


def test_rejected_request_does_not_change_current_project(client: httpx.Client, new_board, expect):
    """A refused rename leaves the current project where it was."""
    first, second = new_board(), new_board()
    expect.rejected(client.patch(f"{first.base}/rename", json={"name": ""}))
    assert expect.ok(client.get("/users/me"))["currentProject"]["id"] == second.project_id


def test_create_project_shape(client: httpx.Client, expect) -> None:
    """Operation 2 answers a top-level Project with the name given and ISO 8601 UTC times."""
    project = expect.ok(client.post("/organizations/1/projects", json={"name": "Alpha"}))
    assert set(project) == PROJECT_KEYS
    assert project["name"] == "Alpha" and isinstance(project["id"], str)
    assert project["rows"] == [] and project["cards"] == [] and project["plugins"] == []
    assert ISO_UTC.match(project["createdAt"]) and project["createdAt"] == project["updatedAt"]
    assert expect.ok(client.get(f"/projects/{project['id']}")) == project


def test_create_project_in_unknown_organization(client: httpx.Client, expect) -> None:
    """Operation 2 in an organization that does not exist answers 404."""
    expect.rejected(client.post("/organizations/nope/projects", json={"name": "x"}), 404)


def test_project_names_are_validated(client: httpx.Client, expect) -> None:
    """Project names must be strings of 1 to 25000 characters."""
    for body in ({}, {"name": ""}, {"name": 5}, {"name": None}, {"name": "x" * 25001}):
        expect.rejected(client.post("/organizations/1/projects", json=body), 422)
    created = expect.ok(client.post("/organizations/1/projects", json={"name": "é" * 25000}))
    assert created["name"] == "é" * 25000


def test_get_unknown_project(client: httpx.Client, expect) -> None:
    """Operation 3 on an unknown id answers 404."""
    expect.rejected(client.get("/projects/does-not-exist"), 404)


def test_delete_project(client: httpx.Client, board, expect) -> None:
    """Operation 4 answers a JSON object; the project is then gone."""
    assert expect.ok(client.delete(board.base)) == {"id": board.project_id, "deleted": True}
    expect.rejected(client.get(board.base), 404)
    expect.rejected(client.delete(board.base), 404)
    expect.rejected(client.patch(f"{board.base}/cards/{board.card_ids[0]}", json={"name": "x"}))


def test_rename_project(client: httpx.Client, board, expect) -> None:
    """Operation 5 renames the project and moves updatedAt on."""
    before = board.project()
    time.sleep(0.002)
    renamed = expect.ok(client.patch(f"{board.base}/rename", json={"name": "Beta"}))
    assert renamed["name"] == "Beta" and set(renamed) == PROJECT_KEYS
    assert renamed["updatedAt"] > before["updatedAt"]
    assert renamed["createdAt"] == before["createdAt"]
    assert board.project() == renamed


def test_rename_project_rejects_bad_names(client: httpx.Client, board, expect) -> None:
    """A refused rename leaves the project as it was."""
    before = board.project()
    for body in ({}, {"name": ""}, {"name": ["x"]}, {"title": "x"}, {"name": "x" * 25001}):
        expect.rejected(client.patch(f"{board.base}/rename", json=body), 422)
    assert board.project() == before
