"""boardcert's own pytest hooks (added by boardcert.pytest.plugin, as pytest-xdist adds its
newhooks): how the plugin's parts, and `boardcert run`, hear of each other's work, instead of
finding one another by name or by the order of `pytest_plugins`. Each is called on the process
that reports (the pytest-xdist controller, or the one process)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

__all__ = ["pytest_boardcert_files", "pytest_boardcert_report_written",
           "pytest_boardcert_run_ended"]


@pytest.hookspec
def pytest_boardcert_report_written(config: pytest.Config, report: dict[str, Any],
                                    directory: Path) -> None:
    """The compliance report was written into `directory` (compliance.json, .md, .html, the
    summary and badge); `report` is compliance.json's content, the key masked."""


@pytest.hookspec
def pytest_boardcert_run_ended(config: pytest.Config, unreachable: bool, message: str,
                               interrupted: bool) -> None:
    """How the run ended: `unreachable`, the target could not be reached or stopped answering
    (`message` says which); `interrupted`, by the user (Ctrl-C), not by --maxfail."""


@pytest.hookspec
def pytest_boardcert_files(config: pytest.Config) -> list[Path]:
    """Where this plugin writes the run's files (a file or a directory): the key is masked in
    each of them once the run is over (boardcert.pytest.masked)."""
