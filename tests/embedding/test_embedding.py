"""The embedding API: `referee.game(...)`, typed exceptions with stable codes, batch calls (its types and\nstubs: test_types.py)."""

from __future__ import annotations

import random

import pytest

import referee
from referee import _core
from helpers.games import FACTS

CAPTURE = "...../....../......./......../......WB./......../......./....../..... b"


def test_a_game_from_new_to_the_end() -> None:
    game = referee.game("iago")
    state, rng, plies = game.new(seed=7), random.Random(7), 0
    while moves := game.legal_moves(state):
        result = game.play(state, rng.choice(moves))
        state, plies = result["state"], plies + 1
    outcome = game.outcome(state)
    assert outcome["status"] == "finished" and outcome["winner"] in ("black", "white") and plies <= 61


def test_errors_are_typed_with_stable_codes() -> None:
    game = referee.game("iago")
    cases = [
        (lambda: game.play(CAPTURE, "d4"), referee.IllegalMove, "illegal-move"),
        (lambda: game.play(CAPTURE, "k4"), referee.MalformedMove, "malformed-move"),
        (lambda: game.play(CAPTURE, "e6", player="white"), referee.NotYourTurn, "not-your-turn"),
        (lambda: game.play({"rules": "iago@9"}, "e6"), referee.InvalidState, "invalid-state"),
        (lambda: game.legal_moves("not a position"), referee.InvalidState, "invalid-state"),
        (lambda: referee.game("iago", variant="loose", options={"penalty": True}), referee.InvalidOptions, "invalid-options"),
        (lambda: referee.game("go"), referee.UnknownGame, "unknown-game"),
    ]
    for call, error_type, code in cases:
        with pytest.raises(error_type) as caught:
            call()
        assert caught.value.code == code and isinstance(caught.value, referee.RefereeError)
        assert caught.value.as_reason()["code"] == code
    with pytest.raises(referee.IllegalMove) as caught:
        game.play(CAPTURE, "d4")
    assert caught.value.rule == "forced-capture" and caught.value.data["cells"] == ["e6"]


def test_states_may_be_position_strings_of_the_games_setup() -> None:
    loose = referee.game("iago", variant="loose")
    assert "d4" in loose.legal_moves(CAPTURE)  # no forced capture in loose
    assert referee.game("iago").legal_moves(CAPTURE) == ["e6"]
    state = loose.parse_position(CAPTURE)
    assert state["variant"] == "loose" and loose.position(state) == CAPTURE and loose.check(CAPTURE) == state
    assert loose.setup == {"variant": "loose", "options": {"penalty": False}}


def test_validate_never_raises_for_a_move() -> None:
    game = referee.game("iago")
    assert game.validate(CAPTURE, "e6") == {"legal": True}
    assert game.validate(CAPTURE, "d4")["reason"]["rule"] == "forced-capture"
    assert game.validate(CAPTURE, "")["reason"]["code"] == "malformed-move"


def test_replay_and_its_first_illegal_ply() -> None:
    game = referee.game("iago")
    assert game.replay(["e4", "e6"])["legal"] is True
    failed = game.replay(iter(["e4", "e5"]))
    assert (failed["legal"], failed["ply"], failed["reason"]["rule"]) == (False, 1, "centre-needs-flip")


def test_validate_batch_keeps_order_and_isolates_bad_items() -> None:
    game = referee.game("iago")
    state = game.parse_position(CAPTURE)
    items = [{"state": state, "move": move} for move in ["e6", "d4", "zz"] * 2000]
    items[5] = {"state": {"rules": "?"}, "move": "e6"}
    items[6] = {"move": "e6"}
    items[7] = "e6"
    results = game.validate_batch(items)
    assert len(results) == 6000
    assert results[0] == {"legal": True} and results[3] == {"legal": True}
    assert results[1]["reason"]["rule"] == "forced-capture" and results[2]["reason"]["code"] == "malformed-move"
    assert results[5]["error"]["code"] == "invalid-state"
    assert results[6]["error"]["code"] == "malformed-request" and results[6]["error"]["errors"][0]["field"] == "state"
    assert results[7]["error"]["errors"] == [{"field": "item", "message": "not a JSON object"}]
    # What JSON cannot carry is refused alone, as null.
    odd = game.validate_batch([items[0], {"state": state, "move": "e6", "player": 2**70}, {"state": {1}, "move": "e6"}])
    not_json = {"error": {"code": "malformed-request", "detail": "item: not a JSON object",
                          "errors": [{"field": "item", "message": "not a JSON object"}]}}
    assert odd == [{"legal": True}, not_json, not_json]
    assert results[5999]["reason"]["code"] == "malformed-move"
    with_state = game.validate_batch(items[:1], with_state=True)[0]
    assert with_state["effects"]["captured"] == ["e7"] and with_state["state"]["to_move"] == "white"


def test_every_game_is_built() -> None:
    # The stubs of the native module are checked against it in test_types.py (stubtest).
    assert referee.games() == _core.games() == list(FACTS)  # the table spells them (test_one_list.py)
