"""The speed plugin's forked workers (boardcert.speed.forked, issue 33): under `boardcert run`
each pytest-xdist worker is a fork of one process that imported the libraries already; the
run is the same (its tests, their outcomes, no warning), and where forking cannot be (the
zygote not answering, pytest loading plugins by itself) a worker starts the plain way and
the run facts say why."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from boardcert.paths import SUITES
from boardcert.speed import early, forked

pytestmark = pytest.mark.xdist_group("test_forked")  # its runs start workers of their own

# Loaded into the runs below with -p: each worker writes where it came from, and whether the
# modules the suites' collection imports were there already.
PARENTS = """
import os
import sys

AHEAD = NAMES

def pytest_configure(config):
    if hasattr(config, "workerinput"):
        with open(os.path.join(os.environ["PARENTS_DIR"], config.workerinput["workerid"]),
                  "w") as file:
            file.write(open(f"/proc/{os.getppid()}/cmdline").read().replace("\\0", " "))
            file.write(" ahead" if all(name in sys.modules for name in AHEAD) else "")
""".replace("NAMES", repr(forked.COLLECTION_IMPORTS))


def _run(tmp_path: Path, fork: str, *extra: str) -> tuple[subprocess.CompletedProcess[str],
                                                          dict, dict[str, str]]:
    """suites/test_users.py and test_rows.py under `boardcert run --workers 2` against the
    bundled server: the command, its compliance.json, each worker's parent's command line."""
    (tmp_path / "parents_plugin.py").write_text(PARENTS)
    parents = tmp_path / f"parents-{fork}"
    parents.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "BOARDCERT_"))}
    env |= {"PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")])),
            "PARENTS_DIR": str(parents), "BOARDCERT_FORK_WORKERS": fork}
    output = tmp_path / f"report-{fork}"
    done = subprocess.run(
        [sys.executable, "-m", "boardcert.cli", "run", "--budget", "quick", "--workers", "2",
         "--output", str(output), *extra, "--", "-p", "parents_plugin",
         str(SUITES / "test_users.py"), str(SUITES / "test_rows.py")],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    report = json.loads((output / "compliance.json").read_text())
    return done, report, {p.name: p.read_text() for p in parents.iterdir()}


def test_workers_are_forks_of_the_zygote_and_the_run_is_the_same(tmp_path):
    """With forking (the default) both workers' parent is the zygote; with
    BOARDCERT_FORK_WORKERS=0 it is not; the same tests, outcomes and verdict either way, no
    warning, and the run facts name forking off only where it was."""
    runs = {fork: _run(tmp_path, fork) for fork in ("1", "0")}
    for fork, (done, report, parents) in runs.items():
        said = done.stdout + done.stderr
        assert done.returncode == 1 and " passed in " in said, said  # incomplete: two modules
        assert "warning" not in said.lower(), said
        assert sorted(parents) == ["gw0", "gw1"], parents
        from_zygote = [" zygote " in line for line in parents.values()]
        assert from_zygote == [fork == "1"] * 2, parents
        ahead = [line.endswith(" ahead") for line in parents.values()]
        assert ahead == [fork == "1"] * 2, parents  # the zygote imported them for its workers
        off = [o["patch"] for o in report["run"]["speed"]["off"]]
        assert ("forked workers" in off) == (fork == "0"), off
    outcomes = [{t["nodeid"]: t["outcome"] for t in report["tests"]}
                for _, report, _ in runs.values()]
    assert outcomes[0] == outcomes[1] and len(outcomes[0]) > 10
    assert runs["1"][1]["verdict"] == runs["0"][1]["verdict"]


def test_a_launcher_without_its_zygote_is_the_plain_interpreter(tmp_path):
    """The zygote gone (or never there): the worker's launcher runs its -c code itself."""
    done = subprocess.run(
        [sys.executable, "-I", "-S", forked.__file__, "launch", str(tmp_path / "none"), "-u",
         "-c", "import sys; print('plain', sys.flags.isolated)"],
        capture_output=True, text=True, timeout=30)
    assert done.stdout.split() == ["plain", "0"], done.stderr  # not isolated: as xdist starts it


def _config(*args: str, tx: list[str] | None = None) -> SimpleNamespace:
    return SimpleNamespace(option=SimpleNamespace(tx=tx if tx is not None else ["popen"] * 2),
                           invocation_params=SimpleNamespace(args=args))


def test_forking_is_off_where_it_cannot_fit(monkeypatch):
    """Workers given with --tx, and pytest loading plugins by itself (it rewrites every
    module of their distributions, which a zygote may have imported): not forked, and why."""
    monkeypatch.delenv("BOARDCERT_FORK_WORKERS", raising=False)
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    assert "--tx" in forked.start(_config("--disable-plugin-autoload", tx=["ssh=host"]))
    assert "by itself" in forked.start(_config("-p", "xdist"))


