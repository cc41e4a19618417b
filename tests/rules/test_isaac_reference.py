"""Tests of the naive Isaac reference model (tests/rules/reference/isaac.py): hand-built shapes, notation,
perft and seeded random playouts."""

import random

import pytest

from helpers.isaac_shapes import SHAPES
from rules.reference import isaac

SETUPS = [(fp, ss) for fp in isaac.FIRST_PLAYER_OPTIONS for ss in isaac.SCORING_STARTS_OPTIONS]

def _options(shape):
    return shape.get("options", {})


# ---------------------------------------------------------------------------
# Geometry and notation
# ---------------------------------------------------------------------------

def test_markers_and_cells():
    assert isaac.marker_cell("black", 0) == (0, 0)          # a1
    assert isaac.marker_cell("black", 99) == (9, 9)         # j10
    assert isaac.marker_cell("white", 0) == (9, 9)          # j10
    assert isaac.marker_cell("white", 99) == (0, 0)         # a1
    assert isaac.cell_name(*isaac.marker_cell("black", 37)) == "h4"
    assert isaac.cell_name(*isaac.marker_cell("white", 37)) == "c7"   # 99 - 37 = 62
    assert isaac.marker_cell("black", 100) is None
    for b in range(100):
        for w in range(100):
            same = isaac.marker_cell("black", b) == isaac.marker_cell("white", w)
            assert same == (b + w == 99)


def test_cell_notation_round_trip():
    for row in range(10):
        for col in range(10):
            assert isaac.parse_cell(isaac.cell_name(col, row)) == (col, row)
    for bad in ("a0", "a11", "k1", "a01", "A1", "", "a", "1a"):
        with pytest.raises(ValueError):
            isaac.parse_cell(bad)


def test_piece_notation_round_trip():
    moves = isaac.legal_moves(isaac.initial())
    assert len(set(moves)) == 600
    for move in moves:
        kind, col, row, horizontal, length = isaac.parse_move(move)
        assert kind == "place"
        assert isaac.Piece("black", col, row, horizontal, length).name() == move
        assert isaac.parse_move("x" + move + "+17") == ("remove", col, row, horizontal, length, 17)
    assert isaac.parse_move("c4-g4") == ("place", 2, 3, True, 5)
    assert isaac.parse_move("d2-d8") == ("place", 3, 1, False, 7)
    assert isaac.parse_move("xc4-g4+12") == ("remove", 2, 3, True, 5, 12)
    assert isaac.parse_move("xc4-g4+0") == ("remove", 2, 3, True, 5, 0)
    assert isaac.parse_move("pass") == ("pass",)


@pytest.mark.parametrize("bad", [
    "", "Pass", "PASS", "g4-c4", "a1-b1", "a1-h1", "a1-a10", "a1-c2", "a0-c0", "k1-m1", "a01-c01",
    "a1-c1-e1", "a1c1", "xa1-c1", "xa1-c1+", "xa1-c1+01", "xa1-c1+-1", "xa1-c1+1.0", "a1-c1+2",
    "x a1-c1+2", "xa1-c1+2 ", " a1-c1", "xc1-a1+0", "xa1-b1+0",
])
def test_malformed_moves(bad):
    with pytest.raises(ValueError):
        isaac.parse_move(bad)
    with pytest.raises(ValueError):
        isaac.play(isaac.initial(), bad)


def test_initial_position():
    pos = isaac.initial()
    assert isaac.format_position(pos) == "- placement b 0,0 - - -/-"
    assert isaac.parse_position("- placement b 0,0 - - -/-") == pos
    white = isaac.initial("white")
    assert isaac.format_position(white) == "- placement w 0,0 - - -/-"
    assert isaac.parse_position("- placement w 0,0 - - -/-", "white") == white
    assert isaac.outcome(pos) == {"status": "ongoing", "to_move": "black", "scores": {"black": 0, "white": 0},
                                  "winner": None, "decided_by": None}
    for player in isaac.PLAYERS:
        assert isaac.unplaced(pos, player) == {3: 5, 4: 4, 5: 3, 6: 2, 7: 1}
        assert isaac.unplaced_cells(pos, player) == 65
        assert isaac.unplaced_count(pos, player) == 15
    with pytest.raises(ValueError):
        isaac.initial("red")
    with pytest.raises(ValueError):
        isaac.initial("black", "never")


