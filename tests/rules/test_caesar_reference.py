"""Tests of the naive Caesar! reference model (tests/rules/reference/caesar.py) alone.

Every expected value below was worked out by hand from docs/rules/caesar.md; the
comments say how.  Run with:
    python3 -m pytest -q tests/rules/test_caesar_reference.py -p no:cacheprovider --noconftest
"""

import random

import pytest

from rules.reference import caesar

# A fixed bonus layout (table order, IT excluded): 5 senate, 4 tactics, 4 wealth, 4 might.
BONUSES = {
    "HU": "tactics", "HC": "might", "MT": "senate", "SD": "senate", "GA": "wealth", "NU": "tactics",
    "SC": "might", "GC": "senate", "AF": "wealth", "AC": "tactics", "MD": "might", "DM": "senate",
    "CY": "wealth", "CR": "tactics", "AG": "might", "AS": "senate", "SY": "wealth",
}
HANDS = {"caesar": ["S60", "L22"], "pompey": ["D51", "N33"]}

SWORD_BORDERS = ["HC-GA", "MT-NU", "GA-GC", "NU-AF", "SC-IT", "IT-GC", "AC-MD", "MD-DM", "CY-AG", "AG-SY"]


def build(placed=(), hands=None, to_move="caesar", control=None, flipped=(), senate=None, markers=None,
          hand_limits=None, bonuses=None, dashed=None, bags=None):
    """A hand-built position.

    ``placed``: (player, "TOKEN@A-B") or (player, "TOKEN@A-B", {"flipped": .., "marker": ..}) -- the
    token's first number faces A.  ``control``: {province: player}; their bonus is taken off the board.
    ``bags`` default to each full bag minus the hand and the placed tokens.  ``markers`` defaults to the
    markers visible on the map (province and dashed markers, border markers).
    """
    s = caesar.projection(caesar.initial(bonuses or BONUSES, HANDS))
    hands = hands or {"caesar": [], "pompey": []}
    s["hands"] = {p: list(hands[p]) for p in caesar.PLAYERS}
    used = {p: list(hands[p]) for p in caesar.PLAYERS}
    for item in placed:
        player, move = item[0], item[1]
        extra = item[2] if len(item) > 2 else {}
        parsed = caesar.parse_move(move)
        token, a, b = parsed["token"], parsed["a"], parsed["b"]
        first, second = caesar.token_numbers(token)
        bid = caesar.canonical_border(a, b)
        assert bid is not None and s["borders"][bid] is None and caesar.fits(token, bid), move
        s["borders"][bid] = {"player": player, "token": token, "faces": {a: first, b: second},
                             "flipped": extra.get("flipped", False), "marker": extra.get("marker")}
        used[player].append(token)
    for code, player in (control or {}).items():
        s["provinces"][code] = {"bonus": None, "control": player, "flipped": code in flipped}
    s["italia_dashed"] = dashed
    if bags is None:
        bags = {}
        for p in caesar.PLAYERS:
            bag = list(caesar.FULL_BAG)
            for token in used[p]:
                bag.remove(token)
            bags[p] = bag
    s["bags"] = bags
    s["to_move"] = to_move
    if hand_limits:
        s["hand_limits"] = dict(hand_limits)
    if senate:
        s["senate"] = dict(senate, **{p: 0 for p in caesar.PLAYERS if p not in senate})
    if markers is None:
        markers = {p: 0 for p in caesar.PLAYERS}
        for prov in s["provinces"].values():
            if prov["control"]:
                markers[prov["control"]] += 1
        for cell in s["borders"].values():
            if cell and cell["marker"]:
                markers[cell["marker"]] += 1
        if dashed:
            markers[dashed] += 1
    s["markers"] = dict(markers)
    return caesar.from_projection(s)


def moves_of(pos, head):
    """The legal moves that start with the placement ``head``."""
    return [m for m in caesar.legal_moves(pos) if m.split(" ")[0] == head]


def closure(province, bonus, sums, control, markers, choice=None):
    return {"province": province, "bonus": bonus, "sums": {"caesar": sums[0], "pompey": sums[1]},
            "control": control, "markers": markers, "choice": choice}


# ---------------------------------------------------------------------------
# Map, tokens and setup
# ---------------------------------------------------------------------------

def test_map_data():
    assert caesar.PROVINCES == ["HU", "HC", "MT", "SD", "GA", "NU", "SC", "IT", "GC",
                                "AF", "AC", "MD", "DM", "CY", "CR", "AG", "AS", "SY"]
    assert caesar.BORDERS[:6] == ["HU-HC", "HU-MT", "HC-GA", "MT-SD", "MT-NU", "SD-GA"]
    assert caesar.BORDERS[-3:] == ["AG-AS", "AG-SY", "AS-SY"]
    assert [b for b in caesar.BORDERS if caesar.BORDER_ICON[b] == "sword"] == SWORD_BORDERS
    assert caesar.borders_of("IT") == ["SD-IT", "SC-IT", "IT-GC", "IT-AC", "IT-MD", "IT-DM"]
    assert sum(caesar.BORDER_COUNTS.values()) == 60  # each border touches two provinces
    assert caesar.canonical_border("HC", "HU") == "HU-HC"
    assert caesar.canonical_border("HU", "SY") is None


def test_token_order_and_bags():
    assert caesar.TOKEN_ORDER[:5] == ["L40", "L31", "L22", "S60", "S51"]
    assert caesar.token_sorted(["N33", "L22", "D60", "S33", "L40", "L22"]) == ["L40", "L22", "L22", "S33", "D60", "N33"]
    assert caesar.FULL_BAG.count("L22") == 2 and len(caesar.FULL_BAG) == 16


