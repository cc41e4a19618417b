"""The `bots` section of bench/run.py: the engine's opponent (issue 50: `game.suggest`, `Position.suggest`,
`EngineBot`) measured in every game. Nothing is asserted; the targets are printed next to the numbers they
judge (met / missed).

- **Speed**: simulations a second of one search (`game.suggest` answers' `simulations` ÷ `spent_ms`; a
  search runs on one core, the GIL released), at --bots-positions positions a game (seeded random games,
  a turn's start where the player to move has a choice), --bots-speed-simulations each (Hypnosia a
  quarter: its playouts are ~300 decisions long). Target: Iago ≥ 20,000 with random playouts.
- **Against random moves**: `EngineBot` at 400 simulations (level 5) against `RandomBot`, seats
  alternated, --bots-games games a game. Target: wins ≥ 95% in every game (Hypnosia for 2). A row for
  Hypnosia for 4 (the engine against three random bots, seated in turn) is reported only.
- **Against the Python `MCTSBot` at equal time a move**: the engine at 400 simulations; the MCTSBot (UCT
  in Python, playouts in Rust, Caesar! on resampled positions) is given the simulations that take the
  engine's mean CPU time a decision, calibrated at the same positions; --bots-duel-games games.
  Target: the engine wins ≥ 70%.
- **Against OpenSpiel's MCTS** (`open_spiel.python.algorithms.mcts.MCTSBot`, uct_c 2, one random rollout
  an evaluation, on the project's adapter `referee.bots.openspiel`) at equal time a move, calibrated the
  same way; --bots-spiel-games games. Reported. It searches the adapter's state as it is: in Caesar! it
  sees the opponent's hand (it cheats), the engine does not.
- **Levels by Elo**: `play_match` games (as `referee match engine:L engine:L+1` plays them) between
  adjacent levels, seats alternated, --bots-elo-games a pair; Elo fitted by maximum likelihood
  (Bradley-Terry; a drawn or abandoned game is half a win to each; one virtual draw a pair keeps a clean
  sweep finite), level 1 at 0. Where it flattens: the first level above which the levels gain less than
  50 Elo each on average (one noisy step does not decide it), or none.

A game is stopped after --bots-max-decisions decisions and counted as abandoned (Hypnosia's crossings are
optional, so a bot sure to win can circle for ever: the column says who led on score then). Hypnosia's
searches cost ~10× Iago's a simulation and its games are ~6× longer, so it plays --bots-hypnosia-share of
every count (at least 2 games) and its Elo ladder stops at level --bots-hypnosia-top. The games run on
--bots-jobs processes (the speed and the equal-time calibrations one at a time); times are CPU times of
the thread that decides.

    python bench/run.py --only bots
    python bench/run.py --only bots --games-list iago,caesar --bots-games 200 --bots-elo-games 40
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import time
from typing import Any, Callable, Iterable

import referee
from referee import _core
from referee.bots import Bot, EngineBot, MCTSBot, RandomBot, play_match

from report import progress, table, verdict
from samples import GAMES

__all__ = ["add_options", "bench_bots"]

#: The engine's simulations in the matches: level 5.
ENGINE_SIMULATIONS = 400
#: Issue 50's targets.
RATE_TARGET = {"iago": 20_000}
RANDOM_TARGET = 0.95
MCTS_TARGET = 0.70
#: A level that gains less than this over the one below is where the ladder flattens.
FLAT_ELO = 50
#: Simulations of the calibration runs of the equal-time opponents.
CALIBRATION_SIMULATIONS = {"mcts": 100, "spiel": 40}

#: A seat's bot, as the worker processes make it: ("engine", simulations), ("random",), ("mcts",
#: simulations) or ("spiel", simulations).
Spec = tuple[Any, ...]


def add_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("bots")
    group.add_argument("--bots-positions", type=int, default=6,
                       help="positions a game for the speed and the equal-time calibrations (default: 6)")
    group.add_argument("--bots-speed-simulations", type=int, default=3200,
                       help="simulations of each search the speed is measured on; Hypnosia a quarter (default: 3200)")
    group.add_argument("--bots-games", type=int, default=40, help="games a game against random moves (default: 40)")
    group.add_argument("--bots-duel-games", type=int, default=20,
                       help="games a game against the Python MCTSBot at equal time (default: 20)")
    group.add_argument("--bots-spiel-games", type=int, default=10,
                       help="games a game against OpenSpiel's MCTS at equal time (default: 10)")
    group.add_argument("--bots-elo-games", type=int, default=10,
                       help="games a pair of adjacent levels (default: 10)")
    group.add_argument("--bots-hypnosia-share", type=float, default=0.2,
                       help="the share of every count Hypnosia plays, at least 2 games (default: 0.2)")
    group.add_argument("--bots-hypnosia-top", type=int, default=4,
                       help="Hypnosia's Elo ladder stops at this level (default: 4; 8 for all)")
    group.add_argument("--bots-hypnosia-four", action=argparse.BooleanOptionalAction, default=True,
                       help="the row of Hypnosia for 4 against random moves (default: on)")
    group.add_argument("--bots-max-decisions", type=int, default=800,
                       help="decisions after which a game is abandoned (default: 800; a random Hypnosia game "
                            "takes ~310, at most ~500)")
    group.add_argument("--bots-jobs", type=int, default=2, help="processes the games run on (default: 2)")
    group.add_argument("--bots-parts", default="speed,random,mcts,spiel,elo",
                       help="comma-separated parts of the section to run (default: all: speed,random,mcts,spiel,elo)")


# ---------------------------------------------------------------------------------------------- bots

class SpielMCTS:
    """OpenSpiel's own MCTS (`open_spiel.python.algorithms.mcts.MCTSBot`, random rollouts) as a bot of
    `referee.bots`: it searches an adapter state (`referee.bots.openspiel`) wrapping a copy of the position."""

    def __init__(self, name: str, options: dict[str, Any] | None, simulations: int, seed: int) -> None:
        import numpy as np
        import pyspiel
        from open_spiel.python.algorithms import mcts

        import referee.bots.openspiel as adapter

        adapter.register()
        self.adapter = adapter
        self.game = pyspiel.load_game(f"referee_{name}", {"options": json.dumps(options)} if options else {})
        state = np.random.RandomState(seed % 2**32)
        self.bot = mcts.MCTSBot(self.game, 2, simulations, mcts.RandomRolloutEvaluator(1, state), random_state=state)

    def choose(self, position: referee.Position) -> int:
        legal = position.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return int(self.bot.step(self.adapter.RefereeState(self.game, position.copy(stack=False))))


def make(spec: Spec, name: str, options: dict[str, Any] | None, seed: int) -> Bot:
    kind = spec[0]
    if kind == "engine":
        return EngineBot(simulations=spec[1], seed=seed)
    if kind == "random":
        return RandomBot(seed)
    if kind == "mcts":
        return MCTSBot(spec[1], seed=seed)
    if kind == "spiel":
        return SpielMCTS(name, options, spec[1], seed)
    raise ValueError(spec)


def label(spec: Spec) -> str:
    return spec[0] if len(spec) == 1 else f"{spec[0]}:{spec[1]}"


# ---------------------------------------------------------------------------------------------- games

def duel(task: tuple[str, dict[str, Any] | None, list[Spec], int, int, int]) -> dict[str, Any]:
    """One game of `specs` seated in turn (game k gives player i the bot `specs[(i + k) % len]`): which
    spec won (its index; None for a draw or an abandoned game), whether it was abandoned and which spec led
    on score then, and each spec's CPU seconds and decisions searched (more than one legal action)."""
    name, options, specs, k, seed, max_decisions = task
    game = referee.game(name, options=options)
    rng = random.Random(seed)
    position = game.start(seed=seed)
    seat_of = {player: (i + k) % len(specs) for i, player in enumerate(position.players)}
    bots = {player: make(specs[index], name, options, rng.getrandbits(53)) for player, index in seat_of.items()}
    spent, decided = [0.0] * len(specs), [0] * len(specs)
    while not position.is_over() and position.ply < max_decisions:
        if position.is_chance():
            position.push(position.sample_chance(rng))
            continue
        player = position.to_move
        assert player is not None
        searched = len(position.legal_actions()) > 1
        started = time.thread_time()
        action = bots[player].choose(position)
        if searched:
            spent[seat_of[player]] += time.thread_time() - started
            decided[seat_of[player]] += 1
        position.push(action)
    outcome = position.outcome()
    winner, leader = outcome["winner"], None
    if not position.is_over():
        scores = outcome["scores"]
        best = max(scores.values())
        leaders = [player for player, score in scores.items() if score == best]
        leader = seat_of[leaders[0]] if len(leaders) == 1 else None
    return {"winner": seat_of[winner] if winner is not None else None, "abandoned": not position.is_over(),
            "leader": leader, "spent": spent, "decided": decided, "decisions": position.ply}


