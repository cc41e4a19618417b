"""Hand-built Iago positions for the reference model's tests (and for cross-checks of the engine).

Every entry is a dict:
    name, variant ('standard'|'loose'|'simple'), penalty (bool), position (position notation),
and then one of
    move + captured + released [+ legal (default True)] [+ penalty_skip (default False)]
    legal_moves   -- the exact, full list of legal placements in cell order
    scores + winner -- for finished positions

Position notation: rows a..i separated by '/', each cell one character
('.' empty, 'B'/'W' face up, 'b'/'w' captive), a space, the side to move ('b'/'w'),
and ' p' when a penalty claim is pending for the side to move.

Row lengths and cells, for reading the strings:
    a: a1-a5   b: b1-b6   c: c1-c7   d: d1-d8   e: e1-e9   f: f2-f9   g: g3-g9   h: h4-h9   i: i5-i9
Outer ring: all of rows a and i, and the first and last cell of rows b..h.  Centre: e5.
Corners (a1, a5, e1, e9, i5, i9) are the end of every line through them, so a disc there can never be
captured or released; captives in corners are used below only to balance the disc counts
(black discs = white discs with Black to move, one more black disc with White to move).

The side that moved last always shows a face-up disc (a placed disc never flips on its own turn), so
boards where that side's discs are all captive carry an inert face-up disc at corner a1 (balanced by a
captive at corner i9).

All expectations were worked out by hand; the reasoning is in the comments.
"""

EMPTY = "...../....../......./......../........./......../......./....../....."

# The board of "tied maxima" below, reused by the loose and penalty entries.
# Black: e4 g6 c4 face up, captives a1 a5.  White: e2 e3 g4 g5 c3 face up.
#   e1 (outer) -> e2 W, e3 W, e4 B: captures 2.   g3 (outer) -> g4 W, g5 W, g6 B: captures 2.
#   c2 (inner) -> c3 W, c4 B: captures 1.  No other line through a white disc has Black at one end.
TIED = "b...b/....../..WB.../......../.WWB...../......../.WWB.../....../..... b"
# TIED after Black's skip to f6 (White to move).  White's captures: e5 (e4 B then e3 W),
# g7 (g6 B then g5 W), c5 (c4 B then c3 W), one disc each; f6 is bracketed by nothing.
TIED_F6 = "b...b/....../..WB.../......../.WWB...../....B.../.WWB.../....../..... w"