def test_the_zygote_imports_no_plugin_and_nothing_of_boardcert():
    """What a zygote may import: libraries, never a module pytest rewrites (a plugin named
    with -p or by an entry point, or inside one) nor boardcert's own."""
    import xdist.plugin  # noqa: F401  (imported by this process's pytest already)

    found = forked.libraries({"xdist", "allure_pytest", "boardcert"})
    assert "hypothesis" in found and "httpx" in found and "json" in found
    assert not [n for n in found if n.split(".")[0] in ("xdist", "allure_pytest", "boardcert")]


def test_a_launcher_waits_for_a_zygote_that_lives_but_has_not_bound_yet(tmp_path):
    """On a busy machine the workers' launchers can start before the zygote (started just
    before them) binds its socket: while its pid lives, a launcher waits and is forked, not
    the plain interpreter (seen: one of two workers started plainly under the test command)."""
    import socket
    import threading

    path = str(tmp_path / "zygote")
    Path(path + forked.PID).write_text(str(os.getpid()))  # a zygote that lives
    served: list[bytes] = []

    def zygote_late() -> None:
        time.sleep(0.5)
        with socket.socket(socket.AF_UNIX) as listener:
            listener.bind(path)
            listener.listen(1)
            listener.settimeout(10)  # no launcher came (it started plainly): the test fails
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                return
            with connection:
                message, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
                served.append(message)
                for fd in fds:
                    os.close(fd)
                connection.sendall(forked.STARTED + b"1\n" + forked.EXIT + b"0\n")

    thread = threading.Thread(target=zygote_late, daemon=True)
    thread.start()
    done = subprocess.run(
        [sys.executable, "-I", "-S", forked.__file__, "launch", path, "-u",
         "-c", "print('plain')"], capture_output=True, text=True, timeout=30)
    thread.join(5)
    assert done.returncode == 0 and "plain" not in done.stdout, done.stdout + done.stderr
    assert served and b"print('plain')" in served[0]


def test_the_collection_imports_are_there_and_a_missing_one_is_named():
    """What the zygote imports for the workers' collection exists here (it is schemathesis's
    to move: a module gone is named, and the run facts say so), and none is a plugin's."""
    assert forked.missing_imports() == []
    assert forked.missing_imports(["schemathesis.no_such_module", "json"]) == [
        "schemathesis.no_such_module"]
    assert not [n for n in forked.COLLECTION_IMPORTS if n.startswith("schemathesis.pytest")]


def _forked_prints(zygote: forked.Zygote, code: str) -> str:
    """What `code` prints in a fork of `zygote` (through its launcher, as a worker starts)."""
    done = subprocess.run([*shlex.split(zygote.python), "-u", "-c", code], capture_output=True,
                          text=True, timeout=60)
    return done.stdout.strip()


def test_a_zygote_started_early_is_taken_with_the_rest_or_stopped(monkeypatch):
    """Where `boardcert run` chose workers, the zygote starts as the speed plugin loads
    (speed.early), before pytest configures: the controller's configuration (forked.start)
    takes it where it was started for the run's plugins, and sends it the rest of what the
    controller imported (a fork has it); started for other plugins it is stopped and another
    serves the workers. No workers asked for: none started."""
    monkeypatch.delenv("BOARDCERT_FORK_WORKERS", raising=False)
    args = ("--disable-plugin-autoload", "-p", "xdist", "-n", "2")
    cleanups: list = []

    def config(*given: str) -> SimpleNamespace:
        made = _config(*given)
        made.add_cleanup = cleanups.append
        return made

    try:
        early.start(args[:-2])
        early.start((*args, "-n", "1"))
        assert early.EARLY == []  # no workers

        early.start(args)
        [started] = early.EARLY
        import wave  # noqa: F401  (imported after early.start: only the rest brings it)

        taken = config(*args)
        assert forked.start(taken) is None and early.EARLY == []
        assert taken.option.tx == [f"popen//python={started.python}"] * 2
        assert _forked_prints(started, "import sys; print('wave' in sys.modules)") == "True"

        early.start(args)
        [other_plugins] = early.EARLY
        refused = config(*args, "-p", "allure_pytest")
        assert forked.start(refused) is None and early.EARLY == []
        assert other_plugins.process.poll() is not None  # stopped
        assert refused.option.tx[0] != f"popen//python={other_plugins.python}"
    finally:
        early.stop()
        for cleanup in cleanups:
            cleanup()


def test_workers_are_read_from_pytest_s_arguments():
    """What the early start takes for a run with workers: the last -n, in any of its forms."""
    assert early.with_workers(["-n", "8"]) and early.with_workers(["-n8"])
    assert early.with_workers(["--numprocesses=auto"]) and early.with_workers(
        ["--numprocesses", "logical"])
    assert not early.with_workers(["-n", "8", "-n", "1"]) and not early.with_workers(["-n0"])
    assert not early.with_workers(["-p", "xdist", "--no-header"])
