"""pytest-xdist's workers started as forks of one process that imported the libraries already
(a part of the speed plugin).

A worker started afresh imports pytest, Hypothesis, schemathesis, httpx and some 800 other
modules before it collects: 0.8 s of CPU each, more than half of what it costs to start. With
eight workers on two cores that is six seconds of CPU before the first tests, and far away
from the server it is what the run waits for. Here one process is started, the zygote (this
file run as a script: it imports nothing of boardcert; started as this plugin loads where
`boardcert run` chose workers, `early`, else by the controller as it configures), imports the
libraries the controller has imported (those of the standard library and site-packages that
no pytest plugin of the run names, as pytest rewrites the asserts of those as it imports
them); each worker is a fork of it.

How: pytest-xdist's own `--tx popen//python=...` (its public way to choose the interpreter
of a worker) names this file as the interpreter, in `launch` mode. The launcher hands its
standard streams and environment to the zygote over a Unix socket; the zygote forks twice (a
fork copies one thread only: the zygote has none other, and checks it after each import), and
the worker, in the launcher's directory with its environment and streams, runs the bootstrap
line the launcher was given, as `python -c` would. The launcher waits and exits with the
worker's exit code. A launcher that cannot reach the zygote becomes the plain interpreter
instead (exec), so a worker always starts: only sooner or later, never otherwise; but while
the zygote lives and has not bound its socket yet (it starts just before the workers, and a
busy machine can start a launcher first), the launcher waits for it, up to COMING_UP.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import select
import shlex
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Iterable
from typing import Any

STARTED = b"started "  # the zygote's first answer to a launcher: the worker's pid
EXIT = b"exit "  # its last: the worker's exit code
PID = ".pid"  # beside the socket: the zygote's pid, written as it starts
COMING_UP = 10.0  # seconds a launcher waits for a zygote that lives but has not bound yet
# What a worker imports as it collects the suites and the controller never does: the property
# tests' schema (schemathesis.openapi.from_path imports the first, and some 180 modules with
# it; the transports come with the first case), 0.12 s of CPU a worker. The zygote imports
# them too; where one is gone (schemathesis changed), each worker imports what it needs, as
# before, and the run facts say so.
COLLECTION_IMPORTS = ("schemathesis.specs.openapi.schemas", "schemathesis.transport.asgi",
                      "schemathesis.transport.wsgi")


# --- the controller's side --------------------------------------------------------------------

def why_not(config: Any) -> str | None:
    """Why the workers of this run cannot be forked (None: they can)."""
    if why := why_not_here():
        return why
    specs = list(getattr(config.option, "tx", None) or [])
    if not specs or any(spec != "popen" for spec in specs):
        return "the workers are given with --tx"
    return None


def why_not_here() -> str | None:
    """Why no worker can be forked here, whatever the run (None: they can)."""
    if os.environ.get("BOARDCERT_FORK_WORKERS") == "0":
        return "BOARDCERT_FORK_WORKERS=0"
    if not hasattr(os, "fork") or not hasattr(socket, "send_fds"):
        return "no fork or no passing of file descriptors here"
    return None


class Zygote:
    """A run's zygote (started by the controller, or early: speed.early), and the
    interpreter spec its workers get."""

    def __init__(self, preload: list[str], plugins: list[str], more: bool = False) -> None:
        """`more`: the zygote waits for the rest of its modules (`rest`) before any fork."""
        self.plugins = plugins
        self.directory = tempfile.mkdtemp(prefix="boardcert-workers-")
        self.socket = os.path.join(self.directory, "zygote")
        names = os.path.join(self.directory, "preload.json")
        with open(names, "w", encoding="utf-8") as file:
            json.dump({"preload": preload, "plugins": plugins, "more": more}, file)
        self.log = os.path.join(self.directory, "zygote.log")
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "zygote", self.socket, names],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=log, cwd=os.getcwd())
        with open(self.socket + PID, "w", encoding="utf-8") as file:  # before any worker
            file.write(str(self.process.pid))
        launcher = [sys.executable, "-I", "-S", os.path.abspath(__file__), "launch",
                    self.socket]
        self.python = " ".join(shlex.quote(part) for part in launcher)

    def rest(self, names: list[str]) -> bool:
        """The rest of the modules (those of `names` it has not imported) sent to a zygote
        started with `more`; False where it is gone."""
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(json.dumps(names).encode() + b"\n")
            self.process.stdin.flush()
        except (OSError, ValueError):
            return False
        return self.process.poll() is None

    def specs(self, count: int) -> list[str]:
        """pytest-xdist's --tx values for `count` workers forked from this zygote."""
        return [f"popen//python={self.python}"] * count

    def stop(self) -> None:
        """The zygote leaves when its stdin closes (the workers it forked go on until their
        controller lets them go)."""
        with contextlib.suppress(OSError):
            assert self.process.stdin is not None
            self.process.stdin.close()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for name in ("preload.json", "zygote.log", "zygote", "zygote" + PID):
            with contextlib.suppress(OSError):
                os.remove(os.path.join(self.directory, name))
        with contextlib.suppress(OSError):
            os.rmdir(self.directory)


