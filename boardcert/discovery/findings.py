"""What discovery learns: one Finding per profile key, and the Discovery (the profile with
what was found)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from boardcert.settings.config import Profile

FOUND, KEPT, NOT_FOUND, NOT_TRIED = "discovered", "profile", "not found", "not tried"


@dataclass
class Finding:
    """What discovery learnt about one profile key."""

    key: str  # bodies.alias_card, row_name_property, plugin_data_entity_id
    outcome: str  # profile (its value was accepted), discovered, not found, not tried
    value: Any = None  # the template (or property, placement) the server accepted
    note: str = ""  # what the server said to the profile's value, or why it was not tried

    def line(self) -> str:
        shown = yaml.safe_dump(self.value, default_flow_style=True, width=200).strip() \
            .removesuffix("...").strip()
        if self.outcome == FOUND:
            return f"{self.key}: discovered {shown}" + (f" ({self.note})" if self.note else "")
        if self.outcome == KEPT:
            verb = "holds" if self.key == "metadata_id_is_key" else "is accepted"
            return f"{self.key}: the profile's {shown} {verb}" + \
                (f" ({self.note})" if self.note else "")
        return f"not assessed: {self.key} ({self.outcome}: {self.note})"


@dataclass
class Discovery:
    """The profile with what was found, and the findings in the order they were made."""

    profile: Profile
    findings: list[Finding] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [f.line() for f in self.findings]

    def discovered(self) -> dict[str, Any]:
        """The keys whose value differs from the profile's, as a profile overlay."""
        found: dict[str, Any] = {}
        for f in self.findings:
            if f.outcome != FOUND:
                continue
            if f.key.startswith("bodies."):
                found.setdefault("bodies", {})[f.key.removeprefix("bodies.")] = f.value
            else:
                found[f.key] = f.value
        return found