@pytest.mark.parametrize("bad", [
    "- placement b 0,0 - - -/- x",                     # 8 fields
    "- placement b 0,0 - -/-",                         # 6 fields
    "- placing b 0,0 - - -/-",                         # phase
    "- placement x 0,0 - - -/-",                       # to move
    "- placement b 0 - - -/-",                         # scores
    "- placement b 0,01 - - -/-",                      # leading zero
    "- placement b 0,0 - x -/-",                       # passed
    "- placement b 0,0 - - -",                         # removed
    "Ba1-b1 placement w 0,0 - - -/-",                  # length 2
    "Bc1-a1 placement w 0,0 - - -/-",                  # ends reversed
    "Xa1-c1 placement w 0,0 - - -/-",                  # colour
    "Ba1-c1,Wb1-b3 placement b 0,0 - - -/-",           # overlap
    "Bd1-f1,Wa1-a3 placement b 0,0 - - -/-",           # not sorted
    "Ba1-g1,Ba2-g2 placement w 0,0 - - -/-",           # two 7s
    "- placement b 3,0 - - 3/-",                       # score in the placement phase
    "- placement b 0,0 - bw -/-",                      # both passed, still placing
    "- placement b 0,0 w - -/-",                       # first to pass without a pass
    "- placement b 0,0 - w -/-",                       # a pass without a first to pass
    "- placement b 0,0 w b -/-",                       # the first to pass did not pass
    "- placement w 0,0 w w -/-",                       # the passed player to move
    "- placement - 0,0 - - -/-",                       # over, but nothing ended it
    "- scoring b 0,0 - - -/-",                         # scoring without a first to pass
    "- scoring b 5,0 b - -/-",                         # a score without a removal
    "- scoring b 5,0 b - 43/-",                        # removals got shorter
    "- scoring b 5,0 b - 38/-",                        # length 8
    "- scoring b 50,49 b - 3/3",                       # markers on one cell
    "- scoring b 100,0 b - 3/-",                       # a winner, yet someone to move
    "- scoring - 50,0 b - 3/-",                        # nobody to move, game not over
    "- scoring - 100,100 b - 3/3",                     # two winners
    "- scoring b 0,0 b bw -/-",                        # both out, yet someone to move
])
def test_bad_positions(bad):
    with pytest.raises(ValueError):
        isaac.parse_position(bad)


def test_position_is_not_mutated():
    pos = isaac.parse_position(SHAPES[0]["position"])
    text = isaac.format_position(pos)
    isaac.play(pos, "a1-c1")
    assert isaac.format_position(pos) == text


def test_play_after_the_end_raises():
    pos = isaac.parse_position("Wd3-d5,Wa5-c5,Be5-e8 scoring - 108,56 b - 35/45")
    assert isaac.legal_moves(pos) == []
    for move in ("pass", "xe5-e8+0", "a1-c1"):
        with pytest.raises(ValueError):
            isaac.play(pos, move)


# ---------------------------------------------------------------------------
# The empty board (rules' note: 2 * 10 * (11 - L) placements per length, 600 in all)
# ---------------------------------------------------------------------------

def test_empty_board_placements():
    moves = isaac.legal_moves(isaac.initial())
    assert len(moves) == 600
    lengths = [isaac.parse_move(m)[4] for m in moves]
    for L in range(3, 8):
        assert lengths.count(L) == 2 * 10 * (11 - L)
    assert moves[:3] == ["a1-c1", "b1-d1", "c1-e1"]
    # length 3: 80 horizontals (8 per row, rows in order) then 80 verticals (rows 1..8 start, a..j each)
    assert moves[7] == "h1-j1" and moves[8] == "a2-c2" and moves[79] == "h10-j10"
    assert moves[80] == "a1-a3" and moves[81] == "b1-b3" and moves[159] == "j8-j10"
    assert moves[160] == "a1-d1"
    assert moves[-1] == "j4-j10"
    # order: (length, horizontal first, lower-left index)
    keys = []
    for m in moves:
        _, col, row, horizontal, length = isaac.parse_move(m)
        keys.append((length, not horizontal, row * 10 + col))
    assert keys == sorted(keys)


