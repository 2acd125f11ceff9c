"""Discovery once per run under pytest-xdist (boardcert.speed.shared_discovery): what the controller
found reaches every worker whole, and a worker without it probes itself."""

from __future__ import annotations

import contextlib
from types import SimpleNamespace

from boardcert.discovery import FOUND, NOT_FOUND, Discovery, Finding
from boardcert.http.redact import Redactor
from boardcert.settings.config import Target, load_profile
from boardcert.speed import shared_discovery

KEY = "shared-discovery-key-7c2a"


def _target() -> Target:
    return Target(base_url="http://127.0.0.1:1", api_key=KEY, profile=load_profile(None))


def test_a_worker_reads_the_controllers_discovery_whole(tmp_path):
    """The profile found (data, proven bodies, what was not found), the findings in order and
    the organization come back as the controller wrote them; the key never lands in the
    file."""
    target = _target()
    data = {**target.profile.data, "row_name_property": "rowName"}
    profile = target.profile.__class__(data, target.profile.path, target.profile.sha256,
                                       frozenset({"bodies.create_card"}),
                                       {"bodies.alias_card": "discovery: not found: 422"})
    findings = [Finding("row_name_property", FOUND, "rowName"),
                Finding("bodies.alias_card", NOT_FOUND, None, f"said: bad key {KEY}")]
    path = tmp_path / "discovery.json"
    shared_discovery.write(path, Discovery(profile, findings), "org-1", Redactor([KEY]))
    assert KEY not in path.read_text()
    config = SimpleNamespace(workerinput={shared_discovery.WORKER_DISCOVERY: str(path)})
    found, organization = shared_discovery.read(config, target)
    assert organization == "org-1"
    assert found.profile.data == data and found.profile.path == target.profile.path
    assert found.profile.proven == profile.proven and found.profile.unfound == profile.unfound
    assert found.lines() == [f.line().replace(KEY, "***") for f in findings]


def test_a_worker_without_the_file_probes_itself(tmp_path):
    """No file (the controller did not probe), or not under xdist: nothing shared."""
    target = _target()
    missing = SimpleNamespace(workerinput={shared_discovery.WORKER_DISCOVERY:
                                           str(tmp_path / "none.json")})
    assert shared_discovery.read(missing, target) is None
    assert shared_discovery.read(SimpleNamespace(), target) is None


def test_the_probes_start_while_the_workers_start_once_the_run_checked_the_target(monkeypatch):
    """Under `boardcert run` (its preflight checked the target) the probes are under way from
    the controller's session start, before its collection, which waits for them; otherwise the
    controller probes in its collection, after the preflight, as before. Either way their
    clean-up's leftovers are reported and the workers get what was found."""
    import threading

    from boardcert.pytest.stash import LEFT_BEHIND, TARGET
    from boardcert.settings.budget import BUDGETS
    from boardcert.settings.run import Run, stash_key

    target, started, released = _target(), [], threading.Event()
    found = Discovery(target.profile, [Finding("row_name_property", FOUND, "rowName")])

    def run(self):
        started.append(threading.current_thread().name)
        released.wait(5)
        self.found, self.left_behind = (found, "org-1"), ["a project"]

    monkeypatch.setattr(shared_discovery.Probe, "_run", run)
    monkeypatch.setattr(shared_discovery.SharedDiscovery, "wanted", lambda self: True)
    for checked in (True, False):
        started.clear()
        run = Run(target, BUDGETS["standard"], bundled=False, checked=checked)
        config = SimpleNamespace(stash={TARGET: target, LEFT_BEHIND: [], stash_key(): run})
        shared = shared_discovery.SharedDiscovery(config)
        shared.pytest_sessionstart(None)
        if checked:
            shared.early.thread.join(0.5)  # still waiting on the server, in its own thread
        assert started == (["boardcert-discovery"] if checked else [])
        collecting = shared.pytest_collection(None)
        next(collecting)  # pytest's own collection runs here
        released.set()
        with contextlib.suppress(StopIteration):
            collecting.send(None)
        assert started == ["boardcert-discovery"] and config.stash[LEFT_BEHIND] == ["a project"]
        assert shared_discovery.read(SimpleNamespace(workerinput={
            shared_discovery.WORKER_DISCOVERY: str(shared.path)}), target)[1] == "org-1"
        released.clear()


def test_a_probe_no_collection_took_is_waited_for(monkeypatch, capsys):
    """The probes started at the session start but the run ended before the controller's
    collection took them: the session's end waits for them (their clean-up deletes their
    project) and says what was left."""
    import time

    from boardcert.pytest.stash import LEFT_BEHIND, TARGET
    from boardcert.settings.budget import BUDGETS
    from boardcert.settings.run import Run, stash_key

    def run(self):
        time.sleep(0.2)
        self.left_behind = ["project projectId=9: answered 503"]

    target = _target()
    monkeypatch.setattr(shared_discovery.Probe, "_run", run)
    monkeypatch.setattr(shared_discovery.SharedDiscovery, "wanted", lambda self: True)
    run = Run(target, BUDGETS["standard"], bundled=False, checked=True)
    config = SimpleNamespace(stash={TARGET: target, LEFT_BEHIND: [], stash_key(): run})
    shared = shared_discovery.SharedDiscovery(config)
    shared.pytest_sessionstart(None)
    shared.pytest_unconfigure(config)
    assert not shared.early.thread.is_alive()
    assert "could not delete 1 resources it created: project projectId=9: answered 503" \
        in capsys.readouterr().err
