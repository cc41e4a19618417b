"""Referee: move validation for Iago, Isaac, Hypnosia and Caesar!.

>>> import referee
>>> game = referee.game("iago")
>>> state = game.new()
>>> result = game.play(state, "e4")      # next state, effects, outcome; raises IllegalMove
>>> game.validate(result["state"], "e5") # {"legal": False, "reason": {...}}

The public API is ``__all__``; the shapes of states, effects and answers, for type checkers, are in
``referee.types``. The rest is a package by concern: the HTTP service (``referee.http``), archives
(``referee.archives``, with the command ``referee.cli``), bots and their adapters (``referee.bots``),
pictures (``referee.pictures``) and the contract (``referee.contract``); importing ``referee`` imports
none of them.
"""

from referee import _moved

from referee._core import Position, SealKeys, __version__
from referee._game import Game, commitment, game, games, replay_records
from referee.errors import (
    GameOver,
    IllegalMove,
    InvalidBoard,
    InvalidOptions,
    InvalidSeal,
    InvalidState,
    MalformedJson,
    MalformedMove,
    MalformedRequest,
    NotThisPlayer,
    NotYourTurn,
    OverBudget,
    PayloadTooLarge,
    RefereeError,
    UnknownGame,
    UnknownPlayer,
)

__all__ = [
    "Game",
    "GameOver",
    "IllegalMove",
    "InvalidBoard",
    "InvalidOptions",
    "InvalidSeal",
    "InvalidState",
    "MalformedJson",
    "MalformedMove",
    "MalformedRequest",
    "NotThisPlayer",
    "NotYourTurn",
    "OverBudget",
    "PayloadTooLarge",
    "Position",
    "RefereeError",
    "SealKeys",
    "UnknownGame",
    "UnknownPlayer",
    "__version__",
    "commitment",
    "game",
    "games",
    "replay_records",
]

_moved.install()  # the old paths of moved modules, for one release