# ---------------------------------------------------------------------------
# Hand-built shapes
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES, ids=[s["name"] for s in SHAPES])
def test_shape(shape):
    pos = isaac.parse_position(shape["position"], **_options(shape))
    assert isaac.format_position(pos) == shape["position"]
    moves = isaac.legal_moves(pos)
    if "count" in shape:
        assert len(moves) == shape["count"]
    if "compact" in shape:
        assert isaac.compact_moves(pos) == shape["compact"]
        assert moves == isaac.expand_compact(shape["compact"])
    if "move" in shape:
        move = shape["move"]
        if shape.get("legal", True):
            assert move in moves
            nxt, effects = isaac.play(pos, move)
            assert effects == shape["effects"]
            assert isaac.format_position(nxt) == shape["next"]
            assert isaac.parse_position(shape["next"], **_options(shape)) == nxt
            if "outcome" in shape:
                assert isaac.outcome(nxt) == shape["outcome"]
        else:
            assert move not in moves
            with pytest.raises(ValueError):
                isaac.play(pos, move)
    elif "outcome" in shape:
        assert isaac.outcome(pos) == shape["outcome"]


def test_worked_example_numbers():
    # The rules' note: N = 3 (one lying, two crossing), value 3, White's marker in the row: 3 x 3 x 2 = 18.
    pos = isaac.parse_position("Wd3-d5,Wa5-c5,Be5-e8,Bf5-j5 scoring b 10,56 b - 3/45")
    piece = isaac.Piece("black", 5, 4, True, 5)
    assert isaac.removal_points(pos, piece) == {"line": "row 5", "pieces_on_line": 3, "value": 3,
                                                "markers_on_line": 1, "points": 18}


def test_both_markers_and_a_forbidden_advance():
    pos = isaac.parse_position("Wd3-d5,Wa5-c5,Be5-e8,Bf5-j5 scoring b 41,56 b - 3/45")
    moves = isaac.legal_moves(pos)
    assert moves[0] == "xe5-e8+0"
    assert moves[1:] == [f"xf5-j5+{a}" for a in range(37) if a != 2]
    assert isaac.forbidden_advance(pos) == 2


def test_crossing_pieces_counted_once():
    # A vertical removal whose column holds a piece lying along it (c1-c3) and two crossing it (a7-d7,
    # c8-e8, the latter starting in the column); the removed c4-c6 is White's.  Markers: Black 0 on a1,
    # White 0 on j10: column c has none.  N = 3, value 1: 3 points.
    pos = isaac.parse_position("Bc1-c3,Wc4-c6,Ba7-d7,Bc8-e8 scoring w 0,0 b - -/-")
    assert isaac.compact_moves(pos) == ["xc4-c6+0..3"]


# ---------------------------------------------------------------------------
# Perft
# ---------------------------------------------------------------------------

def test_perft_late_positions():
    # From the full board (FULL_SWAP: White's whole set, Black's 7 pieces in g7-j7 and rows 8-10): White's
    # pass then Black's 31 removals, counted by hand: g7-j7 N2 v2 = 4 (5 advances), a8-g8 N1 v6 = 6 (7),
    # h8-j8 N1 v1 = 1 (2), a9-f9 N1 v4 = 4 (5), g9-j9 N1 v2 = 2 (3), a10-f10 N1 v4 x2 (White's marker on
    # j10) = 8 (9); g10-j10 carries White's marker.  5 + 7 + 2 + 5 + 3 + 9 = 31.
    pos = isaac.parse_position(SHAPES[[s["name"] for s in SHAPES].index("last pass ends the placement phase")]
                               ["position"])
    assert isaac.perft(pos, 1) == 1
    assert isaac.perft(pos, 2) == 31
    # A finished game has no moves.
    done = isaac.parse_position("Wd3-d5,Wa5-c5,Be5-e8 scoring - 15,56 b bw 35/7")
    assert isaac.perft(done, 1) == 0 and isaac.perft(done, 3) == 0 and isaac.perft(done, 0) == 1
    # Black alone with the worked example's two pieces (White out): xe5-e8+0 or xf5-j5+0..18, 20 moves.
    # After xe5-e8+0 (a 4), f5-j5 (5) may follow; row 5 then holds a5-c5 and d3-d5 only: 2 x 3 x 2 = 12,
    # 13 ways, then Black has nothing and passes (game over).  After any xf5-j5+a, e5-e8 is too short: pass,
    # game over.
    alone = isaac.parse_position("Wd3-d5,Wa5-c5,Be5-e8,Bf5-j5 scoring b 10,56 b w 3/7")
    assert isaac.perft(alone, 1) == 20
    assert isaac.perft(alone, 2) == 13 + 19
    assert isaac.perft(alone, 3) == 13 + 0
    assert isaac.perft(alone, 4) == 0


# ---------------------------------------------------------------------------
# Random playouts
# ---------------------------------------------------------------------------

