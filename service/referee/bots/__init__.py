"""Reference bots on native position handles, and matches between them (``referee match``).

A bot is anything with ``choose(position) -> action id``, asked only at a player's decision (never at
a chance node). ``RandomBot`` picks uniformly; ``MCTSBot`` is UCT whose rollouts run in Rust
(``Position.rollout``), with chance nodes sampled by their probabilities and, for a game with hidden
information (Caesar!), each simulation on a position resampled from what the bot's player sees
(determinization). ``EngineBot`` is the engine's own opponent (``Position.suggest``: information-set
MCTS wholly in Rust, by level or simulations, seeded). ``play_match`` plays games between bots and gives
records ``referee validate`` reads.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any, Iterator, Protocol

import referee
from referee import _core

__all__ = ["Bot", "RandomBot", "MCTSBot", "EngineBot", "bot", "play_game", "play_match"]

#: The most simulations a search takes (the native call's bound, a 32-bit count).
MAX_SIMULATIONS = 2**32 - 1


class Bot(Protocol):
    def choose(self, position: referee.Position) -> int: ...


class RandomBot:
    """Uniformly among the legal actions."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, position: referee.Position) -> int:
        return self.rng.choice(position.legal_actions())


@dataclass
class _Node:
    visits: int = 0
    #: Total returns of the simulations through this node, per player.
    value: list[float] = field(default_factory=list)
    children: dict[int, _Node] = field(default_factory=dict)


class MCTSBot:
    """UCT (UCB1 with exploration ``exploration``) over ``simulations`` simulations a decision, each
    ending in ``rollouts`` random playouts run in Rust."""

    def __init__(self, simulations: int = 200, exploration: float = 1.4, rollouts: int = 1,
                 seed: int | None = None) -> None:
        self.simulations, self.exploration, self.rollouts = simulations, exploration, rollouts
        self.rng = random.Random(seed)

    def choose(self, position: referee.Position) -> int:
        legal = position.legal_actions()
        if len(legal) == 1:
            return legal[0]
        me = position.to_move
        assert me is not None
        players = position.players
        root = _Node(value=[0.0] * len(players))
        for _ in range(self.simulations):
            # A position this player cannot tell from the real one (the real one when nothing is hidden).
            self._simulate(root, position.resample(me, self.rng), players)
        return max(legal, key=lambda a: root.children[a].visits if a in root.children else -1)

    def _simulate(self, root: _Node, pos: referee.Position, players: list[str]) -> None:
        node, path = root, [root]
        while not pos.is_over():
            if pos.is_chance():
                action = pos.sample_chance(self.rng)
            else:
                legal = pos.legal_actions()
                untried = [a for a in legal if a not in node.children]
                if untried:
                    action = self.rng.choice(untried)
                    pos.push(action)
                    node = node.children.setdefault(action, _Node(value=[0.0] * len(players)))
                    path.append(node)
                    break
                mover = players.index(pos.to_move)  # type: ignore[arg-type]
                action = max(legal, key=lambda a: self._ucb(node, node.children[a], mover))
            pos.push(action)
            node = node.children.setdefault(action, _Node(value=[0.0] * len(players)))
            path.append(node)
        returns = pos.returns() if pos.is_over() else pos.rollout(self.rng, self.rollouts)
        for visited in path:
            visited.visits += 1
            visited.value = [v + r for v, r in zip(visited.value, returns)]

    def _ucb(self, parent: _Node, child: _Node, mover: int) -> float:
        mean = child.value[mover] / child.visits
        return mean + self.exploration * math.sqrt(math.log(parent.visits) / child.visits)


class EngineBot:
    """The engine's opponent: ``Position.suggest``, information-set MCTS wholly in Rust (docs/bots.md, the
    engine's opponent), at ``level`` 1 to 8 (``referee._core.LEVELS`` simulations; 4 when neither is given)
    or ``simulations``, ``think_ms`` bounding each decision's time as well, its tree within ``memory``
    bytes (64 MiB by default). Each decision is searched with a seed drawn from ``seed``, so a seeded bot
    plays the same decisions in the same positions again (unless ``think_ms`` cuts a search short). It
    sees only what its player sees: every simulation starts from a position resampled from that view."""

    def __init__(self, level: int | None = None, simulations: int | None = None, seed: int | None = None,
                 think_ms: int | None = None, memory: int | None = None) -> None:
        levels = len(_core.LEVELS)
        if level is not None and simulations is not None:
            raise ValueError("give a level or a number of simulations, not both")
        if level is not None and not (isinstance(level, int) and 1 <= level <= levels):
            raise ValueError(f"levels are 1 to {levels}, not {level!r}")
        if simulations is not None and not (isinstance(simulations, int) and 1 <= simulations <= MAX_SIMULATIONS):
            raise ValueError(f"simulations are 1 to {MAX_SIMULATIONS:,}, not {simulations!r}")
        if think_ms is not None and not (isinstance(think_ms, int) and 1 <= think_ms <= MAX_SIMULATIONS):
            raise ValueError(f"think_ms is 1 to {MAX_SIMULATIONS:,} ms, not {think_ms!r}")
        if memory is not None and not (isinstance(memory, int) and memory > 0):
            raise ValueError(f"memory is a positive number of bytes, not {memory!r}")
        self.level = _core.DEFAULT_LEVEL if level is None and simulations is None else level
        self.simulations = _core.LEVELS[self.level - 1] if self.level is not None else simulations
        self.think_ms, self.memory = think_ms, memory
        self.rng = random.Random(seed)

    def choose(self, position: referee.Position) -> int:
        seed = self.rng.getrandbits(53)  # the largest seed a search takes is 2^53 - 1
        legal = position.legal_actions()
        if len(legal) == 1:  # nothing to search (a forced die move, a pass)
            return legal[0]
        if self.memory is None:
            return position.suggest(simulations=self.simulations, think_ms=self.think_ms, seed=seed)
        return position.suggest(simulations=self.simulations, think_ms=self.think_ms, seed=seed, memory=self.memory)

    def __repr__(self) -> str:
        budget = f"level={self.level}" if self.level is not None else f"simulations={self.simulations}"
        return f"EngineBot({budget})"


