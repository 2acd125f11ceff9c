"""The requirement catalogue: well formed, complete over the 28 operations, and grounded in
the words of the interface."""

from __future__ import annotations

import re

import pytest
import yaml

from boardcert.interface import requirements
from boardcert.paths import REQUIREMENTS, SPEC

INTERFACE = re.sub(r"\s+", " ", (SPEC / "interface.md").read_text(encoding="utf-8"))
POLICY = SPEC.parent.parent / "shared" / "conformance-policy.md"
# The requirements that rest on the conformance policy's reading rather than on a sentence.
READINGS = {"CARD-NAME-MAX-MULTIBYTE", "CARD-NAME-MAX-ASTRAL", "AUTH-REJECTED-CHANGES-NOTHING",
            "REMOVED-PATH-NO-EFFECT", "REMOVED-PATH-GONE", "REMOVED-PATH-NOT-SERVED",
            "JSON-MEDIA-TYPE", "NO-SERVER-ERROR", "REJECT-MALFORMED-JSON",
            "REJECTED-CHANGES-NOTHING", "PROJECT-CARDS-LISTED", "PROJECT-UPDATED-AT",
            "CARD-NAME-AS-SENT", "CARD-MOVE-PLACES", "CARD-MOVE-BY-METADATA-PLACES",
            "CONCURRENT-CREATIONS-KEPT", "USERS-ME-NO-ACCESS-TOKENS", "PROJECT-NOT-WRAPPED",
            "CARD-NAME-MAX-ACCEPTED", "ROW-DELETE-RETURNS-PROJECT",
            "COLUMN-DELETE-RETURNS-PROJECT", "CARD-DELETE-RETURNS-CARD",
            "CARD-MOVE-ORDERING-ACCEPTED", "CARD-MOVE-IDS", "EXCHANGE-USER-TOKEN",
            "AUTH-KEY-REQUIRED", "WRITE-ONLY-ADDRESSED", "CARD-NAME-REQUIRED",
            "CARD-NAME-STRING", "CARD-NAME-MAX-REJECTED"}


def raw() -> list[dict]:
    return yaml.safe_load(REQUIREMENTS.read_text(encoding="utf-8"))["requirements"]


def test_ids_are_unique_and_readable():
    """Every id appears once and is upper-case words joined by hyphens."""
    ids = [r["id"] for r in raw()]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[A-Z0-9]+(-[A-Z0-9]+)+", i) for i in ids), ids


def test_every_operation_is_named():
    """Each of the 28 operations is named by some requirement."""
    named = {n for r in requirements.catalogue().values() for n in r.operations}
    assert named == set(range(1, 29))


def test_levels_and_fields():
    """Every requirement has a level, a title, a text and operations in 1..28."""
    for req in requirements.catalogue().values():
        assert req.level in requirements.LEVELS, req.id
        assert req.title and req.text, req.id
        assert req.operations and set(req.operations) <= set(range(1, 29)), req.id


def test_every_must_cites_a_section():
    """A MUST rests on a section of the interface and quotes its words."""
    for req in requirements.catalogue().values():
        if req.level == "MUST":
            assert req.section, req.id
            assert req.quote, req.id


def test_quotes_are_the_interfaces_words():
    """Each quote (parts split at '...') occurs in the interface document."""
    for req in requirements.catalogue().values():
        for part in req.quote.split("..."):
            part = re.sub(r"\s+", " ", part.strip())
            assert part in INTERFACE, f"{req.id}: {part!r} is not in spec/interface.md"


def test_changes_are_declared():
    """A requirement's change names a dated entry declared in the catalogue."""
    declared = requirements.changes()
    for req in requirements.catalogue().values():
        assert req.change is None or req.change in declared, req.id
    assert {"2024-05-19", "2024-06-18"} <= set(declared)


def test_vendored_interface_matches_shared_copy():
    """spec/interface.md is the interface document, unchanged (when shared/ is beside us)."""
    shared = SPEC.parent.parent / "shared" / "interface.md"
    if shared.exists():
        assert shared.read_text(encoding="utf-8") == (SPEC / "interface.md").read_text(
            encoding="utf-8")


def test_readings_are_marked_and_never_info():
    """The requirements that are policy readings say so; an INFO one never fails, so it
    carries none."""
    marked = {r.id for r in requirements.catalogue().values() if r.reading}
    assert marked == READINGS
    assert all(requirements.catalogue()[i].level in ("MUST", "SHOULD") for i in marked)


@pytest.mark.skipif(not POLICY.exists(), reason="the conformance policy is not beside us")
def test_readings_are_the_policys_words():
    """Each reading (parts split at '...') occurs in the conformance policy."""
    policy = re.sub(r"\s+", " ", POLICY.read_text(encoding="utf-8"))
    for req in requirements.catalogue().values():
        for part in (req.reading or "").split("..."):
            part = re.sub(r"\s+", " ", part.strip())
            assert part in policy, f"{req.id}: {part!r} is not in the conformance policy"
