"""boardcert.workbench.board: the placeholders a board fills a profile's bodies with; `make_board`
builds a
board on a server and the run deletes it; a server that will not make one leaves the tests
that need it not assessed, not failed."""

from __future__ import annotations

import ast
import json

import pytest
from hostile import apps

from boardcert.paths import SUITES
from boardcert.reference.app import create_app
from boardcert.settings.config import PLACEHOLDERS, Profile, ProfileBody, load_profile
from boardcert.workbench.board import Board, Made, placeholders, profile_body

pytest_plugins = ["pytester", "hostile.fixtures"]
pytestmark = pytest.mark.usefixtures("no_target_from_the_environment")

KEY = "board-key-5e1f"
PLUGIN = ("-p", "boardcert.pytest.plugin", "-p", "no:cacheprovider", "--api-key", KEY)
FROM_PLUGIN = ("plugin_id", "code", "entity_id")  # placeholders only a profile gives


def made(id: str) -> Made:
    return Made(id, f"name of {id}", None, None, None)  # type: ignore[arg-type]


BOARD = Board(made("p"), [made("r1"), made("r2")], [made("c1"), made("c2")],
              [made("k1"), made("k2"), made("k3")])


def test_placeholders_are_the_whole_vocabulary_for_a_board():
    """With the profile every placeholder a profile may name has a value; without it, all but
    those the profile gives (plugin id, exchange code, entity id)."""
    assert set(placeholders(BOARD, load_profile())) == PLACEHOLDERS
    assert set(placeholders(BOARD)) == PLACEHOLDERS - set(FROM_PLUGIN)


def test_placeholders_name_the_board_in_its_order():
    """Ids come from the board: the first row, column and card, the other column, the second
    and third cards as anchors, rows and columns in their order; names are fresh each time."""
    values = placeholders(BOARD)
    assert {k: values[k] for k in ("project_id", "row_id", "row_ids", "column_id",
                                   "other_column_id", "column_ids", "card_id", "card_ids",
                                   "before_card_id", "after_card_id")} == {
        "project_id": "p", "row_id": "r1", "row_ids": ["r1", "r2"], "column_id": "c1",
        "other_column_id": "c2", "column_ids": ["c1", "c2"], "card_id": "k1",
        "card_ids": ["k1"], "before_card_id": "k2", "after_card_id": "k3"}
    assert values["name"] != placeholders(BOARD)["name"]


def test_given_values_win_and_the_entity_id_follows_them():
    """A given value replaces the board's, and the profile's entity_id is filled after it."""
    values = placeholders(BOARD, load_profile(), card_id="k3", name="mine")
    assert (values["card_id"], values["name"], values["entity_id"]) == ("k3", "mine", "k3")


def test_an_entity_id_the_board_cannot_fill_is_left_out():
    """An entity_id template naming a value the profile lacks gives no entity_id (the bodies
    that need it are then refused by name), not an error for every body."""
    profile = Profile({"entity_id": "{plugin_id}:{card_id}"})
    assert "entity_id" not in placeholders(BOARD, profile)


def test_profile_body_is_the_profiles_body_filled_for_the_board():
    """alias_card's body names the board's other column, marked as the profile's body."""
    body = profile_body(load_profile(), "alias_card", BOARD)
    assert isinstance(body, ProfileBody) and body.key == "alias_card"
    assert body == {"columnId": "c2"}




BUILDS = """
import pytest

@pytest.mark.requirement("CARD-RENAME")
def test_board(make_board, api):
    board = make_board(rows=2, metadata=True)
    project = api.call(3, projectId=board.project.id).json()
    assert [r["id"] for r in project["rows"]] == [r.id for r in board.rows]
    assert [c["id"] for c in project["rows"][0]["columns"]] == [c.id for c in board.columns]
    cards = {c["id"]: c for c in project["cards"]}
    assert set(cards) == {c.id for c in board.cards}
    assert [(m["id"], m["value"]) for m in cards[board.cards[0].id]["metadata"]] == \\
        [board.metadata]
"""


def test_a_board_is_built_and_deleted_at_the_end(pytester, servers):
    """make_board(rows=2, metadata=True) makes the project, its rows, two columns in the first
    row, three cards in the first column and a metadata entry, as op 3 reads them; at the end
    of the run every project it made answers 404."""
    recorder = apps.Recorder(create_app(KEY))
    url = servers.asgi(recorder)
    pytester.makepyfile(test_builds=BUILDS)
    result = pytester.runpytest_inprocess(*PLUGIN, "--base-url", url)
    result.assert_outcomes(passed=1)
    made = recorder.created_projects()
    assert made
    deleted = [h for h in recorder.hits if h.method == "DELETE" and h.status == 200]
    assert {h.path for h in deleted} >= {f"/projects/{p}" for p in made}


NEEDS_A_BOARD = """
import pytest

@pytest.mark.requirement("CARD-RENAME")
def test_needs_a_board(make_board):
    make_board()
"""


def test_a_server_that_will_not_make_a_card_leaves_the_test_not_assessed(pytester, servers,
                                                                            tmp_path):
    """When op 15 answers 500 to the set-up of a test of CARD-RENAME, the test errors with the
    exchange as evidence and CARD-RENAME is not assessed, not failed (op 15's own tests judge
    op 15)."""
    url = servers.asgi(apps.Failing(create_app(KEY), "POST",
                                    r"/projects/[^/]+/columns/[^/]+/cards"))
    pytester.makepyfile(test_needs=NEEDS_A_BOARD)
    result = pytester.runpytest_inprocess(*PLUGIN, "--base-url", url,
                                          "--report-dir", str(tmp_path))
    report = json.loads((tmp_path / "compliance.json").read_text())
    test = next(t for t in report["tests"] if t["nodeid"].endswith("test_needs_a_board"))
    assert (test["outcome"], test["failed_requirements"]) == ("error", []), test
    assert test["evidence"][-1]["status"] == 500, test
    status = {r["id"]: r["status"] for r in report["requirements"]}
    assert status["CARD-RENAME"] == "not assessed", result.stdout.str()


PLUGIN_MODULES = {"plugin", "keys", "markers", "target", "cleanup", "fixtures", "plan",
                  "reporters", "failures", "results", "allure_results", "allure_listener",
                  "junit"}


def test_suites_import_no_plugin_internals():
    """The suites use the plugin through its fixtures and import what they build with from
    the public modules (boardcert.workbench.board, expect, api, ...), never the plugin's own
    modules."""
    found = []
    for path in sorted(SUITES.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("boardcert"):
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
                found += [f"{path.name}: {n}" for n in names
                          if n.split(".")[1:2] and n.split(".")[1] in PLUGIN_MODULES]
    assert found == []
