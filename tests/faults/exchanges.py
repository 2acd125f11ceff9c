"""A pytest plugin for boardcert's own tests (`-p faults.exchanges`, tests/ on sys.path): each
test's exchanges, as its evidence and Allure steps show them, one JSON line per test in
<--report-dir>/exchanges.jsonl: method, path, how X-API-Key was sent, status."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boardcert.target import exchanges_of

FILE = "exchanges.jsonl"


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    directory = item.config.option.report_dir
    if not directory:
        return
    Path(directory).mkdir(parents=True, exist_ok=True)
    shown = [[e.method, "/" + e.url.split("/", 3)[-1], key_sent(e.request_headers), e.status]
             for e in exchanges_of(item)]
    with open(Path(directory) / FILE, "a", encoding="utf-8") as out:
        out.write(json.dumps({"test": item.nodeid, "exchanges": shown}) + "\n")


def key_sent(headers: dict[str, str]) -> str:
    """How the request carried the key: the key (***), none, empty, wrong, the key plus x."""
    given = next((v for k, v in headers.items() if k.lower() == "x-api-key"), None)
    if given is None:
        return "none"
    return {"": "empty", "***": "key", "***x": "the key plus a character"}.get(given, "wrong")


def read(directory: Path) -> dict[str, list[list[object]]]:
    """The exchanges of each test of a run (report directory) by node id."""
    lines = (directory / FILE).read_text(encoding="utf-8").splitlines()
    return {r["test"]: r["exchanges"] for r in map(json.loads, lines)}
