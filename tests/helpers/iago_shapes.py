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
Every board is one the engine accepts: besides the disc counts (black discs = white discs with Black to
move, one more black disc with White to move) and a face-up disc of the side that moved last, every
captive has, along some line, a run of its owner's discs (itself among them) with an opponent's disc at
each end, as a capture leaves it; and every disc on the outer ring or the centre has, along some line,
a run of discs and then another disc of its owner, as a flip leaves it (see docs/security.md).
Discs there only to balance the counts ("padding") are face-up inner discs away from every line that
matters; discs there only to give a captive or a ring disc its line are named in the comments.

All expectations were worked out by hand; the reasoning is in the comments.
"""

EMPTY = "...../....../......./......../........./......../......./....../....."

# The board of "tied maxima" below, reused by the loose and penalty entries.
# Black: c4 e4 g6 face up, b5 h8 padding.  White: c3 e2 e3 g4 g5 face up.
#   e1 (outer) -> e2 W, e3 W, e4 B: captures 2.   g3 (outer) -> g4 W, g5 W, g6 B: captures 2.
#   c2 (inner) -> c3 W, c4 B: captures 1.  No other line through a white disc has Black at one end.
TIED = "...../....B./..WB.../......../.WWB...../......../.WWB.../....B./..... b"
# TIED after Black's skip to f6 (White to move).  White's captures: e5 (e4 B then e3 W),
# g7 (g6 B then g5 W), c5 (c4 B then c3 W), one disc each; f6, b5 and h8 are bracketed by nothing.
TIED_F6 = "...../....B./..WB.../......../.WWB...../....B.../.WWB.../....B./..... w"

# The centre exception's board: ring 3 all White face up, rings 1-2 all Black captives (each flanked by
# ring-3 white discs along a line that misses the centre), the centre empty, 18 discs each.  Black has
# no face-up disc, so Black can neither capture nor release anything.
CENTRE_EXCEPTION = "...../.WWWW./.WbbbW./.WbbbbW./.Wbb.bbW./.WbbbbW./.WbbbW./.WWWW./..... b"
# The same with a release on offer from the outer ring: b4 a white captive (row b: b1 B, b2 W, b3 W,
# b4 w, b5 W, b6 B flanks it, and shows the flip that placed b1 and b6), e4 Black face up, g7 White
# face up (for the counts: 19 each).  a4 -> b4 w, c4 b, d4 b, e4 B releases three (a4 on the outer
# ring).  Every other line from an outer hex meets a face-up white ring-3 disc first and then a
# captive or an empty hex: no capture, no release; from the centre, e4 B is next to it (no run) and the
# other lines end on white discs.  So a4 is the only flip, and the centre flips nothing.
OUTER_RELEASE = "...../BWWwWB/.WbbbW./.WbbbbW./.WbB.bbW./.WbbbbW./.WbbWW./.WWWW./..... b"

SHAPES = [
    # ---------------------------------------------------------------- the start
    # Empty board: every inner hex but the centre (36 moves).  The centre flips nothing: illegal.
    {"name": "initial centre is illegal", "variant": "standard", "penalty": False,
     "position": EMPTY + " b", "move": "e5", "legal": False, "captured": [], "released": []},
    {"name": "initial outer hex is illegal", "variant": "standard", "penalty": False,
     "position": EMPTY + " b", "move": "a1", "legal": False, "captured": [], "released": []},

    # ---------------------------------------------------------------- captures
    # e3 W, e4 w (captive), e5 W, e6 B.  From e2 eastwards: W then a captive -> run broken, no capture.
    # e4 w is flanked along column 4: c4 W, d4 b, e4 w, f4 b, g4 W (the captives flank each other).
    # e5 W shows its flip (e4 then e3 W); c6 B and h8 B are padding.  The only lines from a white
    # face-up disc to a black one (f6-e5-d4, d2-e3-f4) end on captives, so no capture exists and e2 is
    # a plain rule-2 move.
    {"name": "capture blocked by a captive inside the run", "variant": "standard", "penalty": False,
     "position": "...../....../...W.B./...b..../..WwWB.../..b...../.W...../....B./..... b",
     "move": "e2", "captured": [], "released": []},
    # e3 W, e4 W, e5 W, e6 B: e2 captures e3 e4 e5 (3 discs, the centre included); the only capture.
    # e5 W shows its flip (e4 then e3 W); c6 B and h8 B are padding.
    {"name": "capture of a run of three", "variant": "standard", "penalty": False,
     "position": "...../....../.....B./......../..WWWB.../......../......./....B./..... b",
     "move": "e2", "captured": ["e3", "e4", "e5"], "released": []},
    {"name": "capture of a run of three is forced", "variant": "standard", "penalty": False,
     "position": "...../....../.....B./......../..WWWB.../......../......./....B./..... b",
     "legal_moves": ["e2"]},
    # e3 W then e4 b: the run ends on Black's *captive*, not a face-up disc -> no capture.
    # e4 b is flanked by e3 W and e5 W, which shows its flip (e4 then e3 W); h8 B is padding.
    {"name": "capture needs a face-up anchor", "variant": "standard", "penalty": False,
     "position": "...../....../......./......../..WbW..../......../......./....B./..... b",
     "move": "e2", "captured": [], "released": []},
    # d3 W, d4 empty, d5 B: from d2 an empty hex inside the run breaks it.
    {"name": "capture blocked by an empty hex", "variant": "standard", "penalty": False,
     "position": "...../....../......./..W.B.../........./......../......./....../..... b",
     "move": "d2", "captured": [], "released": []},
    # d4 captures west d3 (anchor d2), east d5 (anchor d6), up e4 f4 (anchor g4): 4 discs, 3 directions.
    # No other empty hex captures anything (h8 B is padding), so d4 is the only legal move.
    {"name": "capture in several directions at once", "variant": "standard", "penalty": False,
     "position": "...../....../......./.BW.WB../...W...../..W...../.B...../....B./..... b",
     "move": "d4", "captured": ["d3", "d5", "e4", "f4"], "released": []},
    {"name": "capture in several directions is forced", "variant": "standard", "penalty": False,
     "position": "...../....../......./.BW.WB../...W...../..W...../.B...../....B./..... b",
     "legal_moves": ["d4"]},

    # ---------------------------------------------------------------- releases
    # d2 w, d3 W, d4 b, d5 B: from d1 eastwards a captive then a *face-up white* disc -> no release.
    # d1 is still legal through the other direction: e2 b then f3 B (d1 outer) -> releases e2.
    # Flanks: column 2 holds b2 W, c2 b, d2 w, e2 b, f2 W (each captive between opposite owners);
    # d4 b sits between d3 W and d6 W (over d5 B); d7 B closes d6 W; f2 W shows its flip (e2 then
    # d2 w); h8 W is padding.  No capture exists, so the release makes d1 legal.
    {"name": "release blocked by a face-up disc inside the run", "variant": "standard", "penalty": False,
     "position": "...../.W..../.b...../.wWbBWB./.b......./WB....../......./....W./..... b",
     "move": "d1", "captured": [], "released": ["e2"]},
    # Same without f3 B (and its padding h8 W): d1 then flips nothing, so the outer hex is illegal.
    {"name": "outer hex with only a blocked release is illegal", "variant": "standard", "penalty": False,
     "position": "...../.W..../.b...../.wWbBWB./.b......./W......./......./....../..... b",
     "move": "d1", "legal": False, "captured": [], "released": []},
    # Same shape with d3 a captive: d2 d3 d4 (both colours) are released, anchored by d1.
    # d3 w is flanked by c2 b and e4 B; h8 W is padding.
    {"name": "release of a run of captives of both colours", "variant": "standard", "penalty": False,
     "position": "...../.W..../.b...../.wwbBWB./.b.B...../W......./......./....W./..... b",
     "move": "d1", "captured": [], "released": ["d2", "d3", "d4"]},
    # d2 (ring 3) -> d3 w, d4 b -> d5 B (ring 1): both ends inner, neither the centre: no release.
    # d3 w is flanked by c2 B and e4 B, d4 b by d3 w and d6 W (over d5 B); d7 B closes d6 W;
    # h6 h7 h8 W are padding.  d2 is an inner hex and nothing captures, so the move itself is legal.
    {"name": "release with both ends in the inner area is not allowed", "variant": "standard", "penalty": False,
     "position": "...../....../.B...../..wbBWB./...B...../......../......./..WWW./..... b",
     "move": "d2", "captured": [], "released": []},
    # d4 (inner) -> d3 w, d2 b -> d1 B on the outer ring: released, white captive included.
    # d2 b is flanked by c1 W and e3 W, d3 w by c2 B and e4 B; d1 B and b1 B show their flips
    # (each through c1 to the other); c1 W shows its flip (d2 then e3 W); e2 B closes e3 W;
    # h6 h7 h8 W are padding.  Nothing captures.
    {"name": "release anchored by the far disc on the outer ring", "variant": "standard", "penalty": False,
     "position": "...../B...../WB...../Bbw...../.BWB...../......../......./..WWW./..... b",
     "move": "d4", "captured": [], "released": ["d2", "d3"]},
    # e9 (outer, the new disc) -> e8 w, e7 b -> e6 B (inner): released; e9 is legal because it flips.
    # e7 b is flanked by d6 W and f8 W, e8 w by d8 B and g8 B (over f8 W); d8 B shows its flip (e8,
    # f8, then g8 B); c6 B closes d6 W; h5 h6 W are padding.  Nothing captures.
    {"name": "release anchored by the new disc on the outer ring", "variant": "standard", "penalty": False,
     "position": "...../....../.....B./.....W.B/.....Bbw./......W./.....B./.WW.../..... b",
     "move": "e9", "captured": [], "released": ["e7", "e8"]},
    # e2 (inner) -> e3 b, e4 w -> e5 B (centre): released.  e3 b is flanked by d3 W and f3 W, e4 w by
    # e3 b and e5 B; e5 B shows its flip (e4 then e3 b); h8 B is padding.
    {"name": "release anchored on the centre (far disc)", "variant": "standard", "penalty": False,
     "position": "...../....../......./..W...../..bwB..../.W....../......./....B./..... b",
     "move": "e2", "captured": [], "released": ["e3", "e4"]},
    # e5 (the new disc, centre) -> e6 w, e7 b -> e8 B (ring 3): released; the centre is legal as it flips.
    # e6 w is flanked by d6 B and f6 B, e7 b by e6 w and e9 W (over e8 B); e9 W shows its flip (e8,
    # e7, then e6 w); h5 h6 W are padding.
    {"name": "release anchored on the centre (new disc)", "variant": "standard", "penalty": False,
     "position": "...../....../......./.....B../.....wbBW/....B.../......./.WW.../..... b",
     "move": "e5", "captured": [], "released": ["e6", "e7"]},
    # e1 -> d1 W, c1 B captures d1; e1 -> e2 w, e3 B releases e2 (helping White).  The only capture.
    # e2 w is flanked by d2 B and f2 B (column 2); the ring discs show their flips along their lines:
    # a1 B (b1, c1 B), b1 W (c1, d1 W), c1 B (b1, a1 B), d1 W (c1, b1 W), f2 B (e2, d2 B);
    # a1 B also closes b1 W; h6 h7 W are padding.
    {"name": "capture and release from one placement", "variant": "standard", "penalty": False,
     "position": "B..../W...../B....../WB....../.wB....../B......./......./..WW../..... b",
     "move": "e1", "captured": ["d1"], "released": ["e2"]},
    {"name": "capture and release: forced", "variant": "standard", "penalty": False,
     "position": "B..../W...../B....../WB....../.wB....../B......./......./..WW../..... b",
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
    # Nothing captures, nothing releases -> only the centre, by rule 3.
    {"name": "centre exception", "variant": "standard", "penalty": False,
     "position": CENTRE_EXCEPTION, "legal_moves": ["e5"]},
    {"name": "centre exception: last placement ends the game", "variant": "standard", "penalty": False,
     "position": CENTRE_EXCEPTION, "move": "e5", "captured": [], "released": []},
    # The player *can* place in the outer area (a4 releases): no exception; the centre flips nothing.
    {"name": "centre exception does not apply when an outer hex releases", "variant": "standard", "penalty": False,
     "position": OUTER_RELEASE, "legal_moves": ["a4"]},
    {"name": "centre exception board: outer release", "variant": "standard", "penalty": False,
     "position": OUTER_RELEASE, "move": "a4", "captured": [], "released": ["b4", "c4", "d4"]},
    # The same board in Simple Iago: no releases, so no outer hex is playable and the exception applies.
    {"name": "centre exception in simple (no releases)", "variant": "simple", "penalty": False,
     "position": OUTER_RELEASE, "legal_moves": ["e5"]},

    # ---------------------------------------------------------------- simple variant moves
    # Release shapes again under Simple Iago: the inner move is legal but releases nothing ...
    {"name": "simple: no release from an inner hex", "variant": "simple", "penalty": False,
     "position": "...../B...../WB...../Bbw...../.BWB...../......../......./..WWW./..... b",
     "move": "d4", "captured": [], "released": []},
    # ... and an outer hex that would only release is illegal.
    {"name": "simple: outer release hex is illegal", "variant": "simple", "penalty": False,
     "position": "...../....../.....B./.....W.B/.....Bbw./......W./.....B./.WW.../..... b",
     "move": "e9", "legal": False, "captured": [], "released": []},
    # Capture still forced in simple, and a capturing placement releases nothing.
    {"name": "simple: capture without the release", "variant": "simple", "penalty": False,
     "position": "B..../W...../B....../WB....../.wB....../B......./......./..WW../..... b",
     "move": "e1", "captured": ["d1"], "released": []},

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
    # Full list: the 26 empty inner non-centre hexes plus the capturing outer hexes e1 and g3.
    {"name": "loose: full legal list", "variant": "loose", "penalty": False,
     "position": TIED,
     "legal_moves": ["b2", "b3", "b4", "c2", "c5", "c6", "d2", "d3", "d4", "d5", "d6", "d7",
                     "e1", "e6", "e7", "e8", "f3", "f4", "f5", "f6", "f7", "f8", "g3", "g7", "g8",
                     "h5", "h6", "h7"]},

    # ---------------------------------------------------------------- penalty option
    # With the option, Black may skip the forced capture: same list as loose here (rule 2 set plus maxima).
    {"name": "penalty: full legal list", "variant": "standard", "penalty": True,
     "position": TIED,
     "legal_moves": ["b2", "b3", "b4", "c2", "c5", "c6", "d2", "d3", "d4", "d5", "d6", "d7",
                     "e1", "e6", "e7", "e8", "f3", "f4", "f5", "f6", "f7", "f8", "g3", "g7", "g8",
                     "h5", "h6", "h7"]},
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
    # No other line through a white disc ends on a black one (b5 B is padding).  Standard: only g4.
    {"name": "forced capture beats a smaller outer capture", "variant": "standard", "penalty": False,
     "position": "...../....B./......./......../.WB....../......../..WWB../....../..... b",
     "legal_moves": ["g4"]},
    # With the penalty option the smaller outer capture is allowed by rule 2 (a capture is a flip
    # action), and it is a skip since e1 is not a maximum-capture hex.
    {"name": "penalty skip to a smaller outer capture", "variant": "standard", "penalty": True,
     "position": "...../....B./......./......../.WB....../......../..WWB../....../..... b",
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
    # All 37 inner hexes filled.  Counts are given as inner face-up x outer face-up.  Every inner
    # captive is flanked by its neighbours along one line; every outer disc has inner discs behind it.
    # The sheet's example: Black 12 (b2 b4 b5 c2 c4 c6 d2 e2 e4 h5 h7 h8) x 6 (a1-a5 b1) = 72,
    # White 12 (d5 d7 e5 e6 e8 f3 f5 f6 f8 g4 g6 g8) x 6 (h9 i5-i9) = 72; centre W face up.
    # Discs: Black 18 + 7 captives = 25, White 18 + 6 captives = 24, White to move.
    {"name": "sheet example: 72 each, White face up on the centre wins", "variant": "standard", "penalty": False,
     "position": "BBBBB/BBwBB./.BwBwB./.BwbWbW./.BwBWWbW./.WbWWbW./.WbWbW./.BwBBW/WWWWW w",
     "scores": {"black": 72, "white": 72}, "winner": "white"},
    # Same board in Simple Iago: 18 face-up discs each, tie, centre W face up: White (tie-break kept).
    {"name": "simple: tie-break kept", "variant": "simple", "penalty": False,
     "position": "BBBBB/BBwBB./.BwBwB./.BwbWbW./.BwBWWbW./.WbWWbW./.WbWbW./.BwBBW/WWWWW w",
     "scores": {"black": 18, "white": 18}, "winner": "white"},
    # Tie 10 x 3 = 30 each: Black b2-b5 c2 c4 c6 d2 d7 e2 x a1-a3; White e8 f3 f8 g4 g6 g8 h5-h8 x
    # i5-i7.  Centre a black captive: its owner (Black) loses.
    {"name": "tie-break: captive black centre, Black loses", "variant": "standard", "penalty": False,
     "position": "BBB../.BBBB./.BwBwB./.BbwbwB./.BbbbwwW./.WbwbwW./.WbWbW./.WWWW./WWW.. w",
     "scores": {"black": 30, "white": 30}, "winner": "white"},
    # Tie 10 x 3 = 30 each (the same face-up discs), centre a white captive: its owner (White) loses.
    {"name": "tie-break: captive white centre, White loses", "variant": "standard", "penalty": False,
     "position": "BBB../.BBBB./.BwBwB./.BwwbbB./.BwwwbbW./.WbwbbW./.WbWbW./.WWWW./WWW.. w",
     "scores": {"black": 30, "white": 30}, "winner": "black"},
    # Tie 10 (centre B in place of c4) x 3 = 30 each, centre black face up: Black wins.
    {"name": "tie-break: face-up black centre, Black wins", "variant": "standard", "penalty": False,
     "position": "BBB../.BBBB./.BwwwB./.BwwwbB./.BbbBwbW./.WwbbbW./.WbWbW./.WWWW./WWW.. w",
     "scores": {"black": 30, "white": 30}, "winner": "black"},
    # No tie: Black 5 inner (b2 b5 e8 h5 h8) x 0 outer (counts 1) = 5; White 2 inner (e2, centre W) x
    # 2 outer (i5 i9) = 4.  The centre does not matter when the scores differ.
    {"name": "zero factor counts as one; higher score wins", "variant": "standard", "penalty": False,
     "position": "...../.BwwB./.wbbbw./.bwbbbw./.WbbWwbB./.bbbwww./.wbwbw./.BwwB./W...W w",
     "scores": {"black": 5, "white": 4}, "winner": "black"},
    # Black 20 inner (rings 1 and 3 but h5-h8) x 0 outer = 20; White 4 inner (h5-h8) x 6 outer (h9 i5-i9)
    # = 24: White wins the standard game ...
    {"name": "standard scoring of a lopsided board", "variant": "standard", "penalty": False,
     "position": "...../.BBBB./.BwwwB./.BwBBwB./.BwBbBwB./.BbBBwB./.BwwwB./.WWWWW/WWWWW w",
     "scores": {"black": 20, "white": 24}, "winner": "white"},
    # ... but in Simple Iago every face-up disc counts 1: Black 20, White 4 + 6 = 10: Black wins.
    {"name": "simple scoring", "variant": "simple", "penalty": False,
     "position": "...../.BBBB./.BwwwB./.BwBBwB./.BwBbBwB./.BbBBwB./.BwwwB./.WWWWW/WWWWW w",
     "scores": {"black": 20, "white": 10}, "winner": "black"},
]