def test_initial_position():
    pos = caesar.initial(BONUSES, {"caesar": ["L22", "S60"], "pompey": ["N33", "D51"]})
    s = caesar.projection(pos)
    assert s["to_move"] == "caesar"
    assert s["provinces"]["IT"] == {"bonus": "senate", "control": None, "flipped": False}
    assert s["provinces"]["HU"]["bonus"] == "tactics"
    assert all(cell is None for cell in s["borders"].values())
    assert s["hands"] == {"caesar": ["L22", "S60"], "pompey": ["D51", "N33"]}  # token order: laurel first
    assert len(s["bags"]["caesar"]) == 14 and s["bags"]["caesar"].count("L22") == 1
    assert "S60" not in s["bags"]["caesar"] and "N33" not in s["bags"]["pompey"]
    assert s["hand_limits"] == {"caesar": 2, "pompey": 2}
    assert s["senate"] == {"caesar": 0, "pompey": 0}
    assert s["markers"] == {"caesar": 0, "pompey": 0}
    assert s["italia_dashed"] is None
    assert caesar.outcome(pos) == {"status": "ongoing", "to_move": "caesar",
                                   "scores": {"caesar": 0, "pompey": 0}, "winner": None, "decided_by": None}


def test_bad_setups():
    with pytest.raises(ValueError):
        caesar.initial(dict(BONUSES, HU="senate"), HANDS)  # 6 senate among the 17
    with pytest.raises(ValueError):
        caesar.initial(dict(BONUSES, IT="senate"), HANDS)  # IT is not given
    with pytest.raises(ValueError):
        caesar.initial(BONUSES, {"caesar": ["S60"], "pompey": ["D51", "N33"]})  # one token
    with pytest.raises(ValueError):
        caesar.initial(BONUSES, {"caesar": ["S60", "S60"], "pompey": ["D51", "N33"]})  # one S60 per bag
    with pytest.raises(ValueError):
        caesar.initial(BONUSES, {"caesar": ["S61", "S60"], "pompey": ["D51", "N33"]})
    with pytest.raises(ValueError):
        caesar.initial(None, HANDS)
    caesar.initial(BONUSES, {"caesar": ["L22", "L22"], "pompey": ["L22", "L22"]})  # two L22 per bag


def test_projection_round_trip_and_immutability():
    pos = caesar.initial(BONUSES, HANDS)
    s = caesar.projection(pos)
    assert caesar.from_projection(s) == pos
    s["hands"]["caesar"].clear()
    assert caesar.projection(pos)["hands"]["caesar"] == ["L22", "S60"]  # a copy was handed out
    before = caesar.projection(pos)
    caesar.play(pos, "S60@HC-GA", draw=lambda p, bag: bag[0])
    assert caesar.projection(pos) == before
    with pytest.raises(AttributeError):
        pos.to_move = "pompey"


def test_from_projection_checks_token_accounting():
    s = caesar.projection(caesar.initial(BONUSES, HANDS))
    s["bags"]["caesar"].append("S60")  # a second S60
    with pytest.raises(ValueError):
        caesar.from_projection(s)


# ---------------------------------------------------------------------------
# Notation
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "S60@HC-HU", "L22@HU-HC", "S42@HC-GA M:SD-GA W", "D60@AC-CR T -", "N33@HU-MT M:HC",
    "S60@HC-GA - =L40 =N33", "L40@SY-AS =L22",
])
def test_move_notation_round_trip(text):
    parsed = caesar.parse_move(text)
    assert caesar.format_move(parsed["token"], parsed["a"], parsed["b"], parsed["choices"], parsed["draws"]) == text


def test_move_parts():
    assert caesar.parse_move("S42@GA-HC M:HC - =D33 =L22") == {
        "token": "S42", "a": "GA", "b": "HC", "choices": ["M:HC", "-"], "draws": ["D33", "L22"]}


@pytest.mark.parametrize("text", [
    "", "S60", "S60@HC", "S60@HC-GA-SD", "S70@HC-GA", "s60@HC-GA", "S60@XX-GA", "S60@HC-GA X",
    "S60@HC-GA M:", "S60@HC-GA M:XX", "S60@HC-GA =S99", "S60@HC-GA =L40 T", "S60@HC-GA  T",
    "S60@HC-GA ", " S60@HC-GA", "S60@@HC-GA",
])
def test_malformed_moves(text):
    with pytest.raises(ValueError):
        caesar.parse_move(text)
    with pytest.raises(ValueError):
        caesar.play(caesar.initial(BONUSES, HANDS), text)


# ---------------------------------------------------------------------------
# Placement: icon matching, the wild, orientation
# ---------------------------------------------------------------------------

def test_icon_matching_and_the_wild():
    pos = caesar.initial(BONUSES, HANDS)
    moves = caesar.legal_moves(pos)
    # S60 on the 10 sword borders, both orientations; L22 (wild, symmetric) on all 30, canonical only.
    expected = []
    for bid in SWORD_BORDERS:
        a, b = bid.split("-")
        expected += [f"S60@{a}-{b}", f"S60@{b}-{a}"]
    expected += [f"L22@{bid}" for bid in caesar.BORDERS]
    assert moves == sorted(expected) and len(moves) == 50
    assert moves == sorted(set(moves))
    for bad in ("S60@HU-HC", "S60@HU-MT", "D51@SD-GA", "N33@HU-MT"):  # wrong icon / not in hand
        with pytest.raises(ValueError):
            caesar.play(pos, bad)


def test_duplicate_token_listed_once():
    pos = caesar.initial(BONUSES, {"caesar": ["L22", "L22"], "pompey": ["D51", "N33"]})
    assert caesar.legal_moves(pos) == sorted(f"L22@{bid}" for bid in caesar.BORDERS)


def test_orientation():
    pos = caesar.initial(BONUSES, HANDS)
    draw = lambda player, bag: "L40"  # noqa: E731
    one, eff = caesar.play(pos, "S60@HC-GA", draw=draw)
    two, eff2 = caesar.play(pos, "S60@GA-HC", draw=draw)
    assert caesar.projection(one)["borders"]["HC-GA"]["faces"] == {"HC": 6, "GA": 0}
    assert caesar.projection(two)["borders"]["HC-GA"]["faces"] == {"GA": 6, "HC": 0}
    assert eff["border"] == eff2["border"] == "HC-GA"
    assert eff == {"player": "caesar", "token": "S60", "border": "HC-GA", "faces": {"HC": 6, "GA": 0},
                   "closures": [], "drawn": ["L40"], "extra_turn": False, "winner": None}
    # A symmetric token: the reverse order is accepted as the same move, listed only canonically.
    three, _ = caesar.play(pos, "L22@HC-HU", draw=draw)
    four, eff4 = caesar.play(pos, "L22@HU-HC", draw=draw)
    assert three == four and eff4["border"] == "HU-HC"
    assert "L22@HC-HU" not in caesar.legal_moves(pos)
    assert caesar.projection(one)["to_move"] == "pompey"
    assert caesar.projection(one)["hands"]["caesar"] == ["L40", "L22"]


