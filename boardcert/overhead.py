"""What a run spends that certifies nothing, kept small (pytest plugin module; issue 16).

- Python's cyclic garbage collector: a run builds a large heap once (pytest, schemathesis,
  Hypothesis, the collected items) and then allocates little that lives, yet every full
  collection walks the whole heap: on the bundled server they took more than a tenth of a
  run's CPU time. `boardcert run` turns the collector off while it imports and collects; once
  collection is done the heap built so far is frozen (`gc.freeze`: the collector no longer
  walks it) and the collector runs again, on what the tests allocate. (Frozen once before
  too, when this first of the plugin modules is imported: see below.) (pytest's
  unraisableexception plugin, whose two full collections end a session, is not loaded by
  `boardcert run`: boardcert.cli.session.) During the tests, full collections come ten
  times less often than Python's default (FULL_AFTER).
- pytest's `request` fixture: each time a fixture or test asks for it (some ten times a
  test), pytest makes a new definition of it around the same argument-less lambda and reads
  that lambda's signature again (`getfuncargnames`): 6,000 signatures of a quick run, 2% of
  its instructions. Its argument names are none, every time (`_request_argnames`).
- Hypothesis's descriptions of lambdas: the text of a strategy (`repr`, which Hypothesis
  computes for its notes and statistics whether shown or not) names its lambdas by their
  source, which Hypothesis finds by parsing the whole module they are in (schemathesis's
  largest among them): 1.6% of a quick run's instructions. They read `lambda: <unknown>`
  (what Hypothesis itself writes when it cannot find the source); what is generated is the
  same (`_lambda_descriptions`).
- Allure's results: allure-pytest writes a file per test and a container file per fixture of
  each test (some 1800 files a run), each created while the test waits. `AllureWriter`
  serializes them as allure-pytest does, merges the containers of the same tests (a test's
  own fixtures: one container with all their set-ups and tear-downs, which Allure shows
  alike) and has a process of its own create the files, off the tests' path (on a thread, the
  writer took the interpreter's lock each time a test waited on the server); all are on disk
  before the session's end reads them (boardcert.allure_results).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import os
import subprocess
import sys
import uuid
import warnings
from pathlib import Path
from typing import Any

import pytest

from boardcert.paths import machine_paths

# Frozen as this module is imported, before the plugin modules that import Hypothesis and
# schemathesis: both call gc.collect() (and gc.get_referrers) as they are imported
# (hypothesis.register_random), a walk of all that lives, which then skips what pytest and
# boardcert built before them (a seventh of a second of each run). gc.get_referrers does not
# see frozen referrers, so Hypothesis would warn that trio's Random (which trio's module
# holds, frozen) has none: that warning is ours, not trio's, and is not shown.
gc.freeze()
warnings.filterwarnings("ignore", message="It looks like `register_random` was passed",
                        module=r"trio\.")


def _request_argnames() -> None:
    """pytest's getfuncargnames answers () for RequestFixtureDef's own lambda without reading
    its signature (pytest 9.0 and 9.1; in another pytest, found no such lambda: unchanged)."""
    from _pytest import fixtures

    init = getattr(getattr(fixtures, "RequestFixtureDef", None), "__init__", None)
    lambdas = [c for c in getattr(getattr(init, "__code__", None), "co_consts", ())
               if getattr(c, "co_name", None) == "<lambda>" and c.co_argcount == 0]
    if len(lambdas) != 1 or not hasattr(fixtures, "getfuncargnames"):
        return
    code, original = lambdas[0], fixtures.getfuncargnames

    @functools.wraps(original)
    def getfuncargnames(function: Any, *args: Any, **kwargs: Any) -> tuple[str, ...]:
        if getattr(function, "__code__", None) is code:
            return ()
        return original(function, *args, **kwargs)

    fixtures.getfuncargnames = getfuncargnames


_request_argnames()


def _lambda_descriptions() -> None:
    """Hypothesis describes a lambda without parsing its module (reprs only: its filter
    rewriting reads lambdas through its own import of the function, unchanged)."""
    try:
        from hypothesis.internal import filtering, lambda_sources
    except ImportError:  # moved in another Hypothesis: unchanged
        return
    if getattr(filtering, "lambda_description", None) is lambda_sources.lambda_description:
        lambda_sources.lambda_description = _unknown_lambda  # filtering keeps its own


def _unknown_lambda(function: Any) -> str:
    return "lambda: <unknown>"


_lambda_descriptions()


# Python's default (10) made 3 full collections of a quick run and 5 of a standard one (the
# tests' heap, 40 ms each: 0.10 and 0.21 s); at 100 a standard run makes none (46 of the
# middle generation), for 1 to 5 MB more at its peak; a longer run still makes some.
FULL_AFTER = 100


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what start-up and collection built; the collector walks only what comes after,
    and walks all of it (a full collection) rarely: after 100 collections of the middle
    generation, not 10."""
    gc.freeze()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(young, middle, max(old, FULL_AFTER))
    gc.enable()  # boardcert run turned it off until now


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    """The pytest-xdist controller collects nothing: its collector runs again here."""
    gc.enable()


# --- Allure's result files ----------------------------------------------------------------

WRITER = pytest.StashKey["AllureWriter"]()


