"""boardcert's rooms: each sub-package has one job, and a room imports only from the rooms
below it (docs/design.md has the picture); the speed plugin is imported by nobody; no module
is over 400 lines; another library's private modules and attributes are touched only in the
fenced places (compat.py, compat_fallbacks.py, speed/), each checked as a run starts."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "boardcert"

# Lowest first. "" is the package's own modules (errors, paths, compat, __init__).
ROOMS = ["", "reference", "interface", "settings", "http", "model", "workbench", "discovery",
         "reproduce", "outputs", "traffic", "pytest", "properties", "conformance", "speed", "cli"]
LONGEST = 400  # lines

# What issue 25 has not finished yet: each entry goes when its module is fixed.
SPEED_IMPORTED_BY: set[str] = set()
LONGER: set[str] = set()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def room_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) > 1 and (PACKAGE / parts[1]).is_dir():
        return parts[1]
    return ""


def imports(path: Path) -> set[str]:
    """Every boardcert module `path` imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("boardcert")}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.startswith("boardcert"):
            found |= {f"{node.module}.{a.name}" if (PACKAGE.parent / f"{node.module}.{a.name}"
                      .replace(".", "/")).exists() or (PACKAGE.parent / (
                          f"{node.module}.{a.name}".replace(".", "/") + ".py")).exists()
                      else node.module for a in node.names}
    return found


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "templates" not in p.parts)


def test_every_room_is_known() -> None:
    """Each sub-package of boardcert is a room with a place in the order."""
    rooms = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert rooms == set(ROOMS) - {""}


def test_no_room_imports_one_above_it() -> None:
    """A room imports only from itself and the rooms below it (http never imports outputs)."""
    upward = []
    for path in modules():
        mine = room_of(module_name(path))
        for imported in imports(path):
            theirs = room_of(imported)
            if ROOMS.index(theirs) > ROOMS.index(mine):
                upward.append(f"{module_name(path)} ({mine or 'boardcert'}) imports {imported}")
    assert not upward, "\n".join(upward)


def test_nothing_imports_the_speed_plugin() -> None:
    """Only pytest loads boardcert.speed (plugin.py names it); no module outside it imports it."""
    importers = {module_name(p) for p in modules() if room_of(module_name(p)) != "speed"
                 and any(room_of(i) == "speed" for i in imports(p))}
    suites = {module_name(p) for p in (ROOT / "suites").rglob("*.py")
              if any(room_of(i) == "speed" for i in imports(p))}
    assert importers | suites == SPEED_IMPORTED_BY


def test_no_module_is_over_400_lines() -> None:
    """Every module of boardcert and of the suites fits in 400 lines."""
    paths = modules() + sorted((ROOT / "suites").rglob("*.py"))
    longer = {str(p.relative_to(ROOT)) for p in paths
              if len(p.read_text().splitlines()) > LONGEST}
    assert longer == LONGER


def private(name: str) -> bool:
    """A private module of another library: `_pytest`, `hypothesis.internal`, `x._y`."""
    return not name.startswith(("boardcert", "__future__")) and (
        name.startswith("_") or ".internal" in name or "._" in name)


FENCED = {PACKAGE / "compat.py", PACKAGE / "compat_fallbacks.py",
          *(PACKAGE / "speed").rglob("*.py")}


def test_private_modules_of_other_libraries_only_in_the_fenced_places() -> None:
    """Another library's private modules (`_pytest`, `hypothesis.internal`, `schemathesis`'s
    underscored or engine internals, ...) are imported only by the fenced places."""
    found = []
    for path in modules():
        if path in FENCED:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            found += [f"{module_name(path)}: {n}" for n in names if private(n)]
    assert not found, "\n".join(found)


# What sends HTTP: the one seam (http/client.py: 429 honoured, key masked, deadline), the
# reproduction scripts' standard-library copy of it (reproduce/answers.py: 429 honoured too),
# the bundled server's wait for its own child, the speed plugin's check of httpx, and the
# proxy's way to its upstream (boardcert proxy), which forwards a client's requests as they
# came and sends none of its own (a 429 is the client's to honour); and the speed plugin's
# forked workers, whose Unix socket joins a worker to its zygote and reaches no target. The
# speed plugin's transport (lean_http) is under the seam: the seam's requests pass through it.
HTTP_LIBRARIES = ("httpx", "httpcore", "http.client", "urllib.request", "requests", "aiohttp",
                  "urllib3", "socket", "httptools")
SENDERS = {"boardcert.http.client", "boardcert.reproduce.answers", "boardcert.reference.server",
           "boardcert.speed.patches", "boardcert.traffic.upstream", "boardcert.speed.forked",
           "boardcert.speed.lean_http"}


