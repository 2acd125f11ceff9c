"""A pytest plugin for boardcert's own tests (`-p faults.exchanges`, tests/ on sys.path): each
test's exchanges, as its evidence and Allure steps show them, and how many requests were
sent while it ran (set-up and call), one JSON line per test in <--report-dir>/exchanges.jsonl:
method, path, how X-API-Key was sent, status."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

FILE = "exchanges.jsonl"
_SENT = [0]
_LOCK = threading.Lock()
_send = httpx.HTTPTransport.handle_request  # boardcert.http.client sends straight to the transport


def _counted(self: httpx.HTTPTransport, *args: Any, **kwargs: Any) -> httpx.Response:
    with _LOCK:
        _SENT[0] += 1
    return _send(self, *args, **kwargs)


httpx.HTTPTransport.handle_request = _counted  # type: ignore[method-assign]
STARTED = pytest.StashKey[int]()


def pytest_configure(config: pytest.Config) -> None:
    """The speed plugin's transport counted too (its http:// requests never reach httpx's;
    imported here, not as this plugin is: see pytest_runtest_teardown)."""
    from boardcert.speed.lean_http import LeanTransport

    send = LeanTransport.handle_request
    if getattr(send, "counted", False):
        return

    def counted(self: LeanTransport, request: httpx.Request) -> httpx.Response:
        if request.url.scheme == "http":  # https goes on to httpx's, counted there
            with _LOCK:
                _SENT[0] += 1
        return send(self, request)

    counted.counted = True  # type: ignore[attr-defined]
    LeanTransport.handle_request = counted  # type: ignore[method-assign]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    item.stash[STARTED] = _SENT[0]


@pytest.hookimpl(tryfirst=True)  # before the fixtures' teardown (the clean-up at the end)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    directory = item.config.option.report_dir
    if not directory:
        return
    # imported here, not as this plugin is (with -p, before boardcert's plugins): pytest
    # rewrites boardcert.pytest.target, a plugin, only if nothing imported it before
    from boardcert.pytest.target import exchanges_of

    Path(directory).mkdir(parents=True, exist_ok=True)
    shown = [[e.method, "/" + e.url.split("/", 3)[-1], key_sent(e.request_headers), e.status]
             for e in exchanges_of(item)]
    with open(Path(directory) / FILE, "a", encoding="utf-8") as out:
        out.write(json.dumps({"test": item.nodeid, "exchanges": shown,
                              "sent": _SENT[0] - item.stash.get(STARTED, _SENT[0])}) + "\n")


def key_sent(headers: dict[str, str]) -> str:
    """How the request carried the key: the key (***), none, empty, wrong, the key plus x."""
    given = next((v for k, v in headers.items() if k.lower() == "x-api-key"), None)
    if given is None:
        return "none"
    return {"": "empty", "***": "key", "***x": "the key plus a character"}.get(given, "wrong")


def read(directory: Path) -> dict[str, list[list[object]]]:
    """The exchanges each test of a run (report directory) shows, by node id."""
    return {r["test"]: r["exchanges"] for r in _records(directory)}


def sent(directory: Path) -> dict[str, int]:
    """How many requests were sent while each test ran (its set-up and call), by node id."""
    return {r["test"]: r["sent"] for r in _records(directory)}


def _records(directory: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in
            (directory / FILE).read_text(encoding="utf-8").splitlines()]
