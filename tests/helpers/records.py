"""Game records of all four games for the record-replay paths (`referee.replay_records`, `referee validate`
locally and on Dask): each with a `seed` and `options`, Hypnosia's with engine-drawn and client-supplied
rolls, Caesar!'s with engine-drawn and client-supplied draws; some stop at an illegal ply. The moves are
picked among the engine's legal moves; what a record comes to is worked out again by the reference models
(`model_replay`), whose chance is the reference ChaCha8 (tests/rules/reference/chacha.py)."""

from __future__ import annotations

import random

import referee
from rules.reference import caesar, hypnosia, iago, isaac
from rules.reference.chacha import ChaCha8

CAESAR_KINDS = [token["code"] for token in referee.game("caesar").info()["tokens"]]
FULL_BAG = [token["code"] for token in referee.game("caesar").info()["tokens"] for _ in range(token["count"])]
COLOURS = ["red", "yellow", "green", "blue", "purple", "orange"]
ILLEGAL = {"iago": ["e5", "a1", "zz"], "isaac": ["a1-c1", "xa1-c1+3", "pass"], "hypnosia": ["pass", "h1+6", "7-7"],
           "caesar": ["L40@HU-HC", "S60@HU-HU", "T"]}


def random_options(name: str, rng: random.Random) -> tuple[str | None, dict]:
    if name == "iago":
        variant = rng.choice(["standard", "loose", "simple"])
        return variant, {"penalty": variant == "standard" and rng.random() < 0.5}
    if name == "isaac":
        return None, {"first_player": rng.choice(["black", "white"]), "scoring_starts": rng.choice(["first_to_pass", "first_player"])}
    if name == "hypnosia":
        options = {"players": rng.randint(2, 6), "doubles_cross_bridges": rng.random() < 0.5}
        if rng.random() < 0.5:
            options["first_player"] = COLOURS[referee.game("hypnosia", options=options).setup["options"]["seats"][0]]
        return None, options
    options = {}
    if rng.random() < 0.4:
        options["hands"] = {"caesar": ["S60", "L40"], "pompey": ["D51", "N42"]}
    return None, options


def with_draws(game: referee.Game, state: dict, move: str, rng: random.Random) -> str:
    """A Caesar! move with client-supplied draws: as many as the move would draw, picked from the bag."""
    drawn = game.play(state, move)["effects"]["drawn"]
    bag = list(state["bags"][state["to_move"]])
    picks = rng.sample(bag, len(drawn))
    return " ".join([move] + ["=" + token for token in picks]) if picks else move


def random_record(name: str, rng: random.Random, number: int) -> dict:
    variant, options = random_options(name, rng)
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
        moves.append(rng.choice(ILLEGAL[name]))  # an illegal (or malformed) ply somewhere
    record = {"game": name, "options": options, "seed": seed, "moves": moves, "id": number}
    if variant is not None:
        record["variant"] = variant
    return record


def random_records(count: int, seed: int = 2026) -> list[dict]:
    rng = random.Random(seed)
    return [random_record(rng.choice(["iago", "isaac", "hypnosia", "caesar"]), rng, number) for number in range(count)]


# ------------------------------------------------------------------ the reference models' replay


def model_replay(record: dict) -> dict:
    """What the reference model makes of a record: `legal`, `plies` played, the first illegal `ply`, and
    the model's final position, outcome and (for Hypnosia and Caesar!) state projection."""
    name, options, moves = record["game"], record.get("options", {}), record["moves"]
    rng = ChaCha8.from_u64(record["seed"])
    if name == "iago":
        pos = iago.initial(record.get("variant", "standard"), options.get("penalty", False))
        step = lambda pos, move: iago.play(pos, move)  # noqa: E731
    elif name == "isaac":
        pos = isaac.initial(options.get("first_player", "black"), options.get("scoring_starts", "first_to_pass"))
        step = lambda pos, move: isaac.play(pos, move)  # noqa: E731
    elif name == "hypnosia":
        seats = referee.game("hypnosia", options=options).setup["options"]["seats"]  # the default seats by count
        first = options.get("first_player") or COLOURS[seats[rng.below(len(seats))]]
        pos = hypnosia.initial(options | {"first_player": first})

        def step(pos, move):
            if move == "roll" and pos.dice is None and not hypnosia.is_finished(pos):
                return hypnosia.play(pos, move, drawn=(rng.die(), rng.die()))
            return hypnosia.play(pos, move)
    else:
        pos = caesar.initial(*caesar_setup(options, rng))

        def step(pos, move):
            return caesar.play(pos, move, draw=lambda player, bag: draw_token(rng, list(bag)))
    for ply, move in enumerate(moves):
        try:
            pos, _ = step(pos, move)
        except ValueError:
            return {"legal": False, "plies": ply, "ply": ply, "move": move, "pos": pos}
    return {"legal": True, "plies": len(moves), "pos": pos}


def draw_token(rng: ChaCha8, bag: list[str]) -> str:
    index = rng.below(len(bag))
    for kind in CAESAR_KINDS:
        if index < bag.count(kind):
            return kind
        index -= bag.count(kind)
    raise AssertionError("index beyond the bag")


def caesar_setup(options: dict, rng: ChaCha8) -> tuple[dict, dict]:
    """The bonus layout and hands of a seeded setup, drawn as tests/rules/test_chance.py documents."""
    bonuses = options.get("bonuses")
    if bonuses is None:
        tokens = ["senate"] * 5 + ["tactics"] * 4 + ["wealth"] * 4 + ["might"] * 4
        for i in range(len(tokens) - 1, 0, -1):
            j = rng.below(i + 1)
            tokens[i], tokens[j] = tokens[j], tokens[i]
        bonuses = dict(zip([p for p in caesar.PROVINCES if p != "IT"], tokens))
    hands = options.get("hands")
    if hands is None:
        hands = {}
        for player in ("caesar", "pompey"):
            bag = list(FULL_BAG)
            hands[player] = []
            for _ in range(2):
                hands[player].append(draw_token(rng, bag))
                bag.remove(hands[player][-1])
    return bonuses, hands


def assert_result_is_the_models(result: dict, record: dict, expected: dict | None = None) -> None:
    """A record's result (from any replay path) says what the reference model says (``expected``: the
    record's ``model_replay``, when already worked out)."""
    expected = expected or model_replay(record)
    assert result["legal"] is expected["legal"], (record, result)
    assert result["plies"] == expected["plies"]
    if not expected["legal"]:
        assert (result["ply"], result["move"]) == (expected["ply"], expected["move"])
    name, pos = record["game"], expected["pos"]
    if name == "iago":
        assert result["position"] == iago.format_position(pos)
        assert result["outcome"]["scores"] == iago.scores(pos) and result["outcome"]["winner"] == iago.winner(pos)
        assert (result["outcome"]["status"] == "finished") == iago.is_finished(pos)
        return
    if name == "isaac":
        assert result["position"] == isaac.format_position(pos)
        model = isaac.outcome(pos)
        assert {key: result["outcome"][key] for key in model} == model
        return
    game = referee.game(name, variant=record.get("variant"), options=record.get("options"))
    state = game.parse_position(result["position"])  # the engine reads its own notation; the fields are compared
    module = hypnosia if name == "hypnosia" else caesar
    model, projected = module.outcome(pos), module.projection(pos)
    if model["decided_by"] == "twelfth_marker":  # the spec leaves whose turn it is then open (test_caesar_engine)
        del projected["to_move"]
    assert {key: state[key] for key in projected} == projected
    assert {key: result["outcome"].get(key) for key in model} == model


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
