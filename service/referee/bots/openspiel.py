"""OpenSpiel games on Referee's engine: after ``referee.bots.openspiel.register()``,
``pyspiel.load_game("referee_iago")`` (and ``referee_isaac``, ``referee_hypnosia``, ``referee_caesar``)
is a game OpenSpiel's algorithms run on (MCTS, AlphaZero's evaluators, CFR and MCCFR, ...).

Each state wraps a native ``referee.Position``: actions are the game's action ids (``Game.num_actions``),
chance nodes its chance outcomes (numbered from 0 as OpenSpiel numbers them: the game's id less the first
chance id, 1825 on Hypnosia's default board, 951 for Caesar!), observation tensors its ``observation`` and information states its
``information_state``. Game parameters: ``seed`` (int, the game started: 0 by default, so a game is
reproducible), ``variant`` and ``options`` (a JSON object as text), e.g.
``pyspiel.load_game("referee_hypnosia", {"options": '{"players": 3}'})``.

Needs ``open_spiel`` (``pip install open-spiel``), which this module imports; the rest of the package
never does.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

import referee

__all__ = ["register", "GAMES"]

#: The games registered, by OpenSpiel's short name: every game of the engine.
GAMES = {f"referee_{name}": name for name in referee.games()}


def _game_type(name: str) -> pyspiel.GameType:
    facts = referee.game(name).facts
    return pyspiel.GameType(
        short_name=f"referee_{name}",
        long_name=f"Referee {referee.game(name).info()['title']}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if facts["chance"]
                     else pyspiel.GameType.ChanceMode.DETERMINISTIC),
        information=(pyspiel.GameType.Information.IMPERFECT_INFORMATION if facts["hidden_information"]
                     else pyspiel.GameType.Information.PERFECT_INFORMATION),
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=facts["max_players"],
        min_num_players=facts["min_players"],
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"seed": 0, "variant": "", "options": "{}"},
    )


class RefereeGame(pyspiel.Game):
    """One of Referee's games with a setup, for OpenSpiel (a subclass a game: OpenSpiel registers a
    class, which it calls with the parameters)."""

    name = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        name = self.name
        options = json.loads(params.get("options", "{}"))
        self.game = referee.game(name, variant=params.get("variant") or None, options=options or None)
        self.seed = int(params.get("seed", 0))
        start = self.game.start(seed=self.seed)
        players = len(start.players)
        #: Chance outcomes are the last ids of the game's action space; OpenSpiel numbers them from 0.
        self.chance_offset = self.game.num_actions - self.game.facts["max_chance_outcomes"]
        info = pyspiel.GameInfo(
            num_distinct_actions=self.game.num_actions,
            max_chance_outcomes=self.game.facts["max_chance_outcomes"],
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.game.facts["max_decisions"],
        )
        super().__init__(_game_type(name), info, params)

    def new_initial_state(self) -> RefereeState:
        return RefereeState(self, self.game.start(seed=self.seed))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        return _Observer(self, params)


class RefereeState(pyspiel.State):
    """A state: a native position handle and what OpenSpiel asks of it."""

    def __init__(self, game: RefereeGame, position: referee.Position) -> None:
        super().__init__(game)
        self.position = position
        self._players = position.players
        self._offset = game.chance_offset

    def current_player(self) -> int:
        if self.position.is_over():
            return int(pyspiel.PlayerId.TERMINAL)
        if self.position.is_chance():
            return int(pyspiel.PlayerId.CHANCE)
        to_move = self.position.to_move
        assert to_move is not None  # neither over nor chance: a player moves
        return self._players.index(to_move)

    def _legal_actions(self, player: int) -> list[int]:
        return self.position.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(action - self._offset, p) for action, p in self.position.chance_outcomes(ids=True)]

    def _apply_action(self, action: int) -> None:
        self.position.push(action + self._offset if self.position.is_chance() else action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self.position.move_of(action + self._offset if player == pyspiel.PlayerId.CHANCE else action)

    def is_terminal(self) -> bool:
        return self.position.is_over()

    def returns(self) -> list[float]:
        return self.position.returns()

    def __str__(self) -> str:
        text = self.position.position()
        return text if self.position.at_turn_start() else f"{text} | {self.position.hash():016x}"


class _Observer:
    """Observation tensors and strings (OpenSpiel's PyObserver): the position's own."""

    def __init__(self, game: RefereeGame, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        shape = game.game.observation_shape
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: RefereeState, player: int) -> None:
        self.tensor[:] = np.ravel(state.position.observation(state._players[player]))

    def string_from(self, state: RefereeState, player: int) -> str:
        return state.position.information_state(state._players[player])


_CLASSES = {short_name: type(f"{name.title()}Game", (RefereeGame,), {"name": name})
            for short_name, name in GAMES.items()}


def register() -> None:
    """Registers the four games with OpenSpiel (again is harmless)."""
    known = set(pyspiel.registered_names())
    for short_name, name in GAMES.items():
        if short_name not in known:
            pyspiel.register_game(_game_type(name), _CLASSES[short_name])
