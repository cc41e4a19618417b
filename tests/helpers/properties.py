"""Checks and inputs shared by the games' property tests.

Inputs are built from reachable states (seeded random play through the engine, then at most one change),
so that most examples reach the branch a test is about rather than the engine's first refusal. Each test
labels every example with ``hypothesis.event`` (see ``--hypothesis-show-statistics``) and asserts, after
all its examples, that a stated share of them reached its accepted branch."""

from __future__ import annotations

import random
from collections import Counter
from functools import cache
from typing import Any, Iterator

import orjson
from hypothesis import event, settings
from hypothesis import strategies as st

import referee
from helpers.games import FACTS

# Setups each game is played in: every variant and option value that changes the rules.
SETUPS: dict[str, list[dict]] = {name: FACTS[name].property_setups for name in referee.games()}
GAMES = list(SETUPS)
END = 10_000  # plies enough to play any game to its end
PLIES = st.integers(0, 99).map(lambda n: END if n >= 85 else n)  # a sixth of the games played to their end


def examples(n: int) -> settings:
    """``n`` examples under the default profile, scaled by the loaded one (``ci``, ``deep``)."""
    return settings(max_examples=max(10, n * settings.default.max_examples // 100))


REFUSED = {name: FACTS[name].state_errors for name in SETUPS}


@cache
def setup_game(name: str, index: int) -> referee.Game:
    return referee.game(name, **SETUPS[name][index])


@cache
def _game_of(name: str, setup: str) -> referee.Game:
    return referee.game(name, **orjson.loads(setup))


def game_of(name: str, state: dict) -> referee.Game:
    """The game whose setup is the state's own (its position strings parse back to the state)."""
    setup = {key: state[key] for key in ("variant", "options") if key in state}
    return _game_of(name, orjson.dumps(setup, option=orjson.OPT_SORT_KEYS).decode())


def playout(game: referee.Game, seed: int, plies: int) -> Iterator[dict]:
    """Every state of a seeded random game of up to ``plies`` legal moves, each taken back by the game
    (chance drawn from the state's generator)."""
    rng, state = random.Random(seed), game.new(seed=seed)
    yield state
    for _ in range(plies):
        moves = game.legal_moves(state)
        if not moves:
            return
        state = game.play(state, rng.choice(moves))["state"]
        yield state


def random_moves(game: referee.Game, seed: int) -> list[str]:
    """The moves of a whole game of `game`'s default setup, each chosen at random by `seed`."""
    rng, state, moves = random.Random(seed), game.new(), []
    while legal := game.legal_moves(state):
        moves.append(rng.choice(legal))
        state = game.play(state, moves[-1])["state"]
    return moves


def played(name: str, index: int, seed: int, plies: int) -> dict:
    """The state after up to ``plies`` random legal moves of a game of setup ``index``."""
    *_, state = playout(setup_game(name, index), seed, plies)
    return state


def reachable(name: str) -> st.SearchStrategy[tuple[int, dict]]:
    """(setup index, state) of a seeded random game of ``name``: early, middle or played to its end."""
    return st.integers(0, len(SETUPS[name]) - 1).flatmap(lambda index: st.tuples(
        st.just(index),
        st.builds(lambda seed, plies: played(name, index, seed, plies),
                  st.integers(0, 2**32 - 1), PLIES)))


MISSING = object()
LEAVES = (st.none() | st.booleans() | st.integers(-3, 200) | st.sampled_from(["", "black", "red", "caesar", "x"])
          | st.lists(st.integers(0, 9), max_size=3))


def paths(value: Any, depth: int = 3, prefix: tuple = ()) -> list[tuple]:
    """Every path into a JSON value down to ``depth`` keys or indices, the value's own parts first."""
    found = [prefix] if prefix else []
    if depth and isinstance(value, dict):
        for key, inner in value.items():
            found += paths(inner, depth - 1, prefix + (key,))
    elif depth and isinstance(value, list):
        for index, inner in enumerate(value):
            found += paths(inner, depth - 1, prefix + (index,))
    return found


def get(value: Any, path: tuple) -> Any:
    for key in path:
        try:
            value = value[key]
        except (KeyError, IndexError, TypeError):
            return MISSING
    return value


def put(value: Any, path: tuple, new: Any) -> Any:
    """A copy of ``value`` with ``new`` at ``path`` (removed when ``new`` is MISSING)."""
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    if len(path) == 1 and new is MISSING:
        del copy[path[0]]
    else:
        copy[path[0]] = put(value[path[0]], path[1:], new)
    return copy


@st.composite
def changed(draw, name: str) -> tuple[int, dict, str]:
    """(setup index, state, label): a reachable state, or one with one change: a field (at any depth)
    given its value in another reachable state of the same setup, one character of a text changed, a
    field removed, or a hostile value. The label says which change, and whether it changed anything."""
    index = draw(st.integers(0, len(SETUPS[name]) - 1))
    seed, plies = draw(st.integers(0, 2**32 - 1)), draw(PLIES)
    state = played(name, index, seed, plies)
    kind = draw(st.sampled_from(["unchanged", "unchanged", "donor", "donor", "character", "removed", "hostile"]))
    if kind == "unchanged":
        return index, state, kind
    path = draw(st.sampled_from(paths(state)))
    old = get(state, path)
    if kind == "donor":
        near = draw(st.booleans())  # the same game a few plies away, or another game
        donor = played(name, index, seed, max(0, min(plies, 200) + draw(st.integers(-3, 3)))) if near else \
            played(name, index, draw(st.integers(0, 2**32 - 1)), draw(PLIES))
        new = get(donor, path)
    elif kind == "character" and isinstance(old, str) and old:
        at = draw(st.integers(0, len(old) - 1))
        new = old[:at] + draw(st.sampled_from(sorted(set(old)) + ["."])) + old[at + 1:]
    elif kind == "removed":
        new = MISSING
    else:
        kind, new = "hostile", draw(LEAVES)
    if new is not MISSING and new == old:
        return index, state, "unchanged"
    return index, put(state, path, new), kind


class Branches:
    """Which branch each example of a property test reached: an ``event`` for hypothesis's statistics, and
    a count, so that the test can assert a share of examples reached the branch it is about."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def __call__(self, label: str) -> None:
        event(label)
        self.counts[label] += 1

    def share(self, prefix: str) -> float:
        total = sum(self.counts.values())
        return sum(n for label, n in self.counts.items() if label.startswith(prefix)) / total if total else 0.0

    def assert_share(self, prefix: str, at_least: float) -> None:
        share = self.share(prefix)
        assert share >= at_least, f"{share:.0%} of examples reached {prefix!r} (at least {at_least:.0%} expected): {dict(self.counts)}"


def assert_verdict_or_invalid_state(
    game: referee.Game, state: Any, move: str, refused: tuple[type[referee.RefereeError], ...] = (referee.InvalidState,)
) -> str:
    """Any JSON as a state: a verdict on the move, or `invalid-state` with a detail; nothing else. Returns
    which ("legal", "illegal", "refused")."""
    try:
        verdict = game.validate(state, move)
    except refused as error:
        assert error.code in ("invalid-state", "invalid-board") and error.detail and error.data["field"]
        return "refused"
    assert isinstance(verdict["legal"], bool)
    if not verdict["legal"]:
        assert verdict["reason"]["code"] in ("illegal-move", "malformed-move", "game-over", "not-your-turn"), verdict
    return "legal" if verdict["legal"] else "illegal"


def assert_position_round_trips(
    game: referee.Game, text: str, refused: tuple[type[referee.RefereeError], ...] = (referee.InvalidState,)
) -> str:
    """Any text as a position: refused with a typed error, or a state written back as the same text.
    Returns which ("accepted", "refused")."""
    try:
        state = game.parse_position(text)
    except refused as error:
        assert error.detail
        return "refused"
    assert game.position(state) == text
    assert game.check(state) == state
    return "accepted"


def assert_playable(game: referee.Game, state: dict, sample: int = 30) -> None:
    """An accepted state is fully playable: moves exactly while the game is on, every sampled move plays,
    and every answered state is accepted back unchanged and writes the same position."""
    moves = game.legal_moves(state)
    assert bool(moves) == (game.outcome(state)["status"] == "ongoing")
    assert len(set(moves)) == len(moves)
    for move in random.Random(len(moves)).sample(moves, min(sample, len(moves))):
        assert game.validate(state, move) == {"legal": True}
        result = game.play(state, move)
        assert game.check(result["state"]) == result["state"]
        assert game.parse_position(game.position(result["state"])) == result["state"]
