"""`--plan`: what a run would call and create, and how it cleans up, without calling anything.

Built from the collected tests alone: their operations (requirement markers), the plugin's
fixtures they use (factories, `board`, `fresh_board`) and `--read-only`. No fixture runs, so no
server is started and no request is sent. A pytest plugin module: `pytest_runtestloop` prints
the plan in place of running the tests.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import pytest

from boardcert.http.client import READS
from boardcert.interface import spec
from boardcert.interface.resources import BY_NAME, CREATED_BY, DELETE_OP, KINDS
from boardcert.pytest.handover import run_of
from boardcert.pytest.markers import item_operations, requirement_ids
from boardcert.pytest.stash import TARGET
from boardcert.workbench import board

PROBE_OP = 1  # each test worker's first request: does the target answer at all?
BOARD = board.shape()  # what `board` and `fresh_board` hold
FACTORIES = {"make_project": "project", "make_row": "row", "make_column": "column",
             "make_card": "card"}
KIND_OP = {kind: BY_NAME[kind].creates[0] for kind in FACTORIES.values()}
# Operations that leave something behind, and what (clean-up in DELETE_OP, or none).
CREATES = {number: kind.name for number, kind in CREATED_BY.items()}
KIND_WORDS = {kind.name: kind.plural for kind in KINDS}
GOES_WITH_PROJECT = tuple(kind.name for kind in KINDS if kind.in_project)


@dataclass(frozen=True)
class PlannedTest:
    """One collected test, as far as the plan needs it."""

    module: str
    operations: tuple[int, ...]
    fixtures: frozenset[str]
    read_only: bool  # marked @pytest.mark.read_only
    requirements: tuple[str, ...]  # none: --read-only does not skip it

    def shares_board(self, read_only: bool) -> bool:
        """Uses the shared board (readable_project is the board's project but under
        --read-only, where it is the server's currentProject)."""
        return "board" in self.fixtures or (not read_only and "readable_project" in self.fixtures)

    def runs(self, read_only: bool) -> bool:
        """Whether it would run: under --read-only only a read_only test that needs nothing
        created (no ledger, so no factory and no board)."""
        if not read_only:
            return True
        return (self.read_only or not self.requirements) and "ledger" not in self.fixtures


def render(tests: list[PlannedTest], base_url: str, read_only: bool) -> str:
    """The plan, as text for the terminal."""
    runs = [t for t in tests if t.runs(read_only)]
    lines = ["boardcert plan: what this run would call and create "
             "(nothing was called, no server was started)", ""]
    lines.append(f"target: {base_url} (not contacted)" if base_url else
                 "target: the bundled reference server (not started)")
    modules = sorted({t.module for t in tests})
    lines.append(f"tests: {len(tests)} in {len(modules)} modules")
    if read_only:
        left = sorted({r for t in tests if not t.runs(True) for r in t.requirements}
                      - {r for t in runs for r in t.requirements})
        lines.append(f"--read-only: {len(runs)} tests would run; {len(tests) - len(runs)} not "
                     f"assessed (they change the server or need what the run would create); "
                     f"only GET, HEAD and OPTIONS are sent, nothing is created")
        lines.append(f"--read-only leaves {len(left)} requirements not assessed: "
                     f"{', '.join(left) or 'none'}")
    lines.append(f"first, in each test worker: {_op(PROBE_OP)}, to check the target answers")
    if any(t.shares_board(read_only) for t in runs):
        lines.append(f"shared, once per test worker (the board): {_board()}")
    called = sorted({n for t in runs for n in _operations(t, read_only)})
    lines += ["", f"operations called ({len(called)} of {len(spec.operations())}):"]
    lines += [f"  {_op(n)}" for n in called]
    for module in modules:
        lines += ["", *_module(module, [t for t in runs if t.module == module], read_only)]
    lines += ["", *_clean_up(read_only)]
    if not base_url and not read_only:
        lines.append("(the bundled reference server: nothing is deleted; it stops at the end "
                     "with all the run made)")
    return "\n".join(lines)


def _module(module: str, tests: list[PlannedTest], read_only: bool) -> list[str]:
    if not tests:
        return [f"{module}: not assessed under --read-only"]
    ops = sorted({n for t in tests for n in _operations(t, read_only)})
    lines = [f"{module}: {len(tests)} test{'s' if len(tests) != 1 else ''}",
             f"  calls ops: {', '.join(map(str, ops))}"]
    lines.append(f"  creates: {'nothing' if read_only else _creates(tests)}")
    return lines


def _operations(test: PlannedTest, read_only: bool) -> set[int]:
    ops = set(test.operations)
    uses = set(test.fixtures)
    if "fresh_board" in uses or test.shares_board(read_only):
        ops |= set(KIND_OP.values())
    if read_only and "readable_project" in uses:
        ops |= {1, 3}  # the currentProject, from op 1, read with op 3
    ops |= {KIND_OP[kind] for name, kind in FACTORIES.items() if name in uses}
    if read_only:  # the client refuses the rest before it is sent
        ops = {n for n in ops if spec.operation(n).method in READS}
    return ops


def _creates(tests: list[PlannedTest]) -> str:
    parts = []
    fresh = sum("fresh_board" in t.fixtures for t in tests)
    if fresh:
        parts.append(f"a board of its own in each of {fresh} test{'s' * (fresh != 1)} "
                     f"({_board()} each)")
    if any(t.shares_board(False) for t in tests):
        parts.append("uses the shared board")
    made: dict[str, set[str]] = defaultdict(set)
    for test in tests:
        for name, kind in FACTORIES.items():
            if name in test.fixtures:
                made[kind].add(name)
        for number in test.operations:
            if number in CREATES:
                made[CREATES[number]].add(f"op {number}")
    if made:
        parts.append("as the tests need them: " + ", ".join(
            KIND_WORDS[kind] for kind in KIND_WORDS if kind in made))
    return "; ".join(parts) or "nothing"


def _clean_up(read_only: bool) -> list[str]:
    if read_only:
        return ["clean-up: none needed (--read-only creates nothing)"]
    lines = ["clean-up, at the end of the run (after failures and Ctrl-C too): everything "
             "the run created, newest first:"]
    for kind, number in DELETE_OP.items():
        covered = ", unless its project is deleted with it" if kind in GOES_WITH_PROJECT \
            else ""
        lines.append(f"  {KIND_WORDS[kind]:20} {_op(number)}{covered}")
    lines.append(f"  {KIND_WORDS['user token']:20} none: the interface has no operation that "
                 f"revokes one (op 28)")
    lines.append("nothing that existed before the run is changed or deleted; removed paths "
                 "and rejected input are tried only on the run's own resources")
    return lines


def _board() -> str:
    return ", ".join(f"{n} {kind if n == 1 else KIND_WORDS[kind]}" for kind, n in BOARD.items())


def _op(number: int) -> str:
    op = spec.operation(number)
    return f"op {number:2}  {op.method:6} {op.path}"


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config: pytest.Config) -> Any:
    """--plan runs in one process, whatever -n says (nothing runs, so nothing is distributed);
    before pytest-xdist reads -n (a wrapper: its hook may be registered first)."""
    option = config.option
    if getattr(option, "numprocesses", None) and run_of(config).plan:
        option.numprocesses, option.dist = None, "no"
    return (yield)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    """--plan: print the plan instead of running the tests (no fixture is set up)."""
    if not run_of(session.config).plan:
        return None
    target = session.config.stash[TARGET]
    tests = [PlannedTest(
        module=item.nodeid.split("::")[0], operations=tuple(item_operations(item)),
        fixtures=frozenset(getattr(item, "fixturenames", ())),
        read_only=item.get_closest_marker("read_only") is not None,
        requirements=tuple(requirement_ids(item))) for item in session.items]
    text = render(tests, target.base_url, target.read_only)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line("")
        for line in text.splitlines():
            reporter.write_line(line)
    return True