def elo_games(task: tuple[str, int, int, int, int, int]) -> list[tuple[float, int, bool]]:
    """`play_match` games between two levels, as `referee match engine:A engine:B` plays them: for each,
    level A's score (1, ½ or 0), the decisions, and whether it was abandoned."""
    name, a, b, games, seed, max_decisions = task
    scores = []
    for record in play_match(name, [f"engine:{a}", f"engine:{b}"], games, seed, max_decisions=max_decisions):
        winner = record["result"]["winner"]
        score = 0.5 if winner is None else float(record["players"][winner] == f"engine:{a}")
        scores.append((score, len(record["moves"]), record["termination"] != "normal"))
    return scores


def run_all(function: Callable[[Any], Any], tasks: list[Any], jobs: int) -> list[Any]:
    """`function` over `tasks` (each naming its game first), on `jobs` processes (forked: the workers
    import nothing again), Hypnosia's long games first so that no process waits alone at the end; the
    results in the tasks' order."""
    if jobs <= 1 or len(tasks) <= 1:
        return [function(task) for task in tasks]
    order = sorted(range(len(tasks)), key=lambda i: tasks[i][0] != "hypnosia")
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        done = pool.map(function, [tasks[i] for i in order], chunksize=1)
    results: list[Any] = [None] * len(tasks)
    for i, result in zip(order, done):
        results[i] = result
    return results


