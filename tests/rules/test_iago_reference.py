"""Tests of the naive Iago reference model (tests/rules/reference/iago.py) against hand-built shapes and perft."""

import random

import pytest

from helpers.iago_shapes import SHAPES
from rules.reference import iago


def _disc_counts(pos):
    black = sum(1 for c in iago.CELLS if pos.board[c] in "Bb")
    white = sum(1 for c in iago.CELLS if pos.board[c] in "Ww")
    return black, white


# ---------------------------------------------------------------------------
# Geometry and notation
# ---------------------------------------------------------------------------

def test_geometry():
    assert len(iago.CELLS) == 61
    assert iago.CELLS[:5] == ["a1", "a2", "a3", "a4", "a5"]
    assert iago.CELLS[-5:] == ["i5", "i6", "i7", "i8", "i9"]
    assert [len(r) for r in iago.ROWS] == [5, 6, 7, 8, 9, 8, 7, 6, 5]
    assert len(iago.OUTER) == 24 and len(iago.INNER) == 37
    assert iago.ring("e5") == 0
    assert {c for c in iago.CELLS if iago.ring(c) == 1} == {"d4", "d5", "e4", "e6", "f5", "f6"}
    for corner in ("a1", "a5", "e1", "e9", "i5", "i9"):
        assert sum(1 for line in iago.RAYS[corner] if line) == 3


def test_initial_notation():
    pos = iago.initial()
    assert iago.format_position(pos) == "...../....../......./......../........./......../......./....../..... b"
    assert iago.parse_position(iago.format_position(pos)) == pos


def test_bad_options_and_notation():
    with pytest.raises(ValueError):
        iago.initial("loose", penalty=True)
    with pytest.raises(ValueError):
        iago.initial("simple", penalty=True)
    with pytest.raises(ValueError):
        iago.initial("bogus")
    empty = "...../....../......./......../........./......../......./....../....."
    with pytest.raises(ValueError):
        iago.parse_position(empty + " w p")  # claim without the option
    with pytest.raises(ValueError):
        iago.parse_position(empty + " x")
    with pytest.raises(ValueError):
        iago.parse_position(empty[:-1] + " b")
    with pytest.raises(ValueError):
        iago.parse_position(empty.replace(".", "X", 1) + " b")
    pos = iago.parse_position(empty + " w p", penalty=True)
    assert pos.penalty_claim and pos.to_move == "white"
    assert iago.format_position(pos) == empty + " w p"


def test_illegal_move_raises():
    pos = iago.initial()
    for bad in ("e5", "a1", "z9", "e0", ""):
        with pytest.raises(ValueError):
            iago.play(pos, bad)
    nxt, _ = iago.play(pos, "e4")
    with pytest.raises(ValueError):
        iago.play(nxt, "e4")  # occupied


# ---------------------------------------------------------------------------
# Hand-built shapes
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES, ids=[s["name"] for s in SHAPES])
def test_shape(shape):
    pos = iago.parse_position(shape["position"], shape["variant"], shape["penalty"])
    assert iago.format_position(pos) == shape["position"]
    assert iago.refusal(pos) is None  # every shape is one some game could reach, as far as checks go

    if "legal_moves" in shape:
        assert iago.legal_moves(pos) == shape["legal_moves"]

    if "move" in shape:
        move = shape["move"]
        # The flips themselves are checked whether or not the move is legal.
        captured, released = iago.flips(pos, move)
        assert captured == shape["captured"]
        assert released == shape["released"]
        assert iago.capture_count(pos, move) == len(shape["captured"])
        if shape.get("legal", True):
            assert move in iago.legal_moves(pos)
            nxt, effects = iago.play(pos, move)
            assert effects == {"captured": shape["captured"], "released": shape["released"],
                               "penalty_skip": shape.get("penalty_skip", False)}
            assert nxt.penalty_claim == shape.get("penalty_skip", False)
            assert nxt.to_move != pos.to_move
            mover = iago.face_up_char(pos.to_move)
            assert nxt.board[move] == mover
            for c in iago.CELLS:
                if c == move:
                    continue
                if c in shape["captured"]:
                    assert pos.board[c].isupper() and nxt.board[c] == pos.board[c].lower()
                elif c in shape["released"]:
                    assert pos.board[c].islower() and nxt.board[c] == pos.board[c].upper()
                else:
                    assert nxt.board[c] == pos.board[c]
        else:
            assert move not in iago.legal_moves(pos)
            with pytest.raises(ValueError):
                iago.play(pos, move)

    if "scores" in shape:
        assert iago.is_finished(pos)
        assert iago.legal_moves(pos) == []
        assert iago.scores(pos) == shape["scores"]
        assert iago.winner(pos) == shape["winner"]