# ---------------------------------------------------------------------------
# Closing a province
# ---------------------------------------------------------------------------

def test_tie_leaves_no_marker():
    # HU: caesar's D33 on HU-HC faces HU with 3, pompey closes with N33 on HU-MT: 3 against 3.
    pos = build(placed=[("caesar", "D33@HU-HC")], hands={"caesar": ["S60", "S51"], "pompey": ["N33", "L40"]},
                to_move="pompey")
    assert moves_of(pos, "N33@HU-MT") == ["N33@HU-MT -", "N33@HU-MT T"]  # HU's tactics is the closer's
    nxt, eff = caesar.play(pos, "N33@HU-MT - =S33")
    assert eff["closures"] == [closure("HU", "tactics", (3, 3), None, [], "-")]
    s = caesar.projection(nxt)
    assert s["provinces"]["HU"] == {"bonus": None, "control": None, "flipped": False}
    assert s["markers"] == {"caesar": 0, "pompey": 0}
    assert eff["drawn"] == ["S33"] and s["hands"]["pompey"] == ["L40", "S33"]
    assert s["to_move"] == "caesar"


def test_italia_two_markers_and_its_senate():
    # IT's six borders: caesar D60 (6) and S60 (6) toward IT; pompey S51 (5), N51 (5), N60 (6).
    # Caesar closes with D51 on IT-MD, 5 toward IT: 17 against 16.  Markers: IT, the dashed space, and
    # IT's senate (the first senate caesar holds: 1 marker).  MD stays open (AC-MD, MD-DM empty).
    pos = build(placed=[("caesar", "D60@IT-SD"), ("caesar", "S60@IT-SC"), ("pompey", "S51@IT-GC"),
                        ("pompey", "N51@IT-AC"), ("pompey", "N60@IT-DM")],
                hands={"caesar": ["D51", "L40"], "pompey": ["L22", "L31"]})
    assert moves_of(pos, "D51@IT-MD") == ["D51@IT-MD"]  # senate takes no choice
    nxt, eff = caesar.play(pos, "D51@IT-MD =N33")
    assert eff["closures"] == [closure("IT", "senate", (17, 16), "caesar", ["IT", "IT*", "senate"])]
    s = caesar.projection(nxt)
    assert s["italia_dashed"] == "caesar" and s["provinces"]["IT"]["control"] == "caesar"
    assert s["provinces"]["IT"]["bonus"] is None
    assert s["senate"] == {"caesar": 1, "pompey": 0} and s["markers"] == {"caesar": 3, "pompey": 0}
    # Pompey controlling Italia gets both markers too (no senate: caesar closed it).
    nxt, eff = caesar.play(pos, "D51@MD-IT =N33")  # only 1 toward IT: 13 against 16
    assert eff["closures"] == [closure("IT", "senate", (13, 16), "pompey", ["IT", "IT*"])]
    s = caesar.projection(nxt)
    assert s["italia_dashed"] == "pompey" and s["markers"] == {"caesar": 0, "pompey": 2}
    assert s["senate"] == {"caesar": 1, "pompey": 0}  # the closer keeps it all the same


def _hu_hc_position(flipped_hu=False, hu_controller="caesar"):
    # HU is closed and controlled (caesar's N60 toward HU on HU-MT beats pompey's 1 on HU-HC);
    # HC's other border HU-HC holds pompey's D51 with 5 toward HC.
    return build(placed=[("caesar", "N60@HU-MT"), ("pompey", "D51@HC-HU")],
                 control={"HU": hu_controller}, flipped=("HU",) if flipped_hu else (),
                 hands={"caesar": ["S60", "S33"], "pompey": ["L22", "L31"]})


def test_border_marker_toward_adjacent_controlled_province():
    pos = _hu_hc_position()
    # Caesar closes HC with S60, 6 toward HC against pompey's 5: control, and HU is caesar's, so a marker
    # goes on HU-HC, covering pompey's D51 there.  HC's bonus is might: pompey's D51 is now covered and
    # pompey controls nothing, so there is no target and only "-" is allowed.
    assert moves_of(pos, "S60@HC-GA") == ["S60@HC-GA -"]
    nxt, eff = caesar.play(pos, "S60@HC-GA - =L40")
    assert eff["closures"] == [closure("HC", "might", (6, 5), "caesar", ["HC", "HU-HC"], "-")]
    s = caesar.projection(nxt)
    assert s["borders"]["HU-HC"]["marker"] == "caesar" and s["borders"]["HC-GA"]["marker"] is None
    assert s["markers"] == {"caesar": 3, "pompey": 0}
    # S33 gives HC only 3: pompey wins HC, and HU is not pompey's: no border marker.
    nxt, eff = caesar.play(pos, "S33@HC-GA - =L40")
    assert eff["closures"] == [closure("HC", "might", (3, 5), "pompey", ["HC"], "-")]


def test_flipped_marker_blocks_the_border_marker():
    pos = _hu_hc_position(flipped_hu=True)
    # Same closure, but HU's marker was flipped by might: no border marker, and pompey's D51 on HU-HC
    # stays uncovered, hence a might target.
    assert moves_of(pos, "S60@HC-GA") == ["S60@HC-GA -", "S60@HC-GA M:HU-HC"]
    nxt, eff = caesar.play(pos, "S60@HC-GA M:HU-HC =L40")
    assert eff["closures"] == [closure("HC", "might", (6, 5), "caesar", ["HC"], "M:HU-HC")]
    s = caesar.projection(nxt)
    assert s["borders"]["HU-HC"]["flipped"] is True and s["borders"]["HU-HC"]["marker"] is None
    assert s["provinces"]["HU"]["flipped"] is True  # still placed, still counted
    assert s["markers"] == {"caesar": 2, "pompey": 0}


