"""Hand-built Isaac positions for the reference model's tests (and for cross-checks of the engine).

Every entry is a dict:
    name, position (the spec's position string), options ({first_player, scoring_starts}, defaults if absent)
and any of
    count     -- the number of legal moves (full form)
    compact   -- the exact legal-move list in compact form (``pass`` and placements stand for themselves);
                 the full list is its expansion
    move      -- a move to play, with
        legal    (default True); when legal:
        effects  -- the exact effects
        next     -- the position string after it
        outcome  -- the outcome after it (status, to_move, scores, winner, decided_by)

Reading the strings: columns a..j, rows 1..10; Black score s stands on cell index s (col s % 10, row
s // 10 + 1), White score w on cell index 99 - w.  Values: length 3 -> 1, 4 -> 2, 5 -> 3, 6 -> 4, 7 -> 6.
Every expectation below was worked out by hand from the rules; the reasoning is in the comments.
"""

# ---------------------------------------------------------------------------------------------------
# FULL: Black's whole set (15 pieces, 65 cells) fills rows 1-6 but j5 and a7-f7; White's pieces fill the
# rest but j5 (7 pieces).  All pieces horizontal.  Only j5 is empty: nobody can place.
#   Black: row1 a-g (7) h-j (3); row2 a-f (6) g-j (4); row3 a-f (6) g-j (4); row4 a-e (5) f-j (5);
#          row5 a-e (5) f-i (4); row6 a-d (4) e-g (3) h-j (3); row7 a-c (3) d-f (3).
#   White: row7 g-j (4); row8 a-g (7) h-j (3); row9 a-f (6) g-j (4); row10 a-f (6) g-j (4).
BLACK_SET = ("Ba1-g1,Bh1-j1,Ba2-f2,Bg2-j2,Ba3-f3,Bg3-j3,Ba4-e4,Bf4-j4,Ba5-e5,Bf5-i5,Ba6-d6,Be6-g6,Bh6-j6,"
             "Ba7-c7,Bd7-f7")
WHITE_TOP = "Wg7-j7,Wa8-g8,Wh8-j8,Wa9-f9,Wg9-j9,Wa10-f10,Wg10-j10"
FULL = BLACK_SET + "," + WHITE_TOP
FULL_NO_A2 = FULL.replace("Ba2-f2,", "")
FULL_NO_A2_A10 = FULL_NO_A2.replace("Wa10-f10,", "")
# Reachability: in FULL Black placed 15 pieces and White 7, so White must have passed first (Black first:
# White passed when Black had 8, Black went on alone); a first passer never has more pieces placed than
# the other.  The scoring shapes on FULL therefore say White passed first and take the option
# scoring_starts: first_player, so that Black still opens the scoring phase on the same board.
# FULL_SWAP: FULL with the colours swapped (White's whole set, Black's 7): there Black passed first.
FULL_SWAP = ",".join(("W" if p[0] == "B" else "B") + p[1:] for p in FULL.split(","))
SCORING_OPTS = {"first_player": "black", "scoring_starts": "first_player"}

# ALONE: Black passed first (Black first, at 9 pieces against 9) because none of its unplaced pieces
# (5, 5, 5, 6, 6, 7) fits; White went on alone (11 pieces) and still has 3, 3, 3, 4 to place.  Rows 1-6
# (but j5) and a7-f7, a8-f10 are full; free: j5 (a dead single: i5, j4, j6 taken) and the 4 x 4 block
# g7-j10 (longest free run 4).
#   Black (9: all 3s and 4s): h1-j1, g2-j2, g3-j3, f5-i5, a6-d6, e6-g6, h6-j6, a7-c7, d7-f7.
#   White (11: 7, 6, 6, 5, 5, 5, 4, 4, 4, 3, 3): a1-g1, a2-f2, a3-f3, a4-e4, f4-j4, a5-e5, a8-a10, b8-b10,
#          c8-f8, c9-f9, c10-f10.
ALONE = ("Wa1-g1,Bh1-j1,Wa2-f2,Bg2-j2,Wa3-f3,Bg3-j3,Wa4-e4,Wf4-j4,Wa5-e5,Bf5-i5,Ba6-d6,Be6-g6,Bh6-j6,"
         "Ba7-c7,Bd7-f7,Wa8-a10,Wb8-b10,Wc8-f8,Wc9-f9,Wc10-f10")
