"""What a run created, deleted newest first at the end, even after failures or Ctrl-C."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from itertools import takewhile
from typing import Any

from boardcert.errors import ExchangeError
from boardcert.http.api import Api, find_named
from boardcert.http.client import CONNECT, TIMEOUT
from boardcert.interface.resources import BY_NAME, DELETE_OP

GIVE_UP_AFTER = 3  # transport failures in a row: the server is gone, stop trying
CONCURRENT = 8  # deletions of the same kind at a time (within --rate-limit: the client paces)


@dataclass
class Entry:
    kind: str  # project, row, column, card, card_metadata, plugin, plugin_data
    params: dict[str, str]
    parent: Entry | None = None
    deleted: bool = False
    kept: bool = False  # left on the server for a failed test (--keep-failed)

    @property
    def id(self) -> str:
        """The id of what it records (the path parameter that names it to its delete)."""
        return self.params[str(BY_NAME[self.kind].id_parameter)]

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

    def created(self, kind: str, parent: Entry | None = None, /, answer: Any = None,
                name: str | None = None, within: str | None = None, **path: str
                ) -> Entry | None:
        """Record what an operation creating `kind` made, under the path parameters `path`
        names: its id read where the kind shows it (resources.Kind.id_in) in `answer` (the
        body answered, or the part of it to look in): the top-level id, or the id of the
        record carrying `name` (inside the record `within` names first: a column in its
        row); or given in `path`. None, recording nothing, when the answer shows no id. The
        one way fixtures, discovery, the arena and the suites record."""
        where, parameter = BY_NAME[kind].id_in, str(BY_NAME[kind].id_parameter)
        if where == "answer":
            made = str(answer["id"]) if isinstance(answer, dict) and "id" in answer else None
        elif where == "name":
            made = find_named(answer, str(name), within)
        else:  # given: in `path` already
            return self.add(kind, parent, **path) if path.get(parameter) is not None else None
        if made is None:
            return None
        return self.add(kind, parent, **path, **{parameter: made})

    def project(self, project_id: str) -> Entry | None:
        """The newest entry of the project `project_id` (the parent of what is made in it)."""
        return next((e for e in reversed(self.entries) if e.kind == "project"
                     and e.params.get("projectId") == project_id), None)

    def forget(self, entry: Entry) -> None:
        """The test deleted it itself."""
        entry.deleted = True

    def keep(self, kind: str, params: dict[str, str]) -> bool:
        """Leave what a failed test used in place (--keep-failed); whether the ledger has it."""
        found = [e for e in self.entries if e.kind == kind and e.params == params]
        for entry in found:
            entry.kept = True
        return bool(found)

    def pending(self) -> list[Entry]:
        """What clean-up would delete: live entries no project deletion covers and none kept,
        newest first."""
        return [e for e in reversed(self.entries)
                if not e.deleted and not e.kept and not _covered(e)]

    def clean_up(self) -> list[str]:
        """Delete everything pending, newest first; returns what could not be deleted. Entries
        of the same kind next to each other in that order (projects, mostly) are independent:
        once the server answers, they go up to CONCURRENT at a time (a server far away answers
        them in a fraction of the time); a different kind waits for those before it."""
        pending, gone, answered = self.pending(), 0, False  # gone: transport failures in a row
        while pending:
            if gone >= GIVE_UP_AFTER:
                self.failures += [f"{entry.describe()}: not tried (the server stopped "
                                  f"answering)" for entry in pending]
                break
            size = CONCURRENT if answered and not gone else 1
            batch = list(takewhile(partial(_same_kind, pending[0]), pending[:size]))
            pending = pending[len(batch):]
            if len(batch) == 1:
                outcomes = [self._delete(batch[0])]
            else:
                with ThreadPoolExecutor(len(batch)) as pool:
                    outcomes = list(pool.map(self._delete, batch))
            for failure, transport in outcomes:
                gone, answered = (gone + 1, answered) if transport else (0, True)
                if failure:
                    self.failures.append(failure)
        return self.failures

    def _delete(self, entry: Entry) -> tuple[str | None, bool]:
        """What could not be deleted (None: deleted), and whether no answer came at all."""
        try:
            exchange = self.api.call(DELETE_OP[entry.kind], path_params=entry.params)
        except ExchangeError as exc:
            failed = exc.exchanges[-1].get("failure") if exc.exchanges else None
            return f"{entry.describe()}: {str(exc).splitlines()[0]}", failed in (CONNECT, TIMEOUT)
        if 200 <= (exchange.status or 0) < 300 or exchange.status == 404:
            entry.deleted = True
            return None, False
        return f"{entry.describe()}: answered {exchange.status}", False


def _same_kind(first: Entry, entry: Entry) -> bool:
    return entry.kind == first.kind


def _covered(entry: Entry) -> bool:
    """Inside a project: its project's deletion takes it along, or already did."""
    return entry.parent is not None
