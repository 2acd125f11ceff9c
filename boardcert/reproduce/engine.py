"""The engine of every reproduction script: it sends a recipe's steps (boardcert.reproduce.recipe)
and judges the failure's conditions (boardcert.interface.conditions) on the answers.

A script is its RECIPE, boardcert.reproduce.answers and this file, each copied whole (but the
import of answers, which stands above it there): the Python standard library only, Python 3.8
or later; the key is read from BOARDCERT_API_KEY and never printed.
"""

import argparse
import base64
import json
import os
import secrets
import sys
import threading
import time
from urllib.parse import quote

from boardcert.reproduce.answers import (  # a script has them above: this import is left out
    KEY_HEADER,
    Anything,
    Long,
    Missing,
    at,
    changed,
    differences,
    json_type,
    mentioned,
    request,
    same,
    search,
    short,
)

PASSES, REPRODUCED, USAGE, UNFINISHED = 0, 1, 2, 3
TEMPLATE, LONG = "$boardcert", "$boardcert-long"
SHOWN = 2000  # characters of a failing request's answer printed
NEITHER = " (the failure named no condition of its own: its answer proves neither way)"
STATUS = {"200": lambda s: s == 200, "2xx": lambda s: 200 <= s < 300,
          "4xx": lambda s: 400 <= s < 500, "not 5xx": lambda s: s < 500}


