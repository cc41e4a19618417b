"""Tests of the naive Hypnosia reference model (tests/rules/reference/hypnosia.py) alone.

Every expected value below is worked out by hand from docs/rules/hypnosia.md (its rules and its notation); the
comment next to it says how.  Default board: circles [36, 24, 12]; bridges outer 6s+5 -> middle 4s,
middle 4s+3 -> inner 2s, inner 2s+1 -> centre; seat s enters at outer 6s.  Red is seat 0 (entry 0), blue
seat 3 (entry 18) in the default 2-player game.
"""

import copy
import random

import pytest

from helpers import hypnosia_boards
from helpers.hypnosia_boards import BAD_BOARDS, ONE_CIRCLE, SHORT_CIRCLES, TWO_CIRCLES
from rules.reference import hypnosia as H

TWO = {"players": 2}  # red (seat 0) and blue (seat 3)


def pos_of(pawns, to_move="red", dice=None, centre=(), captures=None, **options):
    options = {**TWO, **options}
    return H.make_position(options, pawns, to_move, dice, centre, captures)


def turns(pos):
    return H.legal_moves(pos)


def play_all(pos, *moves):
    for move in moves:
        pos, _ = H.play(pos, move)
    return pos


# ---------------------------------------------------------------------------
# Setup, notation, turn order
# ---------------------------------------------------------------------------

def test_initial_position_and_default_seats():
    for players, seats in H.DEFAULT_SEATS.items():
        pos = H.initial({"players": players, "first_player": "red"})
        assert pos.seats == seats
        assert pos.to_move == "red" and pos.dice is None
        assert H.legal_moves(pos) == ["roll"]
        for colour in pos.colours():
            assert pos.pawns[colour] == ("h1", "h2", "h3", "h4")
        assert H.projection(pos) == {
            "to_move": "red", "dice": None,
            "pawns": {c: ["h1", "h2", "h3", "h4"] for c in pos.colours()},
            "scores": {c: 0 for c in pos.colours()}, "centre": [], "captures": {c: 0 for c in pos.colours()},
        }
        assert H.outcome(pos) == {"status": "ongoing", "to_move": "red", "scores": pos.scores, "winner": None,
                                  "decided_by": None, "ranking": None}


def test_options():
    pos = H.initial({"seats": [5, 1, 2], "first_player": "orange"})
    assert pos.seats == (1, 2, 5) and pos.colours() == ["yellow", "green", "orange"]
    bad = [
        {"players": 1, "first_player": "red"},
        {"players": 7, "first_player": "red"},
        {"players": 3, "seats": [0, 1], "first_player": "red"},
        {"seats": [0, 0], "first_player": "red"},
        {"seats": [0, 6], "first_player": "red"},
        {"players": 2, "first_player": "green"},  # not seated (seats 0, 3)
        {"players": 2},  # the model needs first_player
        {"players": 2, "first_player": "red", "doubles_cross_bridges": 1},
        {"players": 2, "first_player": "red", "colour": "x"},
    ]
    for options in bad:
        with pytest.raises(ValueError):
            H.initial(options)


def test_default_board_matches_the_rules_doc():
    board = H.validate_board(H.default_board())
    assert board.circles == (36, 24, 12) and board.entries == (0, 6, 12, 18, 24, 30)
    assert len(board.bridges) == 18
    assert board.bridges[(0, 5)] == (1, 0) and board.bridges[(0, 35)] == (1, 20)
    assert board.bridges[(1, 3)] == (2, 0) and board.bridges[(1, 23)] == (2, 10)
    assert board.bridges[(2, 1)] == "centre" and board.bridges[(2, 11)] == "centre"
    assert H.default_board()["bridges"][0] == {"from": [0, 5], "to": [1, 0]}
    assert H.default_board()["bridges"][12] == {"from": [2, 1], "to": "centre"}
    assert H.default_board() == hypnosia_boards.default_board()


def test_turn_order_goes_to_the_next_lower_seat():
    # Seats 0, 2, 4: 0 -> 4 -> 2 -> 0 (interface page's example).
    pos = H.initial({"players": 3, "first_player": "red"})
    order = []
    for _ in range(4):
        order.append(pos.to_move)
        rolled = play_all(pos, "1-1")
        (only,) = H.legal_moves(rolled)  # first round: h1+1 then on by 1 from the entry (6 x seat)
        if len(order) <= 3:
            assert only == f"h1+1 0.{6 * H.seat_of(pos.to_move)}+1"
        pos = play_all(rolled, only)
    assert order == ["red", "purple", "green", "red"]


def test_a_player_with_nothing_to_move_is_skipped():
    # Seats 0, 1, 3 (red, yellow, blue).  Red to move; the next lower seat is blue (3, wrapping), but blue
    # has all its pawns captured by yellow (yellow +4, blue -4), so yellow (seat 1) is next.
    pos = H.make_position(
        {"seats": [0, 1, 3]},
        {"red": ["h1", "h2", "h3", "h4"], "yellow": ["h1", "h2", "h3", "0.9"],
         "blue": ["captured"] * 4},
        "red", captures={"yellow": 4})
    assert pos.scores == {"red": 0, "yellow": 4, "blue": -4}
    after = play_all(pos, "1-1", "h1+1 0.0+1")
    assert after.to_move == "yellow" and after.dice is None