def _check_invariants(pos):
    text = isaac.format_position(pos)
    assert isaac.parse_position(text, pos.first_player, pos.scoring_starts) == pos
    # Pieces never overlap and stay inside the board.
    cells = [c for p in pos.pieces for c in p.cells()]
    assert len(cells) == len(set(cells))
    assert all(0 <= c < 10 and 0 <= r < 10 for c, r in cells)
    for player in isaac.PLAYERS:
        left = isaac.unplaced(pos, player)
        assert all(n >= 0 for n in left.values())
        on_board = [p.length for p in pos.pieces if p.owner == player]
        removed = isaac.removed_of(pos, player)
        assert len(on_board) + len(removed) + sum(left.values()) == 15
        assert sum(on_board) + sum(removed) + isaac.unplaced_cells(pos, player) == 65
        assert list(removed) == sorted(removed)
    if not isaac.is_finished(pos):
        assert pos.scores[0] + pos.scores[1] != 99
        assert max(pos.scores) < 100


def _playout(rng, style, first_player, scoring_starts):
    from helpers import isaac_policies

    pos = isaac.initial(first_player, scoring_starts)
    plies = 0
    advances = {"black": 0, "white": 0}
    placement_passes = []
    while not isaac.is_finished(pos):
        _check_invariants(pos)
        moves = isaac.legal_moves(pos)
        assert moves and len(moves) == len(set(moves))
        assert ("pass" in moves) == (moves == ["pass"])
        assert isaac.expand_compact(isaac.compact_moves(pos)) == moves
        assert pos.to_move not in pos.passed
        move = isaac_policies.choose(isaac, style, rng, pos, moves)
        nxt, effects = isaac.play(pos, move)
        assert effects["player"] == pos.to_move
        if effects["kind"] == "place":
            assert pos.phase == "placement" and nxt.phase == "placement"
            assert len(nxt.pieces) == len(pos.pieces) + 1
        elif effects["kind"] == "remove":
            assert pos.phase == "scoring"
            assert 0 <= effects["advance"] <= effects["points"]
            assert effects["points"] == effects["pieces_on_line"] * effects["value"] * 2 ** effects["markers_on_line"]
            advances[pos.to_move] += effects["advance"]
            assert effects["score"] == isaac.score_of(nxt, pos.to_move) == advances[pos.to_move]
            assert len(nxt.pieces) == len(pos.pieces) - 1
        else:
            if pos.phase == "placement":
                placement_passes.append(pos.to_move)
            assert effects["phase_ended"] == (pos.phase == "placement" and nxt.phase == "scoring")
            if effects["phase_ended"]:
                starter = placement_passes[0] if scoring_starts == "first_to_pass" else first_player
                assert nxt.to_move == starter and nxt.passed == () and nxt.first_to_pass == placement_passes[0]
        # Turn order: the other player moves unless they passed in this phase.
        if not isaac.is_finished(nxt) and nxt.phase == pos.phase:
            other = isaac.opponent(pos.to_move)
            assert nxt.to_move == (pos.to_move if other in nxt.passed else other)
        assert nxt.scores[0] >= pos.scores[0] and nxt.scores[1] >= pos.scores[1]
        pos = nxt
        plies += 1
        assert plies <= 30 + 2 + 30 + 2
    _check_invariants(pos)
    assert isaac.legal_moves(pos) == []
    assert pos.phase == "scoring"
    assert sorted(placement_passes) == ["black", "white"]
    result = isaac.outcome(pos)
    assert result["status"] == "finished" and result["to_move"] is None
    assert result["winner"] in isaac.PLAYERS
    if result["decided_by"] == "target":
        assert isaac.score_of(pos, result["winner"]) >= 100
    else:
        assert pos.passed == ("black", "white")
        assert max(pos.scores) < 100
    return result


@pytest.mark.slow
@pytest.mark.parametrize("first_player,scoring_starts", SETUPS)
def test_random_playouts(first_player, scoring_starts):
    from helpers import isaac_policies

    rng = random.Random(f"isaac-{first_player}-{scoring_starts}")
    decided = []
    for game in range(12):
        style = isaac_policies.STYLES[game % len(isaac_policies.STYLES)]
        decided.append(_playout(rng, style, first_player, scoring_starts)["decided_by"])
    assert "score" in decided


@pytest.mark.slow
def test_some_games_reach_100_and_some_end_with_both_out():
    rng = random.Random("isaac-hero")
    decided = [_playout(rng, "hero-black", "black", "first_to_pass")["decided_by"] for _ in range(12)]
    assert "target" in decided
    assert any(d != "target" for d in decided)