def test_border_markers_in_border_order_toward_two_neighbours():
    # GA closes (HC-GA, SD-GA, GA-GC) with HC and GC both caesar's: markers GA, then HC-GA, then GA-GC
    # (border order: HC-GA is listed before GA-GC; SD is not controlled).
    pos = build(placed=[("caesar", "S60@GA-HC"), ("pompey", "D33@SD-GA")],
                control={"HC": "caesar", "GC": "caesar"},
                hands={"caesar": ["S51", "L22"], "pompey": ["L40", "L31"]})
    nxt, eff = caesar.play(pos, "S51@GA-GC - =N33")  # GA: 6 + 5 against 3; GA's bonus is wealth
    assert eff["closures"] == [closure("GA", "wealth", (11, 3), "caesar", ["GA", "HC-GA", "GA-GC"], "-")]
    assert caesar.projection(nxt)["markers"] == {"caesar": 5, "pompey": 0}


def _hc_ga_double():
    # HC (might) and GA (wealth) both close when HC-GA is filled: HU-HC holds pompey's D33 (3 toward HC),
    # SD-GA pompey's D60 (6 toward GA), GA-GC caesar's S33 (3 toward GA).
    return build(placed=[("pompey", "D33@HU-HC"), ("pompey", "D60@GA-SD"), ("caesar", "S33@GA-GC")],
                 hands={"caesar": ["S42", "L31"], "pompey": ["N60", "N51"]})


def test_double_closure_with_two_bonus_tokens():
    pos = _hc_ga_double()
    # S42@HC-GA: HC 4 vs 3 (caesar).  Might targets: pompey's D33 (HU-HC), D60 (SD-GA); then GA's wealth.
    assert moves_of(pos, "S42@HC-GA") == sorted(
        f"S42@HC-GA {m} {w}" for m in ("M:HU-HC", "M:SD-GA", "-") for w in ("W", "-"))
    # S42@GA-HC: HC 2 vs 3 (pompey's, and its marker is a target too); GA 4 + 3 = 7 vs 6.
    assert moves_of(pos, "S42@GA-HC") == sorted(
        f"S42@GA-HC {m} {w}" for m in ("M:HU-HC", "M:SD-GA", "M:HC", "-") for w in ("W", "-"))
    # Declining: GA is 2 + 3 = 5 against 6, pompey's.
    nxt, eff = caesar.play(pos, "S42@HC-GA - - =L22")
    assert eff["closures"] == [closure("HC", "might", (4, 3), "caesar", ["HC"], "-"),
                               closure("GA", "wealth", (5, 6), "pompey", ["GA"], "-")]
    assert eff["drawn"] == ["L22"]
    s = caesar.projection(nxt)
    assert s["provinces"]["HC"]["bonus"] is None and s["provinces"]["GA"]["bonus"] is None
    assert s["markers"] == {"caesar": 1, "pompey": 1}


def test_might_in_the_first_closure_changes_the_second():
    pos = _hc_ga_double()
    # Flipping pompey's D60 on SD-GA in HC's closure: GA is then 5 against 0, caesar's, with a border
    # marker toward HC (caesar's).  Wealth used: limit 3, one draw at once then the refill of one.
    nxt, eff = caesar.play(pos, "S42@HC-GA M:SD-GA W =L22 =N33")
    assert eff["closures"] == [closure("HC", "might", (4, 3), "caesar", ["HC"], "M:SD-GA"),
                               closure("GA", "wealth", (5, 0), "caesar", ["GA", "HC-GA"], "W")]
    assert eff["drawn"] == ["L22", "N33"] and eff["extra_turn"] is False
    s = caesar.projection(nxt)
    assert s["borders"]["SD-GA"]["flipped"] is True
    assert s["hand_limits"] == {"caesar": 3, "pompey": 2} and s["hands"]["caesar"] == ["L31", "L22", "N33"]
    assert s["markers"] == {"caesar": 3, "pompey": 0}
    # Might on pompey's fresh HC marker (S42@GA-HC): flipped, still counted; GA 7 vs 6 for caesar, and
    # no border marker since HC is pompey's.
    nxt, eff = caesar.play(pos, "S42@GA-HC M:HC - =L22")
    assert eff["closures"] == [closure("HC", "might", (2, 3), "pompey", ["HC"], "M:HC"),
                               closure("GA", "wealth", (7, 6), "caesar", ["GA"], "-")]
    s = caesar.projection(nxt)
    assert s["provinces"]["HC"] == {"bonus": None, "control": "pompey", "flipped": True}
    assert s["markers"] == {"caesar": 1, "pompey": 1}


def test_might_targets():
    # Pompey's tokens: D51 on HU-HC under caesar's border marker (not a target), N42 flipped (not a
    # target), S42 face up on MT-NU (target).  Pompey controls SD (target) and flipped-controls SC
    # (not a target); caesar's own tokens and markers are never targets.
    pos = build(placed=[("pompey", "D51@HU-HC", {"marker": "caesar"}), ("pompey", "N42@MT-SD", {"flipped": True}),
                        ("pompey", "S42@MT-NU"), ("caesar", "N60@HU-MT")],
                control={"HU": "caesar", "HC": "caesar", "SD": "pompey", "SC": "pompey"}, flipped=("SC",))
    s = caesar.projection(pos)
    assert caesar.might_targets(s, "caesar") == ["MT-NU", "SD"]
    assert caesar.might_targets(s, "pompey") == ["HU-MT", "HU", "HC"]


def test_flipped_token_counts_zero():
    # SY closes with pompey's D60@SY-AS (6 toward SY); caesar's S60@SY-AG (6) is flipped: 0 against 6.
    pos = build(placed=[("caesar", "S60@SY-AG", {"flipped": True})], to_move="pompey",
                hands={"caesar": ["L40", "L31"], "pompey": ["D60", "D51"]})
    nxt, eff = caesar.play(pos, "D60@SY-AS - =S60")
    assert eff["closures"] == [closure("SY", "wealth", (0, 6), "pompey", ["SY"], "-")]


# ---------------------------------------------------------------------------
# Senate
# ---------------------------------------------------------------------------

def _as_position(held, markers=None):
    # AS (senate) closes with CR-AS: caesar D51 toward AS on AS-SY (5), pompey N33 on AG-AS (3).
    return build(placed=[("caesar", "D51@AS-SY"), ("pompey", "N33@AG-AS")],
                 hands={"caesar": ["D60", "L40"], "pompey": ["L22", "L31"]},
                 senate={"caesar": held}, markers=markers)


