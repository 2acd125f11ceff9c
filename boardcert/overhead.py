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
- Allure's results: allure-pytest writes a file per test and a container file per fixture of
  each test (some 1800 files a run), each created while the test waits. `AllureWriter`
  serializes them as allure-pytest does, merges the containers of the same tests (a test's
  own fixtures: one container with all their set-ups and tear-downs, which Allure shows
  alike) and creates the files on a thread of their own, off the tests' path; all are on
  disk before the session's end reads them (boardcert.allure_results).
"""

from __future__ import annotations

import functools
import gc
import json
import os
import queue
import sys
import threading
import uuid
import warnings
from pathlib import Path
from typing import Any

import pytest

from boardcert.paths import without_machine_paths

# Frozen as this module is imported, before the plugin modules that import Hypothesis and
# schemathesis: both call gc.collect() (and gc.get_referrers) as they are imported
# (hypothesis.register_random), a walk of all that lives, which then skips what pytest and
# boardcert built before them (a seventh of a second of each run). gc.get_referrers does not
# see frozen referrers, so Hypothesis would warn that trio's Random (which trio's module
# holds, frozen) has none: that warning is ours, not trio's, and is not shown.
gc.freeze()
warnings.filterwarnings("ignore", message="It looks like `register_random` was passed",
                        module=r"trio\.")


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


class AllureWriter:
    """Writes allure-pytest's result and container files on a thread: the same file names
    and JSON as allure_commons.logger.AllureFileLogger, which hands each item to `write`."""

    def __init__(self, directory: Path, root: Path | None = None) -> None:
        self.directory = directory
        self.root = root  # the directories of this machine are replaced as files are saved
        self.written: set[str] = set()  # names of the files saved (with those replaced)
        self._queue: queue.SimpleQueue[tuple[str, str] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = threading.Thread(
            target=self._run, name="boardcert-allure-writer", daemon=True)
        self._thread.start()
        self.errors: list[str] = []
        self._containers: dict[tuple[str, ...], list[Any]] = {}  # by their tests, not written

    def write(self, item: Any) -> None:
        """What AllureFileLogger._report_item does, the file created on the writer's thread;
        containers wait for the result of their test (its fixtures' containers come first)."""
        from allure_commons.model2 import TestResult, TestResultContainer

        if isinstance(item, TestResultContainer) and self._thread is not None:
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
        if self._thread is None:  # after close(): at once
            self._save(name, text)
        else:
            self._queue.put((name, text))

    def close(self) -> None:
        """Wait until every file is written; from then on `write` writes at once."""
        for children in list(self._containers):  # fixtures shared by several tests
            self._merged(children)
        thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(None)
            thread.join()

    def _run(self) -> None:
        while (job := self._queue.get()) is not None:
            try:
                self._save(*job)
            except OSError as exc:  # said at the end, as allure-pytest would have raised it
                self.errors.append(f"{job[0]}: {exc}")

    def _save(self, name: str, text: str) -> None:
        if self.root is not None:
            text = without_machine_paths(text, self.root)
            self.written.add(name)
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
