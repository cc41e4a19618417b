"""The Rust Iago engine against the independent Python reference model (tests/rules/reference/iago.py):
seeded random games in every variant, agreeing at every ply; the hand-built shapes; perft along
random games (the perft table from the start is tests/rules/perft.json, checked by test_perft.py)."""

from __future__ import annotations

import os
import random

import pytest

import referee
from helpers.iago_shapes import SHAPES
from helpers.properties import END, SETUPS as PROPERTY_SETUPS, playout, setup_game
from rules.reference import iago as model

#: Random games per setup; raise it for a deeper run (e.g. REFEREE_CROSSCHECK_GAMES=2000).
GAMES = int(os.environ.get("REFEREE_CROSSCHECK_GAMES", "60"))
SETUPS = [("standard", False), ("loose", False), ("simple", False), ("standard", True)]


def engine_for(variant: str, penalty: bool) -> referee.Game:
    return referee.game("iago", variant=variant, options={"penalty": penalty})


def assert_same_position(game: referee.Game, state: dict, pos: model.Position) -> None:
    assert game.position(state) == model.format_position(pos)
    outcome = game.outcome(state)
    assert outcome["scores"] == model.scores(pos)
    assert (outcome["status"] == "finished") == model.is_finished(pos)
    assert outcome["winner"] == model.winner(pos)
    assert outcome["to_move"] == (None if model.is_finished(pos) else pos.to_move)


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "penalty"), SETUPS)
def test_random_games_agree_with_the_reference_model(variant: str, penalty: bool) -> None:
    game = engine_for(variant, penalty)
    finished = 0
    for seed in range(GAMES):
        rng = random.Random(f"{variant}-{penalty}-{seed}")
        state, pos = game.new(), model.initial(variant, penalty)
        while True:
            assert_same_position(game, state, pos)
            moves = game.legal_moves(state)
            assert moves == model.legal_moves(pos), model.format_position(pos)
            if not moves:
                finished += 1
                break
            # Every empty hex that is not legal is refused by the engine with a reason.
            for cell in model.empty_cells(pos):
                if cell not in moves:
                    verdict = game.validate(state, cell)
                    assert verdict["legal"] is False and verdict["reason"]["code"] == "illegal-move"
            move = rng.choice(moves)
            result = game.play(state, move)
            pos, effects = model.play(pos, move)
            assert result["effects"]["captured"] == effects["captured"]
            assert result["effects"]["released"] == effects["released"]
            assert result["effects"]["penalty_skip"] == effects["penalty_skip"]
            # The state round-trips through its JSON form and its position notation, and both sides'
            # consistency checks accept it.
            state = result["state"]
            assert game.check(state) == state
            assert game.parse_position(result["position"]) == state
            assert model.refusal(pos) is None, model.format_position(pos)
    assert finished == GAMES


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape["name"])
def test_hand_built_shapes(shape: dict) -> None:
    game = engine_for(shape["variant"], shape["penalty"])
    state = game.parse_position(shape["position"])
    if "legal_moves" in shape:
        assert game.legal_moves(state) == shape["legal_moves"]
    if "scores" in shape:
        outcome = game.outcome(state)
        assert outcome["status"] == "finished"
        assert outcome["scores"] == shape["scores"]
        assert outcome["winner"] == shape["winner"]
    if "move" in shape:
        verdict = game.validate(state, shape["move"])
        assert verdict["legal"] is shape.get("legal", True), verdict
        if verdict["legal"]:
            effects = game.play(state, shape["move"])["effects"]
            assert effects["captured"] == shape["captured"]
            assert effects["released"] == shape["released"]
            assert effects["penalty_skip"] is shape.get("penalty_skip", False)


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "penalty"), SETUPS)
def test_perft_agrees_with_the_model_in_every_variant(variant: str, penalty: bool) -> None:
    # From a mid-game position with captives, where variants differ most.
    rng = random.Random(f"perft-{variant}-{penalty}")
    game, pos = engine_for(variant, penalty), model.initial(variant, penalty)
    for _ in range(14):
        pos, _ = model.play(pos, rng.choice(model.legal_moves(pos)))
    state = game.parse_position(model.format_position(pos))
    assert game.perft(state, 3) == model.perft(pos, 3)


# ------------------------------------------------------------------ consistency checks


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(PROPERTY_SETUPS["iago"])))
def test_every_state_of_seeded_random_games_is_accepted(index: int) -> None:
    """No false refusal: every state a game reaches, in every setup, passes the engine's checks."""
    game = setup_game("iago", index)
    for seed in range(GAMES):
        for state in playout(game, seed, END):
            assert game.check(state) == state, game.position(state)
            assert game.parse_position(game.position(state)) == state


def _one_hex_changed(rng: random.Random, pos: model.Position) -> str:
    """The position with one hex changed, the side to move set by the disc counts (so that the
    consistency checks of the board itself decide), and sometimes a pending claim."""
    board = dict(pos.board)
    board[rng.choice(model.CELLS)] = rng.choice(".BWbw")
    black = sum(1 for c in model.CELLS if board[c] in "Bb")
    white = sum(1 for c in model.CELLS if board[c] in "Ww")
    changed = model.Position(board, "black" if black == white else "white", False, pos.variant, pos.penalty)
    claim = " p" if pos.penalty and rng.random() < 0.2 else ""
    return model.format_position(changed) + claim


@pytest.mark.parametrize(("variant", "penalty"), SETUPS)
def test_the_engine_and_the_model_agree_on_which_boards_to_refuse(variant: str, penalty: bool) -> None:
    """Boards one hex away from reachable ones: the engine refuses exactly those the model refuses,
    and for the same cell when the model blames one."""
    game, verdicts = engine_for(variant, penalty), {"accepted": 0, "refused": 0}
    for seed in range(GAMES):
        rng = random.Random(f"agree-{variant}-{penalty}-{seed}")
        pos = model.initial(variant, penalty)
        while model.legal_moves(pos):
            pos, _ = model.play(pos, rng.choice(model.legal_moves(pos)))
            text = _one_hex_changed(rng, pos)
            refusal = model.refusal(model.parse_position(text, variant, penalty))
            try:
                game.parse_position(text)
            except referee.InvalidState as error:
                assert refusal is not None, (text, error.detail)
                if refusal[0] in model.COORDS:
                    assert error.detail.startswith(refusal[0]) or f"{refusal[0]}," in error.detail, (text, error.detail)
                verdicts["refused"] += 1
                continue
            assert refusal is None, (text, refusal)
            verdicts["accepted"] += 1
    assert min(verdicts.values()) > GAMES, verdicts  # both answers are exercised
