"""Game records of all four games for the record-replay paths (`referee.replay_records`, `referee validate`
locally and on Dask): each with a `seed` and `options`, Hypnosia's with engine-drawn and client-supplied
rolls, Caesar!'s with engine-drawn and client-supplied draws; some stop at an illegal ply. The moves are
picked among the engine's legal moves; what a record comes to is worked out again by the reference models
(`model_replay`), whose chance is the reference ChaCha8 (tests/rules/reference/chacha.py)."""

from __future__ import annotations

import random

import referee
from helpers.games import FACTS
from rules.reference.chacha import ChaCha8

def with_draws(game: referee.Game, state: dict, move: str, rng: random.Random) -> str:
    """A Caesar! move with client-supplied draws: as many as the move would draw, picked from the bag."""
    drawn = game.play(state, move)["effects"]["drawn"]
    bag = list(state["bags"][state["to_move"]])
    picks = rng.sample(bag, len(drawn))
    return " ".join([move] + ["=" + token for token in picks]) if picks else move


def random_record(name: str, rng: random.Random, number: int) -> dict:
    variant, options = FACTS[name].random_setup(rng)
    seed = rng.randrange(2**64)
    game = referee.game(name, variant=variant, options=options)
    state, moves = game.new(seed=seed), []
    for _ in range(rng.randrange(0, 70)):
        legal = game.legal_moves(state)
        if not legal:
            break
        move = rng.choice(legal)
        if name == "hypnosia" and legal == ["roll"] and rng.random() < 0.5:
            move = f"{rng.randint(1, 6)}-{rng.randint(1, 6)}"  # a client-supplied roll
            if rng.random() < 0.5:
                turns = game.legal_moves(game.play(state, move)["state"])
                move = f"{move}: {rng.choice(turns)}"  # a whole turn with its roll
        elif name == "caesar" and rng.random() < 0.5:
            move = with_draws(game, state, move, rng)
        moves.append(move)
        state = game.play(state, move)["state"]
    if rng.random() < 0.15:
        moves.append(rng.choice(FACTS[name].illegal_plies))  # an illegal (or malformed) ply somewhere
    record = {"game": name, "options": options, "seed": seed, "moves": moves, "id": number}
    if variant is not None:
        record["variant"] = variant
    return record


def random_records(count: int, seed: int = 2026) -> list[dict]:
    rng = random.Random(seed)
    return [random_record(rng.choice(referee.games()), rng, number) for number in range(count)]


# ------------------------------------------------------------------ the reference models' replay


def model_replay(record: dict) -> dict:
    """What the reference model makes of a record: `legal`, `plies` played, the first illegal `ply`, and
    the model's final position, outcome and (for Hypnosia and Caesar!) state projection."""
    name, moves = record["game"], record["moves"]
    rng = ChaCha8.from_u64(record["seed"])
    pos, step = FACTS[name].model_start(record, rng)
    for ply, move in enumerate(moves):
        try:
            pos, _ = step(pos, move)
        except ValueError:
            return {"legal": False, "plies": ply, "ply": ply, "move": move, "pos": pos}
    return {"legal": True, "plies": len(moves), "pos": pos}


def assert_result_is_the_models(result: dict, record: dict, expected: dict | None = None) -> None:
    """A record's result (from any replay path) says what the reference model says (``expected``: the
    record's ``model_replay``, when already worked out)."""
    expected = expected or model_replay(record)
    assert result["legal"] is expected["legal"], (record, result)
    assert result["plies"] == expected["plies"]
    if not expected["legal"]:
        assert (result["ply"], result["move"]) == (expected["ply"], expected["move"])
    FACTS[record["game"]].model_agrees(result, record, expected["pos"])


def expected_by_game_replay(record: dict) -> dict:
    """The result a record should get, by `game.replay` of its setup and seed."""
    setup = referee.game(record["game"], variant=record.get("variant"), options=record.get("options"))
    replayed = setup.replay(record["moves"], seed=record.get("seed"))
    fields = ("legal", "plies", "position", "outcome") + (() if replayed["legal"] else ("ply", "move", "reason"))
    return {key: replayed[key] for key in fields}


def assert_records_cover_every_game_and_chance(records: list[dict]) -> None:
    """The records hold every game, seeds, options, and both engine-drawn and client-supplied chance."""
    moves = {name: [m for r in records if r["game"] == name for m in r["moves"]] for name in referee.games()}
    assert all(moves.values()) and all("seed" in r and "options" in r for r in records)
    assert "roll" in moves["hypnosia"] and any(m[:1].isdigit() and ":" not in m for m in moves["hypnosia"])
    assert any(": " in m for m in moves["hypnosia"])  # a whole turn with its supplied roll
    assert any(" =" in m for m in moves["caesar"]) and any("=" not in m for m in moves["caesar"])
    assert {(r["game"], bool(r.get("options"))) for r in records} >= {(name, True) for name in referee.games()}