def count_of(name: str, count: int, share: float) -> int:
    """The games `name` plays of a count: Hypnosia its share, at least 2; always even (seats alternated)."""
    if name == "hypnosia":
        count = max(2, round(count * share))
    return count + count % 2


# ---------------------------------------------------------------------------------------------- positions

def positions(game: referee.Game[Any, Any, Any, Any], count: int, seed: int) -> list[referee.Position]:
    """A position of each of `count` seeded random games, at a turn's start where the player to move has a
    choice, from early in the first game to late in the last (game k at the share (k + ½) ÷ count of its
    positions)."""
    found: list[referee.Position] = []
    rng = random.Random(seed)
    for k in range(count):
        position, candidates = game.start(seed=seed + k), []
        while not position.is_over():
            if position.is_chance():
                position.push(position.sample_chance(rng))
                continue
            if position.at_turn_start() and len(position.legal_actions()) > 1:
                candidates.append(position.copy(stack=False))
            position.push(rng.choice(position.legal_actions()))
        found.append(candidates[int((k + 0.5) / count * len(candidates))])
    return found


def mean_cpu(bot: Callable[[], Bot], at: list[referee.Position]) -> float:
    """Mean CPU seconds of a decision of a fresh bot at each position."""
    spent = []
    for position in at:
        chooser = bot()
        started = time.thread_time()
        chooser.choose(position)
        spent.append(time.thread_time() - started)
    return statistics.mean(spent)


def equal_time(kind: str, name: str, at: list[referee.Position], engine_seconds: float) -> int:
    """The simulations of a `kind` bot that take the engine's time a decision at these positions (per
    simulation at a calibration count, then once more at the count found)."""
    simulations = CALIBRATION_SIMULATIONS[kind]
    for _ in range(2):
        spent = mean_cpu(lambda: make((kind, simulations), name, None, 1), at)
        simulations = max(1, round(simulations * engine_seconds / spent))
    return simulations


# ---------------------------------------------------------------------------------------------- report

def rate(wins: float, games: int) -> str:
    return f"{wins / games:.0%}" if games else "n/a"


def duel_rows(name: str, results: list[dict[str, Any]], opponents: int) -> dict[str, Any]:
    """What the engine (spec 0) did in `results`: wins, losses, draws, abandoned (and with it leading), CPU
    a decision of spec 0 and of the others."""
    wins = sum(r["winner"] == 0 for r in results)
    abandoned = [r for r in results if r["abandoned"]]
    draws = sum(r["winner"] is None and not r["abandoned"] for r in results)
    spent = [sum(r["spent"][i] for r in results) for i in range(opponents + 1)]
    decided = [sum(r["decided"][i] for r in results) for i in range(opponents + 1)]
    return {
        "games": len(results), "wins": wins, "losses": len(results) - wins - draws - len(abandoned),
        "draws": draws, "abandoned": len(abandoned), "leading": sum(r["leader"] == 0 for r in abandoned),
        "engine_ms": 1000 * spent[0] / max(1, decided[0]),
        "other_ms": 1000 * sum(spent[1:]) / max(1, sum(decided[1:])),
        "decisions": statistics.mean(r["decisions"] for r in results),
    }


