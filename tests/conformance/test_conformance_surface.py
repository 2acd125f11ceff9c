"""The suites' one door into boardcert: boardcert.conformance lists what they may use, and no
suite imports anything else of boardcert."""

from __future__ import annotations

import ast
from pathlib import Path

import boardcert.conformance

SUITES = Path(__file__).resolve().parents[2] / "suites"

# A change here is a change to what the suites lean on: make it on purpose.
FACE = [
    "Api", "Client", "Exchange", "at_once",
    "card_names", "find_named", "ids_in_order", "mentions",
    "checks", "expect", "Outcome", "Violation", "ExchangeError", "SetUpError", "NotAssessed",
    "misfit",
    "spec", "when", "REMOVED", "RemovedPath",
    "Profile", "fill", "Board", "Made", "ORDERS", "placeholders", "profile_body", "project_state",
    "unique", "Entry", "Ledger", "modelled", "Oracle",
    "together", "early", "Watched", "per_operation",
    "properties",
]


def boardcert_imports(path: Path) -> set[str]:
    """The boardcert modules `path` imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "boardcert"}
        elif isinstance(node, ast.ImportFrom) and node.module \
                and node.module.split(".")[0] == "boardcert":
            found.add(node.module if node.module != "boardcert"
                      else ".".join(["boardcert", *(a.name for a in node.names)]))
    return found


def test_the_face_is_what_it_lists() -> None:
    """boardcert.conformance exports exactly the names listed here, each of them defined."""
    assert boardcert.conformance.__all__ == FACE
    assert all(hasattr(boardcert.conformance, name) for name in FACE)


def test_suites_import_only_the_face() -> None:
    """Every suite imports boardcert.conformance and nothing else of boardcert."""
    others = {path.name: sorted(boardcert_imports(path) - {"boardcert.conformance"})
              for path in sorted(SUITES.glob("*.py"))}
    assert {name: found for name, found in others.items() if found} == {}


def test_every_name_of_the_face_is_used_by_a_suite() -> None:
    """Nothing is exported for no suite: each name of the face is imported by some suite."""
    used = set()
    for path in SUITES.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "boardcert.conformance":
                used |= {a.name for a in node.names}
    assert sorted(set(FACE) - used) == []
