"""Hypnosia property tests: any JSON state, position text, move or board gets a result or a typed
error, never anything else; and every state the engine answers is accepted back unchanged."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import referee
from properties import assert_position_round_trips

game = referee.game("hypnosia", options={"players": 3, "first_player": "red"})
BASE = game.new(seed=1)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=7) | st.dictionaries(st.text(max_size=10), children, max_size=6),
    max_leaves=30,
)
STATE_KEYS = st.sampled_from(list(BASE))
BOARD_KEYS = st.sampled_from(["circles", "entries", "bridges", "centre_points", "home_length", "extra"])
LOCATIONS = st.sampled_from(["h1", "h2", "h3", "h4", "0.0", "0.5", "1.0", "2.1", "centre", "captured", "9.9"])
MOVES = st.sampled_from(["roll", "pass", "5-4", "6-6: pass", "h1+5", "D0.5^1", "2.1^1", "h1+6 0.5^2"]) | st.text(max_size=10)
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
TYPED = (referee.InvalidState, referee.InvalidBoard)


@SETTINGS
@given(change=st.dictionaries(STATE_KEYS, JSON, max_size=3), move=MOVES)
def test_any_state_change_is_a_verdict_or_a_typed_error(change: dict, move: str) -> None:
    try:
        verdict = game.validate(BASE | change, move)
    except TYPED as error:
        assert error.detail and error.data["field"]
    else:
        assert isinstance(verdict["legal"], bool)


@SETTINGS
@given(pawns=st.lists(st.lists(LOCATIONS, min_size=4, max_size=4), min_size=3, max_size=3),
       dice=st.none() | st.lists(st.integers(1, 6), min_size=1, max_size=2), move=MOVES)
def test_every_accepted_state_is_playable_and_round_trips(pawns, dice, move: str) -> None:
    state = BASE | {"pawns": dict(zip(["red", "green", "purple"], pawns)), "dice": dice}
    lost = sum(p.count("captured") for p in pawns)
    state["captures"] = {"red": lost if lost <= sum(p.count("captured") for p in pawns[1:]) else 0, "green": 0, "purple": 0}
    try:
        state = game.check(state)
    except TYPED:
        return
    assert game.check(state) == state
    assert game.parse_position(game.position(state)) == state
    for legal in game.legal_moves(state):
        result = game.play(state, legal)
        assert game.check(result["state"]) == result["state"]
    game.validate(state, move)


@SETTINGS
@given(text=st.text(alphabet="rgpb:h1234.05,/ -centrcapud789", max_size=70))
def test_any_position_text_is_a_state_or_invalid_state(text: str) -> None:
    assert_position_round_trips(game, text, TYPED)


@SETTINGS
@given(change=st.dictionaries(BOARD_KEYS, JSON, max_size=3))
def test_any_board_is_a_game_or_invalid_board(change: dict) -> None:
    board = dict(game.setup["options"]["board"]) | change
    try:
        custom = referee.game("hypnosia", options={"board": board})
    except referee.InvalidBoard as error:
        assert error.code == "invalid-board" and error.data["field"].startswith("board")
        return
    except referee.InvalidOptions as error:  # not JSON the engine can hold (an integer beyond 64 bits)
        assert error.data["field"] == "setup"
        return
    state = custom.new(seed=2)
    assert custom.legal_moves(custom.play(state, "roll")["state"]) is not None
