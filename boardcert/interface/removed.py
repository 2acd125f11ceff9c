"""The former method+path pairs of section 9 ("Path and field history"), as data.

Each removed path carries the body its former operation plausibly took (the alias path had
its column in the path: no body), the resource it names and the operation that replaced it.
The suites call them with real ids and the valid key, with the body the current operation
accepts and with this one (no 2xx; 404, 405 or 410; no change); reports and fault tests read
them too.
Body templates use the profile's "{placeholder}" form (`boardcert.interface.placeholders`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from boardcert.interface.placeholders import fill

# Path parameter -> the placeholder value it takes, unless a removed path says otherwise.
PATH_VALUES = {"projectId": "project_id", "cardId": "card_id", "columnId": "column_id",
               "rowId": "row_id"}
PARAMETER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class RemovedPath:
    method: str
    path: str  # as section 9 writes it
    body: Any  # what the former operation plausibly took (placeholders), or None
    resource: str  # the resource it names
    current: int  # the operation of section 4 that replaced it
    note: str = ""  # the interface's gloss, e.g. "move"
    path_values: Mapping[str, str] = field(default_factory=dict)  # overrides of PATH_VALUES
    observable: bool = True  # what it could change can be read through the interface

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}" + (f" ({self.note})" if self.note else "")

    @property
    def test_id(self) -> str:
        return f"{self.method} {self.path}"

    def placeholders(self) -> set[str]:
        """The values `request` needs."""
        names = {self.path_values.get(p, PATH_VALUES.get(p, p))
                 for p in PARAMETER.findall(self.path)}
        return names | set(PARAMETER.findall(repr(self.body)))

    def request(self, values: Mapping[str, Any]) -> tuple[str, str, Any]:
        """(method, path, body) with the placeholders filled from `values`."""
        def value(match: re.Match[str]) -> str:
            name = self.path_values.get(match[1], PATH_VALUES.get(match[1], match[1]))
            return quote(str(values[name]), safe="")

        path = PARAMETER.sub(value, self.path)
        body = None if self.body is None else fill(self.body, dict(values), self.label)
        return self.method, path, body


_ARCHIVE = {"archived": True}

REMOVED: tuple[RemovedPath, ...] = (
    RemovedPath("PATCH", "/card/{cardId}",
                {"projectId": "{project_id}", "ids": ["{card_id}"],
                 "columnId": "{other_column_id}", "afterCardId": "{after_card_id}"},
                "card", 18, "move"),
    RemovedPath("PATCH", "/cards/move-by-metadata",
                {"projectId": "{project_id}", "key": "{key}", "value": "{value}",
                 "columnId": "{other_column_id}", "afterCardId": "{after_card_id}"},
                "card", 19),
    RemovedPath("PATCH", "/projects/{projectId}/cards/{cardId}/archive", _ARCHIVE, "card", 17),
    RemovedPath("PATCH", "/projects/{projectId}/columns/{columnId}/archive", _ARCHIVE,
                "column", 14),
    RemovedPath("DELETE", "/projects/{projectId}/columns/{columnId}/archive", None, "column", 14),
    RemovedPath("PATCH", "/projects/{projectId}/rows/{rowId}/archive", _ARCHIVE, "row", 9),
    RemovedPath("DELETE", "/projects/{projectId}/rows/{rowId}/archive", None, "row", 9),
    RemovedPath("POST", "/projects/{projectId}/columns/{columnId}/card", {"name": "{name}"},
                "column", 15),
    RemovedPath("POST", "/projects/{projectId}/row", {"name": "{name}", "rowName": "{name}"},
                "project", 7),
    RemovedPath("POST", "/projects/{projectId}/rows/{rowId}/column", {"name": "{name}"},
                "row", 11),
    RemovedPath("PATCH", "/projects",
                {"id": "{project_id}", "projectId": "{project_id}", "name": "{name}"},
                "project", 5, "rename"),
    RemovedPath("POST", "/projects/{projectId}/columns/{columnId}/cards/{cardId}/alias",
                None, "card", 20, path_values={"columnId": "other_column_id"}),
    # A user token is listed nowhere (its use is not shown): nothing it did can be read.
    RemovedPath("POST", "/exchange-code",
                {"code": "{code}", "pluginId": "{plugin_id}", "entityId": "{entity_id}"},
                "plugin entity", 28, observable=False),
)
