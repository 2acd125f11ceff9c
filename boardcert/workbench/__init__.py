"""What the explicit suites build with and judge by (imported through boardcert.conformance).

- `board`: boards made on the server for a test (`Made`, `Board`), told to the model write by
  write; `ledger`: everything a run created, deleted newest first at the end;
- `checks`: response checks shared with the schemathesis tests; `expect`: the suites'
  assertions, each failing with a `Violation` that names its requirement.
"""

__all__ = ["board", "checks", "expect", "ledger"]
