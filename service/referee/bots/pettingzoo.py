"""PettingZoo environments on Referee's engine: ``referee.bots.pettingzoo.env("iago")`` (and ``isaac``,
``hypnosia``, ``caesar``, with a setup: ``env("hypnosia", options={"players": 4})``) is an AEC
environment with action masks, as PettingZoo's classic games are.

Agents are the game's players (Hypnosia: the seated colours). An action is an action id of the game
(``Game.num_actions``); an observation is ``{"observation": Position.observation(agent),
"action_mask": int8 mask}``, the mask all zeros for an agent not to move. Chance (Hypnosia's rolls,
Caesar!'s draws) is resolved inside ``step`` from the environment's generator (seeded by ``reset``).
Rewards are the game's returns, given when it ends: +1 to the winner, -1 to the other (Hypnosia: by
rank). Needs ``pettingzoo`` (``pip install pettingzoo``).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

import referee

__all__ = ["env", "RefereeEnv"]


class RefereeEnv(AECEnv):  # type: ignore[misc]
    """One game and setup as a PettingZoo AEC environment."""

    def __init__(self, game: str, render_mode: str | None = None, **setup: Any) -> None:
        super().__init__()
        self.game = referee.game(game, **setup)
        self.metadata = {"render_modes": ["ansi"], "name": f"referee_{game}_v0", "is_parallelizable": False}
        self.render_mode = render_mode
        self.possible_agents = list(self.game.start(seed=0).players)
        actions, shape = self.game.num_actions, tuple(self.game.observation_shape)
        observation = spaces.Dict({
            "observation": spaces.Box(low=-np.inf, high=np.inf, shape=shape, dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(actions,), dtype=np.int8),
        })
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(actions))
        self._rng = random.Random()
        self.position: referee.Position | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._rng = random.Random(seed)
        self.position = self.game.start(seed=self._rng.getrandbits(53))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._chance()
        self.agent_selection = self.position.to_move or self.agents[0]

    def _chance(self) -> None:
        """Chance's decisions, drawn from the environment's generator by their probabilities."""
        assert self.position is not None
        while self.position.is_chance():
            self.position.push(self.position.sample_chance(self._rng))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.position is not None
        if agent == self.agent_selection and not self.position.is_over():
            mask = np.asarray(self.position.legal_action_mask(), dtype=np.int8)
        else:
            mask = np.zeros(self.game.num_actions, dtype=np.int8)
        observation = np.asarray(self.position.observation(agent), dtype=np.float32)
        return {"observation": observation.reshape(self.game.observation_shape), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        assert self.position is not None and action is not None
        self.position.push(int(action))
        self._chance()
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.position.is_over():
            self.rewards = dict(zip(self.position.players, self.position.returns()))
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.position.to_move or agent
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.position is None:
            return None
        return self.position.position()

    def close(self) -> None:
        pass


def env(game: str, render_mode: str | None = None, **setup: Any) -> RefereeEnv:
    """An AEC environment of ``game`` with a setup (``variant=``, ``options=``)."""
    return RefereeEnv(game, render_mode=render_mode, **setup)
