"""Request envelopes. The game-specific shapes inside them (states, options) belong to the engine,
which checks them; these schemas check everything around them. (A JSON object's keys are always
strings, so the object fields check the type only: checking every key again cost a third of a request.)

The hot paths (`play`, `validate` and batch items) check their envelope natively, without making Python
objects; `MoveRequest` stays the definition, and a test holds the native check to it. Both word a field's
faults alike: the words are the engine's (`MESSAGES`), given here to marshmallow's fields."""

from __future__ import annotations

import re
from typing import Any

from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate

from referee import _core
from referee._game import MAX_SECRET_CHARS, MIN_SECRET_CHARS
from referee.errors import MalformedRequest
from referee.pictures import MAX_SIZE, MIN_SIZE

__all__ = [
    "NewRequest", "LegalMovesRequest", "MoveRequest", "ReplayRequest", "ViewRequest", "RenderRequest",
    "SuggestRequest", "BatchItem", "Seed", "Bounded", "MAX_SEED", "SEED_HEX", "MESSAGES", "malformed",
]

#: Every message about a field at fault, by name, as the engine's own checks word them (their one home).
MESSAGES: dict[str, str] = _core.SCHEMA_MESSAGES
#: Any field's messages when it is missing or null.
FIELD_MESSAGES = {"required": MESSAGES["required"], "null": MESSAGES["null"]}

#: The largest seed a request gives as a number: one every client language holds exactly (a JavaScript
#: number, a double). Larger seeds travel as a state carries them (`SEED_HEX`).
MAX_SEED: int = _core.MAX_SEED
#: A seed as a state's `rng.seed` writes it, when it was made from a 64-bit seed (every seed the service
#: draws or is given): the seed little-endian in 16 hexadecimal digits, then 48 zeros.
SEED_HEX = re.compile(r"^[0-9a-fA-F]{16}0{48}$")
MOVE = validate.Length(min=1, max=_core.MAX_MOVE_CHARS, error=MESSAGES["length"])
PLAYER = validate.Length(min=1, max=_core.MAX_PLAYER_CHARS, error=MESSAGES["length"])
SECRET = validate.Length(min=MIN_SECRET_CHARS, max=MAX_SECRET_CHARS, error=MESSAGES["length"])
#: The most entries of a request's `commitments` (more than any game's players): checked before each is.
MAX_COMMITMENTS = _core.MAX_COMMITMENTS
COMMITMENT = validate.Regexp(r"^[0-9a-f]{64}$", error=MESSAGES["commitment"])


class Envelope(Schema):
    """A request's envelope: a field it does not know is refused in the engine's words."""

    error_messages = {"unknown": MESSAGES["unknown"]}


class String(fields.String):
    default_error_messages = {**FIELD_MESSAGES, "invalid": MESSAGES["string"]}


class List(fields.List):
    default_error_messages = {**FIELD_MESSAGES, "invalid": MESSAGES["list"]}


class Dict(fields.Dict):
    default_error_messages = {**FIELD_MESSAGES, "invalid": MESSAGES["mapping"]}


def secret_field(whose: str) -> fields.String:
    """A player's secret: with an opaque state of a game with hidden information, the proof that the
    request is that player's (its SHA-256 is the player's commitment); ignored for any other state."""
    return String(validate=SECRET, allow_none=True, metadata={"description": (
        f"{whose} (16 to 256 characters), for an opaque state of a game with hidden information "
        "(Caesar! with `REFEREE_OPAQUE_STATES`): its SHA-256 must be that player's commitment, else "
        "`not-this-player`. Ignored for any other state.")})


class WholeNumber(fields.Integer):
    """A JSON integer as JSON Schema counts them: `3` and `3.0` alike; never a boolean or a string."""

    default_error_messages = {**FIELD_MESSAGES, "invalid": MESSAGES["integer"]}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return super()._deserialize(value, attr, data, **kwargs)


class Seed(WholeNumber):
    """A game's seed: a whole number 0..MAX_SEED, or a state's `rng.seed` (`SEED_HEX`), so that a game the
    service seeded itself (64 bits) replays from what its states carry."""

    default_error_messages = {"seed": MESSAGES["seed"]}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if isinstance(value, str):
            if SEED_HEX.fullmatch(value) is None:
                raise self.make_error("seed")
            return int.from_bytes(bytes.fromhex(value[:16]), "little")
        seed = super()._deserialize(value, attr, data, **kwargs)
        if not 0 <= seed <= MAX_SEED:
            raise self.make_error("seed")
        return seed


