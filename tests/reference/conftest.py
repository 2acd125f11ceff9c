"""Fixtures for the reference server's own tests: one server per session, driven over HTTP."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from boardcert.reference.server import RunningServer, start

API_KEY = "reference-test-" + secrets.token_urlsafe(12)


@pytest.fixture(scope="session")
def api_key() -> str:
    """The key the session's server demands."""
    return API_KEY


@pytest.fixture(scope="session")
def server() -> Iterator[RunningServer]:
    """The reference server in a child process; no test may make it log an error."""
    with start(API_KEY) as running:
        yield running
        logged = running.stderr_text()
    assert "Traceback" not in logged and "500" not in logged, logged


@pytest.fixture(scope="session")
def client(server: RunningServer) -> Iterator[httpx.Client]:
    """A keep-alive client that sends the valid key."""
    headers = {"X-API-Key": API_KEY}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=10.0) as http:
        yield http


@pytest.fixture(scope="session")
def anonymous(server: RunningServer) -> Iterator[httpx.Client]:
    """A client that sends no key."""
    with httpx.Client(base_url=server.base_url, timeout=10.0) as http:
        yield http


def ok(response: httpx.Response) -> Any:
    """The JSON body of a 200 answer (fails the test on anything else)."""
    assert response.status_code == 200, (response.status_code, response.text[:500])
    assert response.headers["content-type"].startswith("application/json")
    return response.json()


def rejected(response: httpx.Response, *statuses: int) -> dict[str, Any]:
    """The JSON error body of a 4xx answer, optionally one of `statuses`."""
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:500])
    if statuses:
        assert response.status_code in statuses, (response.status_code, response.text[:500])
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert isinstance(error["code"], str) and isinstance(error["message"], str)
    return error


@dataclass
class Board:
    """A project with one row of two columns and three cards (two in the first column)."""

    client: httpx.Client
    project_id: str
    row_id: str
    column_ids: list[str]
    card_ids: list[str]

    @property
    def base(self) -> str:
        return f"/projects/{self.project_id}"

    def project(self) -> dict[str, Any]:
        """The project as operation 3 answers it now."""
        return ok(self.client.get(self.base))

    def card(self, card_id: str) -> dict[str, Any]:
        """The card as the project lists it now."""
        return next(card for card in self.project()["cards"] if card["id"] == card_id)

    def order(self) -> list[str]:
        """The project's card order."""
        return [card["id"] for card in self.project()["cards"]]

    def send(self, method: str, path: str, body: Any = None, **kwargs: Any) -> httpx.Response:
        """One request with the board's client; `body` goes as JSON unless it is None."""
        if body is not None:
            kwargs["json"] = body
        return self.client.request(method, path, **kwargs)

    def add_card(self, name: str, column: int = 0) -> str:
        """Create a card in one of the board's columns; its id."""
        path = f"{self.base}/columns/{self.column_ids[column]}/cards"
        return ok(self.client.post(path, json={"name": name}))["id"]


def make_board(client: httpx.Client, name: str = "board") -> Board:
    """Create a fresh project through the API and lay it out as a Board."""
    organization = ok(client.get("/users/me"))["currentOrganization"]["id"]
    project = ok(client.post(f"/organizations/{organization}/projects", json={"name": name}))
    base = f"/projects/{project['id']}"
    row_id = ok(client.post(f"{base}/rows", json={"name": "row"}))["rows"][0]["id"]
    for column in ("todo", "done"):
        project = ok(client.post(f"{base}/rows/{row_id}/columns", json={"name": column}))
    column_ids = [column["id"] for column in project["rows"][0]["columns"]]
    board = Board(client, project["id"], row_id, column_ids, [])
    board.card_ids = [board.add_card("a"), board.add_card("b"), board.add_card("c", column=1)]
    return board


@pytest.fixture
def board(client: httpx.Client) -> Board:
    """A fresh board for one test."""
    return make_board(client)


@pytest.fixture(scope="session")
def new_board(client: httpx.Client) -> Callable[..., Board]:
    """A factory of fresh boards: new_board(client=None, name="board")."""

    def factory(http: httpx.Client | None = None, name: str = "board") -> Board:
        return make_board(http or client, name)

    return factory


class Expect:
    """Assertions on answers, shared by the test modules through the `expect` fixture."""

    ok = staticmethod(ok)
    rejected = staticmethod(rejected)


@pytest.fixture(scope="session")
def expect() -> type[Expect]:
    """ok(response) and rejected(response, *statuses)."""
    return Expect


@pytest.fixture
def calls(board: Board) -> dict[int, tuple[str, str, Any]]:
    """Every operation as (method, path, JSON body or None), aimed at the board."""
    return operation_calls(board)


def operation_calls(board: Board) -> dict[int, tuple[str, str, Any]]:
    """Every operation as (method, path, JSON body or None), aimed at the board's resources."""
    p, card, column = board.base, board.card_ids[0], board.column_ids[0]
    entity = f"/plugins/boardcert/entities/{card}"
    return {
        1: ("GET", "/users/me", None),
        2: ("POST", "/organizations/1/projects", {"name": "n"}),
        3: ("GET", p, None),
        4: ("DELETE", p, None),
        5: ("PATCH", f"{p}/rename", {"name": "n"}),
        6: ("GET", f"{p}/rows", None),
        7: ("POST", f"{p}/rows", {"name": "n"}),
        8: ("PATCH", f"{p}/order-rows", {"ids": [board.row_id]}),
        9: ("DELETE", f"{p}/rows/{board.row_id}", None),
        10: ("PATCH", f"{p}/rows/{board.row_id}/rename", {"name": "n"}),
        11: ("POST", f"{p}/rows/{board.row_id}/columns", {"name": "n"}),
        12: ("PATCH", f"{p}/rows/{board.row_id}/order-columns", {"ids": board.column_ids[::-1]}),
        13: ("PATCH", f"{p}/columns/{column}/rename", {"name": "n"}),
        14: ("DELETE", f"{p}/columns/{column}", None),
        15: ("POST", f"{p}/columns/{column}/cards", {"name": "n"}),
        16: ("PATCH", f"{p}/cards/{card}", {"name": "n"}),
        17: ("DELETE", f"{p}/cards/{card}", None),
        18: ("PATCH", f"{p}/cards/move", {"ids": [card], "afterCardId": board.card_ids[2]}),
        19: ("PATCH", f"{p}/cards/move-by-metadata", {"key": "k", "value": "v"}),
        20: ("POST", f"{p}/cards/{card}/alias", {"columnId": board.column_ids[1]}),
        21: ("POST", f"{p}/cards/{card}/metadata", {"key": "k2", "value": "v"}),
        22: ("DELETE", f"{p}/cards/{card}/metadata/k", {}),
        23: ("POST", f"{p}/plugins/boardcert", {}),
        24: ("DELETE", f"{p}/plugins/boardcert", None),
        25: ("PUT", f"{entity}/data/k", {"value": 1}),
        26: ("DELETE", f"{entity}/data/k", None),
        27: ("GET", f"/plugins/boardcert/data/k?entityId={card}", None),
        28: ("POST", f"{entity}/exchange-code", {"code": "boardcert-code"}),
    }
