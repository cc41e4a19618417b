"""The Rust Iago engine against the independent Python reference model (tests/reference/iago.py):
seeded random games in every variant, agreeing at every ply; the hand-built shapes; perft along
random games (the perft table from the start is tests/perft.json, checked by test_perft.py)."""

from __future__ import annotations

import os
import random

import pytest

import referee
from iago_shapes import SHAPES
from reference import iago as model

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
            # The state round-trips through its JSON form and its position notation.
            state = result["state"]
            assert game.check(state) == state
            assert game.parse_position(result["position"]) == state
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


@pytest.mark.parametrize(("variant", "penalty"), SETUPS)
def test_perft_agrees_with_the_model_in_every_variant(variant: str, penalty: bool) -> None:
    # From a mid-game position with captives, where variants differ most.
    rng = random.Random(f"perft-{variant}-{penalty}")
    game, pos = engine_for(variant, penalty), model.initial(variant, penalty)
    for _ in range(14):
        pos, _ = model.play(pos, rng.choice(model.legal_moves(pos)))
    state = game.parse_position(model.format_position(pos))
    assert game.perft(state, 3) == model.perft(pos, 3)