# WHITE_LOW: White's five 3s and four 4s (9 pieces) over g7-j7 and rows 8-10 but h10-j10; with BLACK_SET
# only j5 and h10-j10 stay free: a 3 would fit, none of White's 5, 5, 5, 6, 6, 7 does.  White passed first
# (at 9 against Black's 10), Black went on alone and has placed its whole set.
WHITE_LOW = "Wg7-j7,Wa8-d8,We8-g8,Wh8-j8,Wa9-d9,We9-g9,Wh9-j9,Wa10-d10,We10-g10"

# WE: the rules' worked example.  Row 5: White a5-c5 lies in it, White d3-d5 and Black e5-e8 cross it,
# Black f5-j5 (length 5, value 3) is the piece removed.  Black has removed two 3s before (score 10, marker
# on a2), White a 4 and a 5 (score 56, marker on cell 99 - 56 = 43 = d5, in row 5, on top of d3-d5).
# (Two 3s, not one: Black passed first and opens the scoring phase, so on Black's turn both have made as
# many removals; placed pieces 4 against 4 then fit "White placed at least as many as the first passer".
# A removed 3 does not change what Black may remove next: e5-e8 (4) and f5-j5 (5) are both long enough.)
WE_PIECES = "Wd3-d5,Wa5-c5,Be5-e8,Bf5-j5"
WE_AFTER = "Wd3-d5,Wa5-c5,Be5-e8"
# WE with a White filler h1-j1 (a 3, far from row 5 and column e, no marker on row 1): White has one
# more piece placed, so White may be the one to move after Black's extra removal (see "going on alone").
WEF_PIECES = "Wh1-j1," + WE_PIECES
WEF_AFTER = "Wh1-j1," + WE_AFTER


def _full(piece: str, low: int, high: int) -> list[str]:
    return [f"x{piece}+{a}" for a in range(low, high + 1)]