def test_notation_parsing():
    assert str(H.parse_die_move("D0.17+4")) == "D0.17+4"
    assert H.parse_die_move("2.1^1") == H.DieMove(False, "2.1", True, 1)
    assert H.parse_die_move("h2+5") == H.DieMove(False, "h2", False, 5)
    for bad in ("0.05+4", "00.5+4", "h5+1", "h0+1", "0.5+7", "0.5+0", "0.5-3", "d0.5+3", "0.5 +3", "centre+1",
                "h2+5  0.3+4", "", "0.5+3 0.8+4 1.0+1", "5-4 h1+5", "5-4:h1+5", "7-1", "roll 5-4"):
        assert not _parses(bad), bad
    for good in ("0.5+3", "D0.5^3", "h4+6", "12.345+6"):
        assert _parses(good)


def _parses(text):
    try:
        H.parse_turn(text)
    except H.MalformedMove:
        return False
    return True


def test_malformed_and_illegal_moves_raise():
    pos = H.initial({"players": 2, "first_player": "red"})
    with pytest.raises(H.MalformedMove):
        H.play(pos, "7-1")
    with pytest.raises(H.MalformedMove):
        H.play(pos, "bogus")
    with pytest.raises(H.IllegalMove):
        H.play(pos, "h1+5")  # roll first
    with pytest.raises(H.IllegalMove):
        H.play(pos, "pass")
    with pytest.raises(ValueError):
        H.play(pos, "roll")  # the model needs the drawn dice
    rolled, effects = H.play(pos, "roll", drawn=(3, 2))
    assert rolled.dice == (3, 2) and effects["drawn"] is True and effects["roll"] == [3, 2]
    rolled, effects = H.play(pos, "5-4")
    assert effects == {"player": "red", "roll": [5, 4], "drawn": False, "moves": [], "turn_over": False,
                       "passed": False}
    with pytest.raises(H.IllegalMove):
        H.play(rolled, "6-6")  # already rolled
    with pytest.raises(H.IllegalMove):
        H.play(rolled, "h1+6")  # no 6
    with pytest.raises(H.IllegalMove):
        H.play(rolled, "pass")  # dice can be used
    with pytest.raises(H.IllegalMove):
        H.play(pos, "5-4: h1+5")  # a roll-prefixed turn must be whole (both dice can be used)
    with pytest.raises(H.MalformedMove):
        H.play(rolled, "h1+5 0.4+4 0.8+1")


def test_inputs_are_never_mutated():
    pos = H.initial({"players": 2, "first_player": "red"})
    before = copy.deepcopy(H.to_dict(pos))
    rolled, _ = H.play(pos, "6-6")
    H.play(rolled, "h1+6 0.5^6")
    H.play(rolled, "h1+6")
    H.legal_moves(rolled)
    H.perft(pos, 1)
    assert H.to_dict(pos) == before and pos.dice is None


# ---------------------------------------------------------------------------
# Notes for tests: home exit distances
# ---------------------------------------------------------------------------

def test_home_exit_distances():
    pos = H.initial({"players": 2, "first_player": "blue"})  # blue enters at 18
    rolled, _ = H.play(pos, "3-2")
    # h1 leaves with 2 or 3 (lands 18+2-1 = 19, 18+3-1 = 20), h2 with 2 or 3 (18, 19), h3 only with 3 (18);
    # h4 never (both dice < 4).
    firsts = H.first_die_moves(rolled)
    assert firsts == ["h1+2", "h1+3", "h2+2", "h2+3", "h3+3"]
    for move, dest in (("h1+2", "0.19"), ("h1+3", "0.20"), ("h2+2", "0.18"), ("h2+3", "0.19"), ("h3+3", "0.18")):
        after, effects = H.play(rolled, move)
        assert effects["moves"] == [{"from": move[:2], "pawns": 1, "die": int(move[-1]), "cross": False,
                                     "to": dest, "captured": [], "centre_points": 0}]
        assert effects["turn_over"] is False and after.to_move == "blue"
        assert after.dice == ((2,) if move.endswith("3") else (3,))
    with pytest.raises(H.IllegalMove):
        H.play(rolled, "h3+2")
    with pytest.raises(H.IllegalMove):
        H.play(rolled, "h4+3")


def test_home_exit_wraps_round_the_outer_circle():
    board = H.default_board()
    board["entries"] = [33, 6, 12, 18, 24, 30]
    pos = H.make_position({"players": 2, "board": board}, {"red": ["h1", "h2", "h3", "h4"],
                                                           "blue": ["h1", "h2", "h3", "h4"]}, "red", dice=(6, 6))
    # h1 with 6: 33 + 6 - 1 = 38 -> 38 mod 36 = 2.
    after, effects = H.play(pos, "h1+6")
    assert effects["moves"][0]["to"] == "0.2"


def test_home_pawn_landing_follows_the_landing_table():
    # Red enters at 0.  Blue single at 0.2, blue double at 0.3.
    pos = pos_of({"red": ["h1", "h2", "h3", "h4"], "blue": ["0.2", "0.3", "0.3", "h4"]}, dice=(3, 4))
    # h1+3 lands 0.2 (captures the single), h1+4 -> 0.3 (enemy double: illegal), h2+4 -> 0.2 (captures),
    # h2+3 -> 0.1, h3+3 -> 0.0, h3+4 -> 0.1, h4+4 -> 0.0.
    firsts = H.first_die_moves(pos)
    assert "h1+4" not in firsts
    assert {"h1+3", "h2+3", "h2+4", "h3+3", "h3+4", "h4+4"} <= set(firsts)
    after, effects = H.play(pos, "h1+3")
    assert effects["moves"][0]["captured"] == [{"player": "blue", "pawns": 1}]
    assert after.scores == {"red": 1, "blue": -1} and after.captures == {"red": 1, "blue": 0}


