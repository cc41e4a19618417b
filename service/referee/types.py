"""The shapes of what ``referee`` takes and answers, for type checkers: every game's state, setup, options
and effects (``IagoState``, ``CaesarEffects``, ...) and the shared ``Outcome``, generated from the Rust
types (see ``referee.contract.typegen``), and the answers of ``referee.Game`` built on them, each the contract's
component of the same name (``openapi.yaml``), generic over the game's state and effects.

>>> import referee
>>> from referee.types import IagoEffects, IagoState, Played
>>> game = referee.game("iago")          # a Game[IagoState, IagoEffects, IagoSetup, IagoState]
>>> result = game.play(game.new(), "e4")  # a Played[IagoState, IagoEffects]
"""

from typing import Any, Generic, Literal, Mapping, NotRequired, TypedDict, TypeVar

from referee import _schema_types
from referee._schema_types import *  # noqa: F403 - every generated shape is public here

#: A game's state (``IagoState``, ...), its effects, its setup and what a player sees of a state.
StateT = TypeVar("StateT", bound=Mapping[str, Any])
EffectsT = TypeVar("EffectsT")
SetupT = TypeVar("SetupT")
ViewT = TypeVar("ViewT")


class Reason(TypedDict):
    """Why a move or an item was refused: the stable ``code``, the ``detail``, and the facts of the error
    (``rule`` of an illegal move, ``field`` of an invalid state, ...)."""

    code: str
    detail: str
    rule: NotRequired[str]
    field: NotRequired[str]


class Verdict(TypedDict):
    """``Game.validate``: ``{"legal": True}`` or ``{"legal": False, "reason": ...}``."""

    legal: bool
    reason: NotRequired[Reason]


class OpaqueState(TypedDict):
    """A state encrypted with seal keys (``SealKeys(..., opaque=[...])``): sent back as received. One
    serves every player; a game with hidden information carries the players' commitments inside it."""

    opaque: str


class Played(TypedDict, Generic[StateT, EffectsT]):
    """``Game.play``: the next state (in the form the state was given: an object, or a position string),
    its position, what the move did and where the game stands. Opaque (not typed as the game's state:
    ``OpaqueState``): no ``position``, and the mover's ``view``."""

    state: StateT | str
    position: NotRequired[str]
    view: NotRequired[dict[str, Any]]
    effects: EffectsT
    outcome: Outcome


class ClaimReason(TypedDict):
    """Why a record's claim disagrees with its moves: the stable ``code`` (``claim-mismatch``, ...; see
    ``referee.codes.CLAIM_CODES``), the ``detail``, and its facts (``field``, ``claimed``, ``actual``, ...)."""

    code: str
    detail: str
    field: NotRequired[str]
    claimed: NotRequired[Any]
    actual: NotRequired[Any]


class ReplayResult(TypedDict, Generic[StateT]):
    """``Game.replay``: the state after the legal moves; with ``legal`` false, the first illegal ``ply``,
    its ``move`` and the ``reason``. Opaque: as in ``Played``, without ``position``. ``claim``: the verdict
    on what the record claims (``result``, ``termination``, ``by``), with ``claim_reason`` when it disagrees."""

    legal: bool
    plies: int
    state: StateT
    position: NotRequired[str]
    outcome: Outcome
    ply: NotRequired[int]
    move: NotRequired[str]
    reason: NotRequired[Reason]
    claim: Literal["agrees", "disagrees", "absent"]
    claim_reason: NotRequired[ClaimReason]


class BatchResult(TypedDict, Generic[StateT, EffectsT]):
    """An item's result in ``Game.validate_batch`` (the HTTP batch's, without its ``index``): a verdict,
    with the next state, position, effects and outcome of a legal move in ``play_batch``; or the
    ``error`` that makes the item no request."""

    legal: NotRequired[bool]
    reason: NotRequired[Reason]
    error: NotRequired[Reason]
    state: NotRequired[StateT | str]
    position: NotRequired[str]
    view: NotRequired[dict[str, Any]]
    effects: NotRequired[EffectsT]
    outcome: NotRequired[Outcome]


class BatchItem(TypedDict, Generic[StateT]):
    """An item of ``Game.validate_batch``: a state, a move, who plays it, and (for a committed state) the
    mover's secret."""

    state: StateT | str
    move: str
    player: NotRequired[str]
    secret: NotRequired[str]


class CaesarView(TypedDict):
    """One player's view of a Caesar! state: the state without the bags, the generator and the opponent's
    hand tokens."""

    rules: Literal["caesar@1"]
    to_move: CaesarPlayer | None
    borders: dict[str, CaesarBorder | None]
    provinces: dict[str, CaesarProvince]
    italia_dashed: CaesarPlayer | None
    hands: dict[str, CaesarTokens]
    hand_sizes: CaesarCountPerPlayer
    bag_sizes: CaesarCountPerPlayer
    hand_limits: CaesarCountPerPlayer
    senate: CaesarCountPerPlayer
    markers: CaesarCountPerPlayer


__all__ = [
    "BatchItem",
    "OpaqueState",
    "BatchResult",
    "CaesarView",
    "EffectsT",
    "Played",
    "Reason",
    "ReplayResult",
    "ClaimReason",
    "SetupT",
    "StateT",
    "Verdict",
    "ViewT",
]
__all__ += _schema_types.__all__
