"""The Rust Caesar! engine against the independent Python reference model (tests/rules/reference/caesar.py):
seeded random games over every option setting, agreeing at every ply on the legal moves, the effects,
the outcome and the state projection of the model; validation of illegal moves and draws; the
player view; perft along random games (the perft tables from seeded starts are tests/rules/perft.json,
checked by test_perft.py).

Chance: the options give the bonus layout and the hands (drawn with a seeded Python ``random.Random``),
or the engine draws them and the model takes them from the engine's state.  Every move is sent with its
draws (``=S51 ...``, picked by the Python RNG from the bags the model knows), except in the games that
let the engine draw, where the model replays the engine's reported draws.
"""

from __future__ import annotations

import os
import random

import pytest

import referee
from referee import errors
from helpers.caesar_states import engine_projection, setup_from_state
from rules.reference import caesar as model

pytestmark = pytest.mark.skipif("caesar" not in referee.games(), reason="the Caesar! engine is not built yet")

#: Random games per setting; raise it for a deeper run (e.g. REFEREE_CROSSCHECK_GAMES=2000).
GAMES = int(os.environ.get("REFEREE_CROSSCHECK_GAMES", "40"))

#: (name, variant, give the bonuses, give the hands, who draws during play)
SETTINGS = [
    ("explicit", None, True, True, "python"),
    ("explicit-standard", "standard", True, True, "python"),
    ("bonuses-only", None, True, False, "python"),
    ("hands-only", "standard", False, True, "python"),
    ("all-drawn", None, False, False, "python"),
    ("engine-draws", None, True, True, "engine"),
    ("all-drawn-engine-draws", "standard", False, False, "engine"),
]
#: How a random game picks among the legal moves: any, or preferring moves that use (decline) every bonus.
POLICIES = ("uniform", "use", "decline")

EFFECT_KEYS = ("player", "token", "border", "faces", "closures", "drawn", "extra_turn", "winner")
OUTCOME_KEYS = ("status", "to_move", "scores", "winner", "decided_by")
REFUSED = (errors.IllegalMove, errors.MalformedMove)


def random_options(rng: random.Random) -> tuple[dict, dict]:
    names = ["senate"] * 5 + ["tactics"] * 4 + ["wealth"] * 4 + ["might"] * 4
    rng.shuffle(names)
    bonuses = dict(zip([p for p in model.PROVINCES if p != "IT"], names))
    hands = {}
    for player in model.PLAYERS:
        bag = list(model.FULL_BAG)
        hands[player] = []
        for _ in range(2):
            token = rng.choice(model.token_sorted(bag))
            bag.remove(token)
            hands[player].append(token)
    return bonuses, hands


def assert_same_position(game, state: dict, pos: model.Position) -> None:
    expected = model.outcome(pos)
    outcome = game.outcome(state)
    assert {key: outcome[key] for key in OUTCOME_KEYS} == expected
    projected = model.projection(pos)
    engine = engine_projection(state)
    if expected["decided_by"] == "twelfth_marker":
        # The spec does not say whose turn it is in the state once the twelfth marker is placed.
        projected.pop("to_move")
        engine.pop("to_move")
    assert engine == projected


def assert_view(game, state: dict, pos: model.Position) -> None:
    s = model.projection(pos)
    for player in model.PLAYERS:
        other = model.opponent(player)
        view = game.view(state, player)
        assert view["hands"][player] == s["hands"][player]
        assert view["hands"].get(other) is None  # never the opponent's tokens
        bags = view.get("bags")
        assert not isinstance(bags, dict) or all(not isinstance(b, list) for b in bags.values())
        assert view["hand_sizes"] == {p: len(s["hands"][p]) for p in model.PLAYERS}
        assert view["bag_sizes"] == {p: len(s["bags"][p]) for p in model.PLAYERS}
        for key in ("borders", "provinces", "italia_dashed", "hand_limits", "senate", "markers"):
            assert view[key] == s[key]


def pick_move(rng: random.Random, moves: list[str], policy: str) -> str:
    if policy != "uniform":
        wanted = [m for m in moves if all((c != "-") == (policy == "use") for c in m.split(" ")[1:])]
        if wanted:
            return rng.choice(wanted)
    return rng.choice(moves)


def model_accepts(pos: model.Position, move: str) -> bool:
    """Whether the model finds ``move`` legal (draws not listed are taken arbitrarily)."""
    try:
        model.play(pos, move, draw=lambda player, bag: bag[0])
    except ValueError:
        return False
    return True


def probe_illegal_moves(game, state: dict, pos: model.Position, rng: random.Random, move: str,
                        drawn: list[str]) -> None:
    """The engine and the model agree on a few random placements; bad draws are refused by both."""
    s = model.projection(pos)
    hand = s["hands"][s["to_move"]]
    for _ in range(4):
        token = rng.choice(hand) if hand and rng.random() < 0.7 else rng.choice(model.TOKEN_ORDER)
        bid = rng.choice(model.BORDERS)
        a, b = model.BORDER_ENDS[bid]
        if rng.random() < 0.5:
            a, b = b, a
        candidate = model.format_move(token, a, b, rng.choice([[], ["-"], ["T"], ["W", "-"]]))
        verdict = game.validate(state, candidate)
        assert verdict["legal"] is model_accepts(pos, candidate), (candidate, verdict)
    bag = s["bags"][s["to_move"]]
    bad = []
    if len(drawn) >= 2:
        bad.append(" ".join([move] + ["=" + t for t in drawn[:-1]]))  # one draw missing
    if drawn:
        missing = [t for t in model.TOKEN_ORDER if t not in bag]
        if missing:
            bad.append(" ".join([move, "=" + missing[0]] + ["=" + t for t in drawn[1:]]))  # not in the bag
    if len(bag) > len(drawn):
        left = list(bag)
        for t in drawn:
            left.remove(t)
        bad.append(" ".join([move] + ["=" + t for t in drawn + [left[0]]]))  # one draw too many
    for text in bad:
        assert not model_accepts(pos, text), text
        verdict = game.validate(state, text)
        assert verdict["legal"] is False, (text, verdict)
        with pytest.raises(REFUSED):
            game.play(state, text)


