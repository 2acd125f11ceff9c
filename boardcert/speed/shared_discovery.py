"""Discovery once per run under pytest-xdist (a part of the speed plugin): the controller probes
the target while the workers start, and every worker reads what it found instead of probing
again (some 20 requests in a row each, seconds against a server far away). Without it each
process probes for itself, as a single process does (boardcert.pytest.fixtures.discovery).

The controller names a file of a private temporary directory in each worker's input (the
input is sent before the controller's collection, where the preflight runs, so not the result
itself); it writes the file after the preflight and before any test reaches a worker. A worker
without the file (the controller did not probe: --read-only, no suites, a bug) probes itself,
as a single process does (boardcert.pytest.fixtures.discovery). The probes' project is deleted by
the controller before the workers get their tests (its requests, paced at the whole
--rate-limit, must not overlap theirs), and what it could not delete is reported as a
worker's would be.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from boardcert.discovery import Discovery, Finding, discover, organization_of
from boardcert.http.api import Api
from boardcert.http.client import Client
from boardcert.http.redact import Redactor, for_key
from boardcert.pytest.handover import run_of
from boardcert.pytest.stash import LEFT_BEHIND, TARGET
from boardcert.settings import roles
from boardcert.settings.config import NotAssessed, Target
from boardcert.workbench.ledger import Ledger

WORKER_DISCOVERY = "boardcert_discovery"  # workerinput key: the file the controller writes


class Probe:
    """Discovery against the target in a thread of its own: what a worker's `discovery`
    fixture would find, the organization, and what its clean-up could not delete. Started by
    the controller at its session start when `boardcert run` has checked the target already
    (else after the preflight); the controller waits for it before any test reaches a
    worker."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.found: tuple[Discovery, str | None] | None = None
        self.left_behind: list[Any] = []
        self.thread = threading.Thread(target=self._run, daemon=True, name="boardcert-discovery")
        self.thread.start()

    def _run(self) -> None:
        client = Client(self.target)
        api = Api(client, self.target.profile)
        ledger = Ledger(api)
        organization: str | None = None
        try:
            organization = organization_of(api)
            self.found = discover(api, ledger, organization), organization
        except (NotAssessed, AssertionError) as exc:
            why = str(exc) if isinstance(exc, NotAssessed) \
                else f"discovery stopped: {str(exc).splitlines()[0]}"
            self.found = Discovery(self.target.profile,
                                   [Finding("organization", "not tried", None, why)]), None
        except Exception:  # noqa: BLE001, S110 - the workers probe themselves
            pass
        finally:
            # before any worker gets a test (the controller waits for this thread): its
            # requests, paced at the whole --rate-limit, never overlap the workers'
            try:
                self.left_behind = ledger.clean_up()
            finally:
                client.close()

    def wait(self, seconds: float | None = None) -> Probe:
        self.thread.join(seconds)
        return self


class SharedDiscovery:
    """On the xdist controller: probes once, after the preflight, for all workers."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.folder = Path(tempfile.mkdtemp(prefix="boardcert-discovery-"))
        self.path = self.folder / "discovery.json"
        self.early: Probe | None = None

    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[WORKER_DISCOVERY] = str(self.path)

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """When `boardcert run` has checked the target already (its preflight passed), the
        probes start now, while pytest-xdist starts the workers (in its own sessionstart,
        trylast): waiting on the server while the workers start."""
        target = self.config.stash[TARGET]
        if self.wanted() and run_of(self.config).checked:
            self.early = Probe(target)

    @pytest.hookimpl(wrapper=True)
    def pytest_collection(self, session: pytest.Session) -> Any:
        result = yield  # the preflight first (boardcert.pytest.target): it may stop the run
        probe = self.early or (Probe(self.config.stash[TARGET]) if self.wanted() else None)
        if probe is not None:
            self.early = None
            self.take(probe.wait())
        return result

    def take(self, probe: Probe) -> None:
        """What the probe found, written for the workers (nothing if it failed: each worker
        then probes itself); what it could not delete, reported as a worker's would be."""
        self.config.stash[LEFT_BEHIND].extend(probe.left_behind)
        if probe.found is not None and self.wanted():
            write(self.path, *probe.found, for_key(probe.target.api_key))

    def wanted(self) -> bool:
        from boardcert.pytest.target import _in_suites

        option, target = self.config.option, self.config.stash[TARGET]
        return bool(getattr(option, "numprocesses", None)) and bool(target.base_url) \
            and not (target.read_only or run_of(self.config).plan or option.collectonly) \
            and any(_in_suites(arg) for arg in self.config.args)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.early is not None:  # the run ended before its collection: the probes' clean-up
            left = self.early.wait(60).left_behind
            if left:
                print(f"boardcert: discovery's clean-up could not delete {len(left)} resources "
                      f"it created: {left[0]}", file=sys.stderr)
        shutil.rmtree(self.folder, ignore_errors=True)


def write(path: Path, found: Discovery, organization: str | None, redactor: Redactor) -> None:
    """The discovery as JSON, whole or not at all (written aside, then renamed)."""
    data = {"organization_id": organization, "data": found.profile.data,
            "proven": sorted(found.profile.proven), "unfound": found.profile.unfound,
            "findings": [[f.key, f.outcome, f.value, redactor.text(f.note)]
                         for f in found.findings]}
    try:
        text = json.dumps(data)
    except (TypeError, ValueError):  # a value JSON cannot hold: the workers probe themselves
        return
    aside = path.with_suffix(".part")
    aside.write_text(text, encoding="utf-8")
    aside.replace(path)


def read(config: pytest.Config, target: Target) -> tuple[Discovery, str | None] | None:
    """On a worker: the controller's discovery and organization, if it wrote them."""
    name = roles.worker_input(config).get(WORKER_DISCOVERY)
    if not name or not Path(name).is_file():
        return None
    data = json.loads(Path(name).read_text(encoding="utf-8"))
    profile = replace(target.profile, data=data["data"], proven=frozenset(data["proven"]),
                      unfound=data["unfound"])
    return Discovery(profile, [Finding(*f) for f in data["findings"]]), data["organization_id"]
