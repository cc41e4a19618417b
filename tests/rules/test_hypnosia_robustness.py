"""Hypnosia property tests beyond the generic ones of test_robustness.py: states reached by play with one
pawn moved or the dice changed, and boards one change away from a valid one. Every state the engine
accepts round-trips and is playable; every board it accepts or refuses, the reference model accepts or
refuses too, naming the same field."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

import referee
from helpers.hypnosia_boards import CUSTOM_BOARDS, default_board
from helpers.properties import SETUPS, Branches, assert_playable, examples, played
from rules.reference import hypnosia as model

OPTIONS = {"players": 3, "first_player": "red"}
assert SETUPS["hypnosia"][1] == {"options": OPTIONS}
game = referee.game("hypnosia", options=OPTIONS)
TYPED = (referee.InvalidState, referee.InvalidBoard)
LOCATIONS = ["h1", "h2", "h3", "h4", "0.0", "0.5", "0.7", "1.0", "1.3", "2.1", "2.11", "centre", "captured", "9.9", "0.36"]
BOARDS = [default_board(), *CUSTOM_BOARDS.values()]


def played_3(seed: int, plies: int) -> dict:
    """A reachable state of the 3-player setup (`properties.SETUPS["hypnosia"][1]`, this file's OPTIONS)."""
    return played("hypnosia", 1, seed, plies)


@st.composite
def one_pawn_moved(draw) -> tuple[dict, str]:
    """A reachable state with one pawn moved (or swapped with a pawn of a state a few plies away), or its
    dice changed, or nothing changed."""
    seed, plies = draw(st.integers(0, 2**32 - 1)), draw(st.integers(0, 120))
    state = played_3(seed, plies)
    kind = draw(st.sampled_from(["unchanged", "pawn", "pawn", "nearby pawn", "dice"]))
    if kind == "dice":
        return state | {"dice": draw(st.none() | st.lists(st.integers(0, 7), min_size=1, max_size=2))}, kind
    if kind == "unchanged":
        return state, kind
    colour = draw(st.sampled_from(sorted(state["pawns"])))
    at = draw(st.integers(0, 3))
    if kind == "pawn":
        where = draw(st.sampled_from(LOCATIONS))
    else:
        where = played_3(seed, plies + draw(st.integers(1, 4)))["pawns"][colour][at]
    pawns = list(state["pawns"][colour])
    pawns[at] = where
    return state | {"pawns": state["pawns"] | {colour: pawns}}, kind


def test_every_accepted_state_is_playable_and_round_trips() -> None:
    branches = Branches()

    @examples(200)
    @given(drawn=one_pawn_moved(), move=st.sampled_from(["roll", "pass", "5-4", "6-6: pass", "h1+5", "D0.5^1"]))
    def check(drawn, move: str) -> None:
        state, kind = drawn
        try:
            accepted = game.check(state)
        except TYPED as error:
            assert error.detail and error.data["field"].split(".")[0].split("[")[0] in ("pawns", "dice", "captures", "centre", "scores", "to_move")
            branches(f"refused:{kind}")
            return
        branches(f"accepted:{kind}")
        assert game.check(accepted) == accepted
        assert game.parse_position(game.position(accepted)) == accepted
        assert_playable(game, accepted)
        verdict = game.validate(accepted, move)
        assert verdict["legal"] or verdict["reason"]["code"] in ("illegal-move", "malformed-move", "game-over")

    check()
    branches.assert_share("accepted", 0.4)


@st.composite
def boards(draw) -> tuple[dict, str]:
    """A valid board, or one with a field taken from another valid board, one number in a field changed,
    a bridge dropped, or a hostile value."""
    board = dict(draw(st.sampled_from(BOARDS)))
    kind = draw(st.sampled_from(["unchanged", "other board's field", "number", "bridge dropped", "hostile"]))
    field = draw(st.sampled_from(sorted(board)))
    if kind == "other board's field":
        board[field] = draw(st.sampled_from(BOARDS))[field]
    elif kind == "number" and isinstance(board[field], list):
        numbers = list(board[field])
        numbers[draw(st.integers(0, len(numbers) - 1))] = draw(st.integers(-2, 40)) if field != "bridges" else \
            {"from": [draw(st.integers(0, 3)), draw(st.integers(0, 36))], "to": draw(st.just("centre") | st.lists(st.integers(0, 24), min_size=2, max_size=2))}
        board[field] = numbers
    elif kind == "bridge dropped":
        bridges = list(board["bridges"])
        del bridges[draw(st.integers(0, len(bridges) - 1))]
        board["bridges"] = bridges
    elif kind == "hostile":
        board[field] = draw(st.none() | st.booleans() | st.integers(-5, 400) | st.text(max_size=4) | st.lists(st.integers(-1, 40), max_size=7))
    return board, kind


def bridge_end_free(field: str | None) -> str | None:
    return field and re.sub(r"(bridges\[\d+\])\.(from|to)$", r"\1", field)


def test_any_board_is_a_game_or_invalid_board_as_the_model_says() -> None:
    branches = Branches()

    @examples(200)
    @given(drawn=boards())
    def check(drawn) -> None:
        board, kind = drawn
        try:
            model.validate_board(board)
            model_field = None
        except model.InvalidBoard as error:
            model_field = error.path
        try:
            custom = referee.game("hypnosia", options={"board": board, "first_player": "red"})
        except referee.InvalidBoard as error:
            # Same field; for a bridge faulty at both ends the order of the checks (unspecified) picks the end.
            assert error.code == "invalid-board" and bridge_end_free(error.data["field"]) == bridge_end_free(model_field), (error.data, model_field)
            branches(f"refused:{kind}")
            return
        assert model_field is None, model_field
        branches(f"accepted:{kind}")
        rolled = custom.play(custom.new(seed=2), "roll")["state"]
        assert_playable(custom, rolled)
        assert len(custom.legal_moves(rolled)) >= 1

    check()
    branches.assert_share("accepted", 0.25)