@pytest.mark.parametrize("held", [0, 1, 2])
def test_senate_counts_one_two_three(held):
    pos = _as_position(held)
    nxt, eff = caesar.play(pos, "D60@AS-CR =S60")  # AS: 5 + 6 against 3
    assert eff["closures"] == [closure("AS", "senate", (11, 3), "caesar", ["AS"] + ["senate"] * (held + 1))]
    s = caesar.projection(nxt)
    assert s["senate"]["caesar"] == held + 1
    assert s["markers"]["caesar"] == 1 + held + 1


def test_senate_taken_while_losing_counts_later():
    # AS closes with caesar's L40 on CR-AS (0 toward AS): caesar 1 (D51@SY-AS) against pompey 6 (N60).
    # DM is ready too: caesar's N42 (4) on IT-DM and D33 (3) on GC-DM; MD-DM (sword) closes it.
    pos = build(placed=[("caesar", "D51@SY-AS"), ("pompey", "N60@AS-AG"),
                        ("caesar", "N42@DM-IT"), ("caesar", "D33@GC-DM")],
                hands={"caesar": ["L40", "S60"], "pompey": ["L22", "L31"]})
    pos, eff = caesar.play(pos, "L40@CR-AS =D42")
    assert eff["closures"] == [closure("AS", "senate", (1, 6), "pompey", ["AS"])]
    s = caesar.projection(pos)
    assert s["senate"] == {"caesar": 1, "pompey": 0}  # the closer keeps it, placing nothing
    assert s["markers"] == {"caesar": 0, "pompey": 1}
    pos, eff = caesar.play(pos, "L31@HU-HC =S42")  # pompey: closes nothing
    assert eff["closures"] == []
    # DM: 4 + 3 + 6 against 0; it is caesar's 2nd senate token: 2 markers under it.
    pos, eff = caesar.play(pos, "S60@DM-MD =D60")
    assert eff["closures"] == [closure("DM", "senate", (13, 0), "caesar", ["DM", "senate", "senate"])]
    s = caesar.projection(pos)
    assert s["senate"] == {"caesar": 2, "pompey": 0} and s["markers"] == {"caesar": 3, "pompey": 1}


# ---------------------------------------------------------------------------
# The end
# ---------------------------------------------------------------------------

def test_twelfth_marker_wins_in_the_middle_of_a_resolution():
    # Caesar has 11 markers.  D60@HU-HC closes HU (tactics) then HC (might); HU is caesar's (6 + 6),
    # its marker is the 12th: the game ends there -- no choice, no HC closure, no draw.
    pos = build(placed=[("caesar", "N60@HU-MT"), ("caesar", "S60@HC-GA")],
                hands={"caesar": ["D60", "L40"], "pompey": ["L22", "L31"]},
                markers={"caesar": 11, "pompey": 3})
    assert moves_of(pos, "D60@HU-HC") == ["D60@HU-HC"]
    nxt, eff = caesar.play(pos, "D60@HU-HC")
    assert eff == {"player": "caesar", "token": "D60", "border": "HU-HC", "faces": {"HU": 6, "HC": 0},
                   "closures": [closure("HU", "tactics", (12, 0), "caesar", ["HU"])],
                   "drawn": [], "extra_turn": False, "winner": "caesar"}
    s = caesar.projection(nxt)
    assert s["provinces"]["HC"] == {"bonus": "might", "control": None, "flipped": False}
    assert s["hands"]["caesar"] == ["L40"] and s["markers"]["caesar"] == 12
    assert caesar.outcome(nxt) == {"status": "finished", "to_move": None, "scores": {"caesar": 12, "pompey": 3},
                                   "winner": "caesar", "decided_by": "twelfth_marker"}
    assert caesar.legal_moves(nxt) == []
    with pytest.raises(ValueError):
        caesar.play(nxt, "L40@HU-HC")
    with pytest.raises(ValueError):
        caesar.play(pos, "D60@HU-HC =L31")  # no draw happens, so none may be listed
    with pytest.raises(ValueError):
        caesar.play(pos, "D60@HU-HC T")  # the choice is never reached


def test_twelfth_marker_among_senate_markers():
    # Caesar holds 1 senate and 10 markers; winning AS (senate) places AS (11th) then the first of two
    # senate markers (12th): the second is not placed.
    pos = _as_position(1, markers={"caesar": 10, "pompey": 0})
    nxt, eff = caesar.play(pos, "D60@AS-CR")
    assert eff["closures"] == [closure("AS", "senate", (11, 3), "caesar", ["AS", "senate"])]
    assert eff["winner"] == "caesar" and caesar.scores(nxt) == {"caesar": 12, "pompey": 0}


def test_twelfth_marker_in_the_second_closure_after_a_choice():
    # Caesar at 10.  HC-GA closes HC (might) then GA (wealth).  HC 4 vs 3: caesar's 11th marker.  With
    # pompey's D60 flipped, GA is 5 vs 0: GA's marker is the 12th -- no border marker, no wealth choice.
    # Otherwise GA is pompey's (5 vs 6) and GA's wealth choice is asked.
    pos = build(placed=[("pompey", "D33@HU-HC"), ("pompey", "D60@GA-SD"), ("caesar", "S33@GA-GC")],
                hands={"caesar": ["S42", "L31"], "pompey": ["N60", "N51"]}, markers={"caesar": 10, "pompey": 0})
    assert moves_of(pos, "S42@HC-GA") == ["S42@HC-GA - -", "S42@HC-GA - W", "S42@HC-GA M:HU-HC -",
                                          "S42@HC-GA M:HU-HC W", "S42@HC-GA M:SD-GA"]
    nxt, eff = caesar.play(pos, "S42@HC-GA M:SD-GA")
    assert eff["closures"] == [closure("HC", "might", (4, 3), "caesar", ["HC"], "M:SD-GA"),
                               closure("GA", "wealth", (5, 0), "caesar", ["GA"])]
    assert eff["winner"] == "caesar" and eff["drawn"] == []
    nxt, eff = caesar.play(pos, "S42@HC-GA - W =L22 =N33")
    assert eff["winner"] is None and eff["closures"][1]["choice"] == "W"


