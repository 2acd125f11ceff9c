"""Certifications started as forks of one process that has imported the libraries already.

Each certification is a `python -m pytest` of the suites (harness.suite_command). Started
afresh, every one of them imports pytest, Hypothesis, schemathesis, httpx and some 800 other
modules: for a fault of the catalogue, whose run selects only its requirement's tests, a good
part of its CPU time. Here one process, the "zygote" (this file run as a script), imports
them once; each run is a fork of it, which takes the run's environment, working directory
and sys.path as `python -m pytest` would have them and runs pytest's __main__ as `-m` does.
What a run does (its arguments, plugins, tests, requests, reports) is the same;
`BOARDCERT_FORKS=0` starts every run as a process of its own instead (harness.run_suites).

What the zygote imports it learns from the runs: each run's process says which modules it
imported, and the zygote imports those before the next fork. Only libraries (modules of the
standard library and site-packages) and boardcert's own modules, never a module that a run
names as a pytest plugin or its package's (xdist, allure_pytest, schemathesis.pytest.plugin,
and those a module's `pytest_plugins` names: a run whose own plugin imported one of them
before pytest loaded it saw it plain), nor one that pytest rewrote (boardcert.pytest.plugin
and the other plugins it names, boardcert.speed's modules; tests/ and the suites are not
importable by the zygote anyway): pytest rewrites the asserts of those as it imports them
and warns about one imported before it could. boardcert's other modules (its HTTP client,
the board model, the checks, the reports: 0.18 s of CPU a run) are plain imports, the same
in the zygote as in the run; none reads the environment or starts a thread as it is imported
(the zygote checks the threads). Should a run still find rewritten a module the zygote was
taught, the zygote is started anew for the next run.

A fork copies one thread only: the zygote has no other (it checks, after each import), and
forks twice per run, so that the run's process exits as any process does (atexit handlers,
buffers flushed) while its parent, a copy that does nothing else, waits for it and reports
its exit code over the run's connection. Every process is waited for by its parent, so that
the runs' CPU time counts in the test process's (/usr/bin/time), as it did before.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import importlib.metadata
import json
import os
import runpy
import select
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import threading
from pathlib import Path
from typing import Any

# Imported by the zygote as it starts (what every run imports first); the rest it learns.
PRELOAD = ("pytest", "hypothesis", "schemathesis", "httpx", "jsonschema", "yaml", "jinja2")
# Given to a run's process only: the zygote starts with the rest of the first run's
# environment (what the interpreter reads as it starts is the same for every run).
ZYGOTE_LEAVES_OUT = ("BOARDCERT_API_KEY", "PYTHONPATH")


class Launcher:
    """The test process's side: starts the zygote, asks it for runs (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._zygote: subprocess.Popen[bytes] | None = None
        self._socket = ""
        self._learned: set[str] = set()  # modules the runs imported
        self._taught: set[str] = set()  # those the zygote has been asked to import
        self._rewritten: set[str] = set()  # modules whose asserts the runs' pytest rewrote

    def run(self, argv: list[str], env: dict[str, str], cwd: Path, output: Path,
            timeout: float) -> subprocess.CompletedProcess[str]:
        """`python -m pytest *argv` with `env` in `cwd`, its stdout and stderr into `output`;
        like subprocess.run (TimeoutExpired after `timeout` seconds, the run killed)."""
        with socket.socket(socket.AF_UNIX) as connection:
            with self._lock:
                connection.connect(self._started(env, cwd))
                preload = sorted(self._learned - self._taught)
                self._taught |= self._learned
                rewritten = sorted(self._rewritten)
            request = {"argv": argv, "env": env, "cwd": str(cwd), "output": str(output),
                       "preload": preload, "rewritten": rewritten}
            connection.sendall(json.dumps(request).encode() + b"\n")
            connection.settimeout(timeout)
            lines = connection.makefile("rb")
            started = lines.readline()
            if not started.startswith(b"started "):
                raise RuntimeError(f"the zygote did not start the run: {started!r}")
            answers = []
            try:
                while not answers or answers[-1].startswith(b"modules "):
                    answers.append(lines.readline())
            except TimeoutError:
                os.killpg(int(started.split()[1]), signal.SIGKILL)
                raise subprocess.TimeoutExpired(argv, timeout) from None
        code = -1
        for answer in answers:
            word, _, value = answer.partition(b" ")
            if word == b"modules":
                found = json.loads(value)
                with self._lock:
                    self._rewritten.update(found["rewritten"])
                    self._learned.update(found["plain"])
                    self._learned -= self._rewritten
                    if self._taught & self._rewritten:  # imported ahead by mistake: anew
                        self._stop()
            elif word == b"exit":
                code = int(value)
        text = output.read_text(encoding="utf-8", errors="replace")
        return subprocess.CompletedProcess(argv, code, text, "")

    def _started(self, env: dict[str, str], cwd: Path) -> str:
        """The zygote's socket (under the lock); the zygote started first if need be, in the
        run's directory (Hypothesis takes its default directory from where it is imported)."""
        if self._zygote is None or self._zygote.poll() is not None:
            self._socket = os.path.join(tempfile.mkdtemp(prefix="boardcert-zygote-"), "socket")
            self._zygote = subprocess.Popen(
                [sys.executable, __file__, self._socket], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, cwd=cwd,
                env={k: v for k, v in env.items() if k not in ZYGOTE_LEAVES_OUT})
            assert self._zygote.stdout is not None
            ready = self._zygote.stdout.readline()
            if ready != b"ready\n":
                raise RuntimeError(f"the zygote did not start: {ready!r}")
            self._taught = set()
        return self._socket

    def close(self) -> None:
        """The zygote leaves when its stdin closes, once the runs under way have ended."""
        with self._lock:
            self._stop()

    def _stop(self) -> None:
        if self._zygote is not None:
            assert self._zygote.stdin is not None
            self._zygote.stdin.close()
            try:
                self._zygote.wait(60)
            except subprocess.TimeoutExpired:
                self._zygote.kill()
                self._zygote.wait()
            self._zygote = None
            with contextlib.suppress(OSError):  # its socket's directory, left in /tmp before
                os.remove(self._socket)
                os.rmdir(os.path.dirname(self._socket))


