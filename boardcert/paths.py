"""Where the project's data files live (the checkout boardcert is installed from)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec"
OPENAPI = SPEC / "openapi.yaml"
REQUIREMENTS = SPEC / "requirements.yaml"
PROFILE_SCHEMA = SPEC / "profile.schema.json"
DEFAULT_PROFILE = SPEC / "profiles" / "reference.yaml"
SUITES = ROOT / "suites"
REPORTS = ROOT / "reports"
