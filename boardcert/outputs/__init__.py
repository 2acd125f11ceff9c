"""What a run leaves behind, all written from `record.Record`s and the compliance report.

- `record`: a test's result as data (requirement and operation ids, observations, evidence);
- `report`: compliance.json, .md and .html (built, rendered, loaded again: `report.load`);
- `junit`: junit.xml as JUnit consumers read it; `badge`: badge.svg;
- `baseline`: a run against an earlier one (`--baseline`, `boardcert diff`);
- `bundle`: certification.zip sealed by a manifest; `statements`, `dsse`, `attestations`,
  `keyless`: the in-toto statements, their signed envelopes, Sigstore signing.
"""

__all__ = [
    "attestations",
    "badge",
    "baseline",
    "bundle",
    "dsse",
    "junit",
    "keyless",
    "record",
    "report",
    "statements",
]
