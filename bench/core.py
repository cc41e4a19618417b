"""The `core` section: every Rust engine against its Python reference model (tests/rules/reference/<game>.py),
one row a game.

- *perft nodes/s*: perft count ÷ wall time from the start, single thread, best of 3, engine and model
  taking turns; both count the last ply in bulk. The model counts a shallower depth, and the engine's
  count at that depth is checked equal to it. Depths (engine, model): Iago 5 and 3
  (`--engine-depth`/`--model-depth`), Isaac 3 and 2 (Isaac counts its last two plies in bulk, hence its
  huge rate), Hypnosia 2 and 1 (a node is a whole turn; before a roll, summed over the 21 distinct
  rolls), Caesar! 3 and 2 (fixed bonuses and hands, draws from the seeded source).
- *random games/s*: seeded random games to the end (Iago 100 engine and 10 model games a round, the
  others a tenth and a fifth of that: `--games`, `--model-games`), best of 5 rounds taking turns. The
  engine is driven through the Python API (`legal_moves` then `play` on the returned state dict every
  ply), so this ratio includes the embedding cost and is far below the perft ratio. The models get the
  chance they cannot draw from Python's seeded `random`, so except for Iago (where the report checks
  that engine and model play the very same games) the two play different games: compare games/s as
  orders of magnitude (plies per game shown, Hypnosia's rolls not counted)."""

from __future__ import annotations

import argparse
import functools
import importlib.util
import random
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import referee

from report import number, progress, table, times
from samples import GAMES, MAX_PLIES, playout
from timing import interleaved

__all__ = ["bench_core"]

MODELS = Path(__file__).resolve().parent.parent / "tests" / "rules" / "reference"

#: Caesar!'s fixed setup for perft (its reference model counts exactly only while no draw matters).
CAESAR_SETUP = {
    "bonuses": {"HU": "tactics", "HC": "might", "MT": "senate", "SD": "wealth", "GA": "senate", "NU": "might",
                "SC": "tactics", "GC": "wealth", "AF": "senate", "AC": "tactics", "MD": "might", "DM": "wealth",
                "CY": "senate", "CR": "tactics", "AG": "might", "AS": "senate", "SY": "wealth"},
    "hands": {"caesar": ["S60", "L22"], "pompey": ["D51", "N33"]},
}