def start(setting: tuple, seed: int):
    name, variant, give_bonuses, give_hands, _ = setting
    rng = random.Random(f"caesar-{name}-{seed}")
    bonuses, hands = random_options(rng)
    options = {}
    if give_bonuses:
        options["bonuses"] = bonuses
    if give_hands:
        options["hands"] = hands
    game = referee.game("caesar", variant=variant, options=options)
    state = game.new(seed=seed)
    assert game.new(seed=seed) == state  # the seeded setup is deterministic
    engine_bonuses, engine_hands = setup_from_state(state)
    if give_bonuses:
        assert engine_bonuses == bonuses
    if give_hands:
        assert engine_hands == {p: model.token_sorted(hands[p]) for p in model.PLAYERS}
    pos = model.initial(engine_bonuses, engine_hands)  # raises if the engine's setup is not a proper one
    assert game.check(state) == state
    assert game.parse_position(game.position(state)) == state
    return rng, game, state, pos


@pytest.mark.slow
@pytest.mark.parametrize("setting", SETTINGS, ids=[s[0] for s in SETTINGS])
def test_random_games_agree_with_the_reference_model(setting: tuple) -> None:
    drawer = setting[4]
    finished = 0
    ends = set()
    for seed in range(max(GAMES, 1)):  # seed 0 of every setting ends by the twelfth marker
        rng, game, state, pos = start(setting, seed)
        policy = POLICIES[seed % len(POLICIES)]
        ply = 0
        while True:
            assert_same_position(game, state, pos)
            assert_view(game, state, pos)
            moves = game.legal_moves(state)
            assert moves == model.legal_moves(pos), model.projection(pos)
            if not moves:
                finished += 1
                ends.add(model.outcome(pos)["decided_by"])
                with pytest.raises(errors.GameOver):
                    game.play(state, "L22@HU-HC")
                break
            assert game.perft(state, 1) == len(moves)
            move = pick_move(rng, moves, policy)
            mover = model.projection(pos)["to_move"]
            if drawer == "python":
                nxt, effects = model.play(pos, move, draw=lambda player, bag: rng.choice(bag))
                full = " ".join([move] + model.draws_of(effects))
                if ply % 5 == 0:
                    probe_illegal_moves(game, state, pos, rng, move, effects["drawn"])
                verdict = game.validate(state, full)
                assert verdict["legal"] is True, (full, verdict)
                result = game.play(state, full, player=mover)
            else:
                # The engine draws from its seeded source; the model replays what it reports.
                result = game.play(state, move, player=mover)
                full = " ".join([move] + model.draws_of(result["effects"]))
                nxt, effects = model.play(pos, full)
            for key in EFFECT_KEYS:
                assert result["effects"][key] == effects[key], (key, full)
            assert {key: result["outcome"][key] for key in OUTCOME_KEYS} == model.outcome(nxt)
            # The state round-trips through its JSON form and its position notation.
            state = result["state"]
            assert game.check(state) == state
            assert game.position(state) == result["position"]
            assert game.parse_position(result["position"]) == state
            pos = nxt
            ply += 1
            assert ply <= 32
    assert finished == max(GAMES, 1)
    assert "twelfth_marker" in ends, ends


def test_seeded_setups_are_proper_and_vary() -> None:
    game = referee.game("caesar")
    layouts = set()
    for seed in range(20):
        state = game.new(seed=seed)
        bonuses, hands = setup_from_state(state)
        pos = model.initial(bonuses, hands)  # 5/4/4/4 bonuses, two tokens each out of full bags
        assert engine_projection(state) == model.projection(pos)
        layouts.add(tuple(sorted(bonuses.items())))
    assert len(layouts) > 1


@pytest.mark.slow
def test_perft_agrees_with_the_model_along_random_games() -> None:
    # Depth 2 (and 3 late in the game) wherever the model says the count does not depend on the draws.
    compared = 0
    for seed in range(max(4, GAMES // 10)):
        rng, game, state, pos = start(SETTINGS[0], 1000 + seed)
        while model.legal_moves(pos):
            for depth in (2, 3):
                if depth == 3 and len(model.legal_moves(pos)) > 12:
                    continue
                try:
                    expected = model.perft(pos, depth)
                except model.ChanceDependent:
                    continue
                assert game.perft(state, depth) == expected, (depth, model.projection(pos))
                compared += 1
            move = rng.choice(model.legal_moves(pos))
            pos, effects = model.play(pos, move, draw=lambda player, bag: rng.choice(bag))
            state = game.play(state, " ".join([move] + model.draws_of(effects)))["state"]
    assert compared > 0


def test_moves_without_draws_use_the_engine_source() -> None:
    # Without listed draws the engine draws itself; what it reports must be tokens the model agrees
    # were in the bag, and the same state follows from listing them.
    _, game, state, pos = start(SETTINGS[0], 7)
    move = model.legal_moves(pos)[0]
    result = game.play(state, move)
    full = " ".join([move] + model.draws_of(result["effects"]))
    nxt, effects = model.play(pos, full)
    assert engine_projection(result["state"]) == model.projection(nxt)
    assert {key: result["effects"][key] for key in EFFECT_KEYS} == effects
    assert engine_projection(game.play(state, full)["state"]) == engine_projection(result["state"])