def start(config: Any) -> str | None:
    """On the controller of a run with workers: the zygote started and pytest-xdist's workers
    pointed at it (stopped as the run ends); None, or why not."""
    why = why_not(config)
    if why is not None:
        return why
    args = list(config.invocation_params.args)
    if not autoload_off(args):
        return ("pytest loads the plugins of the environment by itself (boardcert run does "
                "not), and rewrites every module of their distributions")
    plugins = plugins_of(args)
    names = libraries(plugins) + [n for n in COLLECTION_IMPORTS if not within(n, plugins)]
    from boardcert.speed import early

    zygote = early.adopted(sorted(plugins), names)
    if zygote is None:
        try:
            zygote = Zygote(names, sorted(plugins))
        except OSError as exc:
            return f"the zygote could not start: {exc}"
    config.add_cleanup(zygote.stop)
    config.option.tx = zygote.specs(len(config.option.tx))
    return None


def autoload_off(args: list[str]) -> bool:
    """Whether pytest loads only the plugins named (as under `boardcert run`)."""
    return "--disable-plugin-autoload" in args or bool(
        os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"))


def plugins_of(args: list[str]) -> set[str]:
    """The plugins of a run with pytest arguments `args`: those named with -p, those of the
    environment's entry points, and boardcert."""
    from importlib.metadata import entry_points

    plugins = {args[n + 1] for n, arg in enumerate(args[:-1]) if arg == "-p"}
    plugins |= {arg[2:] for arg in args if arg.startswith("-p") and len(arg) > 2}
    plugins |= {ep.value.split(":")[0] for ep in entry_points(group="pytest11")}
    plugins.add("boardcert")
    return plugins


def missing_imports(names: Iterable[str] | None = None) -> list[str]:
    """Those of `names` (COLLECTION_IMPORTS, as it is now) that this environment does not
    have (none imported: only found)."""
    import importlib.util

    missing = []
    for name in COLLECTION_IMPORTS if names is None else names:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(name)
    return missing


def libraries(plugins: set[str]) -> list[str]:
    """The modules imported in this process, in the order they were, that live in the
    standard library or site-packages and are none of `plugins` (and no module inside one):
    what a zygote may import ahead. pytest rewrites the asserts of a plugin's module (one
    named with -p, an entry point's) as it imports it, and warns of one imported before."""
    places = tuple({sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib",
                                                           "platlib")})
    return [name for name, module in list(sys.modules.items())
            if name != "__main__" and isinstance(getattr(module, "__file__", None), str)
            and module.__file__.startswith(places) and not within(name, plugins)]


