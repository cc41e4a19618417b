"""Exceptions of the engine, each with the stable machine ``code`` the HTTP API uses as well: a class
is named after its code (``IllegalMove`` is ``illegal-move``), which `referee.codes` defines."""

from __future__ import annotations

import re
from typing import Any

from referee.codes import CODES

__all__ = [
    "RefereeError", "UnknownGame", "MalformedJson", "PayloadTooLarge", "MalformedRequest", "InvalidOptions", "InvalidState",
    "InvalidSeal", "InvalidBoard", "MalformedMove", "IllegalMove", "GameOver", "NotYourTurn", "NotThisPlayer",
    "UnknownPlayer", "OverBudget",
    "from_reason",
]


class RefereeError(Exception):
    """Base of every error the engine raises; ``code`` is stable, ``detail`` is for people."""

    code: str = "referee-error"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.code = re.sub(r"(?<!^)(?=[A-Z])", "-", cls.__name__).lower()
        if cls.code not in CODES:
            raise TypeError(f"{cls.__name__} names no problem code ({cls.code!r} is not in referee.codes)")

    def __init__(self, detail: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.data: dict[str, Any] = dict(data or {})

    def as_reason(self) -> dict[str, Any]:
        """The error as a plain object: ``{"code", "detail", ...facts}``."""
        return {"code": self.code, "detail": self.detail, **self.data}


class UnknownGame(RefereeError):
    """No game of that name."""


class MalformedJson(RefereeError, ValueError):
    """JSON text given to the engine (a request body, a batch) does not parse. Also a ValueError, as
    a bad argument."""


class PayloadTooLarge(RefereeError, ValueError):
    """A JSON body that would become more Python objects than a request may (`referee._core.loads`:
    ``data["limit"]`` is their bound in bytes). Also a ValueError, as a bad argument."""


class MalformedRequest(RefereeError, ValueError):
    """A request body given to the engine lacks a field or has a bad one; ``data["errors"]`` lists
    them as ``{"field", "message"}``. Also a ValueError, as a bad argument."""


class InvalidOptions(RefereeError):
    """The variant or options are unknown or do not combine."""


class InvalidState(RefereeError):
    """A state that cannot occur in the game; ``data["field"]`` says where."""


class InvalidSeal(RefereeError):
    """With seal keys: the state's ``seal`` is missing, malformed, names an unknown key id, or does not
    match the state; ``data["field"]`` is ``state.seal``."""


class NotThisPlayer(RefereeError):
    """With an opaque state of a game with hidden information, a call acted as a player
    (``data["player"]``; None: the whole state) without that player's ``secret``: missing, wrong, or
    another player's (``detail`` starts with which); ``data["field"]`` is ``secret``."""


class InvalidBoard(RefereeError):
    """A board description (Hypnosia's ``board`` option) that is not a playable board;
    ``data["field"]`` names the faulty field, e.g. ``board.bridges[3].to``."""


class MalformedMove(RefereeError):
    """The move is not in the game's notation."""


class IllegalMove(RefereeError):
    """A well-formed move that the rules forbid; ``rule`` names the rule."""

    @property
    def rule(self) -> str:
        return str(self.data.get("rule", ""))


class GameOver(RefereeError):
    """The game is over: no move can be played."""


class NotYourTurn(RefereeError):
    """The move was announced for a player of the game who is not to move."""


class UnknownPlayer(RefereeError):
    """A request named a player the game does not have; ``data["players"]`` lists its players."""


class OverBudget(RefereeError, ValueError):
    """A search asked for a level, simulations or think time out of range; ``data["field"]`` names the
    bound and ``data["limit"]`` its largest value. Also a ValueError, as a bad argument."""



#: Every error class by its code.
CLASSES: dict[str, type[RefereeError]] = {cls.code: cls for cls in RefereeError.__subclasses__()}


def from_reason(reason: dict[str, Any]) -> RefereeError:
    """The exception of a reason object ``{"code", "detail", ...facts}`` (the inverse of ``as_reason``)."""
    facts = dict(reason)
    code, detail = facts.pop("code"), facts.pop("detail")
    return CLASSES[code](detail, facts)
