"""The engine's opponent from Python (docs/bots.md, the engine's opponent): `EngineBot` and the specs `bot`
and `referee match` take (`engine`, `engine:LEVEL`, `engine:SIMULATIONS`), what `Position.suggest` and
`game.suggest` answer, a small strength check that cannot flake (seeded, so deterministic), and that the
search sees only what its player sees: Caesar! states that differ only in the opponent's hidden hand and
bag get the same suggestion, and so does an opaque state and its plain twin. Library only (no server)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
from typing import Any

import pytest

import referee
from referee import _core, bots
from referee.cli import main
from helpers.keys import KEYS_ROTATED, SECRET_2
from rules.reference.aead import seal_xchacha20poly1305

GAMES = referee.games()


# ---------------------------------------------------------------------------------------------- specs

@pytest.mark.parametrize(("spec", "level", "simulations"), [
    ("engine", _core.DEFAULT_LEVEL, _core.LEVELS[_core.DEFAULT_LEVEL - 1]),
    *[(f"engine:{level}", level, _core.LEVELS[level - 1]) for level in range(1, 9)],
    ("engine:9", None, 9), ("engine:400", None, 400), ("engine:010", None, 10), ("engine:08", 8, 3200),
])
def test_engine_specs_are_a_level_or_simulations(spec: str, level: int | None, simulations: int) -> None:
    """`engine:1` to `engine:8` are the levels (8 is 3,200 simulations); a whole number above 8 is simulations."""
    made = bots.bot(spec, seed=1)
    assert isinstance(made, bots.EngineBot)
    assert (made.level, made.simulations) == (level, simulations)


@pytest.mark.parametrize(("spec", "says"), [
    ("engine:0", "engine:LEVEL takes a level 1 to 8, and engine:SIMULATIONS a whole number of simulations above 8, "
                 "not '0'"),
    ("engine:", "not ''"), ("engine:-3", "not '-3'"), ("engine:2.5", "not '2.5'"), ("engine:+5", "not '+5'"),
    ("engine:many", "not 'many'"), ("engine:٣", "not '٣'"), ("engine:1:2", "not '1:2'"),
    ("engine:4294967296", "engine:SIMULATIONS takes at most 4,294,967,295 simulations, not '4294967296'"),
    ("engines", "unknown bot 'engines': random, mcts, mcts:SIMULATIONS, engine, engine:LEVEL (1 to 8) or "
                "engine:SIMULATIONS (a whole number above 8)"),
    ("Engine:4", "unknown bot 'Engine:4'"),
])
def test_a_bad_engine_spec_says_what_is_wrong(spec: str, says: str) -> None:
    with pytest.raises(ValueError) as refused:
        bots.bot(spec)
    assert says in str(refused.value), str(refused.value)


@pytest.mark.parametrize(("arguments", "says"), [
    ({"level": 0}, "levels are 1 to 8, not 0"), ({"level": 9}, "levels are 1 to 8, not 9"),
    ({"level": 2.0}, "levels are 1 to 8, not 2.0"), ({"simulations": 0}, "simulations are 1 to 4,294,967,295"),
    ({"simulations": 2**32}, "simulations are 1 to"), ({"level": 3, "simulations": 30}, "not both"),
    ({"think_ms": 0}, "think_ms is 1 to"), ({"memory": 0}, "memory is a positive number of bytes"),
])
def test_engine_bot_refuses_a_budget_out_of_range(arguments: dict[str, Any], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        bots.EngineBot(**arguments)


@pytest.mark.parametrize(("arguments", "field", "says"), [
    ({"level": 300}, "level", "levels are 1 to 8, not 300"), ({"level": 0}, "level", "not 0"),
    ({"simulations": 2**40}, "simulations", "1099511627776 asked"), ({"think_ms": 2**33}, "think_ms", "8589934592 ms"),
])
def test_game_suggest_refuses_a_budget_past_any_bound_by_its_name(arguments: dict[str, Any], field: str,
                                                                   says: str) -> None:
    """A number past a bound, up to 2^64 - 1, is `OverBudget` naming the bound (not an integer's overflow), in
    the library and at a handle."""
    game = referee.game("iago")
    with pytest.raises(referee.OverBudget, match=says) as raised:
        game.suggest(game.new(seed=1), **arguments)
    assert raised.value.data["field"] == field
    with pytest.raises(referee.OverBudget, match=says):
        game.start(seed=1).suggest(**arguments)


def test_the_engine_bot_plays_what_game_suggest_answers() -> None:
    """At a turn's start `Position.suggest` (the bot's call) answers `game.suggest`'s action for the same
    seed and simulations; a seeded bot repeats its decisions, and every decision is legal."""
    for name in GAMES:
        game = referee.game(name)
        rng = random.Random(5)
        position, checked = game.start(seed=5), 0
        while not position.is_over() and position.ply < 60:
            if position.is_chance():
                with pytest.raises(ValueError, match="chance decides here"):
                    position.suggest(simulations=10, seed=1)
                position.push(position.sample_chance(rng))
                continue
            action = position.suggest(simulations=30, seed=position.ply)
            assert action in position.legal_actions()
            assert position.suggest(simulations=30, seed=position.ply) == action
            if position.at_turn_start():
                answer = game.suggest(position.state(), simulations=30, seed=position.ply)
                assert answer["action"] == action and answer["simulations"] == 30, name
                checked += 1
            position.push(action)
        assert checked >= 3, name
        over = game.start(seed=1)
        while not over.is_over():
            over.push(over.sample_chance(rng) if over.is_chance() else rng.choice(over.legal_actions()))
        with pytest.raises(referee.GameOver):
            over.suggest(simulations=10)


def test_a_seeded_engine_bot_repeats_its_games() -> None:
    game = referee.game("caesar")

    def played(seed: int) -> list[str]:
        seats = {player: bots.EngineBot(level=1, seed=seed) for player in game.start(seed=3).players}
        return bots.play_game(game, seats, 3, random.Random(3)).history()

    assert played(7) == played(7)
    assert played(7) != played(8)


@pytest.mark.parametrize("players", range(2, 7))
def test_the_engine_decides_for_every_seat_of_hypnosia(players: int) -> None:
    """Hypnosia for 2 to 6: the engine searches for whichever seat is to decide (each decision legal, or
    the push would raise), with a budget in time as well."""
    game = referee.game("hypnosia", options={"players": players})
    deciders: list[str] = []

    class Watched(bots.EngineBot):
        def choose(self, position: referee.Position) -> int:
            deciders.append(position.to_move)  # type: ignore[arg-type]
            return super().choose(position)

    seats = {player: Watched(simulations=12, think_ms=10_000, seed=i)
             for i, player in enumerate(game.start(seed=players).players)}
    position = bots.play_game(game, seats, players, random.Random(players), max_decisions=12 * players)
    assert set(deciders) == set(position.players) and len(position.players) == players


@pytest.mark.parametrize("name", [name for name in GAMES if name != "hypnosia"])
def test_the_engine_beats_random_moves(name: str) -> None:
    """At 200 simulations, seated first and second in turn, the engine wins at least 8 of 10 seeded games
    against random moves (deterministic: the same games every run). Not Hypnosia: its games are long (~200
    decisions, ~100 of them the engine's), too long for the suite; bench/bots.py plays them."""
    game = referee.game(name)
    wins = 0
    for k in range(10):
        seats: dict[str, bots.Bot] = {
            player: bots.EngineBot(simulations=200, seed=k) if i == k % 2 else bots.RandomBot(k)
            for i, player in enumerate(game.start(seed=k).players)}
        winner = bots.play_game(game, seats, k, random.Random(k)).outcome()["winner"]
        wins += isinstance(seats.get(winner), bots.EngineBot)
    assert wins >= 8


# ---------------------------------------------------------------------------------------------- matches

def test_match_seats_the_engine_for_six_at_hypnosia(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """`referee match engine:1 random ... --options '{"players": 6}'`: one seat a bot, records `referee
    validate` replays and whose claim agrees."""
    records = tmp_path / "records.jsonl"
    seats = ["engine:1", "random", "random", "random", "random", "engine:30"]
    assert main(["match", *seats, "--game", "hypnosia", "--options", '{"players": 6}', "--games", "1",
                 "--seed", "3", "-o", str(records)]) == 0
    [record] = [json.loads(line) for line in records.read_text().splitlines()]
    assert record["options"] == {"players": 6} and list(record["players"].values()) == seats
    assert record["termination"] == "normal"
    results = tmp_path / "results.jsonl"
    assert main(["validate", str(records), "-o", str(results), "--no-progress"]) == 0
    result = json.loads(results.read_text())
    assert result["legal"] and result["claim"] == "agrees", result
    assert "1 games of hypnosia; wins by bot: engine:1: " in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------- what it sees

def token_order(token: str) -> tuple[int, int]:
    """Caesar!'s token order (L40 L31 L22 S60 .. N33), which a state lists hands and bags in."""
    return "LSDN".index(token[0]), -int(token[1:])


def redealt(state: dict[str, Any], player: str, rng: random.Random) -> dict[str, Any]:
    """The state with `player`'s hand and bag dealt again from the same tokens (another split when there
    is one), everything else as it was."""
    hand, bag = state["hands"][player], state["bags"][player]
    tokens = hand + bag
    for _ in range(50):
        rng.shuffle(tokens)
        if sorted(tokens[:len(hand)], key=token_order) != hand:
            break
    twin = json.loads(json.dumps(state))
    twin["hands"][player] = sorted(tokens[:len(hand)], key=token_order)
    twin["bags"][player] = sorted(tokens[len(hand):], key=token_order)
    return twin


def caesar_states(game: referee.Game[Any, Any, Any, Any], games: int, every: int) -> list[dict[str, Any]]:
    """States of seeded random games at a turn's start, about `every` turns apart, each at a different
    point of its game (the offset moves with the game)."""
    states, rng = [], random.Random(11)
    for seed in range(games):
        position, turns = game.start(seed=seed), 0
        while not position.is_over():
            if position.is_chance():
                position.push(position.sample_chance(rng))
                continue
            if position.at_turn_start():
                if turns % every == seed % every:
                    states.append(position.state())
                turns += 1
            position.push(rng.choice(position.legal_actions()))
    return states


def without_time(suggestion: Any) -> dict[str, Any]:
    return {key: value for key, value in suggestion.items() if key != "spent_ms"}


def test_what_the_mover_cannot_see_does_not_change_the_suggestion() -> None:
    """Pairs of Caesar! states that differ only in the opponent's hand and bag (the same tokens dealt
    again): the mover's view is equal, and so is the whole suggestion for a seed (move, value, candidates)."""
    game = referee.game("caesar")
    rng, pairs, changed_hand, seen, differs = random.Random(2), 0, 0, 0, 0
    for state in caesar_states(game, games=8, every=3):
        mover = state["to_move"]
        other = next(player for player in state["hands"] if player != mover)
        twin = redealt(state, other, rng)
        if twin == state:
            continue  # the opponent holds no other split (nothing left in the bag)
        changed_hand += twin["hands"][other] != state["hands"][other]
        assert game.view(twin, mover) == game.view(state, mover)
        assert game.view(twin, other) != game.view(state, other) or twin["hands"][other] == state["hands"][other]
        ours = game.suggest(state, simulations=150, seed=pairs)
        assert without_time(game.suggest(twin, simulations=150, seed=pairs)) == without_time(ours)
        # The check can fail: the mover's own hand dealt again (which it sees) changes the answer.
        own = redealt(state, mover, rng)
        if own["hands"][mover] != state["hands"][mover] and game.outcome(own)["status"] == "ongoing":
            seen += 1
            differs += without_time(game.suggest(own, simulations=150, seed=pairs)) != without_time(ours)
        pairs += 1
    assert pairs >= 30 and changed_hand >= 25, (pairs, changed_hand)
    assert differs >= seen // 2 > 10, (differs, seen)


#: Each player's secret, and its commitment (docs/embedding.md: opaque states and secrets).
SECRETS = {"caesar": "caesar's secret, his alone", "pompey": "pompey's secret, his alone"}
COMMITMENTS = {player: referee.commitment(secret) for player, secret in SECRETS.items()}


def opaque_of(state: dict[str, Any], number: int) -> dict[str, str]:
    """The opaque form of a plain state (docs/security.md, opaque states), made outside the engine with the
    reference XChaCha20-Poly1305 and the tests' first key (k2): `{"state", "commitments"}` encrypted."""
    secret = base64.urlsafe_b64decode(SECRET_2 + "=" * (-len(SECRET_2) % 4))
    key = hmac.new(secret, b"referee-opaque-key/1", hashlib.sha256).digest()
    plain = {key: value for key, value in state.items() if key != "seal"}
    text = json.dumps({"state": plain, "commitments": COMMITMENTS}).encode()
    nonce = hashlib.sha256(b"nonce %d" % number).digest()[:24]
    sealed = seal_xchacha20poly1305(key, nonce, text, f"referee-opaque/2\ncaesar\n{plain['rules']}\nk2".encode())
    return {"opaque": "k2." + base64.urlsafe_b64encode(nonce + sealed).decode().rstrip("=")}


def test_an_opaque_state_gets_its_plain_twin_s_suggestion() -> None:
    """Caesar! kept opaque with the players' commitments: a state's suggestion (with the mover's secret)
    is its plain (sealed) twin's, the same state under the same keys; and an opaque state whose opponent's
    hand and bag were dealt again gets it too. Without the mover's secret nothing is suggested."""
    sealed = referee.game("caesar", seal_keys=KEYS_ROTATED)
    opaque = referee.game("caesar", seal_keys=referee.SealKeys(KEYS_ROTATED, opaque=["caesar"]))
    assert opaque.committed
    rng, compared = random.Random(4), 0
    for number, state in enumerate(caesar_states(sealed, games=3, every=4)):
        mover = state["to_move"]
        other = next(player for player in SECRETS if player != mover)
        hidden = opaque_of(state, number)
        plain = sealed.suggest(state, simulations=100, seed=number)
        assert without_time(opaque.suggest(hidden, secret=SECRETS[mover], simulations=100, seed=number)) == \
            without_time(plain)
        with pytest.raises(referee.NotThisPlayer):
            opaque.suggest(hidden, simulations=10)
        with pytest.raises(referee.NotThisPlayer):
            opaque.suggest(hidden, secret=SECRETS[other], simulations=10)
        twin = opaque_of(redealt(state, other, rng), number + 1000)
        assert opaque.view(twin, mover, SECRETS[mover]) == opaque.view(hidden, mover, SECRETS[mover])
        assert without_time(opaque.suggest(twin, mover, SECRETS[mover], simulations=100, seed=number)) == \
            without_time(plain)
        compared += 1
    assert compared >= 6
