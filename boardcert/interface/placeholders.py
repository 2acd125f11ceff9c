"""The "{placeholder}" form of body and path templates (profiles, former operations): filled
from a mapping of values; the vocabulary a profile may use is boardcert.settings.config's."""

from __future__ import annotations

import re
from typing import Any

from boardcert.errors import ConfigError

PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


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
