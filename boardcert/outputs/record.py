"""What a test's report found, as one record: the data every output reads (compliance.json,
junit.xml, Allure, the console), never text to parse again.

boardcert.pytest.failures makes one per phase report that has something to say (a test that
names requirements always has: which, and the operations it touches) and carries it in ONE
user property (RECORD: its JSON), which pytest-xdist serialises with the report to the
controller as it does every user property; `of(report)` reads it back there.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field, fields, replace
from typing import Any

RECORD = "boardcert"  # the user property that holds a report's record (JSON)


@dataclass(frozen=True)
class Record:
    """What one phase of a test found."""

    requirements: tuple[str, ...] = ()  # the requirement ids the test names (its markers)
    operations: tuple[int, ...] = ()  # the operations it touches
    # INFO it recorded so far (the `observe` fixture): (requirement, text, security?)
    observations: tuple[tuple[str, str, bool], ...] = ()
    failed_requirements: tuple[str, ...] = ()  # what its failure breaks (Violation.requirements)
    evidence: tuple[dict[str, Any], ...] = ()  # exchanges (Exchange.as_dict()): the failure's own
    message: str = ""  # the failure's: its violations' messages, or a failed check's
    headline: str = ""  # a failed phase in one line: the requirement ("[ID] ...") and what broke
    error: bool = False  # the test broke (not a check): its requirements are not assessed
    boardcert_error: str = ""  # "Type: message": it broke inside boardcert (a bug)
    # requirement -> {operation: why}: what the test names but did not check there
    unassessed: dict[str, dict[int, str]] = field(default_factory=dict)
    reproduction: dict[str, Any] | None = None  # the failure's recipe (boardcert.reproduce)
    reproduce: str = ""  # its script, relative to the report directory
    kept: tuple[dict[str, Any], ...] = ()  # what --keep-failed left on the server for it
    not_assessed: str = ""  # why the test was not assessed (NotAssessed.key)
    lacks: tuple[str, ...] = ()  # profile keys it needed and the profile does not give
    misfit: tuple[str, ...] = ()  # profile keys whose values the server refused
    read_only: bool = False  # not assessed: it would change the server, and the run is --read-only
    held: tuple[str, ...] = ()  # requirements the test checked and saw hold before it failed

    def to_json(self) -> str:
        """Only the fields that say something, as JSON."""
        return json.dumps(self._said(), ensure_ascii=False)

    def _said(self) -> dict[str, Any]:
        """The fields that differ from an empty record's, by name."""
        return {name: value for name, empty in _EMPTY_FIELDS
                if (value := getattr(self, name)) != empty}

    @classmethod
    def from_json(cls, text: str) -> Record:
        return _parsed(text) if cls is Record else cls._from_json(text)

    @classmethod
    def _from_json(cls, text: str) -> Record:
        data = json.loads(text)
        for name in ("requirements", "operations", "failed_requirements", "evidence", "kept",
                     "lacks", "misfit", "held"):
            if name in data:
                data[name] = tuple(data[name])
        if "observations" in data:
            data["observations"] = tuple(tuple(o) for o in data["observations"])
        if "unassessed" in data:  # JSON's keys are strings: the operations are numbers
            data["unassessed"] = {req: {int(op): why for op, why in ops.items()}
                                  for req, ops in data["unassessed"].items()}
        return cls(**data)

    def __bool__(self) -> bool:
        return self != _EMPTY

    def then(self, later: Record) -> Record:
        """This phase's record followed by a later phase's: what the later one says wins."""
        said = later._said()
        if not said:
            return self
        return replace(self, **said) if self != _EMPTY else later


_EMPTY = Record()
_EMPTY_FIELDS = tuple((f.name, getattr(_EMPTY, f.name)) for f in fields(Record))


@functools.lru_cache(maxsize=256)
def _parsed(text: str) -> Record:
    """A record's JSON read once: each output (the console, the results, JUnit, Allure) reads
    the same report's record, and a Record is frozen."""
    return Record._from_json(text)


def of(report: Any) -> Record:
    """The record a report carries (an empty one when it carries none)."""
    for name, value in getattr(report, "user_properties", ()):
        if name == RECORD:
            return Record.from_json(str(value))
    return Record()