def within(name: str, packages: Iterable[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


# --- the launcher: pytest-xdist's "python" for a worker ---------------------------------------

def launch(path: str, args: list[str]) -> None:
    """Run as the interpreter xdist starts (`args`: -u -c BOOTSTRAP): the worker a fork of the
    zygote at `path`, or, where the zygote does not answer, this process the plain
    interpreter with `args`."""
    code = args[args.index("-c") + 1] if "-c" in args else None
    connection = socket.socket(socket.AF_UNIX)
    try:
        if code is None:
            raise OSError("no -c")
        _connect(connection, path)
        request = {"code": code, "flags": [a for a in args if a in ("-u", "-B")],
                   "env": dict(os.environ), "cwd": os.getcwd()}
        socket.send_fds(connection, [json.dumps(request).encode() + b"\n"], [0, 1, 2])
        answers = connection.makefile("rb")
        started = answers.readline()
        if not started.startswith(STARTED):
            raise OSError(f"the zygote said {started!r}")
    except (OSError, ValueError):
        connection.close()
        os.execv(sys.executable, [sys.executable, *args])
    worker = int(started[len(STARTED):])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the worker's group itself
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, lambda sig, _: os.kill(worker, sig))
    last = answers.readline()
    os._exit(int(last[len(EXIT):]) if last.startswith(EXIT) else 1)


def _connect(connection: socket.socket, path: str) -> None:
    """Connect to the zygote; while it lives but has not bound its socket yet (started just
    before the workers, it may still be starting on a busy machine), wait for it, up to
    COMING_UP seconds; OSError where there is none."""
    deadline = time.monotonic() + COMING_UP
    while True:
        try:
            connection.connect(path)
            return
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() > deadline or not _alive(path + PID):
                raise
            time.sleep(0.01)


def _alive(pid_file: str) -> bool:
    try:
        with open(pid_file, encoding="utf-8") as file:
            os.kill(int(file.read()), 0)
    except (OSError, ValueError):
        return False
    return True


# --- the zygote ---------------------------------------------------------------------------------

def zygote(path: str, names: str) -> tuple[dict[str, Any], list[int]]:
    """The zygote's loop: returns only in a worker (a grandchild), with its request and the
    launcher's standard streams."""
    sys.path[0] = os.getcwd()  # not this file's directory
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the run's Ctrl-C is the controller's
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path)
    listener.listen(64)
    with open(names, encoding="utf-8") as file:
        given = json.load(file)
    _preload(given["preload"], given["plugins"])
    if given["more"]:  # started early (speed.early): the rest once the controller configured
        rest = sys.stdin.buffer.readline()
        if not rest:
            os._exit(0)
        _preload(json.loads(rest), given["plugins"])
    while True:
        readable, _, _ = select.select([listener, sys.stdin], [], [], 1)
        _reap()
        if sys.stdin in readable:  # the controller closed our stdin, or is gone
            os._exit(0)
        if not readable:
            continue
        connection, _ = listener.accept()
        with contextlib.suppress(OSError, ValueError):
            message, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
            request = json.loads(message)
            if os.fork() == 0:
                listener.close()
                worker = os.fork()
                if worker == 0:
                    connection.close()
                    return request, fds
                for fd in fds:
                    os.close(fd)
                try:
                    connection.sendall(STARTED + str(worker).encode() + b"\n")
                    _, status = os.waitpid(worker, 0)
                    connection.sendall(EXIT + str(os.waitstatus_to_exitcode(status)).encode()
                                       + b"\n")
                finally:
                    os._exit(0)
            for fd in fds:
                os.close(fd)
        connection.close()


def _preload(preload: list[str], plugins: list[str]) -> None:
    """Each module imported (one that fails is the worker's to import, and say why); the
    zygote leaves, and its workers start the plain way, where an import started a thread (a
    fork would copy one only) or imported a plugin's module (its asserts not rewritten)."""
    for name in preload:
        if name in sys.modules:
            continue
        with contextlib.suppress(Exception):
            __import__(name)
        if threading.active_count() != 1:
            sys.exit(f"boardcert zygote: importing {name} started a thread")
        tainted = [m for m in sys.modules if within(m, plugins)]
        if tainted:
            sys.exit(f"boardcert zygote: importing {name} imported {tainted[0]}, a plugin's")


def _reap() -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def become(request: dict[str, Any], fds: list[int]) -> None:
    """This process as `python [-u] [-B] -c CODE` started by the launcher would be: its
    streams, environment, directory; then CODE (pytest-xdist's bootstrap line)."""
    for target, fd in zip((0, 1, 2), fds, strict=True):
        os.dup2(fd, target)
        os.close(fd)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    sys.argv = ["-c"]
    sys.path[0] = ""
    sys.dont_write_bytecode = "-B" in request["flags"] or bool(
        os.environ.get("PYTHONDONTWRITEBYTECODE"))
    sys.pycache_prefix = os.environ.get("PYTHONPYCACHEPREFIX")
    unbuffered = "-u" in request["flags"]
    sys.stdin = sys.__stdin__ = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stdout = sys.__stdout__ = _text(1, unbuffered)
    sys.stderr = sys.__stderr__ = _text(2, True)
    exec(compile(request["code"], "<string>", "exec"), {"__name__": "__main__"})


def _text(fd: int, unbuffered: bool) -> io.TextIOWrapper:
    raw = io.FileIO(fd, "w", closefd=False)
    return io.TextIOWrapper(raw if unbuffered else io.BufferedWriter(raw), encoding="utf-8",
                            write_through=unbuffered, line_buffering=not unbuffered)


if __name__ == "__main__":
    if sys.argv[1] == "launch":
        launch(sys.argv[2], sys.argv[3:])
    else:
        become(*zygote(sys.argv[2], sys.argv[3]))
