"""Each room of the package says what it does and what it exports (issue 34, item 7): every
`__init__.py` of boardcert opens with a docstring and names its exports in `__all__`; each
name there is defined or imported in that `__init__.py`, or is one of the room's modules (and
then its docstring names it); and no two rooms' names differ by a letter."""

from __future__ import annotations

import ast
import subprocess
import sys
from difflib import SequenceMatcher
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "boardcert"
INITS = sorted(PACKAGE.rglob("__init__.py"))


def _exports(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return [ast.literal_eval(e) for e in node.value.elts]  # type: ignore[attr-defined]
    return None


def _defined(tree: ast.Module) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            found.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.update(t.id for t in targets if isinstance(t, ast.Name))
    return found


@pytest.mark.parametrize("init", INITS, ids=lambda p: str(p.parent.relative_to(PACKAGE.parent)))
def test_each_room_says_what_it_does_and_exports(init: Path):
    tree = ast.parse(init.read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree)
    assert doc and len(doc.split()) >= 8, f"{init}: no docstring saying what the room does"
    exports = _exports(tree)
    assert exports, f"{init}: no __all__"
    assert len(set(exports)) == len(exports), f"{init}: a name twice in __all__"
    modules = {p.stem for p in init.parent.glob("*.py")} | {
        p.parent.name for p in init.parent.glob("*/__init__.py")}
    lazy = "__getattr__" in _defined(tree)  # module-level __getattr__: the import test checks
    unknown = [n for n in exports if n not in _defined(tree) and n not in modules and not lazy]
    assert not unknown, f"{init}: __all__ names what the room does not have: {unknown}"
    unnamed = [n for n in exports if n in modules and n not in _defined(tree)
               and f"`{n}`" not in doc]
    assert not unnamed, f"{init}: the docstring does not say what {unnamed} are"


def test_every_export_is_there_when_imported():
    """Each name of every `__all__` is an attribute of its package, or imports as its module
    (in a process of its own: importing the plugin modules registers nothing here)."""
    code = """
import importlib, sys
missing = []
for name in sys.argv[1:]:
    package = importlib.import_module(name)
    for export in package.__all__:
        if not hasattr(package, export):
            try:
                importlib.import_module(f"{name}.{export}")
            except ImportError as exc:
                missing.append(f"{name}.{export}: {exc}")
print("\\n".join(missing))
"""
    names = [".".join(p.parent.relative_to(PACKAGE.parent).parts) for p in INITS]
    done = subprocess.run([sys.executable, "-c", code, *names], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert not done.stdout.strip(), done.stdout


def test_no_two_rooms_differ_by_a_letter():
    rooms = sorted({p.parent.name for p in INITS} | {"suites", "tests"})
    close = [(a, b) for i, a in enumerate(rooms) for b in rooms[i + 1:]
             if a in b or b in a or SequenceMatcher(None, a, b).ratio() > 0.85]
    assert not close, close