# ---------------------------------------------------------------------------
# Notes for tests: bridges
# ---------------------------------------------------------------------------

def test_landing_on_a_bridge_with_the_first_die_then_crossing_with_the_second():
    pos = pos_of({"red": ["0.2", "centre", "centre", "captured"], "blue": ["h1", "h2", "h3", "h4"]},
                 dice=(3, 4), centre=("red", "red"), captures={"blue": 1})
    # 0.2+3 lands on the bridge 0.5; with the 4 it may cross (1.0 then 3 more: 1.3) or go on (0.9).
    # 0.2+4 passes over nothing special (0.6), then +3 -> 0.9; 0.6 is no bridge, so no ^.
    assert turns(pos) == ["0.2+3 0.5+4", "0.2+3 0.5^4", "0.2+4 0.6+3"]
    after, effects = H.play(pos, "0.2+3 0.5^4")
    assert after.pawns["red"] == ("1.3", "centre", "centre", "captured")
    assert [m["to"] for m in effects["moves"]] == ["0.5", "1.3"]
    assert [m["cross"] for m in effects["moves"]] == [False, True]
    # Landing there with the last die: the crossing waits for a later turn.
    later = play_all(pos, "0.2+4 0.6+3")
    assert later.pawns["red"][0] == "0.9"
    last = pos_of({"red": ["0.1", "centre", "centre", "captured"], "blue": ["h1", "h2", "h3", "h4"]},
                  dice=(1, 3), centre=("red", "red"), captures={"blue": 1})
    # 0.1+1 -> 0.2, +3 -> 0.5; or 0.1+3 -> 0.4, +1 -> 0.5: the pawn ends on the bridge, no crossing now.
    assert turns(last) == ["0.1+1 0.2+3", "0.1+3 0.4+1"]
    nxt = play_all(last, "0.1+3 0.4+1")
    assert nxt.pawns["red"][0] == "0.5" and nxt.to_move == "blue"
    # Red's next turn: the pawn on the bridge may cross ("^") or continue ("+").
    back = H.make_position(TWO, nxt.pawns, "red", dice=(2, 6), centre=nxt.centre, captures=nxt.captures)
    assert "0.5^2 1.1+6" in turns(back) and "0.5+2 0.7+6" in turns(back) and "0.5^6 1.5+2" in turns(back)


def test_passing_over_a_bridge_without_stopping():
    pos = pos_of({"red": ["0.3", "centre", "centre", "captured"], "blue": ["h1", "h2", "h3", "h4"]},
                 dice=(4, 1), centre=("red", "red"), captures={"blue": 1})
    # 0.3+4 passes over the bridge 0.5 to 0.7 and stays on circle 0.  0.3 itself is no bridge.
    after, effects = H.play(pos, "0.3+4")
    assert effects["moves"][0]["to"] == "0.7"
    with pytest.raises(H.IllegalMove):
        H.play(pos, "0.3^4")
    # 0.3+1 -> 0.4, +4 -> 0.8; 0.3+4 -> 0.7, +1 -> 0.8: no crossing anywhere.
    assert turns(pos) == ["0.3+1 0.4+4", "0.3+4 0.7+1"]


def test_crossing_wraps_on_the_inner_circle():
    # Middle bridge 1.23 -> inner 2.10; 1.23^4 -> 2.10 then 3 more: 2.13 mod 12 = 2.1.
    pos = pos_of({"red": ["1.23", "centre", "centre", "captured"], "blue": ["h1", "h2", "h3", "h4"]},
                 dice=(4, 4), centre=("red", "red"), captures={"blue": 1})
    after, effects = H.play(pos, "1.23^4")
    assert effects["moves"][0]["to"] == "2.1" and after.dice == (4,)


def test_entering_the_centre_needs_exactly_one():
    pos = pos_of({"red": ["2.1", "h2", "h3", "h4"], "blue": ["h1", "h2", "h3", "h4"]}, dice=(1, 2))
    with pytest.raises(H.IllegalMove):
        H.play(pos, "2.1^2")
    after, effects = H.play(pos, "2.1+1")  # along the circle: no centre
    assert effects["moves"][0]["to"] == "2.2"
    after, effects = H.play(pos, "2.1^1")
    assert effects["moves"][0] == {"from": "2.1", "pawns": 1, "die": 1, "cross": True, "to": "centre",
                                   "captured": [], "centre_points": 5}
    assert after.centre == ("red",) and after.scores["red"] == 5 and after.dice == (2,)


