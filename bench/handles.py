"""The `handles` section of bench/run.py: native position handles (`referee.Position`) side by side with OpenSpiel in one
run. Per move of a random playout from Python (`pos.push(rng.choice(pos.legal_actions()))` until over,
chance nodes included as one move each, as OpenSpiel counts them): every game against OpenSpiel's Othello
and Backgammon, and playouts/s; a rollout in Rust (`Position.rollout`) per decision against perft per
node; the adapters' overhead over the handle (OpenSpiel states, PettingZoo's AEC loop). CPU time,
median of --handle-rounds rounds of --handle-seconds each. OpenSpiel (and the adapters' rows) need
the test extra's open-spiel and pettingzoo; without them those rows are left out. The targets of issue 34
are printed next to the numbers they judge (met / missed); nothing is asserted.

    python bench/run.py --only handles
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any, Callable

import referee

from report import progress, table, verdict
from samples import GAMES

__all__ = ["bench_handles"]

#: Perft depths that take a fraction of a second from the start.
PERFT_DEPTH = {"iago": 4, "isaac": 2, "hypnosia": 2, "caesar": 3}


def cpu_rate(run: Callable[[], int], seconds: float, rounds: int) -> tuple[float, float]:
    """Median CPU seconds a unit, and units a round, of `run` (which returns the units it did)."""
    costs, units = [], []
    for _ in range(rounds):
        done, started = 0, time.process_time()
        while time.process_time() - started < seconds:
            done += run()
        costs.append((time.process_time() - started) / done)
        units.append(done)
    return statistics.median(costs), statistics.median(units)


def perft_moves(name: str, history: list[str]) -> int:
    """The moves of a finished game in perft's unit: Hypnosia's roll and whole turn (a roll is its
    history's `a-b`, the die moves after it one turn), Caesar!'s whole move; else one a decision."""
    if name == "hypnosia":
        return 2 * sum(1 for move in history if "-" in move and "+" not in move)
    return len(history)


def game_lengths(game: referee.Game[Any, Any, Any, Any], name: str, games: int = 50) -> tuple[float, float]:
    """Mean decisions, and moves in perft's unit, of seeded random games."""
    rng, decisions, moves = random.Random(2), 0, 0
    for seed in range(games):
        pos = game.start(seed=seed)
        while not pos.is_over():
            pos.push(rng.choice(pos.legal_actions()))
            decisions += 1
        moves += perft_moves(name, pos.history())
    return decisions / games, moves / games


def handle_playouts(game: referee.Game[Any, Any, Any, Any], rng: random.Random) -> Callable[[], int]:
    seeds = iter(range(10**9))

    def run() -> int:
        pos, moves = game.start(seed=next(seeds)), 0
        while not pos.is_over():
            pos.push(rng.choice(pos.legal_actions()))
            moves += 1
        return moves

    return run


def openspiel_playouts(game: Any, rng: random.Random) -> Callable[[], int]:
    def run() -> int:
        state, moves = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
        return moves

    return run


def pettingzoo_playouts(env: Any, rng: random.Random) -> Callable[[], int]:
    import numpy as np

    def run() -> int:
        env.reset(seed=rng.getrandbits(32))
        moves = 0
        for agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            env.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
            moves += 1
        return moves

    return run


def bench_handles(seconds: float = 1.0, rounds: int = 5, games: tuple[str, ...] = GAMES) -> str:
    try:
        import pyspiel

        import referee.bots.openspiel
        import referee.bots.pettingzoo

        referee.bots.openspiel.register()
    except ImportError:
        pyspiel = None
    rng = random.Random(1)
    per_move: dict[str, float] = {}
    playouts: dict[str, float] = {}
    lengths: dict[str, float] = {}
    move_counts: dict[str, float] = {}
    for name in games:
        progress(f"handles: random playouts of {name}")
        cost, moves = cpu_rate(handle_playouts(referee.game(name), rng), seconds, rounds)
        per_move[name] = cost
        lengths[name], move_counts[name] = game_lengths(referee.game(name), name)
        playouts[name] = 1 / (cost * lengths[name])
    spiel: dict[str, float] = {}
    if pyspiel is not None:
        for name in ("othello", "backgammon"):
            progress(f"handles: OpenSpiel {name}")
            spiel[name] = cpu_rate(openspiel_playouts(pyspiel.load_game(name), rng), seconds, rounds)[0]
    iago = per_move.get("iago")
    targets = {
        "iago": ("≤ Othello ÷ 3", spiel.get("othello"), lambda c, r: c <= r / 3),
        "isaac": ("≤ 2 × Iago", iago, lambda c, r: c <= 2 * r),
        "hypnosia": ("≤ Backgammon ÷ 2 and ≤ 2 × Iago", None, None),
        "caesar": ("≤ 3 × Iago", iago, lambda c, r: c <= 3 * r),
    }
    rows = []
    for name in games:
        goal, reference, check = targets[name]
        if name == "hypnosia":
            met = None if "backgammon" not in spiel or iago is None else (
                per_move[name] <= spiel["backgammon"] / 2 and per_move[name] <= 2 * iago)
        else:
            met = None if reference is None else check(per_move[name], reference)  # type: ignore[misc]
        rows.append([name, f"{per_move[name] * 1e6:.2f}", f"{lengths[name]:.0f}", f"{playouts[name]:,.0f}",
                     f"{per_move[name] / iago:.2f}" if iago else "n/a", verdict(goal, met)])
    for name, cost in spiel.items():
        rows.append([f"OpenSpiel {name}", f"{cost * 1e6:.2f}", "", "", f"{cost / iago:.2f}" if iago else "n/a", ""])
    parts = ["## handles", "",
             "Random playouts from Python, per move (a chance outcome counts as one), CPU time, "
             f"median of {rounds} rounds of {seconds:g} s:", "",
             table(["game", "µs a move", "moves a game", "playouts/s", "× Iago", "target"], rows)]

    rollout_rows = []
    for name in games:
        progress(f"handles: rollouts and perft of {name}")
        game = referee.game(name)
        pos = game.start(seed=3)
        seeds = iter(range(10**9))
        cost, _ = cpu_rate(lambda: (pos.rollout(next(seeds), count=20), 20)[1], seconds, rounds)
        per_decision, per_perft_move = cost / lengths[name], cost / move_counts[name]
        state, depth = game.new(seed=3), PERFT_DEPTH[name]
        # perft counts its last ply in bulk: the nodes it expands (generates the moves of and plays
        # them from) are those above it, each a rollout decision's work (moves listed, one played).
        nodes = sum(game.perft(state, k) for k in range(depth))
        perft, _ = cpu_rate(lambda: (game.perft(state, depth), nodes)[1], seconds, rounds)
        rollout_rows.append([name, f"{per_decision * 1e9:.0f}", f"{perft * 1e9:.0f} (perft({depth}))",
                             f"{per_decision / perft:.2f}", verdict("≤ 2 × perft", per_decision <= 2 * perft),
                             f"{per_perft_move * 1e9:.0f}", f"{per_perft_move / perft:.2f}"])
    parts += ["", "A rollout in Rust (`Position.rollout`, uniform decisions, chance by its probabilities) per "
              "decision (an MCTS tree's step), against perft per node it expands from the start (its time ÷ "
              "the nodes above its last ply, which it counts in bulk); and per move in perft's unit (Hypnosia: "
              "a roll or a whole turn, where a decision is a roll or one die move; Caesar!: a whole move, "
              "where a decision is its placement, a bonus choice or a draw):", "",
              table(["game", "ns a rollout decision", "ns a perft node", "ratio", "target",
                     "ns a rollout move (perft's unit)", "ratio"], rollout_rows)]

    if pyspiel is not None:
        adapter_rows = []
        for name in games:
            progress(f"handles: adapters of {name}")
            spiel_cost = cpu_rate(openspiel_playouts(pyspiel.load_game(f"referee_{name}"), rng), seconds, rounds)[0]
            zoo_cost = cpu_rate(pettingzoo_playouts(referee.bots.pettingzoo.env(name), rng), seconds, rounds)[0]
            adapter_rows.append([name, f"{per_move[name] * 1e6:.2f}", f"{spiel_cost * 1e6:.2f}",
                                 f"{spiel_cost / per_move[name]:.1f}", f"{zoo_cost * 1e6:.2f}",
                                 f"{zoo_cost / per_move[name]:.1f}"])
        parts += ["", "The adapters' overhead over the handle, per move of a random playout (PettingZoo's "
                  "moves are the players', chance resolved inside `step`; its loop builds an observation and "
                  "a mask every move):", "",
                  table(["game", "handle µs", "OpenSpiel state µs", "× handle", "PettingZoo AEC µs", "× handle"],
                        adapter_rows)]
    return "\n".join(parts)

