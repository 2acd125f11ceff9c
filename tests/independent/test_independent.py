"""boardcert certifies "conformant" a server it did not write (issue 13): the independent server
of this directory, which differs from the reference wherever the interface is silent.

The thorough budget runs only with BOARDCERT_THOROUGH=1 (it takes minutes)."""

from __future__ import annotations

import ast
import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from boardcert.paths import DEFAULT_PROFILE, ROOT
from boardcert.settings.config import load_profile

from .server import Running, start

pytestmark = pytest.mark.xdist_group("test_independent")  # one worker makes the module's runs

HERE = Path(__file__).resolve().parent
PROFILE = HERE / "profile.yaml"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
THOROUGH = os.environ.get("BOARDCERT_THOROUGH") == "1"


@pytest.fixture(scope="module")
def key() -> str:
    return "indep-" + secrets.token_urlsafe(12)


@pytest.fixture(scope="module")
def server(key: str):
    with start(key) as running:
        yield running


def certify(server: Running, key: str, budget: str, output: Path,
            profile: Path | None = PROFILE, run_args: tuple[str, ...] = ()) -> dict[str, Any]:
    """`boardcert run` against the server (with its profile); the compliance.json it wrote."""
    command = [sys.executable, "-c", "import sys; from boardcert.cli import main; "
               "sys.exit(main())", "run", "--base-url", server.base_url,
               *(["--profile", str(profile)] if profile else []),
               "--budget", budget, "--output", str(output), *run_args]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "BOARDCERT_"))}
    done = subprocess.run(command, env={**env, "BOARDCERT_API_KEY": key}, cwd=ROOT,
                          capture_output=True, text=True, timeout=1800)
    compliance = output / "compliance.json"
    assert compliance.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    assert key not in done.stdout + done.stderr
    return json.loads(compliance.read_text(encoding="utf-8"))


CERTIFIED: dict[str, dict[str, Any]] = {}  # budget -> the report of a run one at a time


def summary(report: dict[str, Any]) -> str:
    lines = [f"verdict {report['verdict']!r}: {report.get('verdict_reason')}"]
    lines += [f"  {r['id']} {r['status']}: {(r.get('message') or '')[:300]}"
              for r in report["requirements"] if r["status"] != "passed"]
    return "\n".join(lines)


@pytest.mark.parametrize("budget", [
    "quick", "standard",
    pytest.param("thorough", marks=pytest.mark.skipif(
        not THOROUGH, reason="about 5 minutes: set BOARDCERT_THOROUGH=1")),
])
def test_independent_server_is_certified(budget: str, server: Running, key: str,
                                         tmp_path: Path):
    """With its profile, boardcert certifies the independent server conformant over HTTP."""
    report = CERTIFIED[budget] = certify(server, key, budget, tmp_path / "report")
    assert report["verdict"] == "conformant", summary(report)


def test_independent_server_gets_the_same_statuses_with_requests_in_flight(
        server: Running, key: str, tmp_path: Path):
    """With 8 requests in flight where tests are independent (what a run far away chooses),
    every requirement has the status it has one request at a time: conformant both ways."""
    serial = CERTIFIED.get("quick") or certify(server, key, "quick", tmp_path / "serial")
    side_by_side = certify(server, key, "quick", tmp_path / "in-flight",
                           run_args=("--in-flight", "8"))
    statuses = [{r["id"]: r["status"] for r in report["requirements"]}
                for report in (serial, side_by_side)]
    assert statuses[0] == statuses[1], summary(side_by_side)
    assert serial["verdict"] == side_by_side["verdict"] == "conformant", summary(side_by_side)


UNCHECKED = ("PLUGINS-PROPERTY", "EXCHANGE-USER-TOKEN", "EXCHANGE-NO-ACCESS-TOKEN")
SOME_OPS = ("OPERATION-IMPLEMENTED", "SUCCESS-STATUS-200")
PLUGIN_OPS = "23, 24, 25, 26, 27, 28"


