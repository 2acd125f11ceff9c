"""A profile that does not fit is not a failing server, and a first run needs no profile
(issues 13 and 14): discovery finds the bodies a server accepts; a body it cannot find and the
server refuses leaves its tests "not assessed" with the server's words, never failed.

The whole-suite proof, a server whose every body differs from the defaults certified with no
profile, is the conformant variant `bodies-elsewhere` in test_conformant_variants.py."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from faults import CONFORMANT, FAULTS, Variant
from faults.asgi import Forward, Request, Response
from faults.edits import error, on
from faults.harness import certify, serving

from boardcert.discovery import FOUND, KEPT, discover_target
from boardcert.discovery.findings import NOT_FOUND
from boardcert.discovery.refusals import required_fields
from boardcert.http.api import server_message
from boardcert.http.client import Exchange
from boardcert.outputs import report
from boardcert.paths import ROOT
from boardcert.settings.config import Target, load_profile


async def _alias_by_nickname(request: Request, forward: Forward) -> Response:
    body = request.json()
    if not isinstance(body, dict) or not isinstance(body.get("nickname"), str):
        return error(400, "nickname is required")
    return await forward(request)


# Op 20 takes its alias under a name neither the default profile nor discovery guesses.
NICKNAME = Variant("alias-by-nickname", "op 20 wants {nickname}", None,
                   lambda _key: on(20, _alias_by_nickname))


def _variant(name: str) -> Variant:
    return next(v for v in CONFORMANT if v.name == name)


def test_discovery_never_renames_a_stated_property():
    """Op 18's body "has properties ids": against a server that refuses ids and names cardIds
    as required, discovery finds nothing (every body it tries, those the refusal names
    included, carries ids); CARD-MOVE-IDS judges that server."""
    key = "k-" + secrets.token_urlsafe(12)
    fault = next(f for f in FAULTS if f.name == "move-takes-card-ids-only")
    with serving(fault, key) as base_url:
        found = discover_target(Target(base_url, key, load_profile(None)))
    outcomes = {f.key: f.outcome for f in found.findings}
    assert outcomes["bodies.move_cards"] == NOT_FOUND, found.lines()
    assert "move_cards" not in found.profile.proven


def test_a_refused_profile_body_is_not_assessed_with_a_hint(tmp_path: Path):
    """Op 20 refuses the profile's body with 400 and discovery finds none it accepts: its
    tests are not assessed, naming the body, the server's message and the key to set; the
    verdict is incomplete with that hint, not non-conformant."""
    result = certify(NICKNAME, tmp_path, select="op20")
    assert result.verdict == "incomplete", result.summary()
    assert not result.failed(), result.summary()
    message = result.messages["CARD-ALIAS"]
    assert message.startswith("not assessed: op 20 refused the profile's body {\"columnId\": "), \
        result.summary()
    assert 'with 400 "nickname is required"; set bodies.alias_card in your profile' in message
    assert "set bodies.alias_card in your profile" in result.reason


def test_discovery_finds_every_body_of_a_server_that_names_them_otherwise():
    """Against a server whose bodies all differ from the defaults, discovery finds each one (and
    rowName, and entityId in a header), reporting what the default profile's value got."""
    key = "k-" + secrets.token_urlsafe(12)
    with serving(_variant("bodies-elsewhere"), key) as base_url:
        found = discover_target(Target(base_url, key, load_profile(None)))
    outcomes = {f.key: f.outcome for f in found.findings}
    assert outcomes.pop("bodies.remove_card_metadata") == KEPT  # {} is accepted there too
    assert outcomes.pop("metadata_id_is_key") == KEPT  # as the reference: the id is the key
    assert outcomes.pop("bodies.move_cards") == KEPT  # ids is the interface's: never renamed
    assert set(outcomes.values()) == {FOUND}, found.lines()
    data = found.profile.data
    assert data["bodies"]["alias_card"] == {"alias": "{alias}"}
    assert data["bodies"]["add_card_metadata"] == {"metadataKey": "{key}",
                                                   "metadataValue": "{value}"}
    assert data["row_name_property"] == "rowName"
    assert data["plugin_data_entity_id"] == {"in": "header", "name": "X-Entity-Id"}
    assert any('answered 400 "alias is required"' in line for line in found.lines())
    assert found.profile.proven >= {"alias_card", "move_cards", "create_project"}


def test_discovery_keeps_what_the_reference_accepts():
    """Against the reference server every value of the default profile is kept as it is."""
    key = "k-" + secrets.token_urlsafe(12)
    with serving(_variant("reference"), key) as base_url:
        found = discover_target(Target(base_url, key, load_profile(None)))
    assert {f.outcome for f in found.findings if f.key != "row_name_property"} == {KEPT}, \
        found.lines()
    assert found.profile.data["bodies"] == load_profile(None).data["bodies"]


