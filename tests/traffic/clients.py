"""Three small clients of the interface, written as a client author would, each a function of
(base URL, key) that works on a board of its own and raises `ClientBroke` when the server does
not answer as it expects:

- `current`: only the current operations of section 4, tolerant where the interface is open
  (either row-name property, any 4xx, any id and time form, extra fields): compatible;
- `former`: still calls three former paths of section 9 and sends op 18's cards under
  `cardIds`: incompatible;
- `name_assuming`: assumes op 7 takes `name` (one of the two the interface leaves open), so a
  server that takes only `rowName` breaks it.
"""

from __future__ import annotations

from typing import Any

import httpx


class ClientBroke(Exception):
    """The client's own test failed: the server answered what it did not expect."""


def _client(base_url: str, key: str) -> httpx.Client:
    return httpx.Client(base_url=base_url, headers={"X-API-Key": key}, timeout=10,
                        trust_env=False)


def _ok(response: httpx.Response) -> Any:
    if response.status_code != 200:
        raise ClientBroke(f"{response.request.method} {response.request.url.path} answered "
                          f"{response.status_code}: {response.text[:200]}")
    return response.json()


def _organization(http: httpx.Client) -> str:
    me = _ok(http.get("/users/me"))
    return (me.get("currentOrganization") or me["organizations"][0])["id"]


def current(base_url: str, key: str) -> dict[str, Any]:
    """Make a project, a row (name, or rowName when refused), a column, two cards; rename one,
    move one after the other, read the project and its rows, delete a card and the project.
    Returns what it saw."""
    with _client(base_url, key) as http:
        project = _ok(http.post(f"/organizations/{_organization(http)}/projects",
                                json={"name": "current-client"}))
        pid = project["id"]
        answer = http.post(f"/projects/{pid}/rows", json={"name": "todo"})
        if 400 <= answer.status_code < 500:  # the server takes the other property
            answer = http.post(f"/projects/{pid}/rows", json={"rowName": "todo"})
        row = _ok(answer)["rows"][-1]["id"]
        column = _ok(http.post(f"/projects/{pid}/rows/{row}/columns",
                               json={"name": "doing"}))["rows"][-1]["columns"][-1]["id"]
        first = _ok(http.post(f"/projects/{pid}/columns/{column}/cards", json={"name": "a"}))
        second = _ok(http.post(f"/projects/{pid}/columns/{column}/cards", json={"name": "b"}))
        renamed = _ok(http.patch(f"/projects/{pid}/cards/{first['id']}", json={"name": "A"}))
        if renamed["name"] != "A":
            raise ClientBroke(f"op 16 answered the name {renamed['name']!r}")
        _ok(http.patch(f"/projects/{pid}/cards/move",
                       json={"ids": [first["id"]], "afterCardId": second["id"]}))
        read = _ok(http.get(f"/projects/{pid}"))
        rows = _ok(http.get(f"/projects/{pid}/rows"))["rows"]
        _ok(http.delete(f"/projects/{pid}/cards/{second['id']}"))
        http.delete(f"/projects/{pid}").raise_for_status()
        return {"project": read, "rows": rows, "cards": [first, second]}


def former(base_url: str, key: str) -> None:
    """A client of before the breaking changes: POST /projects/{id}/row, PATCH /projects,
    POST .../columns/{columnId}/card, and op 18's cards under cardIds. It reports what the
    server answered rather than breaking: the report is what the test reads."""
    with _client(base_url, key) as http:
        pid = _ok(http.post(f"/organizations/{_organization(http)}/projects",
                            json={"name": "former-client"}))["id"]
        http.post(f"/projects/{pid}/row", json={"name": "todo"})
        http.patch("/projects", json={"id": pid, "name": "renamed"})
        row = _ok(http.post(f"/projects/{pid}/rows", json={"name": "todo",
                                                          "rowName": "todo"}))["rows"][-1]["id"]
        column = _ok(http.post(f"/projects/{pid}/rows/{row}/columns",
                               json={"name": "doing"}))["rows"][-1]["columns"][-1]["id"]
        http.post(f"/projects/{pid}/columns/{column}/card", json={"name": "a"})
        card = _ok(http.post(f"/projects/{pid}/columns/{column}/cards", json={"name": "b"}))
        http.patch(f"/projects/{pid}/cards/move", json={"cardIds": [card["id"]]})
        http.delete(f"/projects/{pid}")


def name_assuming(base_url: str, key: str) -> str:
    """Make a project and a row, assuming op 7 takes `name`; returns the row's id."""
    with _client(base_url, key) as http:
        pid = _ok(http.post(f"/organizations/{_organization(http)}/projects",
                            json={"name": "name-client"}))["id"]
        try:
            return _ok(http.post(f"/projects/{pid}/rows", json={"name": "todo"}))["rows"][0]["id"]
        finally:
            http.delete(f"/projects/{pid}")


def keeper(base_url: str, key: str) -> None:
    """A client that keeps a board: three rows, a column, three cards; renames the middle row,
    the column and the middle card; deletes the last card and the last row, reading the
    project after each; deletes the project and reads it once more."""
    with _client(base_url, key) as http:
        pid = _ok(http.post(f"/organizations/{_organization(http)}/projects",
                            json={"name": "keeper"}))["id"]
        for name in ("todo", "doing", "done"):
            project = _ok(http.post(f"/projects/{pid}/rows", json={"name": name}))
        rows = [r["id"] for r in project["rows"]]
        column = _ok(http.post(f"/projects/{pid}/rows/{rows[0]}/columns",
                               json={"name": "now"}))["rows"][0]["columns"][0]["id"]
        cards = [_ok(http.post(f"/projects/{pid}/columns/{column}/cards", json={"name": n}))["id"]
                 for n in ("a", "b", "c")]
        _ok(http.patch(f"/projects/{pid}/rows/{rows[1]}/rename", json={"name": "review"}))
        _ok(http.patch(f"/projects/{pid}/columns/{column}/rename", json={"name": "later"}))
        _ok(http.patch(f"/projects/{pid}/cards/{cards[1]}", json={"name": "B"}))
        _ok(http.get(f"/projects/{pid}"))
        _ok(http.delete(f"/projects/{pid}/cards/{cards[2]}"))
        _ok(http.get(f"/projects/{pid}"))
        _ok(http.delete(f"/projects/{pid}/rows/{rows[2]}"))
        _ok(http.get(f"/projects/{pid}"))
        http.delete(f"/projects/{pid}")
        http.get(f"/projects/{pid}")