EMPTY_HAND_PLACED = [("caesar", t) for t in (
    "L22@HU-HC", "D33@SD-GA", "L31@SD-SC", "D60@SD-IT", "S33@GA-GC", "N42@NU-SC", "L40@SC-IT", "N60@IT-AC",
    "D51@IT-MD", "N51@IT-DM", "D42@AC-CR", "S42@MD-DM", "N33@CR-AG", "L22@AG-AS", "S51@AG-SY")]


def test_loss_for_an_empty_hand():
    # Caesar's last token S60 in hand, bag empty, his other 15 on the board with every province still
    # open.  S60@MT-NU closes nothing (MT, NU keep empty borders), nor does pompey's L22@AF-AC; caesar is
    # then to move with no token: pompey wins.
    pos = build(placed=EMPTY_HAND_PLACED, hands={"caesar": ["S60"], "pompey": ["S51", "L22"]})
    assert caesar.projection(pos)["bags"]["caesar"] == []
    assert caesar.outcome(pos)["status"] == "ongoing"
    pos, eff = caesar.play(pos, "S60@MT-NU")  # no draw possible: none listed
    assert eff["drawn"] == [] and eff["winner"] is None
    pos, eff = caesar.play(pos, "L22@AF-AC =D60")
    assert eff["winner"] == "pompey"
    assert caesar.outcome(pos) == {"status": "finished", "to_move": None, "scores": {"caesar": 0, "pompey": 0},
                                   "winner": "pompey", "decided_by": "no_token"}
    assert caesar.legal_moves(pos) == []
    assert caesar.projection(pos)["to_move"] == "caesar"
    with pytest.raises(ValueError):
        caesar.play(pos, "S60@HC-GA")


def test_loss_for_no_legal_space():
    # Caesar holds two sword tokens and every sword border is full: no legal space.
    placed = [("pompey" if i % 2 else "caesar", f"{tok}@{bid}") for i, (tok, bid) in enumerate(zip(
        ["L40", "S33", "L31", "S42", "L22", "S51", "L22", "S60", "S33", "L40"], SWORD_BORDERS))]
    pos = build(placed=placed, hands={"caesar": ["S60", "S51"], "pompey": ["D60", "N60"]})
    assert caesar.placements(pos) == []
    assert caesar.legal_moves(pos) == []
    assert caesar.outcome(pos) == {"status": "finished", "to_move": None, "scores": {"caesar": 0, "pompey": 0},
                                   "winner": "pompey", "decided_by": "no_space"}


def test_empty_hand_after_a_tactics_extra_turn():
    # Caesar's last token S60 closes NU (tactics): 6 (MT-NU) + 4 (N42 on NU-SC) against pompey's 2
    # (S42@AF-NU).  With "T" the extra turn is granted, caesar is to move with no token and loses at once.
    pos = build(placed=EMPTY_HAND_PLACED + [("pompey", "S42@AF-NU")],
                hands={"caesar": ["S60"], "pompey": ["S51", "L22"]})
    assert moves_of(pos, "S60@NU-MT") == ["S60@NU-MT -", "S60@NU-MT T"]
    nxt, eff = caesar.play(pos, "S60@NU-MT T")
    assert eff["closures"] == [closure("NU", "tactics", (10, 2), "caesar", ["NU"], "T")]
    assert eff["extra_turn"] is True and eff["winner"] == "pompey"
    assert caesar.projection(nxt)["to_move"] == "caesar"
    assert caesar.outcome(nxt)["decided_by"] == "no_token"
    nxt, eff = caesar.play(pos, "S60@NU-MT -")
    assert eff["extra_turn"] is False and eff["winner"] is None


# ---------------------------------------------------------------------------
# Tactics and wealth
# ---------------------------------------------------------------------------

def _ac_cr_position():
    # AC (tactics) and CR (tactics) both close on AC-CR.  AC: caesar N60 (6), S33 (3); pompey N51 (5).
    # CR: caesar N42 (4); pompey D60 (6), D33 (3).
    return build(placed=[("caesar", "N60@AC-IT"), ("pompey", "N51@AC-AF"), ("caesar", "S33@AC-MD"),
                         ("pompey", "D60@CR-CY"), ("caesar", "N42@CR-AG"), ("pompey", "D33@CR-AS")],
                 hands={"caesar": ["D60", "L40"], "pompey": ["L22", "L31"]})


def test_tactics_granted_once():
    pos = _ac_cr_position()
    # D60@AC-CR: AC 6 + 3 + 6 = 15 against 5 (caesar); CR 4 + 0 against 9 (pompey).
    assert moves_of(pos, "D60@AC-CR") == ["D60@AC-CR - -", "D60@AC-CR - T", "D60@AC-CR T -", "D60@AC-CR T T"]
    nxt, eff = caesar.play(pos, "D60@AC-CR T T =S60")
    assert eff["closures"] == [closure("AC", "tactics", (15, 5), "caesar", ["AC"], "T"),
                               closure("CR", "tactics", (4, 9), "pompey", ["CR"], "T")]
    assert eff["extra_turn"] is True
    assert caesar.projection(nxt)["to_move"] == "caesar"
    # One extra turn only: after it, pompey moves.
    after, eff = caesar.play(nxt, "S60@HC-GA =L31")
    assert eff["extra_turn"] is False and caesar.projection(after)["to_move"] == "pompey"
    for choices, extra in (("T -", True), ("- T", True), ("- -", False)):
        nxt, eff = caesar.play(pos, f"D60@AC-CR {choices} =S60")
        assert eff["extra_turn"] is extra
        assert caesar.projection(nxt)["to_move"] == ("caesar" if extra else "pompey")


def _af_cy_position():
    # AF (wealth) and CY (wealth) both close on AF-CY.  AF: caesar S60 (6), N60 (6); pompey N33 (3).
    # CY: caesar S51 (5); pompey D42 (4).
    return build(placed=[("caesar", "S60@AF-NU"), ("pompey", "N33@SC-AF"), ("caesar", "N60@AF-AC"),
                         ("pompey", "D42@CY-CR"), ("caesar", "S51@CY-AG")],
                 hands={"caesar": ["D60", "L40"], "pompey": ["L22", "L31"]})