def test_profile_discover_writes_a_profile_to_keep(tmp_path: Path):
    """`boardcert profile --discover -o FILE` writes the profile found, with what was found as
    comments; it validates, and the key shows nowhere."""
    key = "k-" + secrets.token_urlsafe(12)
    out = tmp_path / "found.yaml"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "BOARDCERT_"))}
    with serving(_variant("bodies-elsewhere"), key) as base_url:
        done = subprocess.run(
            [sys.executable, "-c", "import sys; from boardcert.cli import main; sys.exit(main())",
             "profile", "--discover", "--base-url", base_url, "-o", str(out)],
            env={**env, "BOARDCERT_API_KEY": key}, cwd=ROOT, capture_output=True, text=True,
            timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    text = out.read_text(encoding="utf-8")
    assert key not in text + done.stdout + done.stderr
    assert "#   bodies.create_project: discovered {title: '{name}'}" in text
    assert yaml.safe_load(text)["bodies"]["exchange_code"] == {"exchangeCode": "{code}"}
    assert load_profile(out).data["row_name_property"] == "rowName"


def test_the_report_lists_what_discovery_found(tmp_path: Path):
    """The reports' profile section lists what probing found, one line per profile key."""
    out = tmp_path / "reports"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "BOARDCERT_"))}
    subprocess.run([sys.executable, "-c", "import sys; from boardcert.cli import main; "
                    "sys.exit(main())", "run", "--output", str(out), "--",
                    "suites/test_profile.py"], env=env, cwd=ROOT, capture_output=True,
                   text=True, timeout=180)
    built = report.load(out)  # validated against spec/compliance.schema.json
    line = "bodies.alias_card: the profile's {columnId: '{other_column_id}'} is accepted"
    assert line in built["profile"]["discovered"]
    assert f"- {line}" in (out / "compliance.md").read_text(encoding="utf-8")
    assert 'id="profile-discovered"' in (out / "compliance.html").read_text(encoding="utf-8")


def _answer(content: bytes) -> Exchange:
    return Exchange("POST", "http://x/p", {}, None, status=422, content=content)


def test_server_message_reads_the_usual_error_shapes():
    """The server's own words: FastAPI's detail list (with the field), an error object, text."""
    assert server_message(_answer(b'{"detail": [{"loc": ["body", "name"], "msg": "Field '
                                  b'required", "type": "missing"}]}')) == \
        '"body.name: Field required"'
    assert server_message(_answer(b'{"error": {"code": "x", "message": "alias is required"}}')) \
        == '"alias is required"'
    assert server_message(_answer(b"name missing")) == '"name missing"'
    assert server_message(_answer(b"")) == ""


def test_discovery_finds_every_body_of_the_independent_server(tmp_path: Path):
    """The independent server (tests/independent/, FastAPI) with a profile that names only its
    plugin id and exchange code (values no probe can find): discovery finds all the rest."""
    from independent.server import start

    values = tmp_path / "values-only.yaml"
    values.write_text("plugin_id: time-tracker\nexchange_code: indep-code\n", encoding="utf-8")
    key = "k-" + secrets.token_urlsafe(12)
    with start(key) as server:
        found = discover_target(Target(server.base_url, key, load_profile(values)))
    assert {f.outcome for f in found.findings} <= {FOUND, KEPT}, found.lines()
    assert len(found.findings) == 19, found.lines()
    expected = yaml.safe_load((ROOT / "tests/independent/profile.yaml").read_text())
    for key_ in ("bodies", "row_name_property", "metadata_id_is_key", "plugin_data_entity_id"):
        mine, theirs = found.profile.data[key_], expected[key_]
        if key_ == "bodies":  # where it also takes the default {}, discovery keeps {}
            mine = {k: v for k, v in mine.items() if found.profile.data["bodies"][k] != {}}
            theirs = {k: v for k, v in theirs.items() if k in mine}
        assert mine == theirs, key_


def test_a_body_the_profile_lacks_and_discovery_cannot_find_is_not_assessed(tmp_path: Path):
    """With no alias body in the profile and none found, the tests that need it are not
    assessed, with what the server said to discovery."""
    profile = tmp_path / "no-alias.yaml"
    profile.write_text("bodies: {alias_card: null}\n", encoding="utf-8")
    result = certify(replace(NICKNAME, profile=str(profile)), tmp_path, select="CARD-ALIAS")
    assert not result.failed(), result.summary()
    assert result.messages["CARD-ALIAS"].startswith(
        "not assessed: bodies.alias_card (discovery: not found: nothing tried was accepted; "
        "the first candidate answered 400 \"nickname is required\")"), result.summary()


@pytest.mark.parametrize(("status", "content", "fields"), [
    (422, b'{"detail": [{"loc": ["body", "title"], "msg": "Field required", "type": "missing"},'
          b' {"loc": ["query", "q"], "type": "missing"}]}', ["title"]),
    (400, b'{"error": {"message": "rowName is required"}}', ["rowName"]),
    (400, b"missing required field: `metaKey`", ["metaKey"]),
    (400, b'{"error": "afterCardId is required"}', []),  # an anchor: added to every move anyway
    (400, b'{"error": "the body is required"}', []),  # not a field
    (500, b'{"error": "name is required"}', []),  # only a 4xx names what is missing
    (200, b'{"name": "x"}', []),
], ids=["fastapi", "sentence", "missing field", "anchor", "not a field", "5xx", "2xx"])
def test_a_refusal_names_the_fields_it_requires(status, content, fields):
    """discovery.refusals: the body fields a 4xx says are missing, in FastAPI's shape or in
    words; never an anchor, a word that is no field, or anything of another status."""
    answer = Exchange("POST", "http://x/p", {}, None, status=status, content=content)
    assert required_fields(answer) == fields