def test_shapes_cover_all_variants():
    assert {s["variant"] for s in SHAPES} == {"standard", "loose", "simple"}
    assert any(s["penalty"] for s in SHAPES)


def test_centre_exception_move_finishes_the_game():
    shape = next(s for s in SHAPES if s["name"] == "centre exception")
    pos = iago.parse_position(shape["position"])
    nxt, _ = iago.play(pos, "e5")
    assert iago.is_finished(nxt)
    assert iago.legal_moves(nxt) == []
    # Black: only e5 face up (inner 1, outer 0 -> 1); White: the 18 ring-3 discs (outer 0 -> 1).
    assert iago.scores(nxt) == {"black": 1, "white": 18}
    assert iago.winner(nxt) == "white"
    # The centre shows a flip here (e4 b then e3 b), so this does not need the exception's exemption.
    assert iago.refusal(nxt) is None


def test_claim_lapses_after_one_turn():
    shape = next(s for s in SHAPES if s["name"] == "penalty claim on an outer hex with no flip")
    pos = iago.parse_position(shape["position"], penalty=True)
    nxt, effects = iago.play(pos, "a3")
    assert not effects["penalty_skip"] and not nxt.penalty_claim
    assert iago.format_position(nxt).endswith(" b")


# ---------------------------------------------------------------------------
# Perft
# ---------------------------------------------------------------------------

def test_perft_standard():
    pos = iago.initial()
    assert iago.perft(pos, 0) == 1
    assert iago.perft(pos, 1) == 36
    assert iago.perft(pos, 2) == 1260
    # Depth 3 by hand: Black's second move is forced (one capture) for each of the 168 ordered
    # adjacent pairs (black X, white Y) of inner non-centre hexes (84 edges), else any of 34 hexes:
    # 168 * 1 + (1260 - 168) * 34 = 37296.
    assert iago.perft(pos, 3) == 37296


@pytest.mark.parametrize("variant,penalty", [("loose", False), ("simple", False), ("standard", True)])
def test_perft_variants_shallow(variant, penalty):
    pos = iago.initial(variant, penalty)
    assert iago.perft(pos, 1) == 36
    assert iago.perft(pos, 2) == 1260


def test_perft_variants_depth3():
    # Simple: same as standard at this depth (no captives yet to release).
    assert iago.perft(iago.initial("simple"), 3) == 37296
    # Loose (and standard+penalty, where the rule-2 set is always allowed besides the maxima):
    # Black's second move is any of the 34 empty inner non-centre hexes, plus the capturing hex
    # P = 2Y - X when it is outer or the centre: Y on ring 3 with P outside (6 ring-3 corners x 3
    # + 12 other ring-3 hexes x 2 = 42) or Y on ring 1 with X beyond it on ring 2 (6).
    # 1260 * 34 + 48 = 42888.
    assert iago.perft(iago.initial("loose"), 3) == 42888
    assert iago.perft(iago.initial("standard", True), 3) == 42888


# ---------------------------------------------------------------------------
# Random playouts
# ---------------------------------------------------------------------------