SHAPES = [
    # ------------------------------------------------------------------------------ placement phase
    # Empty board: 2 * 10 * (11 - L) placements per length, 600 in all.
    {"name": "empty board", "position": "- placement b 0,0 - - -/-", "count": 600,
     "move": "c4-g4", "effects": {"player": "black", "kind": "place", "piece": "c4-g4"},
     "next": "Bc4-g4 placement w 0,0 - - -/-"},
    {"name": "empty board, white begins", "position": "- placement w 0,0 - - -/-",
     "options": {"first_player": "white"}, "count": 600,
     "move": "d2-d8", "effects": {"player": "white", "kind": "place", "piece": "d2-d8"},
     "next": "Wd2-d8 placement b 0,0 - - -/-"},
    # After a1-c1: horizontals of row 1 starting at a, b or c (3 per length) and verticals starting at
    # a1, b1 or c1 (3 per length) overlap it: 600 - 30 = 570.
    {"name": "after a corner placement", "position": "Ba1-c1 placement w 0,0 - - -/-", "count": 570},
    # After e5-g5 (cols 4..6, row index 4): row-5 horizontals with start s, s <= 6 <= ..., s + L - 1 >= 4:
    # L3 5, L4 6, L5 6, L6 5, L7 4 = 26; verticals in columns e, f, g covering row 5: L3 3, L4 4, L5 5,
    # L6 5, L7 4 = 21 each, 63.  600 - 89 = 511.
    {"name": "after a central placement", "position": "Be5-g5 placement w 0,0 - - -/-", "count": 511},
    # Black's only length-7 piece is on the board: Black has 600 - 80 (length 7) - overlaps with a1-g1
    # (row 1 horizontals starting at a..g: L3 7, L4 7, L5 6, L6 5 = 25; verticals from a1..g1: 7 per
    # length, L3..L6 = 28) = 600 - 80 - 53 = 467.
    {"name": "no second piece of length 7", "position": "Ba1-g1,Wa10-c10 placement b 0,0 - - -/-",
     # ... and a10-c10 takes row-10 horizontals starting at a, b, c (3 per length, L3..L6: 12) and verticals
     # ending at a10, b10, c10 (3 per length, L3..L6: 12): 467 - 24 = 443.
     "count": 443},
    # Black's whole set is on the board: Black cannot place, must pass although cells are free (h10-j10
    # would take a 3).  (A player with all 15 pieces placed can never be the first to pass -- the other
    # would need 15 too, 130 cells -- so White passed first here (WHITE_LOW) and Black's pass ends the
    # placement phase; White, the first to pass, opens the scoring phase.)
    {"name": "black has nothing left to place", "position": BLACK_SET + "," + WHITE_LOW + " placement b 0,0 w w -/-",
     "compact": ["pass"], "move": "pass",
     "effects": {"player": "black", "kind": "pass", "phase_ended": True},
     "next": BLACK_SET + "," + WHITE_LOW + " scoring w 0,0 w - -/-"},
    # White, alone (ALONE): free cells are the block g7-j10 and j5 (a dead single).  White has 3, 3, 3, 4
    # left.  In the 4 x 4 block: length 3, 2 per row and 2 per column = 16; length 4, 1 per row and 1 per
    # column = 8.  24 in all.  White keeps the move after placing.
    {"name": "white places alone", "position": ALONE + " placement w 0,0 b b -/-", "count": 24,
     "move": "g10-i10", "effects": {"player": "white", "kind": "place", "piece": "g10-i10"},
     "next": ALONE + ",Wg10-i10 placement w 0,0 b b -/-"},
    {"name": "pass refused while a placement exists", "position": ALONE + " placement w 0,0 b b -/-",
     "move": "pass", "legal": False},
    # f8 is taken (White's c8-f8), g8 and h8 are free.
    {"name": "placement on an occupied cell", "position": ALONE + " placement w 0,0 b b -/-",
     "move": "f8-h8", "legal": False},
    {"name": "placement off the board's free cells (j5 alone)", "position": ALONE + " placement w 0,0 b b -/-",
     "move": "j3-j5", "legal": False},
    # The board is full: White passes, the placement phase ends; Black passed first so Black opens the
    # scoring phase (first_to_pass).  FULL_SWAP (White 15 pieces, Black 7): Black passed at 7 against 7.
    {"name": "last pass ends the placement phase", "position": FULL_SWAP + " placement w 0,0 b b -/-",
     "compact": ["pass"], "move": "pass",
     "effects": {"player": "white", "kind": "pass", "phase_ended": True},
     "next": FULL_SWAP + " scoring b 0,0 b - -/-",
     "outcome": {"status": "ongoing", "to_move": "black", "scores": {"black": 0, "white": 0},
                 "winner": None, "decided_by": None}},
    # Same with White the first player (Black passed at 7 against White's 8, White went on alone):
    # first_to_pass still gives Black the first scoring turn ...
    {"name": "scoring starts with the first to pass", "position": FULL_SWAP + " placement w 0,0 b b -/-",
     "options": {"first_player": "white", "scoring_starts": "first_to_pass"}, "move": "pass",
     "effects": {"player": "white", "kind": "pass", "phase_ended": True},
     "next": FULL_SWAP + " scoring b 0,0 b - -/-"},
    # ... and scoring_starts: first_player gives it to White.
    {"name": "scoring starts with the first player", "position": FULL_SWAP + " placement w 0,0 b b -/-",
     "options": {"first_player": "white", "scoring_starts": "first_player"}, "move": "pass",
     "effects": {"player": "white", "kind": "pass", "phase_ended": True},
     "next": FULL_SWAP + " scoring w 0,0 b - -/-"},
    # White passed first (at 7 against Black's 8); Black's pass ends the phase; White opens (first_to_pass) ...
    {"name": "white passed first", "position": FULL + " placement b 0,0 w w -/-", "move": "pass",
     "effects": {"player": "black", "kind": "pass", "phase_ended": True},
     "next": FULL + " scoring w 0,0 w - -/-"},
    # ... unless scoring_starts: first_player with Black the first player.
    {"name": "white passed first, first player opens", "position": FULL + " placement b 0,0 w w -/-",
     "options": {"first_player": "black", "scoring_starts": "first_player"}, "move": "pass",
     "effects": {"player": "black", "kind": "pass", "phase_ended": True},
     "next": FULL + " scoring b 0,0 w - -/-"},
    # a2-f2 is White's own piece in FULL_SWAP.
    {"name": "no removal in the placement phase", "position": FULL_SWAP + " placement w 0,0 b b -/-",
     "move": "xa2-f2+0", "legal": False},

    # ------------------------------------------------------------------------------ scoring, full board
    # (White passed first on FULL, see above; scoring_starts: first_player lets Black, the first player,
    # open the scoring phase.  Nothing below depends on who passed first.)
    # Markers: Black 0 on a1 (row 1, under a1-g1), White 0 on j10 (row 10).  Every piece is horizontal,
    # so N = the other pieces of its row.  Black's pieces, by lower-left cell:
    #   a1-g1 carries Black's marker: not removable.
    #   h1-j1 N1 v1 x2 (Black's marker in row 1) = 2     a2-f2 N1 v4 = 4     g2-j2 N1 v2 = 2
    #   a3-f3 N1 v4 = 4    g3-j3 N1 v2 = 2    a4-e4 N1 v3 = 3    f4-j4 N1 v3 = 3    a5-e5 N1 v3 = 3
    #   f5-i5 N1 v2 = 2    a6-d6 N2 v2 = 4    e6-g6 N2 v1 = 2    h6-j6 N2 v1 = 2
    #   a7-c7 N2 (d7-f7, Wg7-j7) v1 = 2      d7-f7 N2 v1 = 2
    # Forbidden advance 99 - 0 - 0 = 99: out of reach.  51 removals in all.
    {"name": "full board, first scoring turn", "position": FULL + " scoring b 0,0 w - -/-", "options": SCORING_OPTS,
     "compact": ["xh1-j1+0..2", "xa2-f2+0..4", "xg2-j2+0..2", "xa3-f3+0..4", "xg3-j3+0..2",
                 "xa4-e4+0..3", "xf4-j4+0..3", "xa5-e5+0..3", "xf5-i5+0..2", "xa6-d6+0..4",
                 "xe6-g6+0..2", "xh6-j6+0..2", "xa7-c7+0..2", "xd7-f7+0..2"],
     "count": 51,
     "move": "xa2-f2+4",
     "effects": {"player": "black", "kind": "remove", "piece": "a2-f2", "line": "row 2", "pieces_on_line": 1,
                 "value": 4, "markers_on_line": 0, "points": 4, "advance": 4, "score": 4},
     "next": FULL_NO_A2 + " scoring w 4,0 w - 6/-"},
    {"name": "no placement in the scoring phase", "position": FULL + " scoring b 0,0 w - -/-", "options": SCORING_OPTS,
     "move": "j5-j7", "legal": False},
    {"name": "no removal of the opponent's piece", "position": FULL + " scoring b 0,0 w - -/-", "options": SCORING_OPTS,
     "move": "xg7-j7+0", "legal": False},
    {"name": "no removal under a marker", "position": FULL + " scoring b 0,0 w - -/-", "options": SCORING_OPTS,
     "move": "xa1-g1+0", "legal": False},
    {"name": "no advance beyond the points", "position": FULL + " scoring b 0,0 w - -/-", "options": SCORING_OPTS,
     "move": "xa2-f2+5", "legal": False},
    {"name": "pass refused while a removal exists", "position": FULL + " scoring b 0,0 w - -/-", "options": SCORING_OPTS,
     "move": "pass", "legal": False},
    # White's turn: Black's marker on e1 (4), White's on j10 (row 10).
    #   g7-j7 N2 (a7-c7, d7-f7) v2 = 4    a8-g8 N1 v6 = 6    h8-j8 N1 v1 = 1    a9-f9 N1 v4 = 4
    #   g9-j9 N1 v2 = 2    a10-f10 N1 v4 x2 (White's marker) = 8    g10-j10 carries White's marker.
    {"name": "full board, white's reply", "position": FULL_NO_A2 + " scoring w 4,0 w - 6/-", "options": SCORING_OPTS,
     "compact": ["xg7-j7+0..4", "xa8-g8+0..6", "xh8-j8+0..1", "xa9-f9+0..4", "xg9-j9+0..2", "xa10-f10+0..8"],
     "move": "xa10-f10+8",
     "effects": {"player": "white", "kind": "remove", "piece": "a10-f10", "line": "row 10", "pieces_on_line": 1,
                 "value": 4, "markers_on_line": 1, "points": 8, "advance": 8, "score": 8},
     "next": FULL_NO_A2_A10 + " scoring b 4,8 w - 6/6"},
    # Black removed a 6: only a1-g1 (7, but Black's marker on e1 stands on it) and a3-f3 (6) are long
    # enough.  a3-f3: N1 v4, no marker in row 3 (White's is on b10 now) = 4.
    {"name": "removals never get shorter", "position": FULL_NO_A2_A10 + " scoring b 4,8 w - 6/6", "options": SCORING_OPTS,
     "compact": ["xa3-f3+0..4"]},

    # ------------------------------------------------------------------------------ the worked example
    # xf5-j5: row 5 keeps a5-c5 (lying), d3-d5 and e5-e8 (crossing): N = 3; value 3; White's marker on d5:
    # x2.  3 x 3 x 2 = 18.  xe5-e8: column e holds nothing else, N = 0: only +0.  Forbidden advance
    # 99 - 56 - 10 = 33 > 18.
    {"name": "worked example", "position": WE_PIECES + " scoring b 10,56 b - 33/45",
     "compact": ["xe5-e8+0..0", "xf5-j5+0..18"],
     "move": "xf5-j5+18",
     "effects": {"player": "black", "kind": "remove", "piece": "f5-j5", "line": "row 5", "pieces_on_line": 3,
                 "value": 3, "markers_on_line": 1, "points": 18, "advance": 18, "score": 28},
     "next": WE_AFTER + " scoring w 28,56 b - 335/45"},
    # White must now remove a 5 or longer and has only 3s: out.
    {"name": "worked example, white is out", "position": WE_AFTER + " scoring w 28,56 b - 335/45",
     "compact": ["pass"], "move": "pass", "effects": {"player": "white", "kind": "pass", "phase_ended": False},
     "next": WE_AFTER + " scoring b 28,56 b w 335/45"},
    # A vertical removal: column e, N = 0 even though a marker-free line.
    {"name": "worked example, vertical removal", "position": WE_PIECES + " scoring b 10,56 b - 33/45",
     "move": "xe5-e8+0",
     "effects": {"player": "black", "kind": "remove", "piece": "e5-e8", "line": "column e", "pieces_on_line": 0,
                 "value": 2, "markers_on_line": 0, "points": 0, "advance": 0, "score": 10},
     "next": "Wd3-d5,Wa5-c5,Bf5-j5 scoring w 10,56 b - 334/45"},
    # Both markers in row 5: Black 41 on b5 (on a5-c5), White on d5: 3 x 3 x 4 = 36.  Black may not land
    # on White's cell: 41 + a + 56 = 99 -> a = 2 forbidden; passing over it (a >= 3) is allowed.
    {"name": "both markers on the line", "position": WE_PIECES + " scoring b 41,56 b - 33/45",
     "compact": ["xe5-e8+0..0", "xf5-j5+0..36!2"],
     "move": "xf5-j5+36",
     "effects": {"player": "black", "kind": "remove", "piece": "f5-j5", "line": "row 5", "pieces_on_line": 3,
                 "value": 3, "markers_on_line": 2, "points": 36, "advance": 36, "score": 77},
     "next": WE_AFTER + " scoring w 77,56 b - 335/45"},
    {"name": "no landing on the other marker", "position": WE_PIECES + " scoring b 41,56 b - 33/45",
     "move": "xf5-j5+2", "legal": False},
    {"name": "passing over the other marker", "position": WE_PIECES + " scoring b 41,56 b - 33/45",
     "move": "xf5-j5+3",
     "effects": {"player": "black", "kind": "remove", "piece": "f5-j5", "line": "row 5", "pieces_on_line": 3,
                 "value": 3, "markers_on_line": 2, "points": 36, "advance": 3, "score": 44},
     "next": WE_AFTER + " scoring w 44,56 b - 335/45"},
    # No marker in row 5 (White 70 on cell 29 = j3): 3 x 3 = 9.
    {"name": "no marker on the line", "position": WE_PIECES + " scoring b 10,70 b - 33/45",
     "compact": ["xe5-e8+0..0", "xf5-j5+0..9"]},
    # Black's own marker on f5-j5 (46 = g5): it cannot go.
    {"name": "own marker blocks the piece", "position": WE_PIECES + " scoring b 46,40 b - 33/45",
     "compact": ["xe5-e8+0..0"]},
    # White's marker on f5-j5 (99 - 52 = 47 = h5): it cannot go either.
    {"name": "opponent's marker blocks the piece", "position": WE_PIECES + " scoring b 10,52 b - 33/45",
     "compact": ["xe5-e8+0..0"]},
    # Black removed a 3 and a 5 already: e5-e8 (4) is too short, f5-j5 (5) is fine.
    {"name": "shorter than an earlier removal", "position": WE_PIECES + " scoring b 10,56 b - 35/45",
     "compact": ["xf5-j5+0..18"]},
    # Black at 90 (a10): 18 points, 10 reach exactly 100: Black wins at once.
    {"name": "reaching 100 exactly", "position": WE_PIECES + " scoring b 90,56 b - 33/45",
     "move": "xf5-j5+10",
     "effects": {"player": "black", "kind": "remove", "piece": "f5-j5", "line": "row 5", "pieces_on_line": 3,
                 "value": 3, "markers_on_line": 1, "points": 18, "advance": 10, "score": 100},
     "next": WE_AFTER + " scoring - 100,56 b - 335/45",
     "outcome": {"status": "finished", "to_move": None, "scores": {"black": 100, "white": 56},
                 "winner": "black", "decided_by": "target"}},
    # The score is reported as it is, past 100.
    {"name": "overshooting 100", "position": WE_PIECES + " scoring b 90,56 b - 33/45",
     "move": "xf5-j5+18",
     "effects": {"player": "black", "kind": "remove", "piece": "f5-j5", "line": "row 5", "pieces_on_line": 3,
                 "value": 3, "markers_on_line": 1, "points": 18, "advance": 18, "score": 108},
     "next": WE_AFTER + " scoring - 108,56 b - 335/45",
     "outcome": {"status": "finished", "to_move": None, "scores": {"black": 108, "white": 56},
                 "winner": "black", "decided_by": "target"}},
    {"name": "nothing after the end", "position": WE_AFTER + " scoring - 108,56 b - 335/45",
     "compact": [], "count": 0,
     "outcome": {"status": "finished", "to_move": None, "scores": {"black": 108, "white": 56},
                 "winner": "black", "decided_by": "target"}},

    # ------------------------------------------------------------------------------ going on alone
    # White removed its 7 and has only 3s left: out.  Black then moves alone.  (WEF: the worked example
    # plus White's filler h1-j1, another 3.  Black opened the scoring phase; for White to be the one to move
    # Black has made one removal more: two 3s against White's 7.  Placed: Black 2 + 2 = 4, White 3 + 1 = 4,
    # as Black, who passed first, needs.  h1-j1 lies in row 1 and column h..j: it adds nothing to row 5 or
    # column e, and carries no marker (Black 10 on a2, White 56 on d5).)
    {"name": "white drops out", "position": WEF_PIECES + " scoring w 10,56 b - 33/7",
     "compact": ["pass"], "move": "pass", "effects": {"player": "white", "kind": "pass", "phase_ended": False},
     "next": WEF_PIECES + " scoring b 10,56 b w 33/7"},
    {"name": "black moves alone", "position": WEF_PIECES + " scoring b 10,56 b w 33/7",
     "compact": ["xe5-e8+0..0", "xf5-j5+0..18"], "move": "xf5-j5+5",
     "effects": {"player": "black", "kind": "remove", "piece": "f5-j5", "line": "row 5", "pieces_on_line": 3,
                 "value": 3, "markers_on_line": 1, "points": 18, "advance": 5, "score": 15},
     "next": WEF_AFTER + " scoring b 15,56 b w 335/7"},
    # e5-e8 (4) is shorter than the 5 removed: Black is out too; 15 < 56, White wins on score.
    {"name": "both out, decided by score", "position": WEF_AFTER + " scoring b 15,56 b w 335/7",
     "compact": ["pass"], "move": "pass", "effects": {"player": "black", "kind": "pass", "phase_ended": False},
     "next": WEF_AFTER + " scoring - 15,56 b bw 335/7",
     "outcome": {"status": "finished", "to_move": None, "scores": {"black": 15, "white": 56},
                 "winner": "white", "decided_by": "score"}},

    # ------------------------------------------------------------------------------ tie-breaks
    # Each time Black's last piece(s) cannot go (a1-c1 carries Black's marker; pieces shorter than one
    # removed before), White is already out, scores tie.
    # White passed first (at 3 pieces against Black's 4: Black a1-c1, a3-c3, a5-c5 and a removed 4); White
    # opened the scoring with its 7, Black removed its 4 (+0), White was out (a9-d9, h10-j10 shorter than 7).
    # Black's 3s are shorter than its 4, a1-c1 carries its marker: Black is out too.
    # Unplaced: Black 65 - 3 x 3 - 4 = 52 cells; White 65 - 4 (a9-d9) - 3 (h10-j10) - 7 (removed) = 51.
    # Black has more: Black wins.
    {"name": "tie, more unplaced cells", "position": "Ba1-c1,Ba3-c3,Ba5-c5,Wa9-d9,Wh10-j10 scoring b 0,0 w w 4/7",
     "compact": ["pass"], "move": "pass", "effects": {"player": "black", "kind": "pass", "phase_ended": False},
     "next": "Ba1-c1,Ba3-c3,Ba5-c5,Wa9-d9,Wh10-j10 scoring - 0,0 w bw 4/7",
     "outcome": {"status": "finished", "to_move": None, "scores": {"black": 0, "white": 0},
                 "winner": "black", "decided_by": "unplaced_cells"}},
    # Black: 65 - 3 - 3 - 7 = 52 cells in 15 - 3 = 12 pieces; White: 65 - 6 - 7 = 52 cells in 13 pieces.
    # Same cells, Black fewer pieces: Black wins.  (j5-j10 carries White's marker, d1-f1 is shorter than 7.)
    {"name": "tie, fewer unplaced pieces", "position": "Ba1-c1,Bd1-f1,Wj5-j10 scoring b 0,0 w w 7/7",
     "compact": ["pass"], "move": "pass", "effects": {"player": "black", "kind": "pass", "phase_ended": False},
     "next": "Ba1-c1,Bd1-f1,Wj5-j10 scoring - 0,0 w bw 7/7",
     "outcome": {"status": "finished", "to_move": None, "scores": {"black": 0, "white": 0},
                 "winner": "black", "decided_by": "unplaced_count"}},
    # Equal cells in equal numbers of pieces: the first player wins.  Equal numbers of pieces placed mean
    # the first player passed first, so the two shapes differ.
    # Black first: Black placed a1-c1, 4, 4 and White h8-j8, h10-j10, 5 (11 cells each); Black passed first
    # and opened the scoring: Black 4 (+0), White 5 (+0), Black 4 (+0), White out (its 3s are shorter
    # than 5), Black out (a1-c1 under its marker, shorter than 4).  54 cells in 12 pieces each ...
    {"name": "full tie, black first", "position": "Ba1-c1,Wh8-j8,Wh10-j10 scoring b 0,0 b w 44/5",
     "compact": ["pass"], "move": "pass", "effects": {"player": "black", "kind": "pass", "phase_ended": False},
     "next": "Ba1-c1,Wh8-j8,Wh10-j10 scoring - 0,0 b bw 44/5",
     "outcome": {"status": "finished", "to_move": None, "scores": {"black": 0, "white": 0},
                 "winner": "black", "decided_by": "first_player"}},
    # ... White first: each placed a 3 (a1-c1, h10-j10) and a 4; White passed first and opened the scoring:
    # White 4 (+0), Black 4 (+0), White out (h10-j10 under its marker, shorter than 4), Black out likewise.
    # 58 cells in 13 pieces each: White, the first player, wins.
    {"name": "full tie, white first", "position": "Ba1-c1,Wh10-j10 scoring b 0,0 w w 4/4",
     "options": {"first_player": "white"}, "move": "pass",
     "effects": {"player": "black", "kind": "pass", "phase_ended": False},
     "next": "Ba1-c1,Wh10-j10 scoring - 0,0 w bw 4/4",
     "outcome": {"status": "finished", "to_move": None, "scores": {"black": 0, "white": 0},
                 "winner": "white", "decided_by": "first_player"}},
    # Scores tie at 12; Black removed a 5 (a1-c1 too short; Black's marker is on c2), White a 4 (h10-j10 too
    # short; White's marker on 99 - 12 = 87, h9).  Unplaced: Black 65 - 3 - 5 = 57 cells, White 65 - 3 - 4 =
    # 58: White wins.
    {"name": "equal non-zero scores", "position": "Ba1-c1,Wh10-j10 scoring w 12,12 b b 5/4",
     "compact": ["pass"], "move": "pass", "effects": {"player": "white", "kind": "pass", "phase_ended": False},
     "next": "Ba1-c1,Wh10-j10 scoring - 12,12 b bw 5/4",
     "outcome": {"status": "finished", "to_move": None, "scores": {"black": 12, "white": 12},
                 "winner": "white", "decided_by": "unplaced_cells"}},
]
