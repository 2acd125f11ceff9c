"""Where the project's data files live: boardcert/data/ in an installed wheel (setup.py copies
spec/ and suites/ there), else the checkout boardcert is installed from (editable)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
_INSTALLED = PACKAGE / "data"
ROOT = _INSTALLED if (_INSTALLED / "spec").is_dir() else PACKAGE.parent
SPEC = ROOT / "spec"
OPENAPI = SPEC / "openapi.yaml"
REQUIREMENTS = SPEC / "requirements.yaml"
PROFILE_SCHEMA = SPEC / "profile.schema.json"
DISCOVERY = SPEC / "discovery.yaml"
DEFAULT_PROFILE = SPEC / "profiles" / "reference.yaml"
SUITES = ROOT / "suites"
RUN_INI = PACKAGE / "run.ini"  # `boardcert run`'s pytest configuration
