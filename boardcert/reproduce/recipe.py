"""A failed test's recipe: what its reproduction sends, built on the test's process from the
exchanges themselves (never from their text).

The steps are the failing requests and, for a test whose earlier requests set the scene, its
writes before them in the same projects; before them, what made the ids they use and first sent
the names they use, found among every exchange of the process (boardcert.reproduce.index) and
made again the same way (the same request, its own ids put back). A producing step says where
its answer holds the new id (`capture`); ids, names (`bc-<label>-<hex>`: the script makes fresh
ones) and the key are parts of a request's text (boardcert.reproduce.parts), filled in by the
script. The failure's conditions (boardcert.interface.conditions) name the steps they read; a
"changed" condition's step is sent between readings (`around`). A step that made a project (or
plugin data) says how to delete it. The key is never in a recipe: a request sent with it says
"***".
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote

from boardcert.errors import Violation
from boardcert.http.client import CURL_OWN, KEY_HEADER, MASK, Client, Exchange
from boardcert.interface import conditions as when
from boardcert.reproduce.index import NAME, Index, Made, index, json_of, path_of, route, scalars
from boardcert.reproduce.parts import LONG, Part, Refs, digest, digested, join, with_key

FORMAT = 1
PATH_KINDS = {"projectId": "project", "rowId": "row", "columnId": "column", "cardId": "card",
              "organizationId": "organization"}
NOT_MADE = frozenset({"pluginId"})  # the profile's, never an id an answer brought
BODY_KINDS = frozenset({"missing", "present", "type", "value", "same-value", "same-as",
                        "order", "mentions", "lacks", "longer"})
READS = frozenset({"GET", "HEAD", "OPTIONS"})
MAX_STEPS = 60  # beyond: the scene's writes are left out; the failure and its ids' makers stay
ANSWER_MAX = 20_000  # characters of an answer kept for the "answer" condition
MESSAGE_MAX = 2000


def build(violations: list[Violation], test_log: list[Exchange], client: Client,
          nodeid: str) -> dict[str, Any] | None:
    """The recipe of a failure (None: its violations carry no exchange)."""
    return Builder(client, index(client)).recipe(violations, test_log, nodeid)


class Builder:
    """One failure's recipe."""

    def __init__(self, client: Client, found: Index) -> None:
        self.client, self.index, self.base = client, found, client.target.base_url
        self.refs = Refs()
        self.links: dict[int, dict[tuple[str, Any], Made]] = {}  # id(exchange) -> its ids

    # --- which exchanges ------------------------------------------------------------------

    def recipe(self, violations: list[Violation], test_log: list[Exchange],
               nodeid: str) -> dict[str, Any] | None:
        conditions = [c for v in violations for c in _conditions(v)]
        failing = _unique([*(x for v in violations for x in v.sent),
                           *(c["on"] for c in conditions)])
        if not failing:
            return None
        readings = {}
        for c in conditions:
            if c["kind"] == "changed":
                reading = self.reading(c["on"], test_log)
                if reading is None:
                    c.update(when.answer(c["on"]))
                else:
                    readings[id(c["on"])] = reading
        scene = self.scene(failing, test_log) if all(v.scene for v in violations) else []
        scene += [c["as"] for c in conditions if c["kind"] == "same-as"]
        scene += [x for c in conditions if c["kind"] == "listed" for x in c["made"]]
        seeds = [*scene, *readings.values()]
        chosen = self.chosen(failing, seeds)
        if len(chosen) > MAX_STEPS:
            chosen = self.chosen(failing, list(readings.values()))
        read_only = {id(r) for r in readings.values()} - {id(x) for x in [*failing, *scene]}
        chosen = [x for x in chosen if id(x) not in read_only]
        where = {id(x): n for n, x in enumerate(chosen)}
        steps = [self.step(x) for x in chosen]
        for send, reading in readings.items():
            steps[where[send]]["around"] = self.step(reading)
        for x in failing:
            steps[where[id(x)]]["shown"] = True
        own = {id(x) for x in [*failing, *scene]}
        for x, step in zip(chosen, steps, strict=True):
            if id(x) not in own:  # only there to make an id: made with the key, as it can be
                step["key"] = MASK
            elif x.together is not None:  # sent with others at the same moment: so again
                step["together"] = x.together
        for x in chosen:  # every id the steps make: the answers compared hold them
            for made in self.index.by_exchange.get(id(x), ()):
                if made.kind != "other":
                    self.refs.ref(made)
        for c in conditions:
            shown = self.condition(c)
            if "as" in c:  # the earlier answer's step, and the pause after it
                shown["as"] = where[id(c["as"])]
                steps[shown["as"]]["pause"] = c["pause"]
            if "made" in c:  # the creations' steps
                shown["made"] = [where[id(x)] for x in c["made"]]
            steps[where[id(c["on"])]].setdefault("conditions", []).append(shown)
        self.cleanups(chosen, steps)
        self.captures(chosen, where, steps)
        return {
            "format": FORMAT,
            "test": nodeid,
            "requirements": list(dict.fromkeys(r for v in violations for r in v.requirements)),
            "message": _cut("\n\n".join(str(v) for v in violations)),
            "base_url": self.base,
            "timeout": self.client.target.timeout,
            "max_body": self.client.target.max_body,
            "ids": {ref: {"kind": m.kind if m else "project",
                          "was": str(m.value) if m else None} for ref, m in self.refs.made.items()},
            "names": {ref: {"was": name, "label": name.rsplit("-", 1)[0]}
                      for name, ref in self.refs.names.items()},
            "steps": steps,
            "used": self.used(chosen),
        }

    def used(self, chosen: list[Exchange]) -> list[dict[str, Any]]:
        """What the run's own requests worked in, as the ledger names it: the projects and
        the plugin data (what --keep-failed leaves in place)."""
        found: dict[str, dict[str, Any]] = {}
        for x in chosen:
            known, params = route(x.method, path_of(x, self.base)[0])
            made = [{"projectId": str(m.value)} for m in self.index.by_exchange.get(id(x), ())
                    if m.kind == "project" and known and known.number == 2]
            if "projectId" in params:
                made.append({"projectId": params["projectId"]})
            for where in made:
                found.setdefault(f"project {where}", {"kind": "project", "params": where})
            if known and known.number == 25 and 200 <= (x.status or 0) < 300:
                found.setdefault(f"data {params}", {"kind": "plugin_data", "params": params})
        return list(found.values())

    def reading(self, send: Exchange, test_log: list[Exchange]) -> Exchange | None:
        """The reading a "changes nothing" check compared: the test's first GET after the
        request (a GET of a project first), else its last one before."""
        place = self.index.place(send)
        gets = [x for x in test_log if x.method == "GET" and x is not send]
        after = [x for x in gets if self.index.place(x) > place]
        before = [x for x in gets if self.index.place(x) < place]
        projects = [x for x in after if _op(x, self.base) == 3]
        return (projects or after or before[-1:] or [None])[0]

    def scene(self, failing: list[Exchange], test_log: list[Exchange]) -> list[Exchange]:
        """The test's requests before its failing one that touch what the failure does: its
        projects, an id or a name it uses (reads too: a server may answer from a cache they
        filled)."""
        last = max(self.index.place(x) for x in failing)
        chain = self.chosen(failing, [])
        projects = self.projects(chain)
        made = {id(m) for x in chain for m in self.links_of(x).values()
                if m.kind != "organization"}  # what every project is made in relates nothing
        names = {n for x in failing for n in _names(x)}
        kept = {id(x) for x in failing}
        return [x for x in test_log if id(x) not in kept and self.index.place(x) < last
                and (self.projects([x]) & projects or names & set(_names(x))
                     or any(id(m) in made for m in self.links_of(x).values()))]

    def needs(self, exchange: Exchange) -> list[Exchange]:
        """The exchanges a request rests on: what made its ids, what first sent its names, the
        last POST or PUT to the path it reads, changes or removes."""
        found = [m.exchange for m in self.links_of(exchange).values()]
        found += [x for n in _names(exchange) if (x := self.index.introducer(n, exchange))]
        writer = self.index.writer(exchange)
        return [*found, writer] if writer is not None else found

    def chosen(self, failing: list[Exchange], seeds: list[Exchange]) -> list[Exchange]:
        """These exchanges and those they rest on, in the order they completed, each after what
        it rests on."""
        kept = {id(x): x for x in [*failing, *seeds]}
        queue = list(kept.values())
        while queue:
            for needed in self.needs(queue.pop()):
                if id(needed) not in kept:
                    kept[id(needed)] = needed
                    queue.append(needed)
        ordered: list[Exchange] = []
        placed: set[int] = set()

        def place(x: Exchange, path: frozenset[int] = frozenset()) -> None:
            if id(x) in placed or id(x) in path:
                return
            for needed in sorted(self.needs(x), key=self.index.place):
                if id(needed) in kept:
                    place(needed, path | {id(x)})
            placed.add(id(x))
            ordered.append(x)

        for x in sorted(kept.values(), key=self.index.place):
            place(x)
        return ordered

    def projects(self, exchanges: Iterable[Exchange]) -> set[str]:
        found = set()
        for x in exchanges:
            _, params = route(x.method, path_of(x, self.base)[0])
            if "projectId" in params:
                found.add(params["projectId"])
        return found

    def links_of(self, exchange: Exchange) -> dict[tuple[str, Any], Made]:
        """The ids a request uses that an earlier answer made, by path segment and by value
        (query and body)."""
        if id(exchange) not in self.links:
            found: dict[tuple[str, Any], Made] = {}
            path, query = path_of(exchange, self.base)
            for n, kind in _segments(exchange.method, path):
                made = self.index.producer(unquote(path.split("/")[n]), kind, exchange)
                if made:
                    found[("segment", n)] = made
            values = [unquote(p.partition("=")[2]) for p in query.split("&") if p]
            values += [v for k, v in exchange.request_headers.items()
                       if k.lower() not in CURL_OWN and k.lower() != KEY_HEADER.lower()]
            for value in [*values, *scalars(json_of(exchange.request_body))]:
                made = None if NAME.fullmatch(value) else \
                    self.index.producer(value, None, exchange)
                if made:
                    found[("value", value)] = made
            self.links[id(exchange)] = found
        return self.links[id(exchange)]

    # --- a step -------------------------------------------------------------------------------

    def step(self, exchange: Exchange) -> dict[str, Any]:
        links = self.links_of(exchange)
        path, query = path_of(exchange, self.base)
        known, _ = route(exchange.method, path)
        values = {v: m for (where, v), m in links.items() if where == "value"}
        segments: list[Part] = []
        for n, segment in enumerate(path.split("/")):
            made = links.get(("segment", n))
            segments += ["/"] if n else []
            segments += [self.refs.ref(made, quoted=True)] if made else self.refs.parts(segment)
        return {
            "method": exchange.method,
            "label": known.label if known else f"{exchange.method} {path}",
            "op": known.number if known else None,
            "path": join(segments),
            "query": self.refs.parts(query, [(values, "(?<==)", "(?=&|$)", True)]),
            "key": next((v for k, v in exchange.request_headers.items()
                         if k.lower() == KEY_HEADER.lower()), None),
            "headers": {k: with_key(self.refs.parts(v, [(values, "^", "$", False)]))
                        for k, v in exchange.request_headers.items()
                        if k.lower() not in CURL_OWN and k.lower() != KEY_HEADER.lower()},
            "body": self.body(exchange.request_body, values),
        }

    def body(self, content: bytes | None, values: dict[str, Made]) -> dict[str, Any] | None:
        if content is None:
            return None
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(content).decode("ascii")}
        return {"text": self.refs.parts(text, [(values, '(?<=")', '(?=")', False),
                                          (values, r'(?<=[\s:\[,])', r'(?=[\s,\]}])', False)])}

    # --- conditions, captures, clean-up -------------------------------------------------------

    def condition(self, condition: when.Condition) -> dict[str, Any]:
        out = {k: v for k, v in condition.items() if k not in ("on", "as", "made")}
        if "names" in out:
            out["names"] = [self.refs.parts(name) for name in out["names"]]
        if "at" in out:  # a record's id in the path is this run's
            out["at"] = self.refs.template(out["at"])
        for key in ("want", "value"):
            if key in out and condition["kind"] in ("value", "same-value", "order", "mentions",
                                                    "lacks"):
                out[key] = self.refs.template(out[key])
        if condition["kind"] == "answer":
            out["answer"] = self.answer(condition["on"])
        if condition["kind"] in BODY_KINDS:  # judged on an answer of that status only
            out["status"] = condition["on"].status
        return out

    def answer(self, exchange: Exchange) -> dict[str, Any]:
        """An answer as the "answer" condition compares it (its body if not too long)."""
        text = exchange.redactor.body(exchange.text)
        shown: dict[str, Any] = {"status": exchange.status}
        try:
            body = digested(json.loads(text)) if text.strip() else None
        except (ValueError, RecursionError):
            if len(text) > ANSWER_MAX:
                return shown | {"digest": digest(text)[LONG]}
            return shown | {"text": self.refs.parts(text)}
        if len(json.dumps(body, ensure_ascii=False)) > ANSWER_MAX:
            return shown | {"cut": True}
        return shown | {"json": self.refs.template(body)}

    def cleanups(self, chosen: list[Exchange], steps: list[dict[str, Any]]) -> None:
        """How to delete what a step made outside any project: the project op 2 made (its id,
        or, in an answer that showed none, the one named as the request named it) and plugin
        data (op 25)."""
        for exchange, step in zip(chosen, steps, strict=True):
            if step["op"] == 2 and 200 <= (exchange.status or 0) < 300:
                made = next((m for m in self.index.by_exchange.get(id(exchange), ())
                             if m.kind == "project"), None)
                ref = self.refs.ref(made)
                step["cleanup"] = {"method": "DELETE", "path": ["/projects/", {**ref,
                                                                              "quote": True}]}
                if made is None:
                    named = [p for p in (step["body"] or {}).get("text", []) if "name" in p]
                    step.setdefault("capture", []).append(
                        {**ref, "at": ["id"], "where": {"name": named[:1]} if named else {}})
            elif step["op"] == 25:
                step["cleanup"] = {"method": "DELETE", "path": step["path"],
                                   "query": step["query"]}

    def captures(self, chosen: list[Exchange], where: dict[int, int],
                 steps: list[dict[str, Any]]) -> None:
        """Where each step's answer holds the ids it makes (all of them: the answers the
        conditions compare name them too)."""
        for ref, made in self.refs.made.items():
            if made is not None and id(made.exchange) in where:
                steps[where[id(made.exchange)]].setdefault("capture", []).append(
                    {"id": ref, "at": made.at,
                     "where": {k: self.refs.parts(v) for k, v in made.names.items()}})