# The process that saves them: reads `<name> <length>\n<bytes>` items and saves each as
# AllureFileLogger does (a temporary name, then renamed); says what it could not save at the end.
_SAVER = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)  # pytest's process ends it (end of its input)
directory, source, errors = sys.argv[1], sys.stdin.buffer, []
while header := source.readline():
    name, size = header.decode().split()
    body = source.read(int(size))
    try:
        with open(os.path.join(directory, name + ".tmp"), "wb") as out:
            out.write(body)
        os.replace(os.path.join(directory, name + ".tmp"), os.path.join(directory, name))
    except OSError as exc:
        errors.append(f"{name}: {exc}")
print(*errors[:5], *([f"and {len(errors) - 5} more"] if len(errors) > 5 else []), sep="\\n",
      file=sys.stderr)
"""


class AllureWriter:
    """Writes allure-pytest's result and container files through a process of its own: the
    same file names and JSON as allure_commons.logger.AllureFileLogger, which hands each item
    to `write`. (A thread of this process competed with the tests for the interpreter's lock:
    each time a test waited on the server, the writer could take the lock, and the test waited
    for it again.)"""

    def __init__(self, directory: Path, root: Path | None = None) -> None:
        self.directory = directory
        self.root = root  # the directories of this machine are replaced as files are saved
        self._paths = machine_paths(root) if root is not None else []  # worked out once
        self.written: set[str] = set()  # names of the files saved (with those replaced)
        self.errors: list[str] = []
        self._containers: dict[tuple[str, ...], list[Any]] = {}  # by their tests, not written
        self._open = True
        self._saver: subprocess.Popen[bytes] | None = None
        with contextlib.suppress(OSError):  # else this process saves them
            self._saver = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _SAVER, str(directory)],
                stdin=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=1 << 16)

    def write(self, item: Any) -> None:
        """What AllureFileLogger._report_item does, the file saved by the writer's process;
        containers wait for the result of their test (its fixtures' containers come first)."""
        from allure_commons.model2 import TestResult, TestResultContainer

        if isinstance(item, TestResultContainer) and self._open:
            self._containers.setdefault(tuple(item.children), []).append(item)
            return
        if isinstance(item, TestResult):
            self._merged((item.uuid,))
        self._serialized(item)

    def _merged(self, children: tuple[str, ...]) -> None:
        """The containers of these tests as one: every fixture's set-up and tear-down."""
        found = self._containers.pop(children, [])
        if found:
            first = found[0]
            for other in found[1:]:
                first.befores += other.befores
                first.afters += other.afters
                first.start = min(filter(None, (first.start, other.start)), default=None)
                first.stop = max(filter(None, (first.stop, other.stop)), default=None)
            self._serialized(first)

    def _serialized(self, item: Any) -> None:
        indent = 4 if os.environ.get("ALLURE_INDENT_OUTPUT") else None
        name = item.file_pattern.format(prefix=uuid.uuid4())
        text = json.dumps(item, default=_attributes, indent=indent, ensure_ascii=False)
        if self.root is not None:
            for path, shown in self._paths:  # paths.without_machine_paths, the paths known
                text = text.replace(path, shown)
            self.written.add(name)
        if self._saver is not None and self._saver.stdin is not None and self._open:
            data = text.encode("utf8")
            try:
                self._saver.stdin.write(b"%s %d\n%s" % (name.encode(), len(data), data))
                return
            except OSError as exc:  # it ended: this process saves the rest
                self.errors.append(f"the writer's process ended early ({exc}): results before "
                                   f"{name} may be missing")
                self._saver = None
        self._save(name, text)

    def close(self) -> None:
        """Wait until every file is written; from then on `write` writes at once."""
        for children in list(self._containers):  # fixtures shared by several tests
            self._merged(children)
        self._open = False
        saver, self._saver = self._saver, None
        if saver is not None:
            try:
                said = saver.communicate()[1].decode(errors="replace")
            except OSError as exc:
                said = f"the writer's process ended early: {exc}"
            self.errors += [line for line in said.splitlines() if line.strip()]
            if saver.returncode and not said:
                self.errors.append(f"the writer's process ended with {saver.returncode}")

    def _save(self, name: str, text: str) -> None:
        temporary = self.directory / f"{name}.tmp"
        temporary.write_text(text, encoding="utf8")
        os.replace(temporary, self.directory / name)


def _attributes(value: Any) -> Any:
    """json.dumps's `default` for allure's model (attrs classes): the JSON AllureFileLogger
    makes with attr.asdict(filter=lambda _, v: v or v is False), twice as fast (the
    encoder walks the lists itself instead of asdict copying everything first)."""
    if isinstance(value, set | frozenset):
        return list(value)
    return {name: v for name in _names(type(value))
            if (v := getattr(value, name)) or v is False}


@functools.cache
def _names(cls: type) -> tuple[str, ...]:
    import attr

    return tuple(field.name for field in attr.fields(cls))


@pytest.hookimpl(trylast=True)  # after allure-pytest made its file logger
def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.has_plugin("allure_listener"):
        return
    from allure_commons import plugin_manager
    from allure_commons.logger import AllureFileLogger

    for logger in plugin_manager.get_plugins():
        if isinstance(logger, AllureFileLogger):
            writer = config.stash[WRITER] = AllureWriter(logger._report_dir, config.rootpath)
            logger._report_item = writer.write  # type: ignore[method-assign]
            config.add_cleanup(writer.close)


@pytest.hookimpl(tryfirst=True)  # before boardcert.allure_results reads the files
def pytest_sessionfinish(session: pytest.Session) -> None:
    writer = session.config.stash.get(WRITER, None)
    if writer is not None:
        writer.close()
        if writer.errors:
            print(f"boardcert: {len(writer.errors)} allure results could not be written "
                  f"({writer.errors[0]})", file=sys.stderr)