def test_double_crossing_by_variant():
    pawns = {"red": ["0.5", "0.5", "h3", "h4"], "blue": ["h1", "h2", "h3", "h4"]}
    easy = pos_of(pawns, dice=(3, 6))
    hard = pos_of(pawns, dice=(3, 6), doubles_cross_bridges=False)
    assert "D0.5^3" in H.first_die_moves(easy)
    assert "D0.5^3" not in H.first_die_moves(hard)
    with pytest.raises(H.IllegalMove):
        H.play(hard, "D0.5^3")
    # A single pawn may split off and cross directly in both variants (decision 2).
    for pos in (easy, hard):
        after, effects = H.play(pos, "0.5^3")
        assert after.pawns["red"] == ("h3", "h4", "0.5", "1.2") and effects["moves"][0]["pawns"] == 1
    after, _ = H.play(easy, "D0.5^3")
    assert after.pawns["red"] == ("h3", "h4", "1.2", "1.2")
    # Along the circle a double moves in both variants.
    for pos in (easy, hard):
        after, _ = H.play(pos, "D0.5+6")
        assert after.pawns["red"] == ("h3", "h4", "0.11", "0.11")


def test_double_into_the_centre_by_variant():
    # h1 can use the 2 after the double enters with the 1 (else D2.1^1 would use one die only, and the
    # single 2.1^1 followed by a 2 would be forced).
    pawns = {"red": ["2.1", "2.1", "h1", "h4"], "blue": ["h1", "h2", "h3", "h4"]}
    hard = pos_of(pawns, dice=(1, 2), doubles_cross_bridges=False)
    assert not any(t.startswith("D2.1^1") for t in turns(hard))
    easy = pos_of(pawns, dice=(1, 2))
    assert "D2.1^1 h1+2" in turns(easy) and "h1+2 D2.1^1" in turns(easy)
    after, effects = H.play(easy, "D2.1^1")
    # Two free spaces: both pawns enter, 5 + 4 points.
    assert effects["moves"][0]["centre_points"] == 9 and effects["moves"][0]["pawns"] == 2
    assert after.centre == ("red", "red") and after.scores["red"] == 9


# ---------------------------------------------------------------------------
# Notes for tests: capture table, stacking limit, negative scores
# ---------------------------------------------------------------------------

HOME3 = ["h2", "h3", "h4"]
LANDING = [
    # name, red pawns, blue pawns, move (0.10 -> 0.13 with a 3), legal, blue pawns captured
    ("single on empty: stops", ["0.10"] + HOME3, ["h1"] + HOME3, "0.10+3", True, 0),
    ("single on enemy single: captures", ["0.10"] + HOME3, ["0.13"] + HOME3, "0.10+3", True, 1),
    ("single on enemy double: illegal", ["0.10"] + HOME3, ["0.13", "0.13", "h3", "h4"], "0.10+3", False, 0),
    ("double on enemy single: captures", ["0.10", "0.10", "h3", "h4"], ["0.13"] + HOME3, "D0.10+3", True, 1),
    ("double on enemy double: captures", ["0.10", "0.10", "h3", "h4"], ["0.13", "0.13", "h3", "h4"], "D0.10+3",
     True, 2),
    ("single on own single: double", ["0.10", "0.13", "h3", "h4"], ["h1"] + HOME3, "0.10+3", True, 0),
    ("single on own double: illegal", ["0.10", "0.13", "0.13", "h4"], ["h1"] + HOME3, "0.10+3", False, 0),
    ("double on own single: illegal", ["0.10", "0.10", "0.13", "h4"], ["h1"] + HOME3, "D0.10+3", False, 0),
    ("double on own double: illegal", ["0.10", "0.10", "0.13", "0.13"], ["h1"] + HOME3, "D0.10+3", False, 0),
]


@pytest.mark.parametrize(("name", "red", "blue", "move", "legal", "captured"), LANDING,
                         ids=[case[0] for case in LANDING])
def test_landing_table(name, red, blue, move, legal, captured):
    pos = pos_of({"red": red, "blue": blue}, dice=(3, 3))
    assert (move in H.first_die_moves(pos)) is legal
    if not legal:
        with pytest.raises(H.IllegalMove):
            H.play(pos, move)
        return
    after, effects = H.play(pos, move)
    moved = effects["moves"][0]
    assert moved["to"] == "0.13" and moved["pawns"] == (2 if move.startswith("D") else 1)
    assert moved["captured"] == ([{"player": "blue", "pawns": captured}] if captured else [])
    # The capturer gains 1 per pawn, the owner loses 1 per pawn: blue had 0, so it goes negative.
    assert after.scores == {"red": captured, "blue": -captured}
    assert after.captures == {"red": captured, "blue": 0}
    assert after.pawns["blue"].count("captured") == captured
    assert after.pawns["blue"].count("0.13") == 0 or captured == 0
    assert after.pawns["red"].count("0.13") == red.count("0.13") + moved["pawns"]


def test_a_double_splits():
    pos = pos_of({"red": ["0.10", "0.10", "h3", "h4"], "blue": ["h1", "h2", "h3", "h4"]}, dice=(2, 5))
    after, effects = H.play(pos, "0.10+2")
    assert after.pawns["red"] == ("h3", "h4", "0.10", "0.12") and effects["moves"][0]["pawns"] == 1
    with pytest.raises(H.IllegalMove):
        H.play(pos, "D0.10+6")
    single = pos_of({"red": ["0.10", "h2", "h3", "h4"], "blue": ["h1", "h2", "h3", "h4"]}, dice=(2, 5))
    with pytest.raises(H.IllegalMove):
        H.play(single, "D0.10+2")  # no double there


