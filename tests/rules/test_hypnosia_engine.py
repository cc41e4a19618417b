"""The Rust Hypnosia engine against the independent Python reference model (tests/rules/reference/hypnosia.py):
seeded random games over every player count, both ``doubles_cross_bridges`` settings and four boards
(the default and three custom ones), agreeing at every ply on the legal moves, the effects, the outcome
and the state projection of the model; hand-built rules-doc shapes; board errors; perft along random
games (the perft table from the start is tests/rules/perft.json, checked by test_perft.py).

Hypnosia has chance: every game passes ``first_player`` and the test supplies every roll itself (drawn
from a seeded Python ``random.Random``), except a few engine-drawn ``roll`` moves that the model mirrors
with the dice the engine drew.
"""

from __future__ import annotations

import os
import random

import pytest

import referee
from referee.errors import GameOver, IllegalMove, MalformedMove
from helpers.hypnosia_boards import BAD_BOARDS, CUSTOM_BOARDS
from rules.reference import hypnosia as model

pytestmark = pytest.mark.skipif("hypnosia" not in referee.games(), reason="the Hypnosia engine is not built yet")

#: Random games per setting (40 settings); raise it for a deeper run (e.g. REFEREE_CROSSCHECK_GAMES=500).
#: The model spends about 0.1-0.5 s per game here, so the default of 20 costs the model some 4 minutes.
GAMES = int(os.environ.get("REFEREE_CROSSCHECK_GAMES", "20"))
BOARDS = {"default": None, **CUSTOM_BOARDS}
SETTINGS = [(players, doubles, board) for players in (2, 3, 4, 5, 6) for doubles in (True, False)
            for board in BOARDS]
#: The state fields the interface page names for comparison (top level of the engine's state JSON).
PROJECTION = ("to_move", "dice", "pawns", "scores", "centre", "captures")
OUTCOME = ("status", "to_move", "scores", "winner", "decided_by")
DIE_EFFECT = ("from", "pawns", "die", "cross", "to", "captured", "centre_points")


def options_for(rng: random.Random, players: int, doubles: bool, board: str) -> dict:
    """Default seats or a seeded random choice of seats, and a seeded first player."""
    if rng.random() < 0.5:
        seats, explicit = list(model.DEFAULT_SEATS[players]), False
    else:
        seats, explicit = sorted(rng.sample(range(6), players)), True
    options = {"players": players, "doubles_cross_bridges": doubles,
               "first_player": model.COLOURS[rng.choice(seats)]}
    if explicit:
        options["seats"] = rng.sample(seats, len(seats))  # any order; stored sorted
    if BOARDS[board] is not None:
        options["board"] = BOARDS[board]
    return options


def engine_for(options: dict) -> referee.Game:
    return referee.game("hypnosia", options=options)


def projection(state: dict) -> dict:
    return {key: state[key] for key in PROJECTION}


def assert_same_position(game: referee.Game, state: dict, pos: model.Position) -> None:
    assert projection(state) == model.projection(pos)
    expected = model.outcome(pos)
    outcome = game.outcome(state)
    assert {key: outcome[key] for key in OUTCOME} == {key: expected[key] for key in OUTCOME}
    # A finished game's outcome carries the ranking (the model's); an ongoing one has none.
    assert outcome.get("ranking") == expected["ranking"]
    assert (expected["ranking"] is not None) == (expected["status"] == "finished")
    assert game.legal_moves(state) == model.legal_moves(pos), model.format_position(pos)
    # The state round-trips through its JSON form and its position notation.
    assert game.check(state) == state
    assert game.parse_position(game.position(state)) == state


def assert_same_effects(engine: dict, expected: dict) -> None:
    for key in ("player", "roll", "drawn", "turn_over", "passed"):
        assert engine[key] == expected[key], key
    assert [{key: move[key] for key in DIE_EFFECT} for move in engine["moves"]] == expected["moves"]


def play_both(game: referee.Game, state: dict, pos: model.Position, move: str) -> tuple[dict, model.Position]:
    """Play ``move`` in the engine and the model; compare effects; return the new state and position."""
    result = game.play(state, move)
    if move == "roll":
        drawn = tuple(result["effects"]["roll"])
        pos, effects = model.play(pos, "roll", drawn=drawn)
        assert result["state"]["dice"] == list(drawn)
    else:
        pos, effects = model.play(pos, move)
    assert_same_effects(result["effects"], effects)
    assert game.parse_position(result["position"]) == result["state"]
    return result["state"], pos


