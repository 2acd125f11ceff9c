"""Cards (ops 15-20): the Card record, create, rename, delete, move, move by metadata, alias."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from boardcert.conformance import (
    Board,
    Exchange,
    NotAssessed,
    Violation,
    checks,
    expect,
    misfit,
    modelled,
    per_operation,
    profile_body,
    together,
    unique,
)

CARD_OPS = (15, 16, 17, 18, 19, 20)


ANCHORS = ("afterCardId", "beforeCardId")


def _move(api, board: Board, number: int, moved: str, anchor: dict[str, str],
          oracle: Any = None) -> Exchange:
    """Op 18 (by ids) or op 19 (by metadata given to the card first, told to the `oracle`'s
    model if any) with one ordering property (a server may require one: they are only
    "optional-looking"), and no other."""
    placed = {"after_card_id": anchor.get("afterCardId"),
              "before_card_id": anchor.get("beforeCardId")}
    placed = {k: v for k, v in placed.items() if v is not None}
    if number == 18:
        body = profile_body(api.profile, "move_cards", board, card_id=moved, card_ids=[moved],
                            **placed)
    else:
        key, value = unique("key"), unique("value")
        added = api.call(21, projectId=board.project.id, cardId=moved,
                         json=profile_body(api.profile, "add_card_metadata", board,
                                           card_id=moved, key=key, value=value))
        if added.status != 200:
            raise misfit(added) or NotAssessed(
                f"card metadata for op 19 (op 21 answered {added.status})")
        if oracle is not None:
            oracle.board.add_metadata(board.project.id, moved, key, value)
        body = profile_body(api.profile, "move_cards_by_metadata", board, card_id=moved,
                            key=key, value=value, **placed)
    body = {k: v for k, v in body.items() if k not in ANCHORS} if isinstance(body, dict) else {}
    return api.call(number, projectId=board.project.id, json=body | anchor)


def _card_call(number: int) -> Callable[[Any, Board], Exchange]:
    def call(api, board: Board) -> Exchange:
        project, card = board.project.id, board.cards[0].id
        if number == 15:
            return api.call(15, projectId=project, columnId=board.columns[0].id,
                            json=profile_body(api.profile, "create_card", board,
                                              name=unique("card")))
        if number == 16:
            return api.call(16, projectId=project, cardId=card, json={"name": unique("card")})
        if number == 17:
            return api.call(17, projectId=project, cardId=card)
        if number == 20:
            return api.call(20, projectId=project, cardId=card,
                            json=profile_body(api.profile, "alias_card", board))
        return _move(api, board, number, card, {"afterCardId": board.cards[2].id})
    return call


@pytest.fixture(scope="module")
def _answers() -> dict[int, Exchange]:
    return {}


@pytest.fixture
def answer(number: int, _answers: dict[int, Exchange], api,
           make_board: Callable[[], Board], request: pytest.FixtureRequest) -> Exchange:
    """The answer of Card-returning op `number`, called once (in set-up) on a board of its own
    and shared by the tests that only read it; with more than one request in flight, those of
    the tests that follow side by side, each kept if it answered 200 (together.ahead)."""
    exchange = together.answered_once(
        request, _answers, number, "card answers", lambda: _card_call(number)(api, make_board()),
        lambda other: lambda: _card_call(other)(api, make_board()))
    if exchange.status != 200:
        raise misfit(exchange) or NotAssessed(
            f"the Card of op {number} (it answered {exchange.status}; see OPERATION-IMPLEMENTED)")
    return exchange


@pytest.mark.parametrize("number", per_operation("CARD-FIELD-TYPES", CARD_OPS))
def test_card_fields_have_the_stated_types(number, answer):
    """id, name, url, createdFlair are strings; columns {id, name}; metadata {id, value}."""
    checks.assert_ok(number, answer.json(), answer, "CARD-FIELD-TYPES")


@pytest.mark.parametrize("number", per_operation("CARD-URL-FLAIR", CARD_OPS))
def test_card_carries_url_and_created_flair(number, answer):
    """Card-returning responses have the properties createdFlair and url."""
    checks.assert_ok(number, answer.json(), answer, "CARD-URL-FLAIR")


@pytest.mark.parametrize("number", per_operation("CARD-PLUGINS-PROJECTS", CARD_OPS))
def test_card_carries_plugins_and_projects(number, answer):
    """Card-returning responses carry the properties plugins and projects (shapes not shown)."""
    checks.assert_ok(number, answer.json(), answer, "CARD-PLUGINS-PROJECTS")


@pytest.mark.read_only
@pytest.mark.requirement("CARD-CREATE")
def test_created_card_is_placed_in_its_column(board):
    """A card created by op 15 has its name and lists the column it was created in."""
    card, column = board.cards[0], board.columns[0]
    body = card.body
    expect.equal("CARD-CREATE", "the card's name", card.name, body.get("name"), card.exchange)
    columns = body.get("columns")
    ids = [str(c.get("id")) for c in columns if isinstance(c, dict)] \
        if isinstance(columns, list) else []
    if column.id not in ids:
        expect.fail("CARD-CREATE", f"column {column.id} among the card's columns",
                    card.exchange, got=f"columns {columns!r}")


@pytest.mark.requirement("CARD-CREATE")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=15)
def test_created_card_joins_its_column(api, wide_board, ledger):
    """A card created by op 15 in the middle column of the middle row (which holds three) is
    there with its name and column, and nothing else on the board changed."""
    oracle, project, column = modelled(api, wide_board), wide_board.project, wide_board.column
    name = unique("card")
    exchange = api.call(15, projectId=project.id, columnId=column.id,
                        json=profile_body(api.profile, "create_card", wide_board, name=name))
    body = expect.success(exchange, 15, "CARD-CREATE")
    entry = ledger.created("card", project.entry, answer=body, projectId=project.id)
    if entry is None:
        expect.fail("CARD-CREATE", "the new card's id in op 15's Card", exchange,
                    got="no id")
    oracle.check(oracle.board.create_card(project.id, column.id, entry.id, name), exchange,
                 project.id, entry.id)


@pytest.mark.requirement("CARD-RENAME")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=16)
def test_rename_renames_the_card(api, wide_board_with_metadata):
    """Op 16 answers the Card with the new name; the middle card of three reads it in its
    Project, and nothing else on the board changed (its columns and metadata neither)."""
    board = wide_board_with_metadata
    oracle, project, card = modelled(api, board), board.project.id, board.cards[1]
    new = unique("renamed")
    exchange = api.call(16, projectId=project, cardId=card.id, json={"name": new})
    act, body = expect.written(oracle, exchange, 16, "CARD-RENAME",
                               lambda board: board.rename_card(project, card.id, new))
    expect.equal("CARD-RENAME", "the name op 16 answers", new, _get(body, "name"), exchange)
    oracle.check(act, exchange, project, card.id)


@pytest.mark.requirement("CARD-DELETE-RETURNS-CARD")
def test_card_delete_answers_the_card(api, fresh_board):
    """Op 17 answers 200 with the Card it deleted."""
    card = fresh_board.cards[0]
    exchange = api.call(17, projectId=fresh_board.project.id, cardId=card.id)
    body = expect.success(exchange, 17, "CARD-DELETE-RETURNS-CARD")
    _is_the_card(body, card.id, 17, "CARD-DELETE-RETURNS-CARD", exchange)


@pytest.mark.parametrize("which", [1, 2], ids=["middle", "last"])
@pytest.mark.requirement("CARD-DELETE-GONE")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=17)
def test_deleted_card_is_gone(api, wide_board, ledger, which):
    """After op 17 the card (the middle or the last of three in its column) is no longer in
    its Project's cards and a rename of it (op 16, which answered 200 just before) answers a
    4xx; the other cards, columns and rows are as they were."""
    oracle, project, card = modelled(api, wide_board), wide_board.project.id, \
        wide_board.cards[which]
    name = unique("live")
    live = api.call(16, projectId=project, cardId=card.id, json={"name": name})
    if live.status != 200:
        raise NotAssessed(f"CARD-DELETE-GONE (op 16 answered {live.status} for the card "
                          "before it was deleted, so its refusal after cannot tell)")
    oracle.board.rename_card(project, card.id, name)
    deleted = api.call(17, projectId=project, cardId=card.id)
    act, _ = expect.written(oracle, deleted, 17, "CARD-DELETE-GONE",
                            lambda board: board.delete_card(project, card.id))
    ledger.forget(card.entry)
    exchange = api.call(16, projectId=project, cardId=card.id, json={"name": unique("x")})
    expect.rejected(exchange, "CARD-DELETE-GONE", "a rename of a deleted card")
    oracle.check(act, deleted, project)


def _moves() -> list[Any]:
    return [pytest.param(n, anchor, id=f"op{n}-{anchor}",
                         marks=pytest.mark.requirement("CARD-MOVE-ORDERING-ACCEPTED", op=n))
            for n in (18, 19) for anchor in ANCHORS]


@pytest.mark.parametrize(("number", "anchor"), _moves())
def test_moves_accept_ordering_properties(api, fresh_board, number, anchor):
    """Ops 18 and 19 accept afterCardId and beforeCardId naming cards and answer a Card."""
    moved, other = fresh_board.cards[0].id, fresh_board.cards[2].id
    exchange = _move(api, fresh_board, number, moved, {anchor: other})
    body = expect.success(exchange, number, "CARD-MOVE-ORDERING-ACCEPTED")
    _is_the_card(body, None, number, "CARD-MOVE-ORDERING-ACCEPTED", exchange)


# Names a server that refuses op 18's stated `ids` may take its cards under instead: a body
# accepted under one of them and refused under ids proves the property was renamed.
RENAMED_IDS = ("cardIds", "card_ids", "cards", "cardId")


def _cards_under(api, board: Board, moved: str, prop: str,
                 anchor: dict[str, str]) -> list[dict[str, Any]]:
    """Op 18's bodies with the card to move under `prop`, as a list of ids and as the id alone
    (the type of ids is not shown): the profile's body without the property that carried the
    card and its anchors, its other fields kept."""
    body = profile_body(api.profile, "move_cards", board, card_id=moved, card_ids=[moved])
    kept = {k: v for k, v in body.items() if k not in ANCHORS and v not in ([moved], moved)} \
        if isinstance(body, dict) else {}
    return [kept | {prop: [moved]} | anchor, kept | {prop: moved} | anchor]


@pytest.mark.requirement("CARD-MOVE-IDS")
def test_move_takes_its_cards_under_ids(api, fresh_board):
    """Op 18 takes the cards to move under ids (a list of ids, else one id) and answers a Card;
    refused there but accepted under another name (cardIds, ...) fails."""
    project, moved = fresh_board.project.id, fresh_board.cards[0].id
    anchor = {"afterCardId": fresh_board.cards[2].id}
    refused = []
    for body in _cards_under(api, fresh_board, moved, "ids", anchor):
        exchange = api.call(18, projectId=project, json=body)
        if exchange.status == 200:
            answer = expect.success(exchange, 18, "CARD-MOVE-IDS")
            _is_the_card(answer, None, 18, "CARD-MOVE-IDS", exchange)
            return
        refused.append(exchange)
    statuses = ", ".join(str(e.status) for e in refused)
    for prop in RENAMED_IDS:
        for body in _cards_under(api, fresh_board, moved, prop, anchor):
            other = api.call(18, projectId=project, json=body)
            if other.status == 200:
                raise Violation(f"[CARD-MOVE-IDS] expected op 18 to take its cards under ids; "
                                f"got status {statuses} under ids and 200 under {prop}",
                                ["CARD-MOVE-IDS"], [*refused, other])
    raise NotAssessed(f"op 18 with its cards under ids (answered {statuses}, and no other name "
                      "was accepted either: the refusal may be about another field; set "
                      "bodies.move_cards in your profile)")


def _placements() -> list[Any]:
    return [pytest.param(n, after, id=f"op{n}-{'afterCardId' if after else 'beforeCardId'}",
                         marks=[pytest.mark.requirement("CARD-MOVE-PLACES" if n == 18
                                                        else "CARD-MOVE-BY-METADATA-PLACES"),
                                pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=n)])
            for n in (18, 19) for after in (True, False)]


@pytest.mark.parametrize(("number", "after"), _placements())
def test_moved_card_is_placed_next_to_the_named_card(api, wide_board_with_metadata, number,
                                                     after):
    """After op 18 (op 19: the card chosen by its metadata) with afterCardId the middle of three
    cards sits right after the last; with beforeCardId the last right before the first. The
    other cards keep their order, the moved card its name and metadata, and nothing else on
    the board changed."""
    board = wide_board_with_metadata
    oracle, project, cards = modelled(api, board), board.project.id, board.cards
    moved, anchor = (cards[1], cards[2]) if after else (cards[2], cards[0])
    exchange = _move(api, board, number, moved.id,
                     {"afterCardId" if after else "beforeCardId": anchor.id}, oracle)
    act, _ = expect.written(oracle, exchange, number, "CARD-MOVE-PLACES" if number == 18
                            else "CARD-MOVE-BY-METADATA-PLACES",
                            lambda board: board.move_cards(project, [moved.id],
                                                           anchor.id if after else None,
                                                           None if after else anchor.id,
                                                           op=number))
    oracle.check(act, exchange, project)


@pytest.mark.requirement("CARD-ALIAS")
@pytest.mark.requirement("WRITE-ONLY-ADDRESSED", op=20)
def test_card_can_be_given_an_alias(api, wide_board_with_metadata):
    """Op 20 with the profile's body answers 200 with the Card; the middle card of three keeps
    its name, metadata and column, and nothing else on the board changed."""
    board = wide_board_with_metadata
    oracle, project, card = modelled(api, board), board.project.id, board.cards[1]
    exchange = api.call(20, projectId=project, cardId=card.id,
                        json=profile_body(api.profile, "alias_card", board,
                                          card_id=card.id))
    act, body = expect.written(oracle, exchange, 20, "CARD-ALIAS",
                               lambda board: board.alias_card(project, card.id))
    expect.equal("CARD-ALIAS", "the id of the Card op 20 answers", card.id,
                 str(_get(body, "id")), exchange)
    oracle.check(act, exchange, project, card.id)


def _is_the_card(body: Any, card_id: str | None, number: int, requirement: str,
                 exchange: Exchange) -> None:
    # The Card record of section 2; plugins and projects are CARD-PLUGINS-PROJECTS's business.
    found = [problem for check, problem in checks.problems(number, body)
             if check.requirement != "CARD-PLUGINS-PROJECTS"]
    if found:
        expect.fail(requirement, "a Card", exchange, got="; ".join(found),
                    conditions=[c for p in found for c in checks.conditions(p, exchange)])
    if card_id is not None:
        expect.equal(requirement, "the Card's id", card_id, str(body["id"]), exchange)


def _get(body: Any, field: str) -> Any:
    return body.get(field) if isinstance(body, dict) else None