def test_negative_scores_accumulate():
    # Blue already lost 2 pawns (red captured them): -2.  Red's double takes blue's double: blue -4.
    pos = pos_of({"red": ["0.10", "0.10", "h3", "h4"], "blue": ["0.12", "0.12", "captured", "captured"]},
                 dice=(2, 1), captures={"red": 2})
    assert pos.scores == {"red": 2, "blue": -2}
    after, effects = H.play(pos, "D0.10+2")
    assert after.scores == {"red": 4, "blue": -4}
    # Blue has no pawn left to move; the game is not over (red still has pawns): red keeps playing.
    after = play_all(pos, "D0.10+2 0.12+1")
    assert after.pawns["blue"] == ("captured",) * 4
    assert not H.is_finished(after) and after.to_move == "red"


# ---------------------------------------------------------------------------
# Notes for tests: double entering the centre with one slot left; game end
# ---------------------------------------------------------------------------

def test_double_entering_the_centre_with_one_slot_left():
    # Centre: red, blue, blue, red (points 5, 4, 3, 2).  Red double on the inner bridge 2.1, roll 1-3.
    pos = pos_of({"red": ["2.1", "2.1", "centre", "centre"], "blue": ["centre", "centre", "h3", "h4"]},
                 dice=(1, 3), centre=("red", "blue", "blue", "red"))
    assert pos.scores == {"red": 7, "blue": 7}
    assert "D2.1^1" in turns(pos)  # ends the game: counts as using both dice, a whole turn alone
    after, effects = H.play(pos, "D2.1^1")
    assert effects["moves"] == [{"from": "2.1", "pawns": 2, "die": 1, "cross": True, "to": "centre",
                                 "captured": [], "centre_points": 1}]
    assert effects["turn_over"] is True
    # One pawn entered (the 5th space, 1 point), the other stays on 2.1; the centre is full.
    assert after.pawns["red"] == ("2.1", "centre", "centre", "centre")
    assert after.centre == ("red", "blue", "blue", "red", "red")
    assert H.is_finished(after) and after.to_move is None and after.dice is None
    assert H.legal_moves(after) == []
    assert H.outcome(after) == {"status": "finished", "to_move": None, "scores": {"red": 8, "blue": 7},
                                "winner": "red", "decided_by": "score", "ranking": [["red"], ["blue"]]}
    with pytest.raises(H.GameOver):
        H.play(after, "1-1")


def test_game_ending_die_move_counts_as_using_every_die():
    # Red: one pawn on the inner bridge 2.1, two in the centre, one captured; blue: all gone.
    # Centre red, blue, red (5, 4, 3).  Red captured 3 blue pawns, blue 1 red pawn.
    # Red = 5 + 3 + 3 - 1 = 10, blue = 4 + 1 - 3 = 2.
    pos = pos_of({"red": ["2.1", "centre", "centre", "captured"],
                  "blue": ["centre", "captured", "captured", "captured"]},
                 dice=(1, 3), centre=("red", "blue", "red"), captures={"red": 3, "blue": 1})
    assert pos.scores == {"red": 10, "blue": 2}
    # 2.1^1 enters (4th space, 2 points): every pawn is now in the centre or captured -> game over, and the
    # single die move uses "every die".  The other turns use both dice along the circle (2.1 -> 2.5).
    assert turns(pos) == ["2.1+1 2.2+3", "2.1+3 2.4+1", "2.1^1"]
    after, effects = H.play(pos, "2.1^1")
    assert H.is_finished(after) and after.scores == {"red": 12, "blue": 2}
    assert effects["turn_over"] is True and len(effects["moves"]) == 1
    # Roll-prefixed whole turn.
    rolled = H.make_position(TWO, pos.pawns, "red", None, pos.centre, pos.captures)
    after2, effects2 = H.play(rolled, "1-3: 2.1^1")
    assert after2 == after and effects2["roll"] == [1, 3]
    # With a single die left, a game-ending move is just that die's move.
    one = pos_of(pos.pawns, dice=(1,), centre=pos.centre, captures=pos.captures)
    assert turns(one) == ["2.1+1", "2.1^1"]


# ---------------------------------------------------------------------------
# Notes for tests: forced use of both dice
# ---------------------------------------------------------------------------

RED_ALONE = ["captured", "captured", "captured"]


def test_forced_use_of_both_dice():
    # Red single at 0.0; blue double at 0.9 (red lost 3 pawns to blue: red -3, blue +3).  Roll 4-5:
    # 0.0+4 -> 0.4 and then +5 -> 0.9 (enemy double: illegal), 0.4 is no bridge: the 4 first uses one die.
    # 0.0+5 -> 0.5 (bridge), then +4 -> 0.9 illegal but ^4 -> 1.0 + 3 = 1.3: both dice.  So the only turn is
    # "0.0+5 0.5^4", and the single die move 0.0+4 is illegal (it starts no two-dice turn).
    pos = pos_of({"red": ["0.0"] + RED_ALONE, "blue": ["0.9", "0.9", "h3", "h4"]}, dice=(4, 5),
                 captures={"blue": 3})
    assert pos.scores == {"red": -3, "blue": 3}
    assert turns(pos) == ["0.0+5 0.5^4"]
    assert H.first_die_moves(pos) == ["0.0+5"]
    with pytest.raises(H.IllegalMove):
        H.play(pos, "0.0+4")
    # Step by step: after the 5 the 4 remains, same player.
    mid, effects = H.play(pos, "0.0+5")
    assert mid.dice == (4,) and mid.to_move == "red" and effects["turn_over"] is False
    assert turns(mid) == ["0.5^4"]
    end, effects = H.play(mid, "0.5^4")
    assert end.to_move == "blue" and end.dice is None and effects["turn_over"] is True
    assert end == play_all(pos, "0.0+5 0.5^4")