class PerPlayer(Dict):
    """A JSON object of one value a player, whose errors name the player (`commitments.pompey`), not
    marshmallow's `commitments.pompey.value`; at most MAX_COMMITMENTS of them, counted before any is
    checked (28,000 errors about them cost a worker 0.4 s)."""

    default_error_messages = {"too_many": MESSAGES["too_many"]}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> dict[str, Any]:
        if isinstance(value, dict) and len(value) > MAX_COMMITMENTS:
            raise self.make_error("too_many")
        try:
            return super()._deserialize(value, attr, data, **kwargs)
        except ValidationError as error:
            if not isinstance(error.messages, dict):
                raise
            raise ValidationError({key: messages.get("value", messages.get("key")) if isinstance(messages, dict)
                                   else messages for key, messages in error.messages.items()}) from None


class NewRequest(Envelope):
    variant = String(validate=validate.Length(min=1, max=64, error=MESSAGES["length"]))
    options = Dict()
    seed = Seed(strict=True, allow_none=True)
    commitments = PerPlayer(keys=String(), values=String(validate=COMMITMENT), allow_none=True,
                            validate=validate.Length(max=MAX_COMMITMENTS),
                              metadata={"description": (
        "Each player's commitment, `{\"<player>\": \"<SHA-256 of the player's secret, 64 lowercase hex>\"}`: "
        "required by a game with hidden information that the service keeps opaque (Caesar! with "
        "`REFEREE_OPAQUE_STATES`; `malformed-request` without them), one a player, all different, carried "
        "inside the encrypted state; every request that reveals a player's information then gives that "
        "player's `secret`. Ignored by other games and modes, so a client may always send them.")})


class State(fields.Field):
    """A state in either form: the game's JSON object, or its position notation (a string, read with
    the game's default setup). The engine checks what is inside."""

    default_error_messages = {**FIELD_MESSAGES, "invalid": MESSAGES["state"]}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> dict[str, Any] | str:
        if not isinstance(value, (dict, str)):
            raise self.make_error("invalid")
        return value


class StateRequest(Envelope):
    state = State(required=True)