def _serve(path: str) -> tuple[dict[str, Any], socket.socket]:
    """The zygote's loop: returns only in a run's process (the grandchild), with its request
    and its connection."""
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path)
    listener.listen(64)
    _preload(PRELOAD)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        readable, _, _ = select.select([listener, sys.stdin], [], [], 1)
        _reap(block=sys.stdin in readable)
        if sys.stdin in readable:  # the test process closed our stdin, or died
            os._exit(0)
        if not readable:
            continue
        connection, _ = listener.accept()
        request = json.loads(connection.makefile("rb").readline())
        _preload(request["preload"], frozenset(request["rewritten"]))
        if os.fork() == 0:
            listener.close()
            run = os.fork()
            if run == 0:
                return request, connection
            try:
                connection.sendall(f"started {run}\n".encode())
                _, status = os.waitpid(run, 0)
                connection.sendall(f"exit {os.waitstatus_to_exitcode(status)}\n".encode())
            finally:
                os._exit(0)
        connection.close()


def _preload(names: list[str] | tuple[str, ...], rewritten: frozenset[str] = frozenset()) -> None:
    """Imports each of `names`, unless it imports (itself or through others) a module that
    pytest rewrites in a run (boardcert.properties.cases imports its package, a plugin that
    boardcert.pytest.plugin names): then what it brought is taken out of sys.modules again,
    for the run to import."""
    for name in names:
        before = set(sys.modules)
        with contextlib.suppress(Exception):  # a run that needs it will say what failed
            __import__(name)
        brought = set(sys.modules) - before
        if brought & rewritten:
            for taken in brought:
                del sys.modules[taken]
        if threading.active_count() != 1:
            sys.exit(f"zygote: importing {name} started a thread; a fork would copy one only")