#: The bots ``bot`` knows, as its errors list them.
SPECS = ("random, mcts, mcts:SIMULATIONS, engine, engine:LEVEL (1 to 8) or engine:SIMULATIONS "
         "(a whole number above 8)")


def bot(spec: str, seed: int | None = None) -> Bot:
    """A bot by name: ``random``; ``mcts`` or ``mcts:SIMULATIONS`` (``MCTSBot``, 200 by default); ``engine``
    (``EngineBot`` at the default level, 4), ``engine:LEVEL`` (1 to 8) or ``engine:SIMULATIONS`` (a whole
    number above 8: ``engine:8`` is level 8, 3,200 simulations, ``engine:9`` nine simulations). Raises
    ValueError saying what is wrong with a spec that names no bot."""
    name, colon, argument = spec.partition(":")
    if name == "random" and not argument:
        return RandomBot(seed)
    if name == "mcts":
        if argument and not (argument.isascii() and argument.isdigit() and int(argument) > 0):
            raise ValueError(f"mcts:SIMULATIONS takes a whole number of simulations, at least 1, not {argument!r}")
        return MCTSBot(int(argument) if argument else 200, seed=seed)
    if name == "engine":
        if not colon:
            return EngineBot(seed=seed)
        levels = len(_core.LEVELS)
        if not (argument.isascii() and argument.isdigit()) or int(argument) == 0:
            raise ValueError(f"engine:LEVEL takes a level 1 to {levels}, and engine:SIMULATIONS a whole number "
                             f"of simulations above {levels}, not {argument!r}")
        number = int(argument)
        if number > MAX_SIMULATIONS:
            raise ValueError(f"engine:SIMULATIONS takes at most {MAX_SIMULATIONS:,} simulations, not {argument!r}")
        return EngineBot(level=number, seed=seed) if number <= levels else EngineBot(simulations=number, seed=seed)
    raise ValueError(f"unknown bot {spec!r}: {SPECS}")


#: Decisions after which a match game is abandoned: Hypnosia's crossings are optional, so two bots can
#: circle for ever (random play ends in a few hundred).
MAX_DECISIONS = 5000


def play_game(game: referee.Game[Any, Any, Any, Any], bots: dict[str, Bot], seed: int,
              rng: random.Random, max_decisions: int = MAX_DECISIONS) -> referee.Position:
    """One game from ``game.start(seed)``: each player's bot decides, chance draws from ``rng``; after
    ``max_decisions`` the game stops where it stands (not over)."""
    position = game.start(seed=seed)
    while not position.is_over() and position.ply < max_decisions:
        if position.is_chance():
            position.push(position.sample_chance(rng))
        else:
            position.push(bots[position.to_move].choose(position))  # type: ignore[index]
    return position


def play_match(game_name: str, specs: list[str], games: int, seed: int = 0,
               variant: str | None = None, options: dict[str, Any] | None = None,
               max_decisions: int = MAX_DECISIONS) -> Iterator[dict[str, Any]]:
    """Games between bots (``specs``, seated in turn: game k gives player i the bot ``(i + k) % len``), as
    records: ``{"game", "variant"?, "options"?, "seed", "moves", "id", "players", "result", "termination"}``,
    ``result`` the engine's ``{"winner", "scores"}`` (and Hypnosia's ``ranking``) and ``players`` the bot of
    each player; ``termination`` is ``normal``, or ``abandoned`` (no winner) for a game stopped after
    ``max_decisions``."""
    game = referee.game(game_name, variant=variant, options=options)
    rng = random.Random(seed)
    for k in range(games):
        game_seed = rng.getrandbits(53)
        players = game.start(seed=game_seed).players
        names = {player: specs[(i + k) % len(specs)] for i, player in enumerate(players)}
        bots = {player: bot(spec, seed=rng.getrandbits(64)) for player, spec in names.items()}
        position = play_game(game, bots, game_seed, rng, max_decisions)
        outcome = position.outcome()
        over = position.is_over()
        result: dict[str, Any] = {"winner": outcome["winner"] if over else None, "scores": outcome["scores"]}
        if outcome.get("ranking") is not None:
            result["ranking"] = outcome["ranking"]
        record: dict[str, Any] = {"game": game_name}
        if variant is not None:
            record["variant"] = variant
        if options is not None:
            record["options"] = options
        record.update(seed=game_seed, moves=position.history(), id=f"match-{k + 1}", players=names,
                      result=result, termination="normal" if over else "abandoned")
        yield record
