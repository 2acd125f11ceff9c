"""A pytest plugin for boardcert's own tests (`-p faults.main_thread`, tests/ on sys.path):
pytest's fixtures are for its own thread (allure-pytest's listener, for one, keeps its state
there), so each fixture asked for from another thread (a job of together.gather) is noted
in <--report-dir>/off-thread.txt."""

from __future__ import annotations

import threading
import traceback
from pathlib import Path
from typing import Any

import pytest

FILE = "off-thread.txt"
_getfixturevalue = pytest.FixtureRequest.getfixturevalue


def pytest_configure(config: pytest.Config) -> None:
    directory = config.option.report_dir

    def getfixturevalue(self: pytest.FixtureRequest, argname: str) -> Any:
        if threading.current_thread() is not threading.main_thread() and directory:
            Path(directory).mkdir(parents=True, exist_ok=True)
            with open(Path(directory) / FILE, "a", encoding="utf-8") as out:
                out.write(f"{argname}\n{''.join(traceback.format_stack(limit=6))}\n")
        return _getfixturevalue(self, argname)

    pytest.FixtureRequest.getfixturevalue = getfixturevalue  # type: ignore[method-assign]
