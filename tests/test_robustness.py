"""Property tests: whatever a client sends as a state, a move or a position, the engine answers with a
result or a typed error, never anything else; and every state it accepts is fully playable."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import referee
from properties import assert_position_round_trips, assert_verdict_or_invalid_state

game = referee.game("iago", options={"penalty": True})
ROW_LENGTHS = [5, 6, 7, 8, 9, 8, 7, 6, 5]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=9) | st.dictionaries(st.text(max_size=12), children, max_size=7),
    max_leaves=40,
)
STATE_KEYS = st.sampled_from(["rules", "variant", "options", "board", "to_move", "penalty_claim"])
boards = st.tuples(*(st.text(alphabet=".BWbw", min_size=n, max_size=n) for n in ROW_LENGTHS)).map(list)
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


@SETTINGS
@given(state=JSON | st.dictionaries(STATE_KEYS, JSON), move=st.text(max_size=8))
def test_any_json_state_is_a_result_or_invalid_state(state, move: str) -> None:
    assert_verdict_or_invalid_state(game, state, move)


@SETTINGS
@given(text=st.text(max_size=90))
def test_any_position_text_is_a_state_or_invalid_state(text: str) -> None:
    assert_position_round_trips(game, text)


@SETTINGS
@given(board=boards, to_move=st.sampled_from(["black", "white", None]), claim=st.booleans(),
       variant=st.sampled_from(["standard", "loose", "simple"]))
def test_every_accepted_board_is_playable(board, to_move: str | None, claim: bool, variant: str) -> None:
    if to_move is None:  # the side the disc counts call for, so that more boards are accepted
        black = sum(row.count("B") + row.count("b") for row in board)
        to_move = "black" if black == sum(row.count("W") + row.count("w") for row in board) else "white"
    state = {"rules": "iago@1", "variant": variant, "options": {"penalty": variant == "standard"},
             "board": board, "to_move": to_move, "penalty_claim": claim}
    try:
        state = game.check(state)
    except referee.InvalidState as error:
        assert error.data["field"] in ("board", "to_move", "penalty_claim")
        return
    moves = game.legal_moves(state)
    assert bool(moves) == (game.outcome(state)["status"] == "ongoing")
    for move in moves:
        result = game.play(state, move)
        assert game.check(result["state"]) == result["state"]  # every answered state is accepted back
