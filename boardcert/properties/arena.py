"""The arena: this run's resources that generated requests point into, and the profile's bodies
for the bodies the interface does not show."""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from schemathesis.core import NotSet

from boardcert.errors import ConfigError
from boardcert.http.api import Api, ids_in_order, walk
from boardcert.interface import spec
from boardcert.interface.resources import BY_NAME, CREATED_BY, DELETED_BY, Kind
from boardcert.properties.cases import CaseInfo
from boardcert.properties.judging import Judge
from boardcert.properties.schema import operation_number
from boardcert.properties.sending import Answer, send
from boardcert.pytest.failures import unassessable
from boardcert.pytest.together import PLAIN, Lanes
from boardcert.settings.config import NotAssessed, Profile, fill
from boardcert.workbench.board import build as build_board
from boardcert.workbench.board import shape, unique
from boardcert.workbench.ledger import Entry, Ledger

# The factories' arguments for each kind a board holds (the project, then the row or column).
FACTORY_PARENTS = {"project": (), "row": ("project",), "column": ("project", "row"),
                   "card": ("project", "column")}


@dataclass(repr=False)
class Arena:
    """A board the property tests own, built with the plugin's factories.

    Path ids of generated requests are replaced by ids of this board (or, in the stateful test,
    kept when a link supplied them, since links carry ids of this run's own resources); a
    delete never takes a board resource but a victim made for it; a positive case of an
    operation whose body the interface does not show gets the profile's body."""

    api: Api
    ledger: Ledger
    organization_id: str | None = None
    make: dict[str, Callable[..., Any]] = field(default_factory=dict)  # the plugin's factories
    broken: str | None = None  # why the board cannot be made
    lanes: Lanes = PLAIN  # how independent requests go (boardcert.pytest.together)
    project: Any = None
    row: Any = None
    columns: list[Any] = field(default_factory=list)
    cards: list[Any] = field(default_factory=list)
    metadata: tuple[str, str] | None = None  # (key, value) on cards[1], for move by metadata
    data_key: str | None = None  # plugin data of cards[0], to read
    judge: Judge = field(init=False)
    _victims: dict[int, tuple[dict[str, str], Entry | None]] = field(default_factory=dict)
    _auth_confirmed: set[int] = field(default_factory=set)
    _recorded: set[tuple[str, tuple[tuple[str, str], ...]]] = field(default_factory=set)
    _built: bool = False

    def __post_init__(self) -> None:
        self.judge = Judge(self.api.client, self.lanes)

    def __repr__(self) -> str:
        return f"<Arena project={self.project.id if self.project else None}>"

    @property
    def profile(self) -> Profile:
        return self.api.profile  # with what discovery found

    def board(self) -> None:
        """Make the board on first need; if the server cannot make it, every case that needs
        it is not assessed (the explicit suites judge the creating operations)."""
        if not self._built and self.broken is None:
            try:
                self.build()
            except (AssertionError, NotAssessed) as exc:
                self.broken = str(exc).splitlines()[0]
        if self.broken is not None:
            pytest.skip(f"not assessed: no board for the generated requests ({self.broken})")

    def build(self) -> Arena:
        make = self.make
        board = build_board(make["project"], make["row"], make["column"], make["card"])
        self.project, self.row, self.columns, self.cards = \
            board.project, board.row, board.columns, board.cards
        key, value = unique("meta"), "bc-value"
        if self._create("card_metadata", dict(key=key, value=value),
                        projectId=self.project.id, cardId=self.cards[1].id):
            self.metadata = (key, value)
        if self.plugin_id and self.entity_id:
            key = unique("data")
            if self._put_data(key):
                self.data_key = key
        self._built = True
        return self

    # profile values that may be absent (then the operations that need them are not assessed)
    @property
    def plugin_id(self) -> str | None:
        return str(self.profile.data["plugin_id"]) if self.profile.has("plugin_id") else None

    @property
    def entity_id(self) -> str | None:
        if not self.profile.has("entity_id") or not self.cards:
            return None
        try:
            return str(fill(self.profile.get("entity_id"), self._ids(), "entity_id"))
        except ConfigError:  # a placeholder the board has no value for
            return None

    def body(self, body_name: str, values: dict[str, Any]) -> Any:
        """The profile's `bodies.<body_name>`, filled (`values` may hold `name`)."""
        return self.profile.body(body_name, **values)

    def _ids(self) -> dict[str, Any]:
        if not self.cards:  # the board is not made (yet)
            return {}
        return {"project_id": self.project.id, "row_id": self.row.id,
                "column_id": self.columns[0].id, "other_column_id": self.columns[1].id,
                "card_id": self.cards[0].id}

    def _create(self, kind: str, values: dict[str, Any], **path: str) -> bool:
        """Make one of `kind` with its first creating operation and the profile's body for it;
        whether it answered 200."""
        operation = spec.operation(BY_NAME[kind].creates[0])
        try:
            json_body = self.body(str(operation.profile_body), values)
        except (NotAssessed, ConfigError):
            return False
        # Not Api.call: a path parameter named `key` (ops 22, 25-27) is not the API key.
        return self.api.client.request(operation.method,
                                       self.api.path(operation.number, **path),
                                       json=json_body).status == 200

    def _put_data(self, key: str) -> bool:
        path = dict(pluginId=self.plugin_id, entityId=self.entity_id, key=key)
        if not self._create("plugin_data", dict(value="bc-value", **self._ids()), **path):
            return False
        self._record(BY_NAME["plugin_data"], path)
        return True

    def _record(self, kind: Kind, path: dict[str, str], answer: Any = None) -> None:
        """Record what a 2xx made (`Ledger.created`), under the path parameters its delete
        takes; what the arena named itself, once."""
        params = {k: v for k, v in path.items()
                  if kind.deletes is not None and k in spec.operation(kind.deletes).path_parameters}
        if kind.id_in == "given":
            if kind.id_parameter not in params:  # not in the path (card metadata's key)
                return
            item = (kind.name, tuple(params.items()))
            if item in self._recorded:
                return
            self._recorded.add(item)
        parent = self.ledger.project(params["projectId"]) \
            if kind.in_project and "projectId" in params else None
        self.ledger.created(kind.name, parent, answer=answer, **params)

    # --- preparing a case ------------------------------------------------------------------

    def prepare(self, case: Any, info: CaseInfo, linked: frozenset[str] = frozenset()) -> None:
        """Point the case at this run's resources; `linked` names path parameters that a
        stateful link supplied (ids of this run's own resources, kept unless protected)."""
        number = operation_number(case)
        operation = spec.operation(number)
        parameters = set(operation.path_parameters)
        if "organizationId" in parameters and self.organization_id is None:
            pytest.skip(f"not assessed: no organization to create projects in ({self.broken})")
        if parameters - {"organizationId"}:  # ids of the board
            self.board()
        path = self._path(number, dict(case.path_parameters or {}), linked)
        if path:
            case.path_parameters = path
        if operation.placed:
            self._place(case, *operation.placed)
        if info.positive and operation.profile_body:
            body = self._profile_body(number, path)
            if body is not None:
                case.body = _mix(body, case.body)

    def _path(self, number: int, given: dict[str, Any], linked: frozenset[str]) -> dict[str, str]:
        if not given:
            return {}
        if number in DELETED_BY:
            kept = {k: str(v) for k, v in given.items() if k in linked}
            if len(kept) == len(given) and not self._protected(number, kept):
                return kept
            return dict(self._victim(number))
        return {k: str(v) if k in linked else self._default(k) for k, v in given.items()}

    def _default(self, name: str) -> str:
        """The board's value for a path parameter (the profile's, for plugins)."""
        board = {"organizationId": self.organization_id}
        if self._built:
            board |= {"projectId": self.project.id, "rowId": self.row.id,
                      "columnId": self.columns[0].id, "cardId": self.cards[0].id}
        if name in board:
            return board[name]
        profile_key = spec.profile_parameters().get(name)
        if profile_key is not None:
            return self._need(self._profile_value(profile_key), profile_key, (profile_key,))
        return self._need(self.data_key, "plugin data (op 25 with the profile's body)")

    def _profile_value(self, key: str) -> str | None:
        """The profile's plugin_id, or its entity_id filled for the board."""
        return self.entity_id if key == "entity_id" else self.plugin_id

    @staticmethod
    def _need(value: str | None, what: str, lacks: tuple[str, ...] = ()) -> str:
        if value is None:
            raise unassessable(what, lacks)
        return value

    def _protected(self, number: int, path: dict[str, str]) -> bool:
        """Whether a delete would take a resource of the arena itself."""
        board = {self.project.id, self.row.id, *(c.id for c in self.columns),
                 *(c.id for c in self.cards)}
        keys = {k for k in (self.metadata[0] if self.metadata else None, self.data_key) if k}
        kind = DELETED_BY[number]
        if kind.id_parameter == "key":
            return path.get("key") in keys
        # a plugin attachment: the arena does not depend on a plugin being attached
        return kind.name in shape() and path.get(str(kind.id_parameter)) in board

    def _victim(self, number: int) -> dict[str, str]:
        """A resource made to be deleted by operation `number`, until a delete succeeds."""
        if number not in self._victims:
            self._victims[number] = self._make_victim(number)
        return self._victims[number][0]

    def _make_victim(self, number: int) -> tuple[dict[str, str], Entry | None]:
        """A board kind made with the plugin's factory; card metadata, a plugin attachment or
        plugin data with its creating operation and the profile's body."""
        kind = DELETED_BY[number]
        parameters = spec.operation(number).path_parameters
        plugin = self._need(self.plugin_id, "plugin_id") if "pluginId" in parameters else ""
        values = {"projectId": self.project.id, "cardId": self.cards[0].id, "pluginId": plugin,
                  "entityId": self.entity_id or "", "key": unique("meta" if kind.in_project
                                                                  else "data")}
        entry = None
        if kind.name in FACTORY_PARENTS:
            parents = {"project": self.project, "row": self.row, "column": self.columns[0]}
            made = self.make[kind.name](*(parents[p] for p in FACTORY_PARENTS[kind.name]))
            values[str(kind.id_parameter)], entry = made.id, made.entry
        elif not self._make_given(kind, values):
            pytest.skip(f"not assessed: {kind.plural} for op {number} "
                        f"(op {kind.creates[0]} failed)")
        return {name: values[name] for name in parameters}, entry

    def _make_given(self, kind: Kind, values: dict[str, str]) -> bool:
        """Card metadata (its value "v"), a plugin attached, or plugin data, for a victim."""
        if kind.name == "plugin_data":
            return self._put_data(values["key"])
        if kind.name == "plugin":
            return self._create("plugin", self._ids(), projectId=values["projectId"],
                                pluginId=values["pluginId"])
        return self._create(kind.name, dict(key=values["key"], value="v"),
                            projectId=values["projectId"], cardId=values["cardId"])

    def _place(self, case: Any, parameter: str, profile_key: str) -> None:
        """A parameter whose position is not shown (op 27's entityId) goes where the profile's
        `profile_key` says (the spec declares the query)."""
        place = self.profile.data.get(profile_key) or {}
        entity = self._need(self.entity_id, "entity_id")
        if place.get("in") == "header":
            case.query = {}
            case.headers = {**(case.headers or {}), place["name"]: entity}
        else:
            case.query = {place.get("name", parameter): entity}

    def _profile_body(self, number: int, path: dict[str, str]) -> Any:
        """The profile's body for a positive case, or None to keep the generated (open) one."""
        name = spec.operation(number).profile_body
        ids = self._ids()
        project = path.get("projectId", ids.get("project_id"))
        values: dict[str, Any] = ids | {
            "name": unique("prop"), "alias": unique("alias"), "key": unique("key"),
            "value": "bc-value", "project_id": project, "plugin_id": self.plugin_id,
            "entity_id": self.entity_id, "card_id": path.get("cardId", ids.get("card_id")),
            "row_id": path.get("rowId", ids.get("row_id"))}
        if self.profile.has("exchange_code"):
            values["code"] = self.profile.get("exchange_code")
        try:
            values |= self._read_values(number, project, path)
            body = self.body(name, values)
        except (NotAssessed, ConfigError, LookupError):
            return None
        if spec.operation(number).anchored and isinstance(body, dict) \
                and values.get("after_card_id") and not set(spec.ANCHORS) & set(body):
            body["afterCardId"] = values["after_card_id"]  # a server may require an anchor
        return body

    def _read_values(self, number: int, project: str, path: dict[str, str]) -> dict[str, Any]:
        """What the body names of the project as it is now (the operation's x-project-values:
        rows, columns, cards, metadata); a LookupError (or NotAssessed) when the answer of op 3
        does not show them. The arena's own project: its cards as it made them."""
        needs = spec.operation(number).project_values
        if not needs:
            return {}
        if project == self.project.id and "card_ids" in needs:
            values = {"card_ids": [self.cards[0].id], "after_card_id": self.cards[2].id,
                      "before_card_id": self.cards[1].id}
            if self.metadata:
                values |= {"key": self.metadata[0], "value": self.metadata[1]}
            return values
        try:
            view = self.api.call(3, projectId=project).json()
        except AssertionError as exc:  # not JSON
            raise LookupError("op 3 answered no JSON") from exc
        if not isinstance(view, dict):
            raise LookupError("op 3 answered no object")
        rows, values = view.get("rows"), {}
        if "row_ids" in needs:
            values["row_ids"] = _rotated(ids_in_order(rows, "rows"))
        if "column_ids" in needs:
            row = next((r for r in walk(rows) if str(r.get("id")) == path.get("rowId")), None)
            if row is None:
                raise LookupError(f"row {path.get('rowId')} is not in the project")
            values["column_ids"] = _rotated(ids_in_order(row.get("columns"), "columns"))
        if "card_ids" in needs:
            cards = ids_in_order(view.get("cards"), "cards")
            columns = [str(r["id"]) for r in walk(rows) if "id" in r and "columns" not in r]
            values |= {"card_ids": cards[:1],
                       "after_card_id": cards[-1] if len(cards) > 1 else None,
                       "before_card_id": cards[1] if len(cards) > 1 else None,
                       "other_column_id": columns[-1]}
        if "key" in needs:
            entries = [e for record in walk(view.get("cards"))
                       if isinstance(record.get("metadata"), list)
                       for e in record["metadata"] if isinstance(e, dict) and "id" in e]
            if not entries:
                raise LookupError("no card of the project has metadata")
            values |= {"key": entries[0]["id"], "value": entries[0].get("value")}
        return values

    # --- calling and judging ---------------------------------------------------------------

    def call(self, case: Any) -> Answer:
        """Send the prepared case through the suites' client (`sending.send`)."""
        return send(self.api.client, case)

    def after_call(self, case: Any, response: Any) -> None:
        """Record what a 2xx created (ledger) or deleted (victims)."""
        if not 200 <= response.status_code < 300:
            return
        number = operation_number(case)
        path = {k: str(v) for k, v in (case.path_parameters or {}).items()}
        if number in DELETED_BY and number in self._victims \
                and self._victims[number][0] == path:
            params, entry = self._victims.pop(number)
            if entry is not None:
                self.ledger.forget(entry)
            return
        kind = CREATED_BY.get(number)
        # what the arena can name: the id answered, or given in the path (not a row or column,
        # found by a generated name; not what op 20 answers: the interface does not say)
        if kind is None or kind.creates[0] != number or kind.id_in not in ("answer", "given"):
            return
        try:
            answer = response.json() if kind.id_in == "answer" else None
        except ValueError:
            return
        self._record(kind, path, answer)

    def validate(self, case: Any, response: Any, info: CaseInfo, key: bool = True) -> None:
        """Run the checks on the answer (`Judge.validate`): a violation names requirements."""
        self.judge.validate(case, response, info, key)


def _mix(profile_body: Any, generated: Any) -> Any:
    """What a positive case of an operation whose body is not shown sends, chosen by the
    generated body (so Hypothesis replays it): mostly the profile's body, so the call reaches
    the operation and its 200 is judged; sometimes the profile's body with a generated JSON
    value in its first string field; sometimes the generated, open body as it is. The last
    two find 5xx on input the server must refuse; no check judges a 4xx to them."""
    value = None if isinstance(generated, NotSet) else generated
    seed = zlib.crc32(json.dumps(value, sort_keys=True, default=repr).encode()) % 8
    if seed == 0:
        return generated
    if seed == 1 and isinstance(profile_body, dict):
        field_name = next((k for k, v in profile_body.items() if isinstance(v, str)), None)
        if field_name is not None:
            return {**profile_body, field_name: value}
    return profile_body


def _rotated(ids: list[str]) -> list[str]:
    return ids[1:] + ids[:1]