def load_model(name: str) -> Any:
    """The Python reference model of a game (tests/rules/reference/<name>.py), loaded from its file."""
    spec = importlib.util.spec_from_file_location(f"reference_{name}", MODELS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class Adapter:
    """How the core section runs one game: the engine's options, the perft depths (engine, model), the
    model's start and seeded playout (plies, final position), and the divisors of --games and
    --model-games for a round of this game (whole games of the slower games take longer)."""
    options: dict[str, Any] | None
    depths: tuple[int, int]
    model: Any
    model_start: Callable[[], Any]
    model_playout: Callable[[int], tuple[int, Any]]
    divisors: tuple[int, int] = (10, 5)
    same_game: Callable[[referee.Game, dict[str, Any], Any], bool] | None = None


def model_playout(model: Any, position: Any, seed: int,
                  chance: Callable[[random.Random], dict[str, Any]] = lambda rng: {}) -> tuple[int, Any]:
    """A seeded uniform random game of a reference model: its plies and final position. `chance` gives
    `play` the draws the model cannot make itself (Caesar!)."""
    rng = random.Random(seed)
    for plies in range(MAX_PLIES):
        moves = model.legal_moves(position)
        if not moves:
            return plies, position
        position = model.play(position, rng.choice(moves), **chance(rng))[0]
    raise RuntimeError(f"a model playout did not end within {MAX_PLIES} plies")


def hypnosia_model_playout(model: Any, seed: int) -> tuple[int, Any]:
    """Hypnosia's model takes the rolls as moves `a-b`, drawn here from Python's seeded `random`."""
    rng, position = random.Random(seed), model.initial({"first_player": "red"})
    for plies in range(MAX_PLIES):
        if model.is_finished(position):
            return plies, position
        if model.projection(position)["dice"] is None:
            position, _ = model.play(position, f"{rng.randint(1, 6)}-{rng.randint(1, 6)}")
        position, _ = model.play(position, rng.choice(model.legal_moves(position)))
    raise RuntimeError(f"a model playout did not end within {MAX_PLIES} plies")


def game_adapters(args: argparse.Namespace) -> dict[str, Adapter]:
    iago, isaac, hypnosia, caesar = (load_model(name) for name in GAMES)
    caesar_start = functools.partial(caesar.initial, CAESAR_SETUP["bonuses"], CAESAR_SETUP["hands"])
    return {
        # The same seed picks the same Iago move when both list the legal moves in notation order.
        "iago": Adapter(None, (args.engine_depth, args.model_depth), iago, iago.initial,
                        lambda seed: model_playout(iago, iago.initial(), seed), divisors=(1, 1),
                        same_game=lambda game, state, pos: game.position(state) == iago.format_position(pos)),
        "isaac": Adapter(None, (3, 2), isaac, isaac.initial, lambda seed: model_playout(isaac, isaac.initial(), seed)),
        "hypnosia": Adapter({"first_player": "red"}, (2, 1), hypnosia,
                            lambda: hypnosia.initial({"first_player": "red"}),
                            lambda seed: hypnosia_model_playout(hypnosia, seed)),
        "caesar": Adapter(CAESAR_SETUP, (3, 2), caesar, caesar_start,
                          lambda seed: model_playout(caesar, caesar_start(), seed, lambda rng: {
                              "draw": lambda player, bag: rng.choice(bag)})),
    }


def core_row(args: argparse.Namespace, name: str, adapter: Adapter) -> tuple[list[str], str]:
    """One game's row of the core table, and how many seeded games engine and model played alike."""
    game = referee.game(name, options=adapter.options)
    start, model = game.new(seed=args.seed), adapter.model
    engine_depth, model_depth = adapter.depths
    progress(f"core: {name} perft, engine depth {engine_depth}, model depth {model_depth}")
    perfts = interleaved(args.perft_repeat, {
        "engine": functools.partial(game.perft, start, engine_depth),
        "model": lambda: model.perft(adapter.model_start(), model_depth),
    })
    (engine_nodes, engine_time), (model_nodes, model_time) = perfts["engine"], perfts["model"]
    agree = game.perft(start, model_depth) == model_nodes
    engine_count = max(1, args.games // adapter.divisors[0])
    model_count = max(1, args.model_games // adapter.divisors[1])
    progress(f"core: {name} random games, {engine_count} engine and {model_count} model games a round")
    playouts = interleaved(args.repeat, {
        "engine": lambda: [playout(game, args.seed + index) for index in range(engine_count)],
        "model": lambda: [adapter.model_playout(args.seed + index) for index in range(model_count)],
    })
    (engine_games, engine_time_games), (model_games, model_time_games) = playouts["engine"], playouts["model"]
    engine_rate, model_rate = engine_count / engine_time_games, model_count / model_time_games
    engine_plies = statistics.mean(sum(move != "roll" for move in moves) for _, moves in engine_games)
    same = ""
    if adapter.same_game:
        alike = sum(adapter.same_game(game, states[-1], position)
                    for (states, _), (_, position) in zip(engine_games, model_games))
        same = f"{alike} of {min(engine_count, model_count)}"
    row = [
        name,
        f"{number(engine_nodes / engine_time)} (perft({engine_depth}) = {number(engine_nodes)})",
        f"{number(model_nodes / model_time)} (perft({model_depth}) = {number(model_nodes)}"
        f"{'' if agree else ', **engine differs**'})",
        times((engine_nodes / engine_time) / (model_nodes / model_time)),
        f"{number(engine_rate, 1)} ({engine_count} a round, {engine_plies:.0f} plies)",
        f"{number(model_rate, 1)} ({model_count} a round, "
        f"{statistics.mean(plies for plies, _ in model_games):.0f} plies)",
        times(engine_rate / model_rate),
    ]
    return row, same


def bench_core(args: argparse.Namespace) -> str:
    adapters = game_adapters(args)
    rows, notes = [], []
    for name in args.games_list:
        row, same = core_row(args, name, adapters[name])
        rows.append(row)
        if same:
            notes.append(f"- {name}: the engine and the model played the same {same} seeded games "
                         "(same final position; both list the legal moves in notation order).")
    return "\n".join([
        "## core: every engine vs its Python reference model",
        "",
        table(["game", "engine perft nodes/s", "model perft nodes/s", "×", "engine games/s", "model games/s", "×"],
              rows),
        "",
        f"- perft from the start, single thread, best of {args.perft_repeat}, engine and model taking turns; both "
        "count the last ply in bulk (the size of the legal move list). A node is a legal move (Hypnosia: a whole "
        "turn, before a roll summed over the 21 distinct rolls; Caesar!: fixed bonuses and hands, draws from the "
        "seeded source). The model counts a shallower depth, and the engine's count at that depth is checked "
        f"equal to it. Iago's depths are `--engine-depth`/`--model-depth`.",
        f"- games: seeded uniform random games to the end, best of {args.repeat} rounds taking turns (Iago "
        f"`--games`/`--model-games` a round, the other games a tenth and a fifth of them); the engine through the "
        "Python API (`legal_moves` + `play` on JSON states each ply, chance from the state's seeded source), so "
        "this includes the embedding cost; the model with Python's seeded `random` for the chance it cannot draw. "
        "Plies per game shown (Hypnosia's rolls not counted). Except for Iago, engine and model play different "
        "games, so compare their games/s as orders of magnitude.",
        *notes,
    ])
