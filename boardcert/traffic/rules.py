"""The client-side catalogue (spec/client-rules.yaml), read once: what a client must send, each
rule with its level, the interface's words and what to do instead."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from boardcert.interface import requirements
from boardcert.paths import SPEC, read_yaml

CLIENT_RULES = SPEC / "client-rules.yaml"
MUST, SHOULD, INFO = requirements.LEVELS


@dataclass(frozen=True)
class Rule:
    id: str
    level: str
    title: str
    text: str
    section: str
    quote: str
    instead: str  # a template: {current}, {where}, {sent}, {other}
    requirement: str | None = None  # the server's requirement on the same words
    reading: str | None = None  # the conformance policy's words, where it rests on them
    server_refuses: bool = False  # a server must refuse such a request (its requirement's)


@cache
def catalogue() -> dict[str, Rule]:
    """Every client rule by id, in the file's order."""
    found: dict[str, Rule] = {}
    for item in read_yaml(CLIENT_RULES)["rules"]:
        source = item["source"]
        rule = Rule(item["id"], item["level"], item["title"], item["text"],
                    str(source["section"]), source["quote"], item["instead"],
                    item.get("requirement"), item.get("reading"),
                    bool(item.get("server_refuses")))
        if rule.id in found:
            raise ValueError(f"duplicate client rule {rule.id} in {CLIENT_RULES}")
        found[rule.id] = rule
    return found


def rule(rule_id: str) -> Rule:
    return catalogue()[rule_id]