def _reap(block: bool) -> None:
    """Waits for the runs that ended (all of them, when `block`)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _become(request: dict[str, Any], connection: socket.socket) -> None:
    """This process as `python -m pytest` started with the request's environment and
    arguments in its working directory would be; pytest's __main__ (which raises SystemExit
    with pytest's exit code); then the
    modules it imported that the zygote may import too, over the connection."""
    os.setsid()  # a process group of its own: a timeout kills it with its workers
    env = request["env"]
    os.environ.clear()
    os.environ.update(env)
    sys.pycache_prefix = env.get("PYTHONPYCACHEPREFIX")
    sys.dont_write_bytecode = bool(env.get("PYTHONDONTWRITEBYTECODE"))
    os.chdir(request["cwd"])
    extra = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:] = [request["cwd"], *extra, *sys.path[1:]]
    output = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.close(output)
    os.close(null)
    sys.argv = ["-m", *request["argv"]]  # runpy puts pytest/__main__.py's path first
    before = set(sys.modules)
    try:
        runpy.run_module("pytest", run_name="__main__", alter_sys=True)
    finally:
        imported = set(sys.modules) - before
        plugins = _plugins(request["argv"])
        learned = {"plain": _libraries(imported, plugins),
                   "rewritten": sorted(n for n in sys.modules if _rewritten(sys.modules[n])
                                       or _within(n, plugins))}
        connection.sendall(f"modules {json.dumps(learned)}\n".encode())
        connection.close()


def _plugins(argv: list[str]) -> set[str]:
    """The plugins whose modules (and their packages' modules) pytest rewrites: those named
    with -p in `argv`, those an entry point names, those the run's modules name in their
    `pytest_plugins` (boardcert.pytest.plugin's: imported ahead of it, one is not rewritten,
    and pytest warns)."""
    plugins = {argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "-p"}
    plugins |= {ep.value.split(":")[0]
                for ep in importlib.metadata.entry_points(group="pytest11")}
    for module in list(sys.modules.values()):
        named = getattr(module, "pytest_plugins", ())
        named = [named] if isinstance(named, str) else named
        if isinstance(named, list | tuple):
            plugins |= {n for n in named if isinstance(n, str)}
    return {p for p in plugins if not p.startswith("no:")}


def _within(name: str, plugins: set[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in plugins)


def _libraries(names: set[str], plugins: set[str]) -> list[str]:
    """The modules of `names` that live in the standard library or site-packages (or
    boardcert's package) and are not (in) one of `plugins`."""
    places = {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib",
                                                     "platlib")}
    own = getattr(sys.modules.get("boardcert"), "__file__", None)
    if own:  # boardcert's package, where an editable install leaves it (not site-packages)
        places.add(os.path.dirname(own) + os.sep)
    found = []
    for name in sorted(names):
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if path and path.startswith(tuple(places)) and _plain(module) \
                and not _within(name, plugins):
            found.append(name)
    return found


def _plain(module: Any) -> bool:
    """Imported by Python's own loaders, not by pytest's (which rewrote its asserts)."""
    return isinstance(_loader(module), (importlib.machinery.SourceFileLoader,
                                        importlib.machinery.SourcelessFileLoader,
                                        importlib.machinery.ExtensionFileLoader))


def _rewritten(module: Any) -> bool:
    """Imported by pytest's assertion-rewriting import hook."""
    return type(_loader(module)).__name__ == "AssertionRewritingHook"


def _loader(module: Any) -> Any:
    return getattr(getattr(module, "__spec__", None), "loader", None)


def main(path: str) -> None:
    sys.path[0] = os.getcwd()  # as -m has it, not this file's directory
    _become(*_serve(path))


if __name__ == "__main__":
    main(sys.argv[1])