def assert_die_moves_agree(game: referee.Game, state: dict, pos: model.Position) -> None:
    """Every die move the notation allows for the mover's pawns is accepted by the engine iff the model
    accepts it as a single die move (first die move of a legal turn, or the last die's move)."""
    if len(pos.dice) == 2:
        accepted = set(model.first_die_moves(pos))
    else:
        accepted = set(model.legal_moves(pos)) - {"pass"}
    for die in sorted(set(pos.dice) | {1, 6}):
        for dm in model.candidate_die_moves(pos, die):
            move = str(dm)
            verdict = game.validate(state, move)
            assert verdict["legal"] is (move in accepted), (move, verdict)
            if not verdict["legal"]:
                assert verdict["reason"]["code"] == "illegal-move", (move, verdict)


@pytest.mark.slow
@pytest.mark.parametrize(("players", "doubles", "board"), SETTINGS)
def test_random_games_agree_with_the_reference_model(players: int, doubles: bool, board: str) -> None:
    finished = 0
    for seed in range(GAMES):
        rng = random.Random(f"hypnosia-{players}-{doubles}-{board}-{seed}")
        options = options_for(rng, players, doubles, board)
        game = engine_for(options)
        state, pos = game.new(), model.initial(options)
        plies = 0
        while True:
            assert_same_position(game, state, pos)
            if model.is_finished(pos):
                finished += 1
                with pytest.raises(GameOver):
                    game.play(state, "1-1")
                break
            plies += 1
            assert plies < 20_000, "the game does not end"
            a, b = rng.randint(1, 6), rng.randint(1, 6)
            roll, mode = f"{a}-{b}", rng.random()
            if mode < 0.1:
                # The engine draws the roll; the model mirrors the dice it drew.
                state, pos = play_both(game, state, pos, "roll")
                assert_same_position(game, state, pos)
                assert_die_moves_agree(game, state, pos)
                state, pos = play_both(game, state, pos, rng.choice(model.legal_moves(pos)))
            elif mode < 0.4:
                # A roll-prefixed whole turn; the legal turns after that roll are compared first.
                rolled_state, rolled_pos = play_both(game, state, pos, roll)
                assert_same_position(game, rolled_state, rolled_pos)
                turn = rng.choice(model.legal_moves(rolled_pos))
                state, pos = play_both(game, state, pos, f"{roll}: {turn}")
            else:
                # The roll, then the turn whole or step by step.
                state, pos = play_both(game, state, pos, roll)
                assert_same_position(game, state, pos)
                assert_die_moves_agree(game, state, pos)
                turn = rng.choice(model.legal_moves(pos))
                parts = turn.split(" ")
                if mode < 0.7 and len(parts) == 2:
                    state, pos = play_both(game, state, pos, parts[0])
                    assert_same_position(game, state, pos)
                    assert pos.dice is not None and len(pos.dice) == 1
                    assert_die_moves_agree(game, state, pos)
                    state, pos = play_both(game, state, pos, parts[1])
                else:
                    state, pos = play_both(game, state, pos, turn)
    assert finished == GAMES


def test_moves_refused_with_the_right_errors() -> None:
    options = {"players": 2, "first_player": "red"}
    game, pos = engine_for(options), model.initial(options)
    state = game.new()
    for move in ("7-1", "bogus", "h5+1", "0.05+4", "5-4:h1+5", "h2+5  0.3+4"):
        with pytest.raises(MalformedMove):
            game.play(state, move)
        with pytest.raises(model.MalformedMove):
            model.play(pos, move)
    for move in ("h1+5", "pass", "5-4: h1+5"):  # before the roll; a roll-prefixed turn must be whole
        with pytest.raises(IllegalMove):
            game.play(state, move)
        with pytest.raises(model.IllegalMove):
            model.play(pos, move)
    rolled = game.play(state, "5-4")["state"]
    rolled_pos, _ = model.play(pos, "5-4")
    for move in ("6-6", "roll", "h1+6", "pass", "h1+5 0.4+5", "h1+5 h2+5", "0.4+4"):
        with pytest.raises(IllegalMove):
            game.play(rolled, move)
        with pytest.raises(model.IllegalMove):
            model.play(rolled_pos, move)
    for move in ("Dh1+5", "h1^5"):  # refused (as malformed or illegal: the notation page does not say)
        with pytest.raises(Exception) as caught:
            game.play(rolled, move)
        assert getattr(caught.value, "code", None) in ("illegal-move", "malformed-move")
        assert game.validate(rolled, move)["legal"] is False


