"""Allure's result files written by a process of its own (a part of the speed plugin; issue 16).

allure-pytest writes a file per test and a container file per fixture of each test (some 1800
files a run), each created while the test waits. `AllureWriter` serializes them as
allure-pytest does, merges the containers of the same tests (a test's own fixtures: one
container with all their set-ups and tear-downs, which Allure shows alike) and has a process of
its own create the files, off the tests' path (on a thread, the writer took the interpreter's
lock each time a test waited on the server); all are on disk before the session's end reads
them (boardcert.pytest.allure). It stands in for AllureFileLogger._report_item: checked
first (boardcert.speed.patches.allure_writer), else allure-pytest writes them itself.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

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
        from boardcert.paths import machine_paths

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
    from boardcert.pytest.stash import ALLURE_WRITTEN
    from boardcert.speed import patched

    if not config.pluginmanager.has_plugin("allure_listener") \
            or not patched(config, "allure writer"):
        return
    from allure_commons import plugin_manager
    from allure_commons.logger import AllureFileLogger

    for logger in plugin_manager.get_plugins():
        if isinstance(logger, AllureFileLogger):
            writer = config.stash[WRITER] = AllureWriter(logger._report_dir, config.rootpath)
            logger._report_item = writer.write  # type: ignore[method-assign]
            config.stash[ALLURE_WRITTEN] = writer.written  # boardcert.pytest.allure skips them
            config.add_cleanup(writer.close)


@pytest.hookimpl(tryfirst=True)  # before boardcert.pytest.allure reads the files
def pytest_sessionfinish(session: pytest.Session) -> None:
    writer = session.config.stash.get(WRITER, None)
    if writer is not None:
        writer.close()
        if writer.errors:
            print(f"boardcert: {len(writer.errors)} allure results could not be written "
                  f"({writer.errors[0]})", file=sys.stderr)
