"""Target configuration: flags and BOARDCERT_* variables, and the implementation profile."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from boardcert.errors import ConfigError, NotAssessed
from boardcert.paths import DEFAULT_PROFILE, PROFILE_SCHEMA

PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
# Every "{placeholder}" a profile's bodies and entity_id may use (the suite fills them in); a
# profile naming another is refused when it is loaded. Add a new one here, where its value is
# built (plugin.py, properties.py, the suites' values()) and in spec/profiles/reference.yaml.
PLACEHOLDERS = frozenset({
    "name", "alias", "key", "value", "code", "project_id", "row_id", "column_id",
    "other_column_id", "card_id", "card_ids", "row_ids", "column_ids", "after_card_id",
    "before_card_id", "plugin_id", "entity_id"})
TEMPLATED = ("bodies", "entity_id")  # the profile keys whose strings hold placeholders
_SPELLED = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")  # what a user may mean as one: {cardId}


class ProfileBody(dict):  # type: ignore[type-arg]
    """A request body filled from the profile's `bodies.<key>`: the server may refuse it
    because the profile does not fit, not because the server is at fault."""

    def __init__(self, key: str, body: dict[str, Any], proven: bool = False) -> None:
        super().__init__(body)
        self.key, self.proven = key, proven

    def __or__(self, other: Any) -> ProfileBody:  # body | {"afterCardId": ...} stays marked
        return ProfileBody(self.key, {**self, **other}, self.proven)


@dataclass
class Profile:
    """What the interface leaves open, for one server (conformance policy, section 5)."""

    data: dict[str, Any]
    path: Path | None = None  # the user's file; None: the defaults alone
    sha256: str | None = None  # of the user's file
    proven: frozenset[str] = frozenset()  # body keys discovery saw the server accept
    unfound: dict[str, str] = field(default_factory=dict)  # key -> what discovery was told

    @property
    def name(self) -> str:
        return self.data.get("name") or (self.path.stem if self.path else "unnamed")

    def get(self, key: str) -> Any:
        """The value at a dotted key; raises NotAssessed when it is absent or null."""
        value: Any = self.data
        for part in key.split("."):
            if not isinstance(value, dict) or value.get(part) is None:
                raise NotAssessed(f"{key} ({self.unfound[key]})" if key in self.unfound else key)
            value = value[part]
        return value

    def has(self, key: str) -> bool:
        try:
            self.get(key)
        except NotAssessed:
            return False
        return True

    def body(self, body_name: str, /, **values: Any) -> ProfileBody:
        """The request body `bodies.<body_name>` with its placeholders filled from `values`."""
        template = self.get(f"bodies.{body_name}")
        return ProfileBody(body_name, fill(template, values, f"bodies.{body_name}"),
                           body_name in self.proven)


def fill(template: Any, values: dict[str, Any], where: str) -> Any:
    """Fill "{placeholder}" strings; a string that is one placeholder keeps the value's type."""
    if isinstance(template, dict):
        return {k: fill(v, values, where) for k, v in template.items()}
    if isinstance(template, list):
        return [fill(v, values, where) for v in template]
    if not isinstance(template, str):
        return template
    whole = PLACEHOLDER.fullmatch(template)
    if whole:
        return _value(whole.group(1), values, where)
    return PLACEHOLDER.sub(lambda m: str(_value(m.group(1), values, where)), template)


def _value(name: str, values: dict[str, Any], where: str) -> Any:
    if name not in values:
        raise ConfigError(f"profile key {where}: placeholder {{{name}}} is not available here")
    return values[name]