def _playout(rng, variant, penalty):
    pos = iago.initial(variant, penalty)
    placed = {"black": 0, "white": 0}
    plies = 0
    while not iago.is_finished(pos):
        text = iago.format_position(pos)
        assert iago.parse_position(text, variant, penalty) == pos
        assert iago.format_position(iago.parse_position(text, variant, penalty)) == text
        moves = iago.legal_moves(pos)
        assert moves, text  # never a pass while the game runs
        assert moves == iago.in_cells_order(set(moves))
        assert all(pos.board[m] == "." for m in moves)
        move = rng.choice(moves)
        placed[pos.to_move] += 1
        nxt, effects = iago.play(pos, move)
        if variant == "simple":
            assert effects["released"] == []
        if not penalty:
            assert not effects["penalty_skip"] and not nxt.penalty_claim
        pos = nxt
        plies += 1
    assert placed["black"] <= 31 and placed["white"] <= 30
    assert placed["black"] - placed["white"] in (0, 1)
    assert iago.legal_moves(pos) == []
    assert iago.winner(pos) in ("black", "white")
    assert pos.board[iago.CENTRE] != "."
    black, white = _disc_counts(pos)
    assert (black, white) == (placed["black"], placed["white"])
    s = iago.scores(pos)
    assert s["black"] >= 1 and s["white"] >= 1
    text = iago.format_position(pos)
    assert iago.parse_position(text, variant, penalty) == pos
    return pos, plies


@pytest.mark.slow
@pytest.mark.parametrize("variant,penalty", [("standard", False), ("loose", False),
                                             ("simple", False), ("standard", True)])
def test_random_playouts(variant, penalty):
    rng = random.Random(20240 + len(variant) + penalty)
    for _ in range(6):
        _playout(rng, variant, penalty)


def test_winner_none_while_running():
    rng = random.Random(7)
    pos = iago.initial()
    for _ in range(10):
        assert iago.winner(pos) is None
        pos, _ = iago.play(pos, rng.choice(iago.legal_moves(pos)))


# ---------------------------------------------------------------------------
# Consistency: necessary conditions of reachability
# ---------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "penalty", "blamed"), [
    # The forgeries of issue 14: lone discs on the outer ring and the centre, an unflanked captive.
    ("B..../....../......./......../........./......../......./....../..... w", False, "a1"),
    ("...../....../......./......../....B..../......../......./....../..... w", False, "e5"),
    ("...../....w./..B..../...W..../........./......../..B..../....../..... b", False, "b5"),
    # A captive in a corner: no line has a hex on both sides of it.
    ("...../....../......./...B..../...W...../.....B../......./....../....w b", False, "i9"),
    # With the penalty option a claim may place without a flip, but not before ply 4.
    ("B..../....../......./......../........./......../......./....../..... w", True, "a1"),
])
def test_boards_no_game_reaches_are_refused(text, penalty, blamed):
    assert iago.refusal(iago.parse_position(text, penalty=penalty))[0] == blamed


def test_a_claim_or_the_centre_exception_may_place_without_a_flip():
    # Black d4, White d5, Black skips the capture at d6 for f6, White claims a1 (no flip).
    claimed = iago.parse_position("W..../....../......./...BW.../........./....B.../......./....../..... b", penalty=True)
    assert iago.refusal(claimed) is None
    assert iago.refusal(iago.parse_position(iago.format_position(claimed)))[0] == "a1"  # standard rules
    # Game over, Black moved last, a face-up black centre with white discs on every line from it.
    last = "...../.WBBW./.BWWWB./.BWbbWB./.WWbBbWW./.BWbbWB./.BWWWB./.WBBW./..... w"
    assert iago.refusal(iago.parse_position(last)) is None
    assert iago.refusal(iago.parse_position(last.replace("WWbBbWW", "WWbbbWW")))[0] == "e5"


@pytest.mark.slow
def test_every_state_of_random_games_passes_the_checks():
    for variant, penalty in [("standard", False), ("loose", False), ("simple", False), ("standard", True)]:
        rng, pos = random.Random(f"checks-{variant}-{penalty}"), iago.initial(variant, penalty)
        while iago.legal_moves(pos):
            pos, _ = iago.play(pos, rng.choice(iago.legal_moves(pos)))
            assert iago.refusal(pos) is None, iago.format_position(pos)