def fit_elo(pairs: dict[tuple[int, int], tuple[float, int]], levels: list[int]) -> dict[int, float]:
    """Bradley-Terry by maximum likelihood (Hunter's MM iterations) over `pairs` ((a, b) → a's score, games),
    one virtual draw added to each pair: Elo by level, the first at 0."""
    strength = dict.fromkeys(levels, 1.0)
    for _ in range(5000):
        new = {}
        for level in levels:
            won = sum((score if a == level else games - score) + 0.5
                      for (a, b), (score, games) in pairs.items() if level in (a, b))
            weight = sum((games + 1) / (strength[a] + strength[b])
                         for (a, b), (score, games) in pairs.items() if level in (a, b))
            new[level] = won / weight if weight else strength[level]
        first = new[levels[0]]
        new = {level: value / first for level, value in new.items()}
        done = max(abs(math.log(new[level] / strength[level])) for level in levels) < 1e-10
        strength = new
        if done:
            break
    return {level: 400 * math.log10(strength[level]) for level in levels}


def flattens(elo: dict[int, float]) -> str:
    """The first level above which the ladder gains less than FLAT_ELO a level on average (to its top): one
    noisy step does not decide it."""
    levels = sorted(elo)
    top = levels[-1]
    for level in levels[:-1]:
        gain = (elo[top] - elo[level]) / (top - level)
        if gain < FLAT_ELO:
            return f"from level {level} ({round(gain) + 0:+d} Elo a level above it)"
    below = levels[-2]
    return f"not up to level {top} ({round((elo[top] - elo[below])) + 0:+d} from {below} to {top})"


# ---------------------------------------------------------------------------------------------- the section

def bench_speed(args: argparse.Namespace, games: Iterable[str], sampled: dict[str, list[referee.Position]]) -> str:
    rows = []
    for name in games:
        progress(f"bots: simulations a second of {name}")
        game = referee.game(name)
        simulations = args.bots_speed_simulations // (4 if name == "hypnosia" else 1)
        wall, cpu, done = [], [], []
        for k, position in enumerate(sampled[name]):
            state, best_wall, best_cpu = position.state(), math.inf, math.inf
            for _ in range(3):  # the best of three: another process's burst slows one, not all
                started = time.thread_time()
                answer = game.suggest(state, simulations=simulations, seed=k)
                best_cpu = min(best_cpu, time.thread_time() - started)
                best_wall = min(best_wall, answer["spent_ms"] / 1000)
            wall.append(best_wall)
            cpu.append(best_cpu)
            done.append(answer["simulations"])
        by_wall, by_cpu = sum(done) / sum(wall), sum(done) / sum(cpu)
        rates = [n / t for n, t in zip(done, wall)]
        target = RATE_TARGET.get(name)
        rows.append([name, str(len(done)), f"{simulations:,}", f"{by_wall:,.0f}", f"{by_cpu:,.0f}",
                     f"{min(rates):,.0f}–{max(rates):,.0f}", f"{ENGINE_SIMULATIONS / by_wall * 1000:.1f}",
                     verdict(f"≥ {target:,}", by_wall >= target) if target else ""])
    return "\n".join([
        "Simulations a second of one search on one core (`game.suggest`'s `simulations` ÷ `spent_ms`, and ÷ the "
        f"thread's CPU time), the best of 3 at each of {args.bots_positions} positions a game (a turn's start "
        "with a choice, from early in one seeded random game to late in another):", "",
        table(["game", "positions", "simulations a search", "simulations/s", "by CPU", "range by position",
               "ms at level 5 (400)", "target"], rows)])


#: The parts of the section, in the order they run (--bots-parts picks some).
PARTS = ("speed", "random", "mcts", "spiel", "elo")


