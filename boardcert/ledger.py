"""What a run created, deleted newest first at the end, even after failures or Ctrl-C."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from boardcert.api import Api
from boardcert.client import CONNECT, TIMEOUT
from boardcert.errors import ExchangeError
from boardcert.resources import DELETE_OP

GIVE_UP_AFTER = 3  # transport failures in a row: the server is gone, stop trying


@dataclass
class Entry:
    kind: str  # project, row, column, card, card_metadata, plugin, plugin_data
    params: dict[str, str]
    parent: Entry | None = None
    deleted: bool = False

    def describe(self) -> str:
        return f"{self.kind} " + " ".join(f"{k}={v}" for k, v in self.params.items())




@dataclass
class Ledger:
    api: Api
    entries: list[Entry] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def add(self, kind: str, parent: Entry | None = None, **params: str) -> Entry:
        entry = Entry(kind, params, parent)
        with self._lock:
            self.entries.append(entry)
        return entry

    def forget(self, entry: Entry) -> None:
        """The test deleted it itself."""
        entry.deleted = True

    def pending(self) -> list[Entry]:
        """What clean-up would delete: live entries no project deletion covers, newest first."""
        return [e for e in reversed(self.entries) if not e.deleted and not _covered(e)]

    def clean_up(self) -> list[str]:
        """Delete everything pending, newest first; returns what could not be deleted."""
        gone = 0  # transport failures in a row
        for entry in self.pending():
            if gone >= GIVE_UP_AFTER:
                self.failures.append(f"{entry.describe()}: not tried (the server stopped "
                                     f"answering)")
                continue
            try:
                exchange = self.api.call(DELETE_OP[entry.kind], path_params=entry.params)
            except ExchangeError as exc:
                failed = self.api.client.log[-1].failure if self.api.client.log else None
                gone = gone + 1 if failed in (CONNECT, TIMEOUT) else 0
                self.failures.append(f"{entry.describe()}: {str(exc).splitlines()[0]}")
                continue
            gone = 0
            if 200 <= (exchange.status or 0) < 300 or exchange.status == 404:
                entry.deleted = True
            else:
                self.failures.append(f"{entry.describe()}: answered {exchange.status}")
        return self.failures


def _covered(entry: Entry) -> bool:
    """Inside a project: its project's deletion takes it along, or already did."""
    return entry.parent is not None
