"""No false alarm. `boardcert run`, a client that sends every operation and every request the
interface rules out, through the proxy to a conformant server (the bundled one, and the
independent server written by someone else): the run's verdict is the same as without the
proxy (it forwards unchanged), and the proxy's compliance report fails no requirement (its
checks and its board model hold nothing against a conformant server). And `boardcert run`
fails nothing on the bundled server varied by `serve --vary`: its choices are the
interface's to make."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from faults.harness import _env, certify, suite_command
from independent.server import start

from boardcert.paths import DEFAULT_PROFILE, ROOT
from boardcert.reference.app import create_app
from boardcert.traffic import vary
from boardcert.traffic.vary import Vary
from traffic.running import KEY, proxied, reference, write

pytestmark = pytest.mark.xdist_group("test_traffic_suite")  # three whole runs: one unit

INDEPENDENT_PROFILE = Path(__file__).parents[1] / "independent" / "profile.yaml"


def through_the_proxy(upstream: str, profile: Path, tmp_path: Path) -> tuple[dict, dict]:
    """The suites at the quick budget through the proxy: their compliance.json and the
    proxy's."""
    with proxied(upstream) as (base_url, book):
        done = subprocess.run(suite_command(base_url, profile, tmp_path / "run", "quick"),
                              env=_env(KEY), cwd=ROOT, capture_output=True, text=True,
                              timeout=1200)
    ran = tmp_path / "run" / "compliance.json"
    assert ran.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    assert book.errors == []
    return json.loads(ran.read_text(encoding="utf-8")), \
        write(book, tmp_path / "proxy", upstream, "proxy").compliance


def failed(report: dict) -> dict[str, str]:
    return {r["id"]: r["message"] for r in report["requirements"] if r["status"] == "failed"}


@pytest.mark.parametrize("server", ["bundled", "independent"])
def test_a_conformant_server_seen_through_the_proxy(server, tmp_path):
    """The run fails nothing, as without the proxy; the proxy fails no requirement,
    though it judged hundreds of answers, among them the model's renames and deletes."""
    if server == "bundled":
        with reference() as upstream:
            run, proxy = through_the_proxy(upstream, DEFAULT_PROFILE, tmp_path)
    else:
        with start(KEY) as running:
            run, proxy = through_the_proxy(running.base_url, INDEPENDENT_PROFILE, tmp_path)
    assert failed(run) == {}, run["verdict_reason"]  # as without the proxy
    assert failed(proxy) == {}
    passed = {r["id"] for r in proxy["requirements"] if r["status"] == "passed"}
    assert {"SUCCESS-STATUS-200", "PROJECT-TOP-LEVEL", "CARD-FIELD-TYPES",
            "REMOVED-PATH-NOT-SERVED"} <= passed, passed
    judged = {t["nodeid"].split("::")[-1] for t in proxy["tests"] if t["outcome"] == "passed"}
    assert {"ROW-RENAME", "CARD-DELETE-GONE", "WRITE-ONLY-ADDRESSED"} <= judged or \
        server == "independent"  # its renames take newName: the model learns them anew


class Varied:
    """The bundled server behind --vary at a seed, as tests/faults' harness serves a variant."""

    requirement = None
    profile_path = None
    args: tuple[str, ...] = ()

    def __init__(self, seed: int) -> None:
        self.choices = vary.choose(seed)
        self.name = f"varied-{seed}"

    def app(self, api_key: str) -> Vary:
        return Vary(create_app(api_key), self.choices)


def test_the_choices_of_vary_are_the_interface_s_to_make(tmp_path):
    """`serve --vary` only makes choices the interface leaves open: boardcert run fails
    nothing on a varied server (seed 81: rowName only, 403 and 422 with problem+json bodies,
    uuid ids, whole-second times, extra fields, sorted keys, a +json media type, gzip, closed
    connections)."""
    varied = Varied(81)
    assert (varied.choices.row_name, varied.choices.key_refused, varied.choices.gzip,
            varied.choices.connection) == ("rowName", 403, True, "close")
    result = certify(varied, tmp_path)
    assert result.failed() == [], result.summary()