def part_random(args: argparse.Namespace, games: list[str]) -> str:
    progress("bots: the engine against random moves")
    engine: Spec = ("engine", ENGINE_SIMULATIONS)
    setups: list[tuple[str, str, dict[str, Any] | None, list[Spec]]] = [
        (name, name, None, [engine, ("random",)]) for name in games]
    if "hypnosia" in games and args.bots_hypnosia_four:
        setups.append(("hypnosia for 4", "hypnosia", {"players": 4}, [engine, ("random",), ("random",), ("random",)]))
    tasks, where = [], []
    for row, (title, name, options, specs) in enumerate(setups):
        count = count_of(name, args.bots_games, args.bots_hypnosia_share)
        if options:
            count = max(len(specs), count - count % len(specs))  # every seat in turn
        for k in range(count):
            tasks.append((name, options, specs, k, 1000 * row + k, args.bots_max_decisions))
            where.append(row)
    results = run_all(duel, tasks, args.bots_jobs)
    rows = []
    for row, (title, name, options, specs) in enumerate(setups):
        stats = duel_rows(name, [r for r, w in zip(results, where) if w == row], len(specs) - 1)
        goal = None if options else verdict(f"≥ {RANDOM_TARGET:.0%}", stats["wins"] / stats["games"] >= RANDOM_TARGET)
        rows.append([title, str(stats["games"]), str(stats["wins"]), str(stats["losses"]), str(stats["draws"]),
                     f"{stats['abandoned']} ({stats['leading']})", rate(stats["wins"], stats["games"]),
                     f"{stats['decisions']:.0f}", f"{stats['engine_ms']:.1f}",
                     goal or f"reported (chance: {1 / len(specs):.0%})"])
    return "\n".join([
        f"`EngineBot` at {ENGINE_SIMULATIONS} simulations against `RandomBot`, seats alternated (for 4: the engine "
        "in each seat in turn):", "",
        table(["game", "games", "engine wins", "losses", "draws", "abandoned (engine leading)", "win rate",
               "decisions a game", "engine CPU ms a decision", "target"], rows)])


def part_equal_time(args: argparse.Namespace, games: list[str], sampled: dict[str, list[referee.Position]],
                    kind: str) -> str:
    """The engine against the Python MCTSBot (`mcts`) or OpenSpiel's MCTS (`spiel`) at equal time a decision."""
    title, count_asked, target = {"mcts": ("the Python `MCTSBot`", args.bots_duel_games, MCTS_TARGET),
                                  "spiel": ("OpenSpiel's MCTS", args.bots_spiel_games, None)}[kind]
    if kind == "spiel":
        try:
            import pyspiel  # noqa: F401
        except ImportError:
            return "OpenSpiel is not installed: its part is left out."
    progress(f"bots: the engine against {title} at equal time")
    engine: Spec = ("engine", ENGINE_SIMULATIONS)
    budgets: dict[str, tuple[float, int]] = {}
    for name in games:
        seconds = mean_cpu(lambda: EngineBot(simulations=ENGINE_SIMULATIONS, seed=1), sampled[name])
        budgets[name] = (seconds, equal_time(kind, name, sampled[name], seconds))
    tasks, where = [], []
    for name in games:
        for k in range(count_of(name, count_asked, args.bots_hypnosia_share)):
            tasks.append((name, None, [engine, (kind, budgets[name][1])], k, 7 + 1000 * games.index(name) + k,
                          args.bots_max_decisions))
            where.append(name)
    results = run_all(duel, tasks, args.bots_jobs)
    rows = []
    for name in games:
        stats = duel_rows(name, [r for r, w in zip(results, where) if w == name], 1)
        score = (stats["wins"] + 0.5 * (stats["draws"] + stats["abandoned"])) / stats["games"]
        rows.append([name, f"{budgets[name][1]:,}", f"{budgets[name][0] * 1000:.1f}",
                     f"{stats['engine_ms']:.1f} / {stats['other_ms']:.1f}", str(stats["games"]),
                     str(stats["wins"]), str(stats["losses"]), f"{stats['draws']} / {stats['abandoned']} "
                     f"({stats['leading']})", rate(stats["wins"], stats["games"]), interval(stats["wins"], stats["games"]),
                     f"{score:.0%}", verdict(f"≥ {target:.0%}", stats["wins"] / stats["games"] >= target) if target
                     else "reported"])
    return "\n".join([
        f"The engine at {ENGINE_SIMULATIONS} simulations against {title} given the simulations that take the "
        "engine's CPU time a decision at the same positions (calibrated; then the mean CPU a searched decision in "
        "the games, engine / opponent), seats alternated:", "",
        table(["game", "its simulations", "engine ms (calibration)", "ms a decision in play", "games", "engine wins",
               "losses", "draws / abandoned (engine leading)", "win rate", "95% interval", "score (½ a draw)",
               "target"], rows)])