def test_requirement_never_checked_is_not_passed(server: Running, key: str, tmp_path: Path):
    """Without the plugin values in its profile, ops 23-28 are never checked: the MUSTs read
    from their answers are not assessed (a property item whose requests got no 2xx counts for
    nothing they prove), nor are those of all 28 operations that others passed; the verdict is
    incomplete and names plugin_id."""
    data = yaml.safe_load(PROFILE.read_text(encoding="utf-8"))
    data |= {"plugin_id": None, "entity_id": None, "exchange_code": None}
    profile = tmp_path / "no-plugins.yaml"
    profile.write_text(yaml.safe_dump(data), encoding="utf-8")
    report = certify(server, key, "quick", tmp_path / "report", profile=profile)
    found = {r["id"]: r for r in report["requirements"]}
    assert report["verdict"] == "incomplete", summary(report)
    assert "plugin_id" in report["verdict_reason"], summary(report)
    assert {i: found[i]["status"] for i in UNCHECKED + SOME_OPS} == \
        dict.fromkeys(UNCHECKED + SOME_OPS, "not assessed"), summary(report)
    for req in SOME_OPS:
        assert found[req]["message"].startswith(f"not assessed on ops {PLUGIN_OPS}: "), \
            found[req]["message"]
        assert "plugin_id" in found[req]["message"]
    assert found["NO-SERVER-ERROR"]["status"] == "not assessed"  # a SHOULD: named, not blocking


def test_profile_is_valid():
    """The independent server's profile passes boardcert's profile schema."""
    assert load_profile(PROFILE).data["name"] == "independent"


def test_profile_differs_from_the_reference_profile():
    """Every request body the interface leaves open is named differently from the reference's
    (op 18's ids is the interface's own name), and so are op 7, op 21's ids and op 27."""
    ours = yaml.safe_load(PROFILE.read_text(encoding="utf-8"))
    reference = yaml.safe_load(DEFAULT_PROFILE.read_text(encoding="utf-8"))
    same = [name for name, body in ours["bodies"].items()
            if body == reference["bodies"].get(name) and name != "move_cards"]
    assert not same
    for key in ("row_name_property", "metadata_id_is_key", "plugin_data_entity_id",
                "plugin_id", "entity_id", "exchange_code"):
        assert ours[key] != reference.get(key), key


def test_server_shares_no_code_with_boardcert():
    """The server imports neither boardcert nor the fault variants: it is written anew."""
    for source in ("app.py", "server.py"):
        tree = ast.parse((HERE / source).read_text(encoding="utf-8"))
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not [n for n in names if n.startswith(("boardcert", "faults", "tests"))], source


def test_server_chooses_differently_from_the_reference(server: Running, key: str):
    """Where the interface is silent it differs from the reference: 422 for a missing key, 404
    for a wrong one, UUID ids, millisecond timestamps, rowName only, anchors required, 405."""
    with httpx.Client(base_url=server.base_url, timeout=10) as client:
        missing = client.get("/users/me")
        assert missing.status_code == 422 and isinstance(missing.json()["detail"], list)
        assert client.get("/users/me", headers={"X-API-Key": key + "x"}).status_code == 404
        auth = {"X-API-Key": key}
        me = client.get("/users/me", headers=auth).json()
        organization = me["currentOrganization"]["id"]
        project = client.post(f"/organizations/{organization}/projects", headers=auth).json()
        assert UUID.fullmatch(project["id"]) and isinstance(project["createdAt"], int)
        assert project["organization"]["id"] == organization
        rows = f"/projects/{project['id']}/rows"
        assert client.post(rows, headers=auth, json={"name": "row"}).status_code == 422
        row = client.post(rows, headers=auth, json={"rowName": "row"}).json()["rows"][0]
        board = client.post(f"{rows}/{row['id']}/columns", headers=auth,
                            json={"columnName": "column"}).json()
        column = board["rows"][0]["columns"][0]["id"]
        cards = [client.post(f"/projects/{project['id']}/columns/{column}/cards", headers=auth,
                             json={"cardName": name}).json()["id"] for name in "ab"]
        move = f"/projects/{project['id']}/cards/move"
        assert client.patch(move, headers=auth, json={"ids": cards[:1]}).status_code == 422
        assert client.patch(move, headers=auth,
                            json={"ids": cards[:1], "afterCardId": cards[1]}).status_code == 200
        assert client.patch("/projects", headers=auth).status_code == 405
        token = client.post("/plugins/time-tracker/entities/e/exchange-code",
                            json={"oneTimeCode": "indep-code"}).json()["userToken"]
        assert isinstance(token, dict)
