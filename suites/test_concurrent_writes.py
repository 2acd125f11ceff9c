"""Concurrent writes (docs/policy.md, section 3): creations sent at the same moment, each
answered 2xx, are all there afterwards (two people adding rows to one board must not lose one).

AT_ONCE creations of one kind go out together (boardcert.http.at_once: a thread each, released by a
barrier) into one project, row, column or card, beside a record made first, one request at a
time, that shows the reading can find them. A refusal (409, 429, any 4xx, a 5xx "busy") is the
server's right and is not judged here; when none was answered 2xx the test is not assessed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import pytest

from boardcert.conformance import (
    Exchange,
    ExchangeError,
    Made,
    NotAssessed,
    Violation,
    at_once,
    expect,
    find_named,
    mentions,
    misfit,
    unique,
    when,
)

AT_ONCE = 4
REQUIREMENT = "CONCURRENT-CREATIONS-KEPT"


@dataclass
class Sent:
    """One of the creations sent together: what names it, and how it was answered."""

    name: str  # a unique name (a value, for metadata)
    answer: Exchange | ExchangeError

    @property
    def created(self) -> bool:
        return isinstance(self.answer, Exchange) and 200 <= (self.answer.status or 0) < 300

    @property
    def body(self) -> Any:
        try:
            return self.answer.json() if isinstance(self.answer, Exchange) else None
        except AssertionError:  # not JSON
            return None


def _sent(names: list[str], send: Callable[[str], Exchange]) -> list[Sent]:
    """One request per name, all at the same moment."""
    answers = at_once([partial(send, name) for name in names])
    return [Sent(name, answer) for name, answer in zip(names, answers, strict=True)]


def _judge(sent: list[Sent], kept: Callable[[Sent], bool], reading: Exchange, what: str) -> None:
    """Every creation answered 2xx is `kept` in the reading made afterwards."""
    created = [s for s in sent if s.created]
    if not created:
        said = ", ".join(str(getattr(s.answer, "status", None) or "no answer") for s in sent)
        raise NotAssessed(f"{what} created at the same moment (none of {len(sent)} was "
                          f"answered 2xx: {said})")
    lost = [s for s in created if not kept(s)]
    if lost:
        names = ", ".join(f"{s.name!r} (answered {s.answer.status})" for s in lost)
        raise Violation(f"[{REQUIREMENT}] expected the {len(created)} {what} answered 2xx at the "
                        f"same moment to be there afterwards; got {len(lost)} lost: {names}",
                        [REQUIREMENT], [*(s.answer for s in lost), reading],
                        [when.listed(reading, [s.answer for s in sent if s.created],
                                     [s.name for s in sent if s.created])])


def _project(api, project: Made, control: str, what: str) -> tuple[Any, Exchange]:
    """The Project as a fresh op 3 answers it, if it shows the `control` record made first."""
    reading = api.call(3, projectId=project.id)
    body = expect.success(reading, 3, REQUIREMENT)
    if not isinstance(body, dict) or not mentions(body, control) \
            and find_named(body, control) is None:
        raise NotAssessed(f"{what} (op 3 does not show the one made first, {control!r})")
    return body, reading


@pytest.mark.requirement(REQUIREMENT, op=7)
def test_at_once_rows_are_all_kept(api, make_project, make_row, row_name_property):
    """Rows created in one project at the same moment (op 7), each answered 2xx, are all in
    the Project afterwards."""
    project = make_project()
    control = make_row(project)
    sent = _sent([unique("row") for _ in range(AT_ONCE)],
                 lambda name: api.call(7, projectId=project.id, json={row_name_property: name}))
    body, reading = _project(api, project, control.name, "rows")
    _judge(sent, lambda s: find_named(body.get("rows"), s.name) is not None, reading, "rows")


@pytest.mark.requirement(REQUIREMENT, op=11)
def test_at_once_columns_are_all_kept(api, make_project, make_row, make_column):
    """Columns created in one row at the same moment (op 11), each answered 2xx, are all in
    the Project afterwards."""
    project = make_project()
    row = make_row(project)
    control = make_column(project, row)
    sent = _sent([unique("column") for _ in range(AT_ONCE)],
                 lambda name: api.call(11, projectId=project.id, rowId=row.id,
                                       json=api.body("create_column", name=name)))
    body, reading = _project(api, project, control.name, "columns")
    _judge(sent, lambda s: find_named(body.get("rows"), s.name) is not None, reading, "columns")


@pytest.mark.requirement(REQUIREMENT, op=15)
def test_at_once_cards_are_all_kept(api, make_project, make_row, make_column,
                                            make_card):
    """Cards created in one column at the same moment (op 15), each answered 2xx, are all in
    the Project afterwards (by the id each answer gave, or by name)."""
    project = make_project()
    column = make_column(project, make_row(project))
    control = make_card(project, column)
    sent = _sent([unique("card") for _ in range(AT_ONCE)],
                 lambda name: api.call(15, projectId=project.id, columnId=column.id,
                                       json=api.body("create_card", name=name)))
    body, reading = _project(api, project, control.id, "cards")

    def kept(s: Sent) -> bool:
        card_id = s.body.get("id") if isinstance(s.body, dict) else None
        return (card_id is not None and mentions(body, str(card_id))) \
            or find_named(body, s.name) is not None
    _judge(sent, kept, reading, "cards")


@pytest.mark.requirement(REQUIREMENT, op=21)
def test_at_once_metadata_is_all_kept(api, make_project, make_row, make_column,
                                            make_card):
    """Metadata entries added to one card at the same moment (op 21), each answered 2xx, are
    all in the Card afterwards (as op 16 answers it, renamed to its own name)."""
    project = make_project()
    card = make_card(project, make_column(project, make_row(project)))

    def add(value: str) -> Exchange:
        return api.call(21, projectId=project.id, cardId=card.id,
                        json=api.body("add_card_metadata", key=unique("key"), value=value))
    control = unique("value")
    first = add(control)
    if first.status != 200:
        raise misfit(first) or NotAssessed(f"card metadata (op 21 answered {first.status} to "
                                           "the first entry; see CARD-METADATA-ADD)")
    sent = _sent([unique("value") for _ in range(AT_ONCE)], add)
    reading = api.call(16, projectId=project.id, cardId=card.id, json={"name": card.name})
    body = expect.success(reading, 16, REQUIREMENT)
    metadata = body.get("metadata") if isinstance(body, dict) else None
    if not mentions(metadata, control):
        raise NotAssessed("card metadata (op 16's Card does not show the entry added first)")
    _judge(sent, lambda s: mentions(metadata, s.name), reading, "metadata entries")
