"""Seeded random playouts and mid-game samples, the same way for every game, and batches made of them.

- a **random game** is a seeded uniform random playout to the end: `game.new(seed=s)` (the seed draws
  the chance of Hypnosia's rolls and Caesar!'s setup and draws; Iago and Isaac ignore it), then
  `legal_moves` and `play` with a `random.Random(s)` choice each ply;
- a **mid-game sample** is a state from the middle half (plies 1/4 to 3/4) of a seeded random game with
  at least two legal moves (so none of Hypnosia's states before a roll, whose one move is `roll`), with
  one of its legal moves and one **refused move**: a move played or listed as legal elsewhere in the
  same game (else in another sampled game) that `validate` refuses there with `legal: false`, checked
  for every sample. `--states` samples a game (2,000)."""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass, replace
from typing import Any

import orjson
import referee

from report import progress

__all__ = ["GAMES", "MAX_PLIES", "REFERENCE", "Sample", "batch_items", "midgame_samples", "ndjson", "playout",
           "sample_games"]

GAMES = tuple(referee.games())  # the engine's list: a new game is benched with no edit here
REFERENCE = "iago"  # the game the "× Iago" columns compare with
#: No game of the four lasts this many plies (a 2-player Hypnosia game, its rolls counted, takes about
#: 200; Iago at most 61): a longer playout is a bug, not a slow game.
MAX_PLIES = 2000


def ndjson(items: list[Any]) -> bytes:
    return b"".join(orjson.dumps(item) + b"\n" for item in items)


def playout(game: referee.Game, seed: int) -> tuple[list[dict[str, Any]], list[str]]:
    """A seeded uniform random game to the end through the Python API: the state after every ply, and the
    moves. `new(seed=...)` seeds the chance of the games that have any (Hypnosia's rolls, Caesar!'s
    setup and draws); the others ignore it."""
    rng = random.Random(seed)
    state = game.new(seed=seed)
    states, moves = [state], []
    for _ in range(MAX_PLIES):
        legal = game.legal_moves(state)
        if not legal:
            return states, moves
        moves.append(rng.choice(legal))
        state = game.play(state, moves[-1])["state"]
        states.append(state)
    raise RuntimeError(f"a {game.name} playout did not end within {MAX_PLIES} plies")


@dataclass(frozen=True)
class Sample:
    """A mid-game state, a legal move, a move the rules refuse there, the state's ply, its game's length and
    the seed of its game."""
    state: dict[str, Any]
    legal: str
    illegal: str
    ply: int
    plies: int
    seed: int


def refused_move(game: referee.Game, state: dict[str, Any], legal: list[str], pools: list[list[str]],
                 rng: random.Random) -> str:
    """A well-formed move that `validate` refuses (`legal: false`) in `state`: a legal move of another
    state (an occupied or forbidden hex, a token not in hand, dice not rolled, ...), from the first of
    `pools` that has one, in a seeded random order."""
    allowed = set(legal)
    for pool in pools:
        candidates = [move for move in pool if move not in allowed]
        rng.shuffle(candidates)
        for move in candidates:
            if game.validate(state, move)["legal"] is False:
                return move
    raise RuntimeError(f"no refused {game.name} move found")


def midgame_samples(game: referee.Game, count: int, seed: int) -> list[Sample]:
    """`count` samples from the middle half (plies 1/4 to 3/4) of seeded random games, states with at
    least two legal moves (so none of Hypnosia's states before a roll, whose one move is `roll`). The
    refused move is a move played or sampled as legal elsewhere in the same game, else in any sampled
    game: so the first game's samples (the wrk bodies) do not depend on `count` while that game has a
    refused move of its own for each of them."""
    found: list[tuple[dict[str, Any], list[str], int, int, int]] = []
    pools: dict[int, set[str]] = {}  # by game: the moves played and the legal moves of the sampled states
    for game_seed in range(seed + 1, seed + 1 + count):  # bounded: every game but a very short one gives a sample
        states, moves = playout(game, game_seed)
        pools[game_seed] = set(moves)
        last = len(states) - 1
        for ply in range(last // 4, last * 3 // 4 + 1):
            legal = game.legal_moves(states[ply])
            pools[game_seed].update(legal)
            if len(legal) >= 2:
                found.append((states[ply], legal, ply, last, game_seed))
        if len(found) >= count:
            break
    found = found[:count]
    everything = sorted(set().union(*pools.values()))
    own = {game_seed: sorted(pool) for game_seed, pool in pools.items()}
    rng = random.Random(seed)
    return [Sample(state, rng.choice(legal), refused_move(game, state, legal, [own[game_seed], everything], rng),
                   ply, plies, game_seed)
            for state, legal, ply, plies, game_seed in found]


def sample_games(args: argparse.Namespace, games: dict[str, referee.Game]) -> dict[str, list[Sample]]:
    """Each game's samples, their states in the form `--form` asks for (objects, or position strings)."""
    samples = {}
    for name, game in games.items():
        progress(f"sampling {args.states} mid-game {name} states")
        samples[name] = midgame_samples(game, args.states, args.seed)
        if args.form == "position":
            samples[name] = [replace(sample, state=game.position(sample.state)) for sample in samples[name]]
    return samples


def batch_items(samples: list[Sample], size: int) -> list[dict[str, Any]]:
    """`size` validate items over the samples, alternating a legal and a refused move."""
    items = []
    for index in range(size):
        sample = samples[(index // 2) % len(samples)]
        items.append({"state": sample.state, "move": sample.legal if index % 2 == 0 else sample.illegal})
    return items