def load_profile(path: str | os.PathLike[str] | None = None) -> Profile:
    """The defaults (spec/profiles/reference.yaml) overlaid with the profile at `path`, which
    names only what differs; validated, errors name the file and the bad key."""
    data = _read(DEFAULT_PROFILE)
    digest = None
    if path:
        path = Path(path)
        mine = _read(path)
        data = overlay(data, mine)
        data["name"] = mine.get("name") or path.stem  # not "reference" for another server
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    where = path or DEFAULT_PROFILE
    schema = json.loads(PROFILE_SCHEMA.read_text(encoding="utf-8"))
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(data), key=str)
    if errors:
        raise ConfigError(f"profile {where}: " + "; ".join(_describe(e) for e in errors[:5]))
    unknown = [f"key {key}: unknown placeholder {{{name}}}" for key, name in _placeholders(data)
               if name not in PLACEHOLDERS]
    if unknown:
        raise ConfigError(f"profile {where}: " + "; ".join(unknown[:5]) +
                          f" (known: {', '.join(sorted(PLACEHOLDERS))})")
    return Profile(data, path or None, digest)


def overlay(base: dict[str, Any], over: dict[str, Any], where: str = "") -> dict[str, Any]:
    """`over` laid on `base`: mappings merge key by key; a list, a scalar or a request body
    replaces (a body is one template, never a mix of two); null removes the key."""
    merged = dict(base)
    for key, value in over.items():
        if value is None:
            merged.pop(key, None)
        elif (isinstance(value, dict) and isinstance(merged.get(key), dict)
              and where != "bodies."):
            merged[key] = overlay(merged[key], value, f"{where}{key}.")
        else:
            merged[key] = value
    return merged


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"--profile {path}: cannot read it ({exc.strerror})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"--profile {path}: not valid YAML ({_yaml_problem(exc)})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"--profile {path}: expected a mapping of profile keys at the top "
                          f"level, got {type(data).__name__}")
    return data


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """The parser's message with the line and column, without its `<unicode string>`."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
    return where + (f"{context}, {problem}" if context else problem)


def _placeholders(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(dotted key, placeholder name) for every placeholder in the templated keys."""
    def walk(value: Any, key: str) -> Iterator[tuple[str, str]]:
        if isinstance(value, dict):
            for k, v in value.items():
                yield from walk(v, f"{key}.{k}")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                yield from walk(v, f"{key}.{i}")
        elif isinstance(value, str):
            for name in _SPELLED.findall(value):
                yield key, name

    for key in TEMPLATED:
        if key in data:
            yield from walk(data[key], key)


def _describe(error: jsonschema.ValidationError) -> str:
    key = ".".join(str(p) for p in error.absolute_path) or "(top level)"
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return f"unknown key {', '.join(extra)} under {key}"
    return f"key {key}: {error.message}"


@dataclass
class Target:
    """Where and how to reach the server under test."""

    base_url: str
    api_key: str = field(repr=False)
    profile: Profile
    timeout: float = 10.0
    rate_limit: float | None = None
    max_body: int = 8 * 1024 * 1024
    read_only: bool = False
    project_id: str | None = None  # --read-only: the existing project to read (ops 3 and 6)


def request_timeout(given: float | None) -> float:
    """--request-timeout, else BOARDCERT_TIMEOUT, else 10 seconds."""
    if given is not None:
        return given
    value = env("BOARDCERT_TIMEOUT") or "10"
    try:
        return float(value)
    except ValueError:
        raise ConfigError(f"BOARDCERT_TIMEOUT {value!r}: expected a number of seconds") from None


def check_limits(timeout: float, rate_limit: float | None, max_body: int | None) -> None:
    """Refuse settings no run can keep (the CLI checks them before pytest starts)."""
    if timeout <= 0:
        raise ConfigError("--request-timeout must be a positive number of seconds")
    if rate_limit is not None and rate_limit <= 0:
        raise ConfigError("--rate-limit must be a positive number of requests per second")
    if max_body is not None and max_body <= 0:
        raise ConfigError("--max-body must be a positive number of bytes")


def check_base_url(value: str, flag: str = "--base-url") -> str:
    if not re.fullmatch(r"https?://[^\s/]+(/\S*)?", value or ""):
        raise ConfigError(f"{flag} {value!r}: expected an http:// or https:// URL")
    return value.rstrip("/")


def check_project_id(project_id: str | None, read_only: bool) -> None:
    if project_id is not None and not read_only:
        raise ConfigError("--project-id is for --read-only runs (a full run makes its own)")


def env(name: str) -> str | None:
    value = os.environ.get(name)
    return value if value else None