def test_only_one_die_usable_and_no_higher_die_rule():
    # A single circle of 10 with a centre bridge at 9 (and one at 3, so the board is valid).
    board = {"circles": [10], "entries": [0, 2, 4, 5, 7, 8],
             "bridges": [{"from": [0, 3], "to": "centre"}, {"from": [0, 9], "to": "centre"}],
             "centre_points": [5, 4, 3, 2, 1], "home_length": 4}
    # Red single at 0.0, blue double on 0.9.  Roll 4-5: 0.0+4 -> 0.4 then +5 -> 0.9 blocked; 0.0+5 -> 0.5 then
    # +4 -> 0.9 blocked; neither 0.4 nor 0.5 is a bridge.  One die at most, either one (no higher-die rule).
    pos = pos_of({"red": ["0.0"] + RED_ALONE, "blue": ["0.9", "0.9", "h3", "h4"]}, dice=(4, 5),
                 captures={"blue": 3}, board=board)
    assert turns(pos) == ["0.0+4", "0.0+5"]
    after, effects = H.play(pos, "0.0+4")
    assert after.to_move == "blue" and after.dice is None and effects["turn_over"] is True


def test_pass_when_no_die_can_be_used():
    # Red single at 0.6; blue double at 0.12.  Roll 6-6: 0.6+6 -> 0.12 (enemy double): nothing to do.
    pos = pos_of({"red": ["0.6"] + RED_ALONE, "blue": ["0.12", "0.12", "h3", "h4"]}, captures={"blue": 3})
    rolled, effects = H.play(pos, "6-6")
    assert turns(rolled) == ["pass"] and effects["turn_over"] is False
    after, effects = H.play(rolled, "pass")
    assert effects == {"player": "red", "roll": None, "drawn": False, "moves": [], "turn_over": True,
                       "passed": True}
    assert after.to_move == "blue" and after.pawns == pos.pawns
    after2, effects2 = H.play(pos, "6-6: pass")
    assert after2 == after and effects2["roll"] == [6, 6] and effects2["passed"] is True
    with pytest.raises(H.IllegalMove):
        H.play(pos, "5-5: pass")  # 0.6+5 -> 0.11 is fine: no pass
    # Roll 3-6: 0.6+3 -> 0.9 and then 0.9+6 -> 0.15: need it blocked too.
    blocked = pos_of({"red": ["0.6"] + RED_ALONE, "blue": ["0.12", "0.12", "0.15", "0.15"]}, captures={"blue": 3})
    rolled = play_all(blocked, "3-6")
    assert turns(rolled) == ["0.6+3"]  # the 6 can never be used


def test_double_dice_give_no_extra_moves_and_list_once():
    pos = H.initial({"players": 2, "first_player": "red"})
    rolled = play_all(pos, "2-2")
    # h1+2 -> 0.1 then h2+2 -> 0.0 or 0.1+2 -> 0.3; h2+2 -> 0.0 then h1+2 -> 0.1 or 0.0+2 -> 0.2.
    # n(2)^2 = 4 distinct strings, each of exactly two die moves.
    assert turns(rolled) == ["h1+2 0.1+2", "h1+2 h2+2", "h2+2 0.0+2", "h2+2 h1+2"]


def test_mid_turn_position_keeps_one_die():
    pos = play_all(H.initial({"players": 2, "first_player": "red"}), "5-4")
    mid, effects = H.play(pos, "h2+5")
    assert mid.dice == (4,) and mid.to_move == "red" and effects["roll"] is None
    # The pawn on 0.3 may go on (0.7); h1..h4 (without h2) may leave with the 4.
    assert turns(mid) == ["0.3+4", "h1+4", "h3+4", "h4+4"]
    with pytest.raises(H.IllegalMove):
        H.play(mid, "h1+4 0.3+4")  # only one die left


# ---------------------------------------------------------------------------
# Lifted-unit decision (1) on a tiny circle
# ---------------------------------------------------------------------------

def test_a_unit_going_round_a_short_circle_lands_on_its_own_start():
    board = {"circles": [9, 3], "entries": [0, 1, 2, 3, 4, 5],
             "bridges": [{"from": [0, 8], "to": [1, 0]}, {"from": [1, 2], "to": "centre"}],
             "centre_points": [5, 4, 3, 2, 1], "home_length": 4}
    pos = pos_of({"red": ["1.1", "1.1", "h3", "h4"], "blue": ["h1", "h2", "h3", "h4"]}, dice=(3, 6),
                 board=board)
    # 1.1+3 -> 1.(1+3 mod 3) = 1.1: the single is lifted, lands on its partner, re-forms the double.
    for move in ("1.1+3", "D1.1+3", "1.1+6", "D1.1+6"):
        after, effects = H.play(pos, move)
        assert effects["moves"][0]["to"] == "1.1" and after.pawns == pos.pawns