def test_wealth_hand_growth():
    pos = _af_cy_position()
    # D60@AF-CY: AF 18 vs 3 (caesar); CY 0 + 5 vs 4 (caesar, and a border marker toward AF).
    assert moves_of(pos, "D60@AF-CY") == ["D60@AF-CY - -", "D60@AF-CY - W", "D60@AF-CY W -", "D60@AF-CY W W"]
    # Both used: limit 2 -> 4; one draw at each wealth, then the refill from 3 to 4.
    nxt, eff = caesar.play(pos, "D60@AF-CY W W =L31 =L22 =S42")
    assert eff["closures"] == [closure("AF", "wealth", (18, 3), "caesar", ["AF"], "W"),
                               closure("CY", "wealth", (5, 4), "caesar", ["CY", "AF-CY"], "W")]
    assert eff["drawn"] == ["L31", "L22", "S42"] and eff["extra_turn"] is False
    s = caesar.projection(nxt)
    assert s["hand_limits"] == {"caesar": 4, "pompey": 2}
    assert s["hands"]["caesar"] == ["L40", "L31", "L22", "S42"]
    # One used: limit 3, two draws.  None used: one draw.
    nxt, eff = caesar.play(pos, "D60@AF-CY - W =L31 =L22")
    assert caesar.projection(nxt)["hand_limits"]["caesar"] == 3 and len(caesar.projection(nxt)["hands"]["caesar"]) == 3
    nxt, eff = caesar.play(pos, "D60@AF-CY - - =L31")
    assert caesar.projection(nxt)["hand_limits"]["caesar"] == 2
    # The limit stays: caesar's next placement refills to 4 again.
    nxt, _ = caesar.play(pos, "D60@AF-CY W W =L31 =L22 =S42")
    nxt, _ = caesar.play(nxt, "L22@HU-HC =S60")  # pompey
    nxt, eff = caesar.play(nxt, "S42@GA-GC =N51")
    assert eff["drawn"] == ["N51"] and len(caesar.projection(nxt)["hands"]["caesar"]) == 4


# ---------------------------------------------------------------------------
# Choices and draws in the notation
# ---------------------------------------------------------------------------

def test_bad_choices_are_refused():
    pos = _ac_cr_position()
    for bad in ("D60@AC-CR", "D60@AC-CR T", "D60@AC-CR T T T", "D60@AC-CR W T", "D60@AC-CR M:HU -",
                "D60@CR-AC T W"):
        with pytest.raises(ValueError):
            caesar.play(pos, bad + " =S60")
    pos = _hc_ga_double()
    for bad in ("S42@HC-GA M:GA-SD W", "S42@HC-GA M:GA-GC W", "S42@HC-GA M:HC W", "S42@HC-GA T W"):
        with pytest.raises(ValueError):  # not canonical / caesar's own token / caesar's own marker / wrong letter
            caesar.play(pos, bad + " =L22 =N33")
    pos = caesar.initial(BONUSES, HANDS)
    with pytest.raises(ValueError):
        caesar.play(pos, "S60@HC-GA -")  # no closure, no choice


def test_draw_checks():
    pos = caesar.initial(BONUSES, HANDS)
    with pytest.raises(caesar.DrawsNeeded):
        caesar.play(pos, "S60@HC-GA")  # a real draw from 14 tokens: the model must be told
    with pytest.raises(ValueError):
        caesar.play(pos, "S60@HC-GA =S60")  # S60 is not in the bag any more
    with pytest.raises(ValueError):
        caesar.play(pos, "S60@HC-GA =L40 =L31")  # one draw only
    nxt, eff = caesar.play(pos, "S60@HC-GA =L22")  # the bag's other L22
    assert eff["drawn"] == ["L22"] and caesar.projection(nxt)["hands"]["caesar"] == ["L22", "L22"]
    with pytest.raises(ValueError):
        caesar.play(_hc_ga_double(), "S42@HC-GA M:SD-GA W =L22")  # wealth + refill: two draws
    assert caesar._forced_draw("caesar", ("L22", "L22")) == "L22"
    with pytest.raises(caesar.DrawsNeeded):
        caesar._forced_draw("caesar", ("L22", "L40"))


def test_draw_callback_and_explicit_draws_agree():
    pos = _af_cy_position()
    seen = []

    def draw(player, bag):
        seen.append((player, bag))
        return bag[-1]

    one, eff = caesar.play(pos, "D60@AF-CY W W", draw=draw)
    assert [p for p, _ in seen] == ["caesar"] * 3 and len(eff["drawn"]) == 3
    two, eff2 = caesar.play(pos, "D60@AF-CY W W " + " ".join(caesar.draws_of(eff)))
    assert one == two and eff == eff2


# ---------------------------------------------------------------------------
# Player view
# ---------------------------------------------------------------------------

def test_player_view():
    pos = _af_cy_position()
    for player, other in (("caesar", "pompey"), ("pompey", "caesar")):
        v = caesar.view(pos, player)
        assert v["hands"] == {player: caesar.projection(pos)["hands"][player]}
        assert other not in v["hands"] and "bags" not in v
        assert v["hand_sizes"] == {"caesar": 2, "pompey": 2}
        assert v["bag_sizes"] == {"caesar": 11, "pompey": 12}
        assert v["borders"] == caesar.projection(pos)["borders"]


# ---------------------------------------------------------------------------
# Perft
# ---------------------------------------------------------------------------

def test_perft_from_the_setup():
    pos = caesar.initial(BONUSES, HANDS)
    assert caesar.perft(pos, 0) == 1
    # Caesar (S60, L22): S60 on 10 swords x 2 orientations + L22 on 30 borders = 50.
    assert caesar.perft(pos, 1) == 50
    # Pompey (D51, N33) after it: D51 on the empty shields x 2, N33 on the empty ships.  Caesar filled a
    # sword (30 of his moves): 20 + 10; a shield (10): 18 + 10; a ship (10): 20 + 9.  That is
    # 30*30 + 10*28 + 10*29 = 1470 placements.  Choices at ply 2 only where pompey closes a 2-border
    # province: HU (tactics) after L22@HU-HC + N33@HU-MT (1) or L22@HU-MT + D51 on HU-HC (2): +3;
    # SY (wealth) after S60 x2 or L22 on AG-SY + D51 on AS-SY x2: +6; HC (might; targets: caesar's token on
    # HC-GA, plus HC if caesar won it) after caesar on HC-GA + D51 on HU-HC x2: S60@HC-GA (caesar wins,
    # 3 options) +4, S60@GA-HC (pompey wins, 2) +2, L22@HC-GA (1 vs 2: caesar; 5 vs 2: pompey) +3.
    # 1470 + 3 + 6 + 9 = 1488.
    assert caesar.perft(pos, 2) == 1488
    with pytest.raises(caesar.ChanceDependent):
        caesar.perft(pos, 3)  # caesar's second move depends on what he drew


