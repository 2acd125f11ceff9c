"""tests/faults/launcher.py (issue 33): a certification forked from the zygote, which has
imported the libraries ahead, gets what a run started as a process of its own gets (the
verdict, every requirement's status, every test's outcome), with no assert left unrewritten
that pytest would rewrite; a run past its time is killed with its process group."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from faults import CONFORMANT, FAULTS, certify, harness
from faults import launcher as launcher_module
from faults.harness import outcomes
from faults.launcher import Launcher

# Faults of property tests (failing, shrunk), of keyless batches (85 tests) and of boards
# built ahead; the later ones forked after the zygote learned the first runs' imports.
SERVERS = ["card-id-integer", "auth-open-op4", "column-rename-not-saved"]
# Taught first: a run with a plugin of boardcert's own tests, which imports boardcert's
# (boardcert.pytest.target) before pytest's loading of boardcert's plugins would rewrite them.
TEACHER = ("-k", "test_auth", "-p", "faults.exchanges")
REFERENCE = next(v for v in CONFORMANT if v.name == "reference")


@pytest.fixture
def launcher(monkeypatch: pytest.MonkeyPatch) -> Launcher:
    """A zygote of the test's own, which has learned nothing from other tests' runs."""
    fresh = Launcher()
    monkeypatch.setattr(harness, "LAUNCHER", fresh)
    yield fresh
    fresh.close()


def test_a_forked_run_gets_what_a_run_of_its_own_gets(tmp_path, monkeypatch, launcher):
    """Each fault certified forked and as a process of its own: the same verdict, statuses
    and outcomes, the fault flagged; no PytestAssertRewriteWarning (a plugin module imported
    ahead) in a forked run's output, whatever the runs before it imported."""
    variants = {v.name: v for v in FAULTS}
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [
        str(harness.TESTS), os.environ.get("PYTHONPATH")])))
    results = {}
    for way in ("fork", "own"):
        monkeypatch.setattr(harness, "FORKS", way == "fork")
        taught = tmp_path / f"teacher-{way}"
        taught.mkdir()
        teacher = certify(REFERENCE, taught, select="", extra=TEACHER)
        assert teacher.statuses and not teacher.failed(), teacher.summary()
        for name in SERVERS:
            directory = tmp_path / f"{name}-{way}"
            directory.mkdir()
            results[(name, way)] = certify(variants[name], directory), directory
    for name in SERVERS:
        (fork, forked), (own, alone) = results[(name, "fork")], results[(name, "own")]
        assert own.statuses and (fork.verdict, fork.statuses) == (own.verdict, own.statuses), \
            fork.summary()
        assert outcomes(forked / "report") == outcomes(alone / "report")
        assert variants[name].requirement in own.failed(), own.summary()
    warned = {d.name: [line for line in (d / "output.txt").read_text("utf-8").splitlines()
                       if "RewriteWarning" in line or "already imported" in line]
              for d in tmp_path.glob("*-fork")}
    assert {name: lines for name, lines in warned.items() if lines} == {}


def test_a_run_past_its_time_is_killed_with_its_children(tmp_path):
    """A run that outlives its timeout raises TimeoutExpired, as subprocess.run does, and its
    process group (the run and what it started) is gone."""
    pid_file = tmp_path / "child.pid"
    (tmp_path / "test_sleeps.py").write_text(
        "import subprocess, sys, time\n"
        "def test_sleeps():\n"
        "    child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"    open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "    time.sleep(60)\n", encoding="utf-8")
    launcher = Launcher()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            launcher.run([str(tmp_path / "test_sleeps.py"), "-p", "no:cacheprovider"], env,
                         tmp_path, tmp_path / "output.txt", timeout=5)
    finally:
        launcher.close()
    child = int(pid_file.read_text())
    for _ in range(100):  # the kill is sent; the process ends and is reaped by init
        if not _alive(child):
            break
        time.sleep(0.1)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    """Whether a process runs (a zombie has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_closed_launcher_starts_its_zygote_again(tmp_path):
    """close() ends the zygote (it returns) and removes its socket's directory; a run after
    it starts another."""
    launcher = Launcher()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n", encoding="utf-8")
    args = [str(tmp_path / "test_one.py"), "-q", "-p", "no:cacheprovider"]
    runs, sockets = [], []
    for name in ("one", "two"):
        runs.append(launcher.run(args, env, tmp_path, tmp_path / f"{name}.txt", timeout=120))
        sockets.append(Path(launcher._socket))
        launcher.close()
    assert [run.returncode for run in runs] == [0, 0], [run.stdout for run in runs]
    assert sockets[0] != sockets[1] and not any(s.parent.exists() for s in sockets)
    assert all("1 passed" in run.stdout for run in runs)


def test_a_plugin_named_by_pytest_plugins_is_never_taught():
    """boardcert.pytest.plugin names boardcert.pytest.target in its pytest_plugins: a run that
    saw target imported plain (a plugin of its own imported it first) does not teach the
    zygote to import it, and says it is one pytest rewrites."""
    import boardcert.pytest.plugin  # noqa: F401 - its pytest_plugins is what is read
    import boardcert.pytest.target  # noqa: F401

    plugins = launcher_module._plugins(["-p", "xdist", "-p", "no:cacheprovider"])
    assert {"boardcert.pytest.target", "boardcert.speed", "xdist"} <= plugins
    assert "no:cacheprovider" not in plugins and "cacheprovider" not in plugins
    assert launcher_module._libraries({"boardcert.pytest.target", "boardcert.pytest.stash"},
                                      plugins) == ["boardcert.pytest.stash"]