# ---------------------------------------------------------------------------
# Outcome and ranking
# ---------------------------------------------------------------------------

def test_tie_broken_by_first_to_centre():
    # Seats 0, 2, 4 (red, green, purple).  Centre purple, red, red, purple, green: purple 5 + 2 = 7,
    # red 4 + 3 = 7, green 1.  Red and purple tie; purple entered first.
    pos = H.make_position({"players": 3}, {"red": ["0.3", "0.4", "centre", "centre"],
                                           "green": ["h2", "h3", "h4", "centre"],
                                           "purple": ["h3", "h4", "centre", "centre"]},
                          None, centre=("purple", "red", "red", "purple", "green"))
    out = H.outcome(pos)
    assert out["scores"] == {"red": 7, "green": 1, "purple": 7}
    assert out["winner"] == "purple" and out["decided_by"] == "first_to_centre"
    assert out["ranking"] == [["purple"], ["red"], ["green"]]


def test_tie_without_centre_pawns_is_shared():
    # Centre points all 0.  Centre: yellow x4, blue.  Red and purple captured one blue pawn each:
    # red 1, purple 1 (no centre pawn: they share the top rank), yellow 0, blue -2.
    board = H.default_board()
    board["centre_points"] = [0, 0, 0, 0, 0]
    pos = H.make_position({"players": 4, "board": board},
                          {"red": ["h1", "h2", "h3", "0.7"], "yellow": ["centre"] * 4,
                           "blue": ["0.3", "centre", "captured", "captured"], "purple": ["h1", "h2", "h3", "h4"]},
                          None, centre=("yellow",) * 4 + ("blue",), captures={"red": 1, "purple": 1})
    out = H.outcome(pos)
    assert out["scores"] == {"red": 1, "yellow": 0, "blue": -2, "purple": 1}
    assert out["winner"] is None and out["decided_by"] == "shared"
    assert out["ranking"] == [["red", "purple"], ["yellow"], ["blue"]]


def test_tie_between_centre_and_no_centre_player():
    # Seats 0, 2, 4.  Centre points [2, 0, 0, 0, 1]; centre purple, red, purple, purple, red (full).
    # red: 1 (its 2nd entry is the 5th space) - 2 pawns lost to green = -1; green (no centre pawn) captured
    # those 2: +2; purple: 2 (first entry).  Purple and green tie on 2; purple has a centre pawn: above.
    board = H.default_board()
    board["centre_points"] = [2, 0, 0, 0, 1]
    pos = H.make_position({"players": 3, "board": board},
                          {"red": ["centre", "centre", "captured", "captured"],
                           "green": ["h1", "h2", "0.2", "0.4"],
                           "purple": ["centre", "centre", "centre", "0.20"]},
                          None, centre=("purple", "red", "purple", "purple", "red"), captures={"green": 2})
    assert pos.scores == {"red": -1, "green": 2, "purple": 2}
    out = H.outcome(pos)
    assert out["winner"] == "purple" and out["decided_by"] == "first_to_centre"
    assert out["ranking"] == [["purple"], ["green"], ["red"]]
    # Centre points [0, 0, 0, 0, 1]: purple 0, green alone on top.
    board["centre_points"] = [0, 0, 0, 0, 1]
    pos = H.make_position({"players": 3, "board": board}, pos.pawns, None, centre=pos.centre,
                          captures={"green": 2})
    out = H.outcome(pos)
    assert out["winner"] == "green" and out["decided_by"] == "score"
    assert out["ranking"] == [["green"], ["purple"], ["red"]]


# ---------------------------------------------------------------------------
# Board validation: each error names its field
# ---------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "board", "path"), BAD_BOARDS, ids=[b[0] for b in BAD_BOARDS])
def test_each_board_validation_error(name, board, path):
    with pytest.raises(H.InvalidBoard) as caught:
        H.validate_board(board)
    assert caught.value.path == path, caught.value
    with pytest.raises(H.InvalidBoard):
        H.initial({"players": 2, "first_player": "red", "board": board})


def test_booleans_are_not_ints_in_a_board():
    # The model's own strictness (a JSON true is not a length); not part of the cross-check.
    board = hypnosia_boards.default_board()
    board["circles"] = [36, True, 12]
    with pytest.raises(H.InvalidBoard) as caught:
        H.validate_board(board)
    assert caught.value.path == "board.circles[1]"


def test_valid_custom_boards():
    for board in (ONE_CIRCLE, TWO_CIRCLES, SHORT_CIRCLES):
        H.validate_board(board)


# ---------------------------------------------------------------------------
# Perft
# ---------------------------------------------------------------------------

