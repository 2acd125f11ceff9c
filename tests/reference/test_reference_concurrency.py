"""Concurrent requests: the store stays consistent under several clients at once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

THREADS, CARDS_PER_THREAD = 8, 25


def test_concurrent_card_creation(server, api_key: str, board, expect) -> None:
    """Eight clients creating cards at once get unique ids, all listed in the project."""
    path = f"{board.base}/columns/{board.column_ids[0]}/cards"

    def create_cards(worker: int) -> list[str]:
        with httpx.Client(base_url=server.base_url, headers={"X-API-Key": api_key}) as http:
            return [
                expect.ok(http.post(path, json={"name": f"w{worker}-{n}"}))["id"]
                for n in range(CARDS_PER_THREAD)
            ]

    with ThreadPoolExecutor(THREADS) as pool:
        created = [card_id for ids in pool.map(create_cards, range(THREADS)) for card_id in ids]
    assert len(set(created)) == THREADS * CARDS_PER_THREAD
    order = board.order()
    assert order[:3] == board.card_ids
    assert sorted(order[3:]) == sorted(created)


def test_concurrent_mixed_changes(server, api_key: str, new_board, expect) -> None:
    """Concurrent renames, moves and metadata on separate boards never fail or mix up."""

    def work(worker: int) -> None:
        with httpx.Client(base_url=server.base_url, headers={"X-API-Key": api_key}) as http:
            board = new_board(http, f"board-{worker}")
            a, b, c = board.card_ids
            for n in range(10):
                expect.ok(http.patch(f"{board.base}/cards/{a}", json={"name": f"{worker}-{n}"}))
                body = {"ids": [a], "afterCardId": c if n % 2 else b}
                expect.ok(http.patch(f"{board.base}/cards/move", json=body))
                body = {"key": f"k{n}", "value": str(worker)}
                expect.ok(http.post(f"{board.base}/cards/{b}/metadata", json=body))
            assert board.card(a)["name"] == f"{worker}-9"
            assert board.order() == [b, c, a]
            assert len(board.card(b)["metadata"]) == 10

    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(work, range(THREADS)))