def test_seeded_new_and_drawn_rolls_are_deterministic() -> None:
    for players in (2, 3, 6):
        game = referee.game("hypnosia", options={"players": players})
        first, again = game.new(seed=7), game.new(seed=7)
        assert first == again
        seated = [model.COLOURS[s] for s in model.DEFAULT_SEATS[players]]
        assert first["to_move"] in seated and first["dice"] is None
        # Drawn rolls: the same state draws the same dice; a seeded game replays identically.
        options = {"players": players, "first_player": first["to_move"]}
        rng = random.Random(players)
        state, pos = first, model.initial(options)
        states = []
        for _ in range(30):
            if model.is_finished(pos):
                break
            one, two = game.play(state, "roll"), game.play(state, "roll")
            assert one == two and one["effects"]["drawn"] is True
            a, b = one["effects"]["roll"]
            assert 1 <= a <= 6 and 1 <= b <= 6
            state, pos = play_both(game, state, pos, "roll")
            assert_same_position(game, state, pos)
            state, pos = play_both(game, state, pos, rng.choice(model.legal_moves(pos)))
            assert_same_position(game, state, pos)
            states.append(state)
        # Replaying the same choices from the same seed gives the same states.
        rng = random.Random(players)
        state, pos = game.new(seed=7), model.initial(options)
        for expected in states:
            state, pos = play_both(game, state, pos, "roll")
            state, pos = play_both(game, state, pos, rng.choice(model.legal_moves(pos)))
            assert state == expected


def test_explicit_seats_are_stored_sorted() -> None:
    options = {"seats": [5, 1, 2], "first_player": "orange"}
    game, pos = engine_for(options), model.initial(options)
    state = game.new()
    assert sorted(state["pawns"]) == sorted(["yellow", "green", "orange"])
    assert_same_position(game, state, pos)
    # Orange (5) -> green (2) -> yellow (1) -> orange.
    order = []
    for _ in range(4):
        order.append(state["to_move"])
        state, pos = play_both(game, state, pos, "1-1")
        state, pos = play_both(game, state, pos, model.legal_moves(pos)[0])
    assert order == ["orange", "green", "yellow", "orange"]


# ---------------------------------------------------------------------------
# Hand-built shapes (the rules doc's "Notes for tests"), set into an engine state through the projection
# fields the interface page says the state carries at its top level.
# ---------------------------------------------------------------------------

TWO = {"players": 2, "first_player": "red"}
HOME = ["h1", "h2", "h3", "h4"]
SHAPES = [
    # name, options, pawns, to_move, dice, centre, captures, moves to try
    ("home exit distances", TWO, {"red": HOME, "blue": HOME}, "blue", (3, 2), (), {},
     ["h1+2", "h2+3", "h3+3", "h3+2", "h4+3"]),
    ("land on a bridge then cross", TWO, {"red": ["0.2", "centre", "centre", "captured"], "blue": HOME},
     "red", (3, 4), ("red", "red"), {"blue": 1}, ["0.2+3 0.5^4", "0.2+3", "0.2+4 0.6+3", "0.2^3"]),
    ("pass over a bridge", TWO, {"red": ["0.3", "centre", "centre", "captured"], "blue": HOME},
     "red", (4, 1), ("red", "red"), {"blue": 1}, ["0.3+4", "0.3^4", "0.3+1 0.4+4"]),
    ("single captures single", TWO, {"red": ["0.10", "h2", "h3", "h4"], "blue": ["0.13", "h2", "h3", "h4"]},
     "red", (3, 3), (), {}, ["0.10+3"]),
    ("single on enemy double", TWO, {"red": ["0.10", "h2", "h3", "h4"], "blue": ["0.13", "0.13", "h3", "h4"]},
     "red", (3, 3), (), {}, ["0.10+3", "h3+3"]),
    ("double captures double", TWO, {"red": ["0.10", "0.10", "h3", "h4"], "blue": ["0.13", "0.13", "h3", "h4"]},
     "red", (3, 3), (), {}, ["D0.10+3", "0.10+3"]),
    ("stacking limit", TWO, {"red": ["0.10", "0.10", "0.13", "h4"], "blue": HOME},
     "red", (3, 1), (), {}, ["D0.10+3", "0.10+3", "0.13+1", "D0.10+1"]),
    ("double into the centre, one slot", TWO,
     {"red": ["2.1", "2.1", "centre", "centre"], "blue": ["centre", "centre", "h3", "h4"]},
     "red", (1, 3), ("red", "blue", "blue", "red"), {}, ["D2.1^1", "2.1^1", "2.1^1 2.1+3"]),
    ("game-ending move uses every die", TWO,
     {"red": ["2.1", "centre", "centre", "captured"], "blue": ["centre", "captured", "captured", "captured"]},
     "red", (1, 3), ("red", "blue", "red"), {"red": 3, "blue": 1}, ["2.1^1", "2.1+1"]),
    ("forced use of both dice", TWO,
     {"red": ["0.0", "captured", "captured", "captured"], "blue": ["0.9", "0.9", "h3", "h4"]},
     "red", (4, 5), (), {"blue": 3}, ["0.0+4", "0.0+5", "0.0+5 0.5^4"]),
    ("no die usable", TWO,
     {"red": ["0.6", "captured", "captured", "captured"], "blue": ["0.12", "0.12", "h3", "h4"]},
     "red", (6, 6), (), {"blue": 3}, ["pass", "0.6+6"]),
    ("negative scores", TWO,
     {"red": ["0.10", "0.10", "h3", "h4"], "blue": ["0.12", "0.12", "captured", "captured"]},
     "red", (2, 1), (), {"red": 2}, ["D0.10+2 0.12+1", "D0.10+2"]),
    ("doubles may not cross (variant)", {**TWO, "doubles_cross_bridges": False},
     {"red": ["0.5", "0.5", "h3", "h4"], "blue": HOME}, "red", (3, 6), (), {}, ["D0.5^3", "0.5^3", "D0.5+6"]),
    ("last die mid-turn", TWO, {"red": ["0.0", "0.5", "h3", "h4"], "blue": HOME}, "red", (4,), (), {},
     ["0.5^4", "h3+4", "0.0+4 0.4+1"]),
]


