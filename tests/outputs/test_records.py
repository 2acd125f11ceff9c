"""A failure travels as one record (boardcert.outputs.record), through pytest-xdist as data."""

from __future__ import annotations

import json
from pathlib import Path

from faults import FAULTS, certify

from boardcert.outputs.record import RECORD, Record, of


def test_a_record_survives_json():
    """A record read back from its JSON is the record written, operations as numbers."""
    made = Record(failed_requirements=("A-B",), evidence=({"method": "GET", "status": 500},),
                  message="[A-B] no", error=True, unassessed={"A-B": {23: "why"}},
                  reproduction={"used": []}, reproduce="reproduce/t.py", lacks=("plugin_id",),
                  misfit=("bodies.x",), not_assessed="plugin_id")
    assert Record.from_json(made.to_json()) == made
    assert of(type("Report", (), {"user_properties": [(RECORD, made.to_json())]})) == made
    assert not Record() and Record.from_json(Record().to_json()) == Record()


def _failures(report: Path) -> dict[str, tuple]:
    tests = json.loads((report / "compliance.json").read_text(encoding="utf-8"))["tests"]
    return {t["nodeid"]: (t["outcome"], t["failed_requirements"], t["message"].splitlines()[0],
                          len(t["evidence"] or ()), "reproduction" in t)
            for t in tests if t["outcome"] != "passed"}


def test_a_record_survives_xdist(tmp_path: Path):
    """A run with two xdist workers gives the same failures in compliance.json (outcome,
    failed requirements, the message's first line (the rest shows the run's own resource names),
    evidence, reproduction) as a run without workers."""
    fault = next(f for f in FAULTS if f.name == "project-missing-name")
    found = {}
    for workers in ("0", "2"):
        directory = tmp_path / workers
        directory.mkdir()
        result = certify(fault, directory, extra=("-n", workers))
        assert result.verdict == "non-conformant", result.summary()
        found[workers] = _failures(directory / "report")
    assert any(outcome == "failed" for outcome, *_ in found["0"].values())
    assert found["2"] == found["0"]