def test_requests_leave_through_one_seam() -> None:
    """No module but the seam (and the three named beside it) imports an HTTP library, so
    every request boardcert sends to a target (probes, requests sent together, preflight,
    discovery, clean-up) goes through boardcert.http.client, which honours 429."""
    found = set()
    for path in [*modules(), *sorted((ROOT / "suites").rglob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n == lib or n.startswith(f"{lib}.") for n in names for lib in HTTP_LIBRARIES):
                found.add(module_name(path))
    assert found == SENDERS


# Documented API despite its underscore.
PUBLIC = {("os", "_exit")}
ACCESSORS = {"getattr", "hasattr", "setattr", "delattr"}


def own_names(tree: ast.AST) -> set[str]:
    """What a module defines itself: its defs and classes, every name and attribute it assigns
    (`self._x = ...`, a dataclass field), its parameters and what it imports as a name."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Store):
            found.add(node.id if isinstance(node, ast.Name) else node.attr)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, ast.alias):
            found.add(node.asname or node.name.split(".")[0])
    return found


def private_attributes(path: Path) -> list[str]:
    """Each `x._name` of a module (one underscore: dunders are Python's own), or getattr,
    hasattr, setattr or delattr of a "_name", whose name the module does not define itself."""
    tree = ast.parse(path.read_text())
    own, found = own_names(tree), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            name, owner = node.attr, node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ACCESSORS and len(node.args) >= 2 \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            name, owner = node.args[1].value, node.args[0]
        else:
            continue
        if not name.startswith("_") or name.startswith("__") or name in own:
            continue
        if isinstance(owner, ast.Name) and (owner.id, name) in PUBLIC:
            continue
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
        found.append(f"{shown}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_private_attributes_of_other_libraries_only_in_the_fenced_places() -> None:
    """Outside the fenced places, every private attribute a module reads or writes (`x._name`,
    or `getattr(x, "_name")`) is one that module defines itself: boardcert's own `_private`
    names within a module are fine; another library's (argparse's `_actions`, pytest's
    `item._request`, CPython's `atexit._run_exitfuncs`) are not, for a new version may take them
    away unannounced. The rule goes by name: a module that defines a `_name` of its own may
    also read another library's `_name` unseen, a price of reading the source alone."""
    found = [line for path in [*modules(), *sorted((ROOT / "suites").rglob("*.py"))]
             if path not in FENCED for line in private_attributes(path)]
    assert not found, "\n".join(found)


def test_the_private_attribute_rule_finds_them(tmp_path: Path) -> None:
    """The walk finds another library's private attribute however it is reached, and lets a
    module's own and the documented `os._exit` pass."""
    module = tmp_path / "m.py"
    module.write_text("import atexit, os\n"
                      "class A:\n    def __init__(self):\n        self._mine = 1\n"
                      "    def f(self, item):\n        return self._mine, item._request\n"
                      "atexit._run_exitfuncs()\nos._exit(0)\n"
                      "getattr(object(), '_private', None)\ngetattr(object(), '_mine')\n")
    found = [line.split(": ", 1)[1] for line in private_attributes(module)]
    assert sorted(found) == ["atexit._run_exitfuncs", "getattr(object(), '_private', None)",
                             "item._request"]


# Beside the rooms: whole certifications against servers (certify), the spec/ files (spec),
# the independent implementation (independent).
TEST_ROOMS = {*ROOMS, "certify", "spec", "independent"} - {""}
# The project as a whole: docs, lint, rooms and exports, library internals, committed lists,
# the benchmarks.
TOP_LEVEL_TESTS = {"test_benchmarks.py", "test_compat.py", "test_doc_blocks.py", "test_docs.py",
                   "test_exports.py", "test_lint.py", "test_requirements_page.py",
                   "test_rooms.py", "test_suite_catalogue.py"}


def test_tests_mirror_the_rooms():
    """Each folder of tests/ that holds test modules is named after the room it tests (issue
    34, item 9); at the top only the tests of the project as a whole."""
    tests = ROOT / "tests"
    folders = {p.parent.relative_to(tests).parts[0] for p in tests.rglob("test_*.py")
               if p.parent != tests}
    assert folders <= TEST_ROOMS, folders - TEST_ROOMS
    assert {p.name for p in tests.glob("test_*.py")} <= TOP_LEVEL_TESTS


def test_the_package_imports_neither_tests_nor_tools():
    """What only builds docs and committed lists (tools/) and what only tests boardcert
    (tests/: the faults, the samples) stay out of the installed tool (issue 34, item 8)."""
    outside = {"tools", "faults", "samples", "hostile", "independent"}
    found = []
    for path in modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level \
                else []
            found += [f"{path.relative_to(ROOT)}: {n}" for n in names
                      if n.split(".")[0] in outside]
    assert not found, found