def interval(wins: float, games: int) -> str:
    """Wilson's 95% interval of a win rate."""
    if not games:
        return "n/a"
    z, p = 1.96, wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return f"{max(0.0, centre - half):.0%}–{min(1.0, centre + half):.0%}"


def part_elo(args: argparse.Namespace, games: list[str]) -> str:
    """Every game's games between adjacent levels in one batch, then each game's Elo ladder."""
    share, cap = args.bots_hypnosia_share, args.bots_max_decisions
    ladders = {name: list(range(1, (min(8, args.bots_hypnosia_top) if name == "hypnosia" else 8) + 1))
               for name in games}
    progress("bots: levels by Elo, " + ", ".join(
        f"{name} 1 to {ladders[name][-1]} ({count_of(name, args.bots_elo_games, share)} games a pair)" for name in games))
    chunks = [(name, a, a + 1, 2, 31 * a + k, cap) for name in games for a in ladders[name][:-1]
              for k in range(count_of(name, args.bots_elo_games, share) // 2)]
    scored = run_all(elo_games, chunks, args.bots_jobs)
    elo_rows: dict[str, dict[int, float]] = {}
    pair_rows: dict[str, dict[int, str]] = {}
    for name in games:
        pairs: dict[tuple[int, int], tuple[float, int]] = {}
        abandoned: dict[int, int] = {}
        for (game_name, a, b, _, _, _), results in zip(chunks, scored):
            if game_name != name:
                continue
            score, so_far = pairs.get((a, b), (0.0, 0))
            pairs[(a, b)] = (score + sum(s for s, _, _ in results), so_far + len(results))
            abandoned[b] = abandoned.get(b, 0) + sum(gone for _, _, gone in results)
        elo_rows[name] = fit_elo(pairs, ladders[name])
        pair_rows[name] = {b: f"{played - score:g}/{played} ±{elo_error(played - score, played):.0f}"
                           + (f", {abandoned[b]} abandoned" if abandoned[b] else "")
                           for (a, b), (score, played) in pairs.items()}
    rows = []
    for level in range(1, 9):
        cells = []
        for name in games:
            elo = elo_rows[name].get(level)
            cells.append("—" if elo is None else f"{round(elo) + 0}" + (f" ({pair_rows[name][level]})" if level > 1 else ""))
        rows.append([str(level), f"{_core.LEVELS[level - 1]:,}", *cells])
    return "\n".join([
        "Levels by Elo (level 1 at 0), fitted from `play_match` games between adjacent levels, seats alternated; in "
        "brackets the level's score against the one below, the 95% half-width of that step in Elo, and its "
        "abandoned games (each half a win):", "",
        table(["level", "simulations", *games], rows), "",
        f"Where it flattens (the first level above which the levels gain < {FLAT_ELO} Elo each on average): "
        + "; ".join(f"{name}: {flattens(elo_rows[name])}" for name in games) + "."])


def elo_error(score: float, games: int) -> float:
    """The 95% half-width in Elo of a step measured by `score` of `games` (one virtual draw added)."""
    p = (score + 0.5) / (games + 1)
    return 1.96 * math.sqrt(p * (1 - p) / (games + 1)) * 400 / (math.log(10) * p * (1 - p))


def bench_bots(args: argparse.Namespace, games: Iterable[str] = GAMES) -> str:
    games = list(games)
    chosen = [part.strip() for part in args.bots_parts.split(",") if part.strip()]
    if unknown := set(chosen) - set(PARTS):
        raise SystemExit(f"unknown bots parts {', '.join(sorted(unknown))}; known: {', '.join(PARTS)}")
    sampled = {name: positions(referee.game(name), args.bots_positions, seed=100) for name in games}
    parts = ["## bots", "", f"The engine's opponent (issue 50), {ENGINE_SIMULATIONS} simulations (level 5) in the "
             f"matches; games stopped after {args.bots_max_decisions:,} decisions are abandoned; {args.bots_jobs} "
             "processes play the games."]
    for part in PARTS:
        if part not in chosen:
            continue
        if part == "speed":
            parts += ["", bench_speed(args, games, sampled)]
        elif part == "random":
            parts += ["", part_random(args, games)]
        elif part in ("mcts", "spiel"):
            parts += ["", part_equal_time(args, games, sampled, part)]
        else:
            parts += ["", part_elo(args, games)]
    return "\n".join(parts)
