"""boardcert's rooms: each sub-package has one job, and a room imports only from the rooms
below it (docs/design.md has the picture); the speed plugin is imported by nobody; no module
is over 400 lines."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "boardcert"

# Lowest first. "" is the package's own modules (errors, paths, compat, __init__).
ROOMS = ["", "reference", "interface", "settings", "http", "model", "suite", "discovery",
         "reproduce", "outputs", "traffic", "pytest", "properties", "for_suites", "speed", "cli"]
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


def test_private_modules_of_other_libraries_only_in_the_fenced_places() -> None:
    """Another library's private modules (`_pytest`, `hypothesis.internal`, `schemathesis`'s
    underscored or engine internals, ...) are imported only by compat.py and speed/."""
    fenced = {PACKAGE / "compat.py", *(PACKAGE / "speed").rglob("*.py")}
    found = []
    for path in modules():
        if path in fenced:
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
# came and sends none of its own (a 429 is the client's to honour).
HTTP_LIBRARIES = ("httpx", "httpcore", "http.client", "urllib.request", "requests", "aiohttp",
                  "urllib3", "socket", "httptools")
SENDERS = {"boardcert.http.client", "boardcert.reproduce.answers", "boardcert.reference.server",
           "boardcert.speed.patches", "boardcert.traffic.upstream"}


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