SHAPES = [
    # ---------------------------------------------------------------- the start
    # Empty board: every inner hex but the centre (36 moves).  The centre flips nothing: illegal.
    {"name": "initial centre is illegal", "variant": "standard", "penalty": False,
     "position": EMPTY + " b", "move": "e5", "legal": False, "captured": [], "released": []},
    {"name": "initial outer hex is illegal", "variant": "standard", "penalty": False,
     "position": EMPTY + " b", "move": "a1", "legal": False, "captured": [], "released": []},

    # ---------------------------------------------------------------- captures
    # e3 W, e4 w (captive), e5 W, e6 B.  From e2 eastwards: W then a captive -> run broken, no capture.
    # No other capture exists (only e6 is a black anchor), so e2 is a plain rule-2 move.
    {"name": "capture blocked by a captive inside the run", "variant": "standard", "penalty": False,
     "position": "b...b/....../......./......../..WwWB.../......../......./....../..... b",
     "move": "e2", "captured": [], "released": []},
    # Same with e4 face up: e2 captures e3 e4 e5 (3 discs, the centre included); the only capture.
    {"name": "capture of a run of three", "variant": "standard", "penalty": False,
     "position": "b...b/....../......./......../..WWWB.../......../......./....../..... b",
     "move": "e2", "captured": ["e3", "e4", "e5"], "released": []},
    {"name": "capture of a run of three is forced", "variant": "standard", "penalty": False,
     "position": "b...b/....../......./......../..WWWB.../......../......./....../..... b",
     "legal_moves": ["e2"]},
    # e3 W then e4 b: the run ends on Black's *captive*, not a face-up disc -> no capture.
    {"name": "capture needs a face-up anchor", "variant": "standard", "penalty": False,
     "position": "...../....../......./......../..Wb...../......../......./....../..... b",
     "move": "e2", "captured": [], "released": []},
    # e3 W, e4 empty, e5 B: an empty hex inside the run breaks it.
    {"name": "capture blocked by an empty hex", "variant": "standard", "penalty": False,
     "position": "...../....../......./......../..W.B..../......../......./....../..... b",
     "move": "e2", "captured": [], "released": []},
    # d4 captures west d3 d2 (anchor d1), east d5 (anchor d6), up e4 (anchor f4): 4 discs, 3 directions.
    # No other empty hex captures anything, so d4 is the only legal move.
    {"name": "capture in several directions at once", "variant": "standard", "penalty": False,
     "position": "b..../....../......./BWW.WB../...W...../..B...../......./....../..... b",
     "move": "d4", "captured": ["d2", "d3", "d5", "e4"], "released": []},
    {"name": "capture in several directions is forced", "variant": "standard", "penalty": False,
     "position": "b..../....../......./BWW.WB../...W...../..B...../......./....../..... b",
     "legal_moves": ["d4"]},

    # ---------------------------------------------------------------- releases
    # e2 w, e3 W, e4 b, e5 B: from e1 eastwards a captive then a *face-up white* disc -> no release.
    # e1 is still legal through the other direction: f2 w then g3 B (e1 outer) -> releases f2.
    {"name": "release blocked by a face-up disc inside the run", "variant": "standard", "penalty": False,
     "position": "...../....../......./......../.wWbB..../w......./B....../....../..... b",
     "move": "e1", "captured": [], "released": ["f2"]},
    # Same without f2/g3: e1 then flips nothing, so the outer hex is illegal.
    {"name": "outer hex with only a blocked release is illegal", "variant": "standard", "penalty": False,
     "position": "...../....../......./......../.wWbB..../......../......./....../..... b",
     "move": "e1", "legal": False, "captured": [], "released": []},
    # Same with e3 a captive: e2 e3 e4 (both colours) are released, anchored by e1 (and e5 centre).
    {"name": "release of a run of captives of both colours", "variant": "standard", "penalty": False,
     "position": "W..../....../......./......../.wwbB..../......../......./....../....b b",
     "move": "e1", "captured": [], "released": ["e2", "e3", "e4"]},
    # d2 (ring 3) -> d3 w, d4 b -> d5 B (ring 1): both ends inner, neither the centre: no release.
    # (i9 W is an inert corner disc.)  d2 is an inner hex, so the move itself is legal.
    {"name": "release with both ends in the inner area is not allowed", "variant": "standard", "penalty": False,
     "position": "...../....../......./..wbB.../........./......../......./....../....W b",
     "move": "d2", "captured": [], "released": []},
    # d4 (inner) -> d3 w, d2 b -> d1 B on the outer ring: released, white captive included.
    {"name": "release anchored by the far disc on the outer ring", "variant": "standard", "penalty": False,
     "position": "...../....../......./Bbw...../........./......../......./....../....W b",
     "move": "d4", "captured": [], "released": ["d2", "d3"]},
    # e9 (outer, the new disc) -> e8 w, e7 b -> e6 B (inner): released; e9 is legal because it flips.
    {"name": "release anchored by the new disc on the outer ring", "variant": "standard", "penalty": False,
     "position": "W..../....../......./......../.....Bbw./......../......./....../..... b",
     "move": "e9", "captured": [], "released": ["e7", "e8"]},
    # e2 (inner) -> e3 b, e4 w -> e5 B (centre): released.
    {"name": "release anchored on the centre (far disc)", "variant": "standard", "penalty": False,
     "position": "W..../....../......./......../..bwB..../......../......./....../..... b",
     "move": "e2", "captured": [], "released": ["e3", "e4"]},
    # e5 (the new disc, centre) -> e6 w, e7 b -> e8 B (ring 3): released; the centre is legal as it flips.
    {"name": "release anchored on the centre (new disc)", "variant": "standard", "penalty": False,
     "position": "W..../....../......./......../.....wbB./......../......./....../..... b",
     "move": "e5", "captured": [], "released": ["e6", "e7"]},
    # e1 -> e2 W, e3 B captures e2; e1 -> f2 w, g3 B releases f2 (helping White).  The only capture.
    {"name": "capture and release from one placement", "variant": "standard", "penalty": False,
     "position": "...../....../......./......../.WB....../w......./B....../....../..... b",
     "move": "e1", "captured": ["e2"], "released": ["f2"]},
    {"name": "capture and release: forced", "variant": "standard", "penalty": False,
     "position": "...../....../......./......../.WB....../w......./B....../....../..... b",
     "legal_moves": ["e1"]},

    # ---------------------------------------------------------------- forced capture
    # Tied maxima e1 and g3 (2 each, both outer); c2 captures only 1.
    {"name": "forced choice among tied maxima", "variant": "standard", "penalty": False,
     "position": TIED, "legal_moves": ["e1", "g3"]},
    {"name": "tied maxima: e1", "variant": "standard", "penalty": False,
     "position": TIED, "move": "e1", "captured": ["e2", "e3"], "released": []},
    {"name": "tied maxima: g3", "variant": "standard", "penalty": False,
     "position": TIED, "move": "g3", "captured": ["g4", "g5"], "released": []},
    {"name": "tied maxima: smaller capture is illegal", "variant": "standard", "penalty": False,
     "position": TIED, "move": "c2", "legal": False, "captured": ["c3"], "released": []},
    {"name": "tied maxima: non-capturing inner hex is illegal", "variant": "standard", "penalty": False,
     "position": TIED, "move": "f6", "legal": False, "captured": [], "released": []},
    # White to move on TIED_F6 without the penalty option: the three one-disc captures.
    {"name": "forced capture for White", "variant": "standard", "penalty": False,
     "position": TIED_F6, "legal_moves": ["c5", "e5", "g7"]},

    # ---------------------------------------------------------------- centre exception
    # Ring 3 all white captives, rings 1-2 all black captives, centre empty, outer empty.
    # No face-up disc at all: nothing captures, nothing releases -> only the centre, by rule 3.
    {"name": "centre exception", "variant": "standard", "penalty": False,
     "position": "W..../.wwww./.wbbbw./.wbbbbw./.wbb.bbw./.wbbbbw./.wbbbw./.wwww./....b b",
     "legal_moves": ["e5"]},
    {"name": "centre exception: last placement ends the game", "variant": "standard", "penalty": False,
     "position": "W..../.wwww./.wbbbw./.wbbbbw./.wbb.bbw./.wbbbbw./.wbbbw./.wwww./....b b",
     "move": "e5", "captured": [], "released": []},
    # Same with e4 face up (black): the outer ends of the three lines through e4 release toward it:
    #   e1: e2 e3 | a4: b4 c4 d4 | h4: g4 f4 | b1: c2 d3 | i8: h7 g6 f5.  (e9's line stops at the empty centre.)
    # So the player *can* place in the outer area: no exception; the centre flips nothing -> illegal.
    {"name": "centre exception does not apply when an outer hex releases", "variant": "standard", "penalty": False,
     "position": "W..../.wwww./.wbbbw./.wbbbbw./.wbB.bbw./.wbbbbw./.wbbbw./.wwww./....b b",
     "legal_moves": ["a4", "b1", "e1", "h4", "i8"]},
    {"name": "centre exception board: outer release", "variant": "standard", "penalty": False,
     "position": "W..../.wwww./.wbbbw./.wbbbbw./.wbB.bbw./.wbbbbw./.wbbbw./.wwww./....b b",
     "move": "i8", "captured": [], "released": ["f5", "g6", "h7"]},
    # The same board in Simple Iago: no releases, so no outer hex is playable and the exception applies.
    {"name": "centre exception in simple (no releases)", "variant": "simple", "penalty": False,
     "position": "W..../.wwww./.wbbbw./.wbbbbw./.wbB.bbw./.wbbbbw./.wbbbw./.wwww./....b b",
     "legal_moves": ["e5"]},

    # ---------------------------------------------------------------- simple variant moves
    # Release shapes again under Simple Iago: the inner move is legal but releases nothing ...
    {"name": "simple: no release from an inner hex", "variant": "simple", "penalty": False,
     "position": "...../....../......./Bbw...../........./......../......./....../....W b",
     "move": "d4", "captured": [], "released": []},
    # ... and an outer hex that would only release is illegal.
    {"name": "simple: outer release hex is illegal", "variant": "simple", "penalty": False,
     "position": "W..../....../......./......../.....Bbw./......../......./....../..... b",
     "move": "e9", "legal": False, "captured": [], "released": []},
    # Capture still forced in simple, and a capturing placement releases nothing.
    {"name": "simple: capture without the release", "variant": "simple", "penalty": False,
     "position": "...../....../......./......../.WB....../w......./B....../....../..... b",
     "move": "e1", "captured": ["e2"], "released": []},

    # ---------------------------------------------------------------- loose variant
    # Loose: no forced capture.  A non-capturing inner hex is legal despite the captures on offer,
    {"name": "loose: non-capturing move despite a capture", "variant": "loose", "penalty": False,
     "position": TIED, "move": "f6", "captured": [], "released": []},
    # so is the smaller capture,
    {"name": "loose: smaller capture allowed", "variant": "loose", "penalty": False,
     "position": TIED, "move": "c2", "captured": ["c3"], "released": []},
    # an outer hex is allowed when it captures (a flip action),
    {"name": "loose: capturing outer hex", "variant": "loose", "penalty": False,
     "position": TIED, "move": "g3", "captured": ["g4", "g5"], "released": []},
    # but not an outer hex that flips nothing, nor the centre that flips nothing.
    {"name": "loose: outer hex without flip is illegal", "variant": "loose", "penalty": False,
     "position": TIED, "move": "a3", "legal": False, "captured": [], "released": []},
    {"name": "loose: centre without flip is illegal", "variant": "loose", "penalty": False,
     "position": TIED, "move": "e5", "legal": False, "captured": [], "released": []},
    # Full list: the 28 empty inner non-centre hexes plus the capturing outer hexes e1 and g3.
    {"name": "loose: full legal list", "variant": "loose", "penalty": False,
     "position": TIED,
     "legal_moves": ["b2", "b3", "b4", "b5", "c2", "c5", "c6", "d2", "d3", "d4", "d5", "d6", "d7",
                     "e1", "e6", "e7", "e8", "f3", "f4", "f5", "f6", "f7", "f8", "g3", "g7", "g8",
                     "h5", "h6", "h7", "h8"]},

    # ---------------------------------------------------------------- penalty option
    # With the option, Black may skip the forced capture: same list as loose here (rule 2 set plus maxima).
    {"name": "penalty: full legal list", "variant": "standard", "penalty": True,
     "position": TIED,
     "legal_moves": ["b2", "b3", "b4", "b5", "c2", "c5", "c6", "d2", "d3", "d4", "d5", "d6", "d7",
                     "e1", "e6", "e7", "e8", "f3", "f4", "f5", "f6", "f7", "f8", "g3", "g7", "g8",
                     "h5", "h6", "h7", "h8"]},
    # Skip to a non-capturing inner hex: a skip, White gets a claim.
    {"name": "penalty skip", "variant": "standard", "penalty": True,
     "position": TIED, "move": "f6", "captured": [], "released": [], "penalty_skip": True},
    # Taking the smaller capture is a skip too (c2 is not a maximum-capture hex).
    {"name": "penalty skip with a smaller capture", "variant": "standard", "penalty": True,
     "position": TIED, "move": "c2", "captured": ["c3"], "released": [], "penalty_skip": True},
    # e1 is a maximum-capture hex (and allowed by rule 2 as it flips): not a skip.
    {"name": "penalty: maximum capture is not a skip", "variant": "standard", "penalty": True,
     "position": TIED, "move": "e1", "captured": ["e2", "e3"], "released": [], "penalty_skip": False},
    # e1 (outer) -> e2 W, e3 B captures 1; g4 (inner) -> g5 W, g6 W, g7 B captures 2 (the maximum).
    # No other line through a white disc ends on a black one.  Standard: only g4.
    {"name": "forced capture beats a smaller outer capture", "variant": "standard", "penalty": False,
     "position": "b..../....../......./......../.WB....../......../..WWB../....../..... b",
     "legal_moves": ["g4"]},
    # With the penalty option the smaller outer capture is allowed by rule 2 (a capture is a flip
    # action), and it is a skip since e1 is not a maximum-capture hex.
    {"name": "penalty skip to a smaller outer capture", "variant": "standard", "penalty": True,
     "position": "b..../....../......./......../.WB....../......../..WWB../....../..... b",
     "move": "e1", "captured": ["e2"], "released": [], "penalty_skip": True},
    # Skipping still obeys rule 2: an outer hex with no flip stays illegal.
    {"name": "penalty: skip to a non-flipping outer hex is illegal", "variant": "standard", "penalty": True,
     "position": TIED, "move": "a3", "legal": False, "captured": [], "released": []},
    # White claims the penalty: any empty hex, here an outer hex that flips nothing.
    {"name": "penalty claim on an outer hex with no flip", "variant": "standard", "penalty": True,
     "position": TIED_F6 + " p", "move": "a3", "captured": [], "released": [], "penalty_skip": False},
    # A claimed placement still captures (e5: e4 B then e3 W) and never creates a new claim.
    {"name": "penalty claim still captures", "variant": "standard", "penalty": True,
     "position": TIED_F6 + " p", "move": "e5", "captured": ["e4"], "released": [], "penalty_skip": False},
    # A claimed placement on a non-capturing inner hex: allowed, and not a skip either.
    {"name": "penalty claim on a non-capturing inner hex", "variant": "standard", "penalty": True,
     "position": TIED_F6 + " p", "move": "d4", "captured": [], "released": [], "penalty_skip": False},
    # Without the claim the same outer hex is illegal for White (even with the option on).
    {"name": "no claim: outer hex without flip is illegal", "variant": "standard", "penalty": True,
     "position": TIED_F6, "move": "a3", "legal": False, "captured": [], "released": []},

    # ---------------------------------------------------------------- scoring (finished positions)
    # All 37 inner hexes filled.  Counts are given as inner face-up x outer face-up.
    # The sheet's example: Black 12 x 6 = 72, White 12 (centre W included) x 6 = 72; centre W face up.
    # Discs: Black 12+7 captives+6 = 25, White 12+6 captives+6 = 24, White to move.
    {"name": "sheet example: 72 each, White face up on the centre wins", "variant": "standard", "penalty": False,
     "position": "BBBBB/BBBBBW/WBBBBBW/WBBBWWWW/WWWWWWWW./.WWbbbb./.bbbww./.wwww./..... w",
     "scores": {"black": 72, "white": 72}, "winner": "white"},
    # Same board in Simple Iago: 18 face-up discs each, tie, centre W face up: White (tie-break kept).
    {"name": "simple: tie-break kept", "variant": "simple", "penalty": False,
     "position": "BBBBB/BBBBBW/WBBBBBW/WBBBWWWW/WWWWWWWW./.WWbbbb./.bbbww./.wwww./..... w",
     "scores": {"black": 18, "white": 18}, "winner": "white"},
    # Tie 10 x 3 = 30 each, centre a black captive: its owner (Black) loses.
    {"name": "tie-break: captive black centre, Black loses", "variant": "standard", "penalty": False,
     "position": "BBBWW/WBBBB./.BBBBB./.BWWWWW./.WWWbWWb./.bbbbbb./.bwwww./.wwww./..... w",
     "scores": {"black": 30, "white": 30}, "winner": "white"},
    # Tie 10 x 3 = 30 each, centre a white captive: its owner (White) loses.
    {"name": "tie-break: captive white centre, White loses", "variant": "standard", "penalty": False,
     "position": "BBBWW/WBBBB./.BBBBB./.BWWWWW./.WWWwWWb./.bbbbbb./.bbwww./.wwww./..... w",
     "scores": {"black": 30, "white": 30}, "winner": "black"},
    # Tie 10 (centre B included) x 3 = 30 each, centre black face up: Black wins.
    {"name": "tie-break: face-up black centre, Black wins", "variant": "standard", "penalty": False,
     "position": "BBBWW/WBBBB./.BBBBB./.WWWWWW./.WWWBWbb./.bbbbbb./.bwwww./.wwww./..... w",
     "scores": {"black": 30, "white": 30}, "winner": "black"},
    # No tie: Black 5 inner x 0 outer (counts 1) = 5; White 2 inner (centre W) x 2 outer = 4.
    # The centre does not matter when the scores differ.
    {"name": "zero factor counts as one; higher score wins", "variant": "standard", "penalty": False,
     "position": "WW.../.BBBB./.BWbbb./.bbbbbb./.bbbWbbb./.wwwwww./.wwwww./.wwww./..... w",
     "scores": {"black": 5, "white": 4}, "winner": "black"},
    # Black 20 inner x 0 outer = 20; White 4 inner x 6 outer = 24: White wins the standard game ...
    {"name": "standard scoring of a lopsided board", "variant": "standard", "penalty": False,
     "position": "WWWWW/WBBBBw/wBBBBBw/wBBBBBBw/wBBBbBBWw/wWWWbbbw/wbbbww./.wwww./..... w",
     "scores": {"black": 20, "white": 24}, "winner": "white"},
    # ... but in Simple Iago every face-up disc counts 1: Black 20, White 4 + 6 = 10: Black wins.
    {"name": "simple scoring", "variant": "simple", "penalty": False,
     "position": "WWWWW/WBBBBw/wBBBBBw/wBBBBBBw/wBBBbBBWw/wWWWbbbw/wbbbww./.wwww./..... w",
     "scores": {"black": 20, "white": 10}, "winner": "black"},
]