def test_perft_depth_one_from_the_start_by_hand():
    # All pawns at home, red enters at 0.  n(x) = min(x, 4) home pawns can leave with a die x.
    # Ordered dice (d first, e second), d != e: any of n(d) pawns leaves with d, then either another home
    # pawn leaves with e (n(e) minus the moved one if it could use e), or the moved pawn goes on (+e), or, for
    # d = 6 from h1 only (lands on the bridge 0.5), crosses (^e): n(d)(n(e) + 1) - n(min(d, e)) + [d = 6].
    # Equal dice d-d: the two orders give the same strings: n(d)^2 + [d = 6].
    # Summed over the 21 rolls this is 352 (e.g. 1-1: 1, 2-1: 5, 5-4: 32, 6-6: 17).
    pos = H.initial({"players": 2, "first_player": "red"})
    assert H.perft(pos, 0) == 1
    assert H.perft(pos, 1) == 352
    for roll, count in (("1-1", 1), ("2-1", 5), ("5-4", 32), ("6-6", 17)):
        assert len(turns(play_all(pos, roll))) == count
    # Same count for every player count, variant and first player (nobody else is on the circle yet).
    for players in (3, 6):
        for doubles in (True, False):
            assert H.perft(H.initial({"players": players, "first_player": "green",
                                      "doubles_cross_bridges": doubles}), 1) == 352
    # At a rolled position, depth 1 is the legal-move count.
    assert H.perft(play_all(pos, "5-4"), 1) == 32


@pytest.mark.slow
def test_perft_depth_two_counts_children():
    pos = H.initial({"players": 2, "first_player": "red"})
    kids = H.children(pos)
    assert len(kids) == 352 and all(kid.to_move == "blue" and kid.dice is None for kid in kids)
    # Blue's first turn is the same count (nobody near its entry 18): 352 * 352.
    assert sum(H.perft(kid, 1) for kid in kids) == 352 * 352
    rolled = play_all(pos, "6-5")
    # 6-5: n(6)(n(5) + 1) - n(5) + 1 + n(5)(n(6) + 1) - n(5) = 4*5 - 4 + 1 + 4*5 - 4 = 33 turns.
    assert H.perft(rolled, 1) == 33
    assert H.perft(rolled, 2) == sum(H.perft(kid, 1) for kid in H.children(rolled)) == 33 * 352


# ---------------------------------------------------------------------------
# Random playouts
# ---------------------------------------------------------------------------

BOARDS = {"default": None, "one-circle": ONE_CIRCLE, "two-circles": TWO_CIRCLES, "short": SHORT_CIRCLES}
MAX_PLIES = 20_000


def _options(rng, players, doubles, board):
    seats = sorted(rng.sample(range(6), players)) if rng.random() < 0.5 else list(H.DEFAULT_SEATS[players])
    options = {"seats": seats, "doubles_cross_bridges": doubles,
               "first_player": H.COLOURS[rng.choice(seats)]}
    if board is not None:
        options["board"] = board
    return options


def _check_invariants(pos, history):
    H.check_position(pos)
    assert H.parse_position(H.format_position(pos)) == pos
    for colour in pos.colours():
        assert len(pos.pawns[colour]) == 4
    points = pos.board.centre_points
    assert sum(pos.scores.values()) == sum(points[: len(pos.centre)])  # captures are zero-sum
    # Home pawns only leave, centre entries only grow.
    if history:
        prev = history[-1]
        for colour in pos.colours():
            assert sum(map(H.is_home, pos.pawns[colour])) <= sum(map(H.is_home, prev.pawns[colour]))
        assert pos.centre[: len(prev.centre)] == prev.centre


def _playout(rng, options):
    pos = H.initial(options)
    history = []
    plies = 0
    while not H.is_finished(pos):
        plies += 1
        assert plies < MAX_PLIES
        _check_invariants(pos, history)
        history.append(pos)
        assert H.legal_moves(pos) == ["roll"]
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        rolled, effects = H.play(pos, f"{a}-{b}")
        assert rolled.dice == (a, b) and effects["roll"] == [a, b]
        moves = H.legal_moves(rolled)
        assert moves and moves == sorted(set(moves))
        sizes = {len(m.split(" ")) for m in moves if m != "pass"}
        if "pass" in moves:
            assert moves == ["pass"]
        turn = rng.choice(moves)
        after, effects = H.play(rolled, turn)
        assert effects["turn_over"] and effects["passed"] == (turn == "pass")
        # The roll-prefixed whole turn gives the same result.
        prefixed, effects2 = H.play(pos, f"{a}-{b}: {turn}")
        assert prefixed == after and effects2["moves"] == effects["moves"]
        # Step by step gives the same result too.
        parts = turn.split(" ")
        if len(parts) == 2:
            assert sizes == {2} or (any(H.is_finished(H.play(rolled, m)[0]) for m in moves if " " not in m))
            mid, e1 = H.play(rolled, parts[0])
            assert not e1["turn_over"] and mid.to_move == pos.to_move and len(mid.dice) == 1
            assert parts[1] in H.legal_moves(mid)
            end, e2 = H.play(mid, parts[1])
            assert end == after and e1["moves"] + e2["moves"] == effects["moves"]
        if not H.is_finished(after):
            assert after.dice is None and any(H.is_active(loc) for loc in after.pawns[after.to_move])
        pos = after
    _check_invariants(pos, history)
    out = H.outcome(pos)
    assert out["status"] == "finished" and H.legal_moves(pos) == []
    assert sorted(c for rank in out["ranking"] for c in rank) == sorted(pos.colours())
    assert (out["winner"] is None) == (out["decided_by"] == "shared")
    return plies


@pytest.mark.slow
@pytest.mark.parametrize("board", sorted(BOARDS))
@pytest.mark.parametrize("doubles", [True, False])
def test_random_playouts(board, doubles):
    rng = random.Random(f"{board}-{doubles}")
    for players in (2, 3, 4, 5, 6):
        _playout(rng, _options(rng, players, doubles, BOARDS[board]))