def engine_state_for(game: referee.Game, pos: model.Position) -> dict:
    state = game.new()
    state.update(model.projection(pos))
    return game.check(state)


@pytest.mark.parametrize("shape", SHAPES, ids=[shape[0] for shape in SHAPES])
def test_hand_built_shapes(shape: tuple) -> None:
    _, options, pawns, to_move, dice, centre, captures, moves = shape
    pos = model.make_position(options, pawns, to_move, dice, centre, captures)
    game = engine_for(options)
    state = engine_state_for(game, pos)
    assert_same_position(game, state, pos)
    assert_die_moves_agree(game, state, pos)
    for move in moves:
        legal = model.is_legal(pos, move)
        verdict = game.validate(state, move)
        assert verdict["legal"] is legal, (move, verdict)
        if legal:
            after_state, after_pos = play_both(game, state, pos, move)
            assert_same_position(game, after_state, after_pos)
        else:
            with pytest.raises(IllegalMove):
                game.play(state, move)


def test_finished_shapes_rank_as_the_model() -> None:
    board = {**BOARDS["two-circles"], "centre_points": [2, 0, 0, 0, 1]}
    options = {"players": 3, "board": board, "first_player": "red"}
    pos = model.make_position(options, {"red": ["centre", "centre", "captured", "captured"],
                                        "green": ["h1", "h2", "0.2", "0.4"],
                                        "purple": ["centre", "centre", "centre", "0.15"]},
                              None, centre=("purple", "red", "purple", "purple", "red"), captures={"green": 2})
    game = engine_for(options)
    state = engine_state_for(game, pos)
    assert_same_position(game, state, pos)
    assert game.outcome(state)["decided_by"] == "first_to_centre"


# ---------------------------------------------------------------------------
# Board validation
# ---------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "board", "path"), BAD_BOARDS, ids=[b[0] for b in BAD_BOARDS])
def test_each_board_validation_error(name: str, board, path: str) -> None:
    with pytest.raises(Exception) as caught:
        referee.game("hypnosia", options={"players": 2, "first_player": "red", "board": board}).new()
    error = caught.value
    assert getattr(error, "code", None) == "invalid-board", error
    assert path in f"{error.detail} {error.data}", error


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_custom_boards_are_accepted(board: str) -> None:
    options = {"players": 6, "first_player": "red"}
    if BOARDS[board] is not None:
        options["board"] = BOARDS[board]
    state = engine_for(options).new()
    assert projection(state) == model.projection(model.initial(options))


# ---------------------------------------------------------------------------
# Perft
# ---------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize(("players", "doubles", "board"), SETTINGS)
def test_perft_agrees_with_the_model(players: int, doubles: bool, board: str) -> None:
    rng = random.Random(f"perft-{players}-{doubles}-{board}")
    options = options_for(rng, players, doubles, board)
    game, pos = engine_for(options), model.initial(options)
    state = game.new()
    assert game.perft(state, 1) == model.perft(pos, 1)
    # A mid-game position reached through the same turns, before and after a roll.
    for _ in range(rng.randint(6, 24)):
        if model.is_finished(pos):
            break
        roll = f"{rng.randint(1, 6)}-{rng.randint(1, 6)}"
        state, pos = play_both(game, state, pos, roll)
        state, pos = play_both(game, state, pos, rng.choice(model.legal_moves(pos)))
    assert game.perft(state, 1) == model.perft(pos, 1)
    if not model.is_finished(pos):
        state, pos = play_both(game, state, pos, f"{rng.randint(1, 6)}-{rng.randint(1, 6)}")
        assert game.perft(state, 1) == model.perft(pos, 1)
        assert game.perft(state, 2) == model.perft(pos, 2)