class Replay:
    """The recipe's steps against a server; what it made, to delete at the end."""

    def __init__(self, recipe, base_url, key):
        self.recipe, self.base_url, self.key = recipe, base_url.rstrip("/"), key
        self.ids = {}
        self.names = {ref: f"{n['label']}-{secrets.token_hex(5)}"
                      for ref, n in recipe["names"].items()}
        self.made = []  # (method, target) to delete, oldest first
        self.answers = {}  # step index -> its answer
        self.judged = 0  # conditions judged (held or not)

    def fill(self, parts):
        out = []
        for part in parts:
            if isinstance(part, str):
                out.append(part)
            elif "id" in part:
                if part["id"] not in self.ids:
                    raise Missing(part["id"])
                value = self.ids[part["id"]]
                out.append(quote(value, safe="") if part.get("quote") else value)
            elif "name" in part:
                out.append(self.names[part["name"]])
            elif "key" in part:
                out.append(self.key)
        return "".join(out)

    def resolve(self, value):
        """A recorded JSON value with this run's ids and names (an id not known: Anything)."""
        if isinstance(value, dict):
            if list(value) == [TEMPLATE]:
                try:
                    return self.fill(value[TEMPLATE])
                except Missing:
                    return Anything()
            if list(value) == [LONG]:
                return Long(*value[LONG])
            return {k: self.resolve(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        return value

    def target(self, step):
        query = self.fill(step.get("query") or [])
        return self.fill(step["path"]) + ("?" + query if query else "")

    def prepared(self, step):
        """The request of a step, its ids, names and key filled in (Missing: an id not known)."""
        headers = {"User-Agent": "boardcert-reproduce"}
        headers.update({k: self.fill(v) for k, v in step["headers"].items()})
        if step["key"] == "***":
            headers[KEY_HEADER] = self.key
        elif step["key"] is not None:
            headers[KEY_HEADER] = step["key"]
        body = step["body"]
        if body is not None:
            body = base64.b64decode(body["base64"]) if "base64" in body else \
                self.fill(body["text"]).encode("utf-8")
        return (self.base_url, step["method"], self.target(step), headers, body,
                self.recipe["timeout"], self.recipe["max_body"])

    def send(self, step):
        return request(*self.prepared(step))

    def together(self, steps):
        """Steps the run sent at the same moment, sent so again: a thread each, released
        together."""
        prepared = [self.prepared(step) for step in steps]
        answers = [None] * len(steps)
        barrier = threading.Barrier(len(steps))

        def send(n):
            barrier.wait(30)
            answers[n] = request(*prepared[n])
        threads = [threading.Thread(target=send, args=(n,)) for n in range(len(steps))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return answers

    def capture(self, step, answer):
        """The ids the step's answer shows (where the run's showed them, else in the record
        that holds the names the step sent)."""
        for wanted in step.get("capture", []):
            try:
                body = answer.json()
            except ValueError:
                return
            where = {k: self.fill(v) for k, v in wanted["where"].items()}
            value, found = at(body, wanted["at"])
            record, _ = at(body, wanted["at"][:-1])
            if not found or isinstance(value, (dict, list)) or where and not (
                    isinstance(record, dict) and all(record.get(k) == v
                                                     for k, v in where.items())):
                value = search(body, where, wanted["at"][-1]) if where else None
            if value is not None:
                self.ids[wanted["id"]] = str(value)

    def judge(self, condition, answer, readings):
        """Whether the failure's condition holds on this answer, and what was found."""
        kind, status = condition["kind"], answer.status
        if status is None:
            return True, f"no answer: {answer.error}"
        if kind == "no-answer":
            return bool(answer.failure), answer.error or f"answered {status}"
        if kind == "status":
            wanted = condition["want"]
            return not STATUS[wanted](status), f"status {status} ({wanted} wanted)"
        if kind == "status-was":
            was = condition["was"]
            return status == was, f"status {status} (the failing run got {was})"
        if kind == "changed":
            return changed(*readings)
        if kind == "same-as" and condition.get("status") in (None, status):
            return self.same_as(condition, answer)
        if kind == "listed":
            return self.listed(condition, answer)
        if kind == "answer":
            return self.same_answer(condition["answer"], answer)
        text = answer.body.decode("utf-8", "replace")
        if kind == "media-type":
            media = answer.headers.get("content-type", "").split(";")[0].strip().lower()
            ok = not text.strip() or media == "application/json" or media.endswith("+json")
            return not ok, f"Content-Type {media or '(none)'}"
        try:
            body = json.loads(text) if text.strip() else None
        except ValueError:
            return True, f"a body that is not JSON: {short(text)}"
        if kind == "not-json":
            return False, "a JSON body"
        if condition.get("status") not in (None, status):  # not the answer the check read
            return None, f"status {status} where the run's answer was {condition['status']}"
        return self.judge_value(condition, body)

    def judge_value(self, condition, body):
        kind = condition["kind"]
        steps = self.resolve(condition["at"])
        path = "body" + "".join(f"[{s}]" if isinstance(s, int) else f"[id {s['id']}]"
                                if isinstance(s, dict) else f".{s}" for s in steps)
        value, found = at(body, steps)
        shown = short(value) if found else "missing"
        if kind == "missing":
            return not found, f"{path} {'is there' if found else 'is missing'}"
        if kind == "present":
            return found, f"{path} {'is there' if found else 'is gone'}"
        if kind == "type":
            wrong = found and not set(json_type(value)) & set(condition["want"])
            return wrong, f"{path} is {shown} ({'/'.join(condition['want'])} wanted)"
        if kind == "order":
            wanted = self.resolve(condition["want"])
            listed = [r.get("id") if isinstance(r, dict) else r
                      for r in (value if found and isinstance(value, list) else [])]
            shown = [i for i in listed if any(same(w, i) for w in wanted)]
            return not (len(shown) == len(wanted) and all(map(same, wanted, shown))), \
                f"{path} lists them in the order {short(shown)} ({short(wanted)} wanted)"
        if kind in ("mentions", "lacks"):
            wanted = self.resolve(condition["value"])
            seen = found and mentioned(value, wanted)
            return seen == (kind == "mentions"), \
                f"{path} {'mentions' if seen else 'does not mention'} {short(wanted)}"
        if kind == "longer":
            count = len(value) if found and isinstance(value, list) else 0
            return count > condition["than"], \
                f"{path} has {count} items ({condition['than']} expected)"
        if kind == "value":
            wanted = self.resolve(condition["want"])
            return not (found and same(value, wanted)), \
                f"{path} is {shown} ({short(wanted)} wanted)"
        return found and same(value, self.resolve(condition["value"])), f"{path} is {shown}"

    def same_as(self, condition, answer):
        """Whether a value is the one an earlier answer had (exactly: a time too)."""
        try:
            steps = self.resolve(condition["at"])
            now, before = at(answer.json(), steps), \
                at(self.answers[condition["as"]].json(), steps)
        except (KeyError, ValueError):
            return False, "the values to compare are not there"
        where = "body." + ".".join(map(str, condition["at"]))
        return now[1] and before[1] and now[0] == before[0], \
            f"{where} is {short(now[0])}, {short(before[0])} before (step {condition['as'] + 1})"

    def listed(self, condition, answer):
        """Whether a creation answered 2xx is missing from the reading (by its name)."""
        text = answer.body.decode("utf-8", "replace")
        made = [self.fill(name) for n, name in zip(condition["made"], condition["names"])
                if 200 <= (getattr(self.answers.get(n), "status", None) or 0) < 300]
        lost = [name for name in made if name not in text]
        return bool(lost), f"{len(made) - len(lost)} of the {len(made)} created are there" + \
            (f"; lost: {', '.join(lost)}" if lost else "")

    def same_answer(self, recorded, answer):
        """A failure that named no condition of its own, only its answer: whether the answer
        is the failing run's again (ids, names and times aside) is shown, never judged (None):
        what failed in it is not known, and a time or a name may be just what did."""
        if answer.status != recorded["status"]:
            return None, f"status {answer.status} (the failing run got " \
                         f"{recorded['status']}){NEITHER}"
        if recorded.get("cut"):
            return None, f"status {answer.status}, as in the failing run (its body is too " \
                         f"large to compare){NEITHER}"
        text = answer.body.decode("utf-8", "replace")
        if "digest" in recorded or "text" in recorded:
            again = Long(*recorded["digest"]).matches(text) if "digest" in recorded else \
                text == self.fill(recorded["text"])
            return None, f"status {answer.status}, {'the same' if again else 'another'} " \
                         f"body{NEITHER}"
        try:
            body = json.loads(text) if text.strip() else None
        except ValueError:
            return None, f"status {answer.status}, a body that is not JSON this time{NEITHER}"
        found = differences(self.resolve(recorded["json"]), body)
        if found:
            return None, f"status {answer.status}, the body differs from the failing " \
                         f"run's at {', '.join(found[:5])}{NEITHER}"
        return None, f"the failing run's answer again, ids, names and times aside (status " \
                     f"{answer.status}){NEITHER}"

    def run(self, out):
        steps, n = self.recipe["steps"], 0
        held, unfinished = [], None
        while n < len(steps) and not (unfinished and unfinished.startswith("!")):
            group = [n]  # the steps sent together with this one (most often: none)
            while steps[n].get("together") and group[-1] + 1 < len(steps) and \
                    steps[group[-1] + 1].get("together") == steps[n]["together"]:
                group.append(group[-1] + 1)
            try:
                readings, answers = self.sent([steps[i] for i in group])
            except Missing as missing:
                unfinished = f"step {n + 1} needs the id of {missing.args[0]}, which no " \
                             "earlier answer showed"
                break
            for i, answer in zip(group, answers):
                unfinished = self.after(i, answer, readings, held, out) or unfinished
            n = group[-1] + 1
        return held, unfinished and unfinished.lstrip("!")

    def sent(self, steps):
        """The answers of steps sent together (one: between its readings, if it has any)."""
        if len(steps) > 1:
            return [], self.together(steps)
        step, readings = steps[0], []
        if step.get("around"):
            readings = [self.send(step["around"]), self.send(step["around"])]
        answer = self.send(step)
        if step.get("around"):
            readings.append(self.send(step["around"]))
        return readings, [answer]

    def after(self, i, answer, readings, held, out):
        """A step's answer: shown, judged, its ids taken; why the rest cannot follow ("!...")
        or why the check could not be made, if so."""
        steps, step, unjudged = self.recipe["steps"], self.recipe["steps"][i], None
        out(f"[{i + 1}/{len(steps)}] {step['method']} {self.target(step)} -> "
            f"{answer.describe()}")
        self.answers[i] = answer
        if step.get("pause"):
            time.sleep(step["pause"])
        if step.get("shown") and answer.status is not None:
            text = answer.body.decode("utf-8", "replace")
            out("      " + (text if len(text) <= SHOWN else
                             f"{text[:SHOWN]}… ({len(text)} characters in all)"))
        for condition in step.get("conditions", []):
            holds, what = self.judge(condition, answer, readings)
            out(f"      {'FAILS' if holds else 'passes' if holds is False else 'unjudged'}"
                f": {what}")
            self.judged += holds is not None
            if holds:
                held.append(f"step {i + 1}: {what}")
            elif holds is None:
                unjudged = f"step {i + 1}: {what}: the check could not be made again"
        self.capture(step, answer)
        if step.get("cleanup"):
            self.remember(step["cleanup"], out)
        if step.get("capture") and not step.get("shown") and \
                not 200 <= (answer.status or 0) < 300:
            key = f"; a {answer.status} to a request with the key: is the key right? (" \
                  "BOARDCERT_API_KEY; boardcert reproduce --api-key)" \
                if step["key"] == "***" and answer.status in (401, 403) else ""
            return f"!step {i + 1} ({step['label']}) got {answer.describe()}: what the " \
                   f"failing request needs could not be made{key}"
        return unjudged

    def remember(self, cleanup, out):
        try:
            self.made.append((cleanup["method"], self.target(cleanup)))
        except Missing:
            out("      (what it made cannot be deleted: the answer shows no id)")

    def clean_up(self, keep, out):
        for method, target in reversed(self.made):
            if keep:
                out(f"left in place; delete it with: curl -sS -X {method} -H "
                    f"\"{KEY_HEADER}: $BOARDCERT_API_KEY\" '{self.base_url}{target}'")
                continue
            answer = request(self.base_url, method, target, {KEY_HEADER: self.key}, None,
                             self.recipe["timeout"], self.recipe["max_body"])
            out(f"clean-up: {method} {target} -> {answer.describe()}")


def main(recipe, argv=None, out=print):
    parser = argparse.ArgumentParser(description=f"Reproduce the failure of {recipe['test']}.")
    parser.add_argument("--base-url", default=recipe["base_url"],
                        help=f"the server (default: the run's, {recipe['base_url']})")
    parser.add_argument("--keep", action="store_true",
                        help="leave what the script made in place (it prints how to delete it)")
    args = parser.parse_args(argv)
    key = os.environ.get("BOARDCERT_API_KEY", "")
    if not key and any(s["key"] == "***" for s in recipe["steps"]):
        out("reproduce: set BOARDCERT_API_KEY to the server's key")
        return USAGE
    out(f"Reproducing {recipe['test']} against {args.base_url}")
    out(f"It failed with: {(recipe['message'].splitlines() or [''])[0]}")
    replay = Replay(recipe, args.base_url, key)
    try:
        held, unfinished = replay.run(out)
    finally:
        replay.clean_up(args.keep, out)
    if held:
        out(f"REPRODUCED: the failure is still there ({held[0]})")
        return REPRODUCED
    if not unfinished and not replay.judged:
        unfinished = "no condition of the failure could be judged on these answers"
    if unfinished:
        out(f"NOT FINISHED: {unfinished}")
        return UNFINISHED
    out("NOT REPRODUCED: the server now passes what this test failed on "
        "(run boardcert again to certify it)")
    return PASSES


def run(recipe):
    """The script's entry: main's exit status as the process's."""
    sys.exit(main(recipe, out=lambda text: print(text, flush=True)))