class StrictBoolean(fields.Boolean):
    """A JSON boolean and nothing else (marshmallow's Boolean also takes 1, "yes", "true", ...)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class LegalMovesRequest(StateRequest):
    compact = StrictBoolean(load_default=False)
    secret = secret_field("The secret of the player to move")


class MoveRequest(StateRequest):
    move = String(required=True, validate=MOVE)
    player = String(validate=PLAYER, allow_none=True)
    secret = secret_field("The secret of the player to move")


class ReplayRequest(NewRequest):
    """A game record as archives hold it (as a line of `referee validate`): any field not named here is the
    archive's own (who played, when) and passes unread. The claim's fields are read by the engine, which
    judges them (`referee.claims` in the core), so their shapes are checked there. The route reads the
    record natively (`Engine.replay_json`, the archives' reader), with this schema's checks and words:
    this stays the definition, and a test holds the native check to it."""

    class Meta:
        unknown = EXCLUDE

    moves = List(String(validate=MOVE), required=True)
    game = String(metadata={"description": (
        "The record's game, as an archive's record names it; when given, it must be the route's game.")})
    result = fields.Raw(allow_none=True, metadata={"description": (
        "The result the record claims, judged against the moves (`claim`).")})
    termination = fields.Raw(allow_none=True, metadata={"description": (
        "How the record says the game ended (`normal` by default when a `result` is given), judged against "
        "the moves (`claim`).")})
    by = fields.Raw(allow_none=True, metadata={"description": (
        "The player who resigned or ran out of time (a `resignation` or `timeout`).")})


class ViewRequest(StateRequest):
    player = String(required=True, validate=PLAYER)
    secret = secret_field("The secret of the viewed player")


class RenderRequest(StateRequest):
    """What `render` draws: the state, or the state after `move` with what it did marked."""

    move = String(validate=MOVE, allow_none=True, metadata={"description": (
        "A move to play on `state` first, as `play` would: the picture shows the state after it, with what "
        "the move did marked (the cell or border played, captures, releases, closures, markers, the die "
        "moves). Refused as `play` refuses it.")})
    player = String(validate=PLAYER, allow_none=True, metadata={"description": (
        "The player the picture is drawn for: their side at the bottom, and in a game with hidden information "
        "only what they may see (Caesar!: the other hand face down, no legal moves marked unless they are to "
        "move). A name that is no player of the game is `unknown-player`.")})
    legal = StrictBoolean(load_default=False, metadata={"description": (
        "Mark the legal moves (cells, end cells, removable pieces, units that can move, borders and hand tokens).")})
    size = WholeNumber(strict=True, validate=validate.Range(min=MIN_SIZE, max=MAX_SIZE), allow_none=True,
                       metadata={"description": "The picture's width in pixels (the height keeps its proportions); "
                                                "by default the drawing's own width."})
    secret = secret_field("The secret of the player the picture is drawn for (`player`, by default the "
                          "secret's owner; with `move`, the mover's)")


class Bounded(WholeNumber):
    """A whole number the engine takes as an unsigned integer of `bits` bits, whose bounds are the
    service's and so not checked here: the contract says `minimum` to `maximum` (the engine's refusal,
    422, names the bound past them), and a number the engine cannot take at all (below 0, or past its
    bits) is refused here, malformed."""

    def __init__(self, bits: int, minimum: int, maximum: int, **kwargs: Any) -> None:
        native = validate.Range(min=0, max=2**bits - 1, error="Not a whole number from {min} to {max}.")
        super().__init__(strict=True, allow_none=True, validate=native, **kwargs)
        self.minimum, self.maximum = minimum, maximum


class SuggestRequest(StateRequest):
    """What `suggest` thinks about: the state, for the player to move, and how long (a level, or a number of
    simulations, within the service's bounds; a think time)."""

    #: Fields a request gives one of at most (null is not given): the engine refuses both, malformed.
    EXCLUSIVE = ("level", "simulations")

    player = String(validate=PLAYER, allow_none=True, metadata={"description": (
        "The player asking, who must be the player to move: another player of the game is `not-your-turn`, a "
        "name that is no player of the game `unknown-player`.")})
    secret = secret_field("The secret of the player to move")
    level = Bounded(8, 1, len(_core.LEVELS), metadata={"description": (
        f"How hard to think, 1 to {len(_core.LEVELS)}: level n runs "
        f"{', '.join(f'{count:,}' for count in _core.LEVELS)} simulations for n = 1, 2, ... "
        f"(level {_core.DEFAULT_LEVEL} when neither `level` nor `simulations` is given). Past 8, or with "
        "`simulations` too, refused.")})
    simulations = Bounded(32, 1, 2**32 - 1, metadata={"description": (
        "Simulations to run instead of a level's, up to the service's most (`REFEREE_MAX_SIMULATIONS`, 20,000 by "
        "default; more is `over-budget` with `field` and `limit`).")})
    think_ms = Bounded(32, 1, 2**32 - 1, metadata={"description": (
        "The most milliseconds to think, up to the service's most (`REFEREE_MAX_THINK_MS`, 5,000 by default; "
        "more is `over-budget`), which is also the think time of a request that gives none: the search stops "
        "at its simulations or its time, whichever comes first, and `simulations` answers how many it ran.")})
    seed = WholeNumber(strict=True, allow_none=True, validate=validate.Range(
        min=0, max=MAX_SEED, error="Not a whole number from {min} to {max}."), metadata={"description": (
            "The search's seed: the same seed and simulations suggest the same again (when the think time does "
            "not end the search first). By default a fresh one, which the answer gives.")})


class BatchItem(MoveRequest):
    """A batch item is a move request's body."""


def malformed(error: ValidationError) -> MalformedRequest:
    """A schema's verdict as the engine's `malformed-request` (its `detail` and per-field `errors`)."""
    return _core.malformed_request([(e["field"], e["message"]) for e in field_errors(error.messages)])


def field_errors(messages: dict | list, prefix: str = "") -> list[dict[str, str]]:
    """marshmallow's nested messages as a flat list of ``{"field", "message"}``."""
    if isinstance(messages, list):
        return [{"field": prefix or "body", "message": str(message)} for message in messages]
    errors = []
    for key, value in messages.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        errors.extend(field_errors(value, path))
    return errors