def test_perft_with_senate_on_the_small_provinces():
    bonuses = dict(BONUSES, HU="senate", HC="senate", SY="senate", MT="tactics", SD="might", AS="wealth")
    pos = caesar.initial(bonuses, HANDS)
    assert caesar.perft(pos, 1) == 50
    assert caesar.perft(pos, 2) == 1470  # senate takes no choice: placements only


def test_perft_late_game():
    # Caesar's last token; caesar draws nothing, so depth 2 is exact.  Depth 3 would need pompey's hand
    # after a tactics (L22@HU-MT T, ...): pompey drew from a bag of several kinds, so it is refused.
    pos = build(placed=EMPTY_HAND_PLACED, hands={"caesar": ["S60"], "pompey": ["S51", "L22"]})
    moves = caesar.legal_moves(pos)
    assert caesar.perft(pos, 1) == len(moves) == 14
    assert caesar.perft(pos, 2) == sum(len(caesar.legal_moves(caesar.play(pos, m)[0])) for m in moves)
    with pytest.raises(caesar.ChanceDependent):
        caesar.perft(pos, 3)


# ---------------------------------------------------------------------------
# Random playouts
# ---------------------------------------------------------------------------

def random_setup(rng):
    names = ["senate"] * 5 + ["tactics"] * 4 + ["wealth"] * 4 + ["might"] * 4
    rng.shuffle(names)
    bonuses = dict(zip([p for p in caesar.PROVINCES if p != "IT"], names))
    hands = {}
    for player in caesar.PLAYERS:
        bag = list(caesar.FULL_BAG)
        hands[player] = []
        for _ in range(2):
            token = rng.choice(caesar.token_sorted(bag))
            bag.remove(token)
            hands[player].append(token)
    return bonuses, hands


def _check_invariants(pos, placed_markers):
    s = caesar.projection(pos)
    assert caesar.from_projection(s) == pos
    for player in caesar.PLAYERS:
        on_board = [c["token"] for c in s["borders"].values() if c and c["player"] == player]
        assert caesar.token_sorted(s["hands"][player] + s["bags"][player] + on_board) == caesar.token_sorted(caesar.FULL_BAG)
        assert s["hands"][player] == caesar.token_sorted(s["hands"][player])
        assert s["markers"][player] == placed_markers[player] <= 12
        visible = (sum(1 for p in s["provinces"].values() if p["control"] == player)
                   + sum(1 for c in s["borders"].values() if c and c["marker"] == player)
                   + (s["italia_dashed"] == player))
        assert visible <= s["markers"][player]
        assert len(s["hands"][player]) <= s["hand_limits"][player]
    assert caesar.scores(pos) == s["markers"]
    assert sum(1 for p in caesar.PLAYERS if s["markers"][p] == 12) <= 1
    for code in caesar.PROVINCES:
        full = all(s["borders"][b] is not None for b in caesar.borders_of(code))
        closed = s["provinces"][code]["bonus"] is None
        if not caesar.outcome(pos)["decided_by"] == "twelfth_marker":
            assert full == closed, code
        if s["provinces"][code]["control"] is not None:
            assert closed


def playout(rng, policy="uniform"):
    pos = caesar.initial(*random_setup(rng))
    placed_markers = {"caesar": 0, "pompey": 0}
    plies = 0
    seen = set()
    while True:
        _check_invariants(pos, placed_markers)
        moves = caesar.legal_moves(pos)
        assert moves == sorted(set(moves))
        out = caesar.outcome(pos)
        if not moves:
            assert out["status"] == "finished" and out["to_move"] is None
            break
        assert out == {"status": "ongoing", "to_move": caesar.projection(pos)["to_move"],
                       "scores": caesar.scores(pos), "winner": None, "decided_by": None}
        move = rng.choice(moves)
        if policy != "uniform":  # prefer using (or declining) every bonus
            wanted = [m for m in moves if all((c != "-") == (policy == "use") for c in m.split(" ")[1:])]
            move = rng.choice(wanted or moves)
        before = caesar.projection(pos)
        nxt, eff = caesar.play(pos, move, draw=lambda player, bag: rng.choice(bag))
        assert caesar.projection(pos) == before  # the input is untouched
        full = " ".join([move] + caesar.draws_of(eff))
        assert caesar.play(pos, full) == (nxt, eff)
        for c in eff["closures"]:
            # Every marker of a closure is its controller's (senate ones only when the closer won).
            if c["control"] is None:
                assert c["markers"] == []
            else:
                placed_markers[c["control"]] += len(c["markers"])
            if "senate" in c["markers"]:
                assert c["bonus"] == "senate" and c["control"] == eff["player"]
            if c["choice"] is not None:
                seen.add(c["choice"][0])
        assert eff["winner"] == caesar.outcome(nxt)["winner"]
        pos = nxt
        plies += 1
        assert plies <= 32
    return pos, seen


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["uniform", "use", "decline"])
def test_random_playouts(policy):
    rng = random.Random(f"caesar-{policy}")
    ends, choices = {}, set()
    for _ in range(40):
        pos, seen = playout(rng, policy)
        out = caesar.outcome(pos)
        assert out["winner"] in caesar.PLAYERS and out["to_move"] is None
        ends[out["decided_by"]] = ends.get(out["decided_by"], 0) + 1
        choices |= seen
    assert ends.get("twelfth_marker", 0) > 0
    if policy == "use":
        assert choices >= {"T", "W", "M"}
    if policy == "decline":
        assert "-" in choices
