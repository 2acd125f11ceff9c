"""Target configuration: flags and BOARDCERT_* variables, and the implementation profile."""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from boardcert.errors import ConfigError, NotAssessed
from boardcert.interface.placeholders import PLACEHOLDER, fill  # noqa: F401 (profile bodies)
from boardcert.paths import DEFAULT_PROFILE, PROFILE_SCHEMA, SAFE_LOADER
from boardcert.settings.options import OPTIONS

# Every "{placeholder}" a profile's bodies and entity_id may use (the suite fills them in); a
# profile naming another is refused when it is loaded. Add a new one here, where its value is
# built (boardcert.workbench.board.placeholders(), discovery/, properties/arena.py) and in
# spec/profiles/reference.yaml.
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
    """What the interface leaves open, for one server (docs/policy.md, section 5)."""

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
                raise NotAssessed(f"{key} ({self.unfound[key]})") if key in self.unfound \
                    else NotAssessed(key, lacks=[key])
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
        data = yaml.load(text, Loader=SAFE_LOADER)
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
        known = list(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(known))
        return f"unknown key {', '.join(_meant(name, known) for name in extra)} under {key}"
    return f"key {key}: {error.message}"


def _meant(name: str, known: list[str]) -> str:
    """An unknown key, and the known one it is most likely a typo of (as a mistyped flag
    gets the closest flag named)."""
    near = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return f"{name} (did you mean {near[0]}?)" if near else name


@dataclass(frozen=True)
class Target:
    """Where and how to reach the server under test (made by `resolve`)."""

    base_url: str  # "": the bundled reference server, started when a test first needs it
    api_key: str = field(repr=False)
    profile: Profile
    timeout: float = 10.0
    rate_limit: float | None = None  # requests per second of this process
    max_body: int = 8 * 1024 * 1024
    read_only: bool = False
    project_id: str | None = None  # --read-only: the existing project to read (ops 3 and 6)


# What `resolve` reads: the flags (as argparse and pytest name them) and the variables that
# stand in for a flag not given; both declared with the options, in boardcert.settings.options.
FLAGS = tuple(option.dest for option in OPTIONS if option.target)
ENV = {option.dest: option.env for option in OPTIONS if option.env}


def resolve(flags: Mapping[str, Any], environ: Mapping[str, str], workers: int = 1) -> Target:
    """The target from flags (`--base-url` as "base_url"; None or absent: not given), else
    the BOARDCERT_* variables of ENV, checked; a ConfigError names the flag or variable.
    `--rate-limit` is for the whole run: each of `workers` processes gets its share."""
    def given(name: str) -> tuple[Any, str]:
        value = flags.get(name)
        if value is not None and value != "":
            return value, f"--{name.replace('_', '-')}"
        return environ.get(ENV[name]) or None, ENV[name]

    base_url, where = given("base_url")
    api_key, key_from = given("api_key")
    if base_url:
        base_url = check_base_url(base_url, where)
        if not api_key:
            raise ConfigError("--api-key (or BOARDCERT_API_KEY) is required with --base-url")
    elif api_key and key_from == "--api-key":  # meant for a server of the user's: say so
        raise ConfigError(f"--api-key was given without --base-url: with no target boardcert "
                          f"certifies its own bundled reference server, which does not use "
                          f"your key; give the server too (--base-url URL, or "
                          f"{ENV['base_url']})")
    else:  # a key in the environment alone is ignored (the console's header says so)
        api_key = ""
    profile = load_profile(given("profile")[0])
    seconds, where = given("request_timeout")
    timeout = Target.timeout if seconds is None else _seconds(seconds, where)
    rate_limit, max_body = flags.get("rate_limit"), flags.get("max_body")
    check_limits(timeout, rate_limit, max_body)
    read_only, project_id = bool(flags.get("read_only")), flags.get("project_id") or None
    check_project_id(project_id, read_only)
    return Target(base_url=base_url or "", api_key=api_key, profile=profile, timeout=timeout,
                  rate_limit=rate_limit / max(1, workers) if rate_limit else None,
                  max_body=max_body if max_body is not None else Target.max_body,
                  read_only=read_only, project_id=project_id)


def _seconds(value: Any, where: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{where} {value!r}: expected a number of seconds") from None


def check_limits(timeout: float, rate_limit: float | None, max_body: int | None) -> None:
    """Refuse settings no run can keep."""
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
