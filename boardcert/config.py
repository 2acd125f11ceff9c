"""Target configuration: flags and BOARDCERT_* variables, and the implementation profile."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from boardcert.errors import ConfigError
from boardcert.paths import DEFAULT_PROFILE, PROFILE_SCHEMA

PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


class NotAssessed(Exception):
    """A test needs a profile value that is absent; the test is reported not assessed."""

    def __init__(self, key: str) -> None:
        super().__init__(f"not assessed: {key}")
        self.key = key


@dataclass
class Profile:
    """What the interface leaves open, for one server (conformance policy, section 5)."""

    data: dict[str, Any]
    path: Path | None = None

    @property
    def name(self) -> str:
        return self.data.get("name") or (self.path.stem if self.path else "unnamed")

    def get(self, key: str) -> Any:
        """The value at a dotted key; raises NotAssessed when it is absent or null."""
        value: Any = self.data
        for part in key.split("."):
            if not isinstance(value, dict) or value.get(part) is None:
                raise NotAssessed(key)
            value = value[part]
        return value

    def has(self, key: str) -> bool:
        try:
            self.get(key)
        except NotAssessed:
            return False
        return True

    def body(self, body_name: str, /, **values: Any) -> dict[str, Any]:
        """The request body `bodies.<body_name>` with its placeholders filled from `values`."""
        template = self.get(f"bodies.{body_name}")
        return fill(template, values, f"bodies.{body_name}")


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
    """Read and validate a profile YAML; errors name the file and the bad key."""
    path = Path(path) if path else DEFAULT_PROFILE
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"--profile {path}: cannot read it ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"--profile {path}: not valid YAML ({exc})") from None
    if data is None:
        data = {}
    schema = json.loads(PROFILE_SCHEMA.read_text(encoding="utf-8"))
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(data), key=str)
    if errors:
        raise ConfigError(f"profile {path}: " + "; ".join(_describe(e) for e in errors[:5]))
    return Profile(data, path)


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
    extra: dict[str, Any] = field(default_factory=dict)


def check_base_url(value: str, flag: str = "--base-url") -> str:
    if not re.fullmatch(r"https?://[^\s/]+(/\S*)?", value or ""):
        raise ConfigError(f"{flag} {value!r}: expected an http:// or https:// URL")
    return value.rstrip("/")


def env(name: str) -> str | None:
    value = os.environ.get(name)
    return value if value else None