def _conditions(violation: Violation) -> list[when.Condition]:
    """A violation's conditions on its own exchanges (copies); none given: the same answer."""
    found = [dict(c) for c in violation.conditions if c.get("on") is not None]
    if not found and violation.sent:
        found = [when.answer(violation.sent[-1])]
    return found


def _segments(method: str, path: str) -> list[tuple[int, str | None]]:
    """The path segments that may hold an id: the route's parameters (with the kind their
    name says), or, for a path no route knows, every segment."""
    known, _ = route(method, path)
    segments = path.split("/")
    if known is None:
        return [(n, None) for n, s in enumerate(segments) if s]
    template = known.label.split(" ", 1)[1].split("/")
    return [(n, PATH_KINDS.get(part[1:-1])) for n, part in enumerate(template)
            if part.startswith("{") and part[1:-1] not in NOT_MADE]


def _names(exchange: Exchange) -> list[str]:
    """The names (`bc-<label>-<hex>`) a request sends."""
    return NAME.findall(f"{exchange.url} {_text(exchange.request_body)}")


def _text(body: bytes | None) -> str:
    return body.decode("utf-8", "replace") if body else ""


def _op(exchange: Exchange, base_url: str) -> int | None:
    known, _ = route(exchange.method, path_of(exchange, base_url)[0])
    return known.number if known else None


def _unique(exchanges: Iterable[Exchange]) -> list[Exchange]:
    return list({id(x): x for x in exchanges}.values())


def _cut(text: str) -> str:
    return text if len(text) <= MESSAGE_MAX else f"{text[:MESSAGE_MAX]}…"
