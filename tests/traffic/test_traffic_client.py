"""`boardcert serve --client-report` judges the client of the bundled server: a client of the
current operations is compatible, one of before the breaking changes is incompatible with
each finding named, and under `--vary` a client that assumes `name` for rows breaks in its
own test while a tolerant one does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import xmlschema

from boardcert.traffic import client_report, vary
from traffic import clients
from traffic.running import KEY, watched, write

JUNIT_XSD = Path(__file__).parents[1] / "data" / "junit-10.xsd"


def no_key_in(directory: Path, key: str = KEY) -> None:
    for path in directory.rglob("*"):
        if path.is_file():
            assert key not in path.read_text(encoding="utf-8", errors="replace"), path


def rules_at(report: dict) -> set[tuple[str, str]]:
    return {(f["rule"], f["where"]) for f in report["findings"]}


def test_a_client_of_the_current_operations_is_compatible(tmp_path):
    """Only current operations, the key in X-API-Key, the bodies the interface shows, an
    anchor for each move: compatible; the row name sent as `name` alone is a note (INFO); the
    report lists each operation used, junit.xml has a passing case for each, no file holds
    the key."""
    with watched() as (base_url, book):
        clients.current(base_url, KEY)
    written = write(book, tmp_path, base_url, "serve")
    report = written.client
    assert report["verdict"] == client_report.COMPATIBLE, report["verdict_reason"]
    assert rules_at(report) == {("CLIENT-ROW-NAME-CHOICE", "op 7 POST /projects/{projectId}/rows")}
    used = {o["operation"] for o in report["operations"]}
    assert used == {1, 2, 3, 4, 6, 7, 11, 15, 16, 17, 18}
    assert all(o["kind"] == "operation" for o in report["operations"])
    xmlschema.XMLSchema(str(JUNIT_XSD)).validate(str(tmp_path / "junit.xml"))
    assert "<failure" not in (tmp_path / "junit.xml").read_text(encoding="utf-8")
    assert {p.name for p in tmp_path.iterdir()} == {
        "client-compatibility.json", "client-compatibility.md", "client-compatibility.html",
        "junit.xml"}
    no_key_in(tmp_path)


def test_a_client_of_the_former_paths_is_incompatible_and_each_finding_is_named(tmp_path):
    """Three former paths of section 9 and op 18's cards under cardIds: incompatible, a finding
    for each at its place, each saying what replaced it; junit.xml fails each of those cases."""
    with watched() as (base_url, book):
        clients.former(base_url, KEY)
    report = write(book, tmp_path, base_url, "serve").client
    assert report["verdict"] == client_report.INCOMPATIBLE
    must = {(f["rule"], f["where"]) for f in report["findings"] if f["level"] == "MUST"}
    assert must == {
        ("CLIENT-FORMER-PATH", "former POST /projects/{projectId}/row"),
        ("CLIENT-FORMER-PATH", "former PATCH /projects"),
        ("CLIENT-FORMER-PATH", "former POST /projects/{projectId}/columns/{columnId}/card"),
        ("CLIENT-MOVE-IDS", "op 18 PATCH /projects/{projectId}/cards/move"),
    }
    instead = {f["where"]: f["instead"] for f in report["findings"]}
    assert instead["former PATCH /projects"] == \
        "call PATCH /projects/{projectId}/rename (operation 5)"
    assert "cardIds" in next(f["detail"] for f in report["findings"]
                             if f["rule"] == "CLIENT-MOVE-IDS")
    assert all(f["exchange"]["status"] == 404 for f in report["findings"]
               if f["rule"] == "CLIENT-FORMER-PATH")  # the bundled server serves none
    junit = (tmp_path / "junit.xml").read_text(encoding="utf-8")
    assert junit.count("<failure") == 4
    assert "[CLIENT-MOVE-IDS]" in junit
    markdown = (tmp_path / "client-compatibility.md").read_text(encoding="utf-8")
    assert "# Client compatibility: INCOMPATIBLE" in markdown
    no_key_in(tmp_path)


def seed_choosing(row_name: str) -> int:
    return next(s for s in range(1000) if vary.choose(s).row_name == row_name)


def test_a_client_assuming_name_for_rows_breaks_under_vary(tmp_path):
    """Against the bundled server it works (the report notes what it relies on); with --vary at
    a seed that takes only rowName, its own test fails, and the report says which choices
    were made."""
    with watched() as (base_url, book):
        clients.name_assuming(base_url, KEY)
    assert ("CLIENT-ROW-NAME-CHOICE", "op 7 POST /projects/{projectId}/rows") in \
        rules_at(write(book, tmp_path / "plain", base_url, "serve").client)
    choices = vary.choose(seed_choosing("rowName"))
    with watched(choices) as (base_url, book), \
            pytest.raises(clients.ClientBroke, match="answered 4"):
        clients.name_assuming(base_url, KEY)
    report = write(book, tmp_path / "varied", base_url, "serve", choices).client
    assert report["vary"] == {"seed": choices.seed, "choices": choices.as_dict()}
    assert report["vary"]["choices"]["row_name"] == "rowName"
    [rows] = [o for o in report["operations"] if o["operation"] == 7]
    assert rows["statuses"] == {str(choices.body_refused): 1}
    text = (tmp_path / "varied" / "client-compatibility.md").read_text(encoding="utf-8")
    assert f"seed {choices.seed}" in text and "row_name rowName" in text


@pytest.mark.parametrize("seed", [seed_choosing("rowName"), seed_choosing("name"), 7, 2024])
def test_a_tolerant_client_works_under_vary_and_sees_other_choices(seed, tmp_path):
    """The current client works whatever the seed chose, and sees the choices: ids and times
    in the seed's form, the extra fields, the media type."""
    choices = vary.choose(seed)
    with watched(choices) as (base_url, book):
        seen = clients.current(base_url, KEY)
    report = write(book, tmp_path, base_url, "serve", choices).client
    assert report["verdict"] == client_report.COMPATIBLE
    project = seen["project"]
    assert not project["id"].isdigit() or len(project["id"]) > 15
    assert set(choices.extra_fields) <= set(project)
    assert isinstance(project["createdAt"], int) == choices.times.startswith("epoch")


def test_the_same_seed_makes_the_same_choices_and_seeds_differ():
    """--vary SEED is reproducible, and the seeds between them make every choice."""
    assert vary.choose(11) == vary.choose(11)
    made = [vary.choose(s).as_dict() for s in range(200)]
    for name in made[0]:
        values = {json.dumps(m[name]) for m in made}
        assert len(values) > 1, name
