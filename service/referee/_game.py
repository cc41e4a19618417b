"""``referee.game`` and ``referee.Game``: one game's operations on plain Python values, typed per game."""

from __future__ import annotations

import gc
import hashlib
from contextlib import contextmanager
from typing import Any, Generic, Iterable, Iterator, Literal, Mapping, cast, overload

import orjson

from referee import _core
from referee._core import Position, SealKeys
from referee.types import (
    BatchResult,
    CaesarEffects,
    CaesarOptions,
    CaesarSetup,
    CaesarState,
    CaesarVariant,
    CaesarView,
    ClaimedResult,
    EffectsT,
    GameInfo,
    HypnosiaEffects,
    HypnosiaOptions,
    HypnosiaSetup,
    HypnosiaState,
    HypnosiaVariant,
    IagoEffects,
    IagoOptions,
    IagoSetup,
    IagoState,
    IagoVariant,
    IsaacEffects,
    IsaacOptions,
    IsaacSetup,
    IsaacState,
    IsaacVariant,
    Outcome,
    Played,
    ReplayResult,
    SetupT,
    StateT,
    Suggestion,
    Termination,
    Verdict,
    ViewT,
)

__all__ = ["Game", "commitment", "game", "games", "replay_records", "MIN_SECRET_CHARS", "MAX_SECRET_CHARS"]


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pauses the cyclic garbage collector: decoding a large batch makes a few containers a result, and
    every few hundred of them would start a pass over the caller's heap, the batch's items included
    (three times the cost of the decoding itself)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _json_array(items: list[Any]) -> bytes:
    """The items as a JSON array; an item JSON cannot carry (a huge integer, an unknown type) as null."""
    try:
        return orjson.dumps(items, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:
        return b"[" + b",".join(_json_item(item) for item in items) + b"]"


def _json_item(item: Any) -> bytes:
    try:
        return orjson.dumps(item, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:
        return b"null"


def games() -> list[str]:
    """The names of the games this build plays."""
    return _core.games()


def replay_records(data: bytes, first_record: int = 1, *, keep: Iterable[str] = (), positions: bool = False) -> bytes:
    """Replays game records, NDJSON bytes with one ``{"game", "variant"?, "options"?, "seed"?, "moves",
    "id"?}`` a line with any other fields (games may be mixed), on every core. Returns one NDJSON result a
    line, in input order, numbered ``record`` from ``first_record``: the outcome, or the first illegal ply
    and why, or the error that makes the line no record; and the verdict on the record's claim
    (``result``, ``termination``, ``by``: ``claim``, and ``claim_reason`` when it disagrees). ``keep``
    names fields of the records copied into their results; ``positions`` adds every position of a legal
    record. ValueError for a field to keep that results already have."""
    return _core.replay_records(data, first_record, list(keep), positions)[0]


#: A player's secret is 16 to 256 characters: the engine's bounds (`opaque.rs`), exported by `_core`, used
#: by the envelopes' `secret` (`referee.http.schemas`) and `commitment` alike.
MIN_SECRET_CHARS: int = _core.MIN_SECRET_CHARS
MAX_SECRET_CHARS: int = _core.MAX_SECRET_CHARS


def commitment(secret: str) -> str:
    """A player's commitment to ``secret``: SHA-256 of its UTF-8 bytes, in lowercase hex, which ``new``
    takes (``commitments``) for an opaque game with hidden information. Any client may compute it
    itself; the secret never needs to leave the player. Raises ValueError for a secret of the wrong length."""
    if not MIN_SECRET_CHARS <= len(secret) <= MAX_SECRET_CHARS:
        raise ValueError(f"a secret is {MIN_SECRET_CHARS} to {MAX_SECRET_CHARS} characters, not {len(secret)}")
    return hashlib.sha256(secret.encode()).hexdigest()


_Keys = str | SealKeys | None


@overload
def game(name: Literal["iago"], variant: IagoVariant | None = None, options: IagoOptions | None = None,
         seal_keys: _Keys = None) -> Game[IagoState, IagoEffects, IagoSetup, IagoState]: ...
@overload
def game(name: Literal["isaac"], variant: IsaacVariant | None = None, options: IsaacOptions | None = None,
         seal_keys: _Keys = None) -> Game[IsaacState, IsaacEffects, IsaacSetup, IsaacState]: ...
@overload
def game(name: Literal["hypnosia"], variant: HypnosiaVariant | None = None,
         options: HypnosiaOptions | None = None, seal_keys: _Keys = None) -> Game[HypnosiaState, HypnosiaEffects, HypnosiaSetup, HypnosiaState]: ...
@overload
def game(name: Literal["caesar"], variant: CaesarVariant | None = None, options: CaesarOptions | None = None,
         seal_keys: _Keys = None) -> Game[CaesarState, CaesarEffects, CaesarSetup, CaesarView]: ...
@overload
def game(name: str, variant: str | None = None, options: Mapping[str, Any] | None = None,
         seal_keys: _Keys = None) -> Game[Any, Any, Any, Any]: ...
def game(name: str, variant: str | None = None, options: Mapping[str, Any] | None = None,
         seal_keys: _Keys = None) -> Game[Any, Any, Any, Any]:
    """A game with a setup: its variant and options apply to ``new``, ``replay`` and position strings.
    With ``seal_keys`` (``"k2:SECRET,k1:SECRET"`` as ``REFEREE_SEAL_KEYS``, or a ``SealKeys``), every
    state it answers is sealed and every state it takes must carry a valid seal (or be an opaque state
    of these keys); chance is keyed by them. Keys that list the game as opaque
    (``SealKeys("k1:SECRET", opaque=["caesar"])``) answer every state of it encrypted,
    ``{"opaque": "<key id>.<...>"}``, and a play with the view of the player who moved. A game with hidden
    information (Caesar!) is then ``committed``: ``new`` takes each player's ``commitments``
    (``referee.commitment(secret)``), carried inside the encrypted state, and draws its own seed (no ``seed``,
    no ``options.hands``: a copy of a game under way could be viewed with the copier's secret); ``replay``
    is refused, and so are the whole-state calls ``position`` and ``perft``; and every call that reveals a
    player's information takes that player's ``secret`` (the mover's for ``play``, ``validate``,
    ``legal_moves`` and batch items; the viewed player's for ``view`` and ``svg``), else ``NotThisPlayer``.
    Opaque states are not the game's state type: the static types describe the plain states. Typed per game: for
    ``"iago"`` a ``Game[IagoState, IagoEffects, IagoSetup, IagoState]`` (see ``referee.types``)."""
    return Game(name, variant=variant, options=options, seal_keys=seal_keys)


class Game(Generic[StateT, EffectsT, SetupT, ViewT]):
    """One game and setup. States carry their own variant and options, so one ``Game`` per game name
    can judge states of any setup; a state may also be given as a position string of this setup (not
    with seal keys: a position string carries no seal). The type parameters are the game's state,
    effects, setup and player's view (``referee.game`` picks them by the game's name)."""

    def __init__(
        self,
        name: str,
        variant: str | None = None,
        options: Mapping[str, Any] | None = None,
        seal_keys: _Keys = None,
    ) -> None:
        setup: dict[str, Any] = {}
        if variant is not None:
            setup["variant"] = variant
        if options is not None:
            setup["options"] = dict(options)
        keys = SealKeys(seal_keys) if isinstance(seal_keys, str) else seal_keys
        # The engine checks the setup once and keeps it: for new games, replays and position strings.
        self._engine = _core.Engine(name, setup, keys)
        self.setup = cast(SetupT, self._engine.check_setup())
        self._space: Position | None = None

    @property
    def name(self) -> str:
        return self._engine.name

    @property
    def rules_version(self) -> str:
        return self._engine.rules_version

    @property
    def sealed(self) -> bool:
        """Whether this game has seal keys: it seals every state it answers and checks every one it takes."""
        return self._engine.sealed

    @property
    def opaque(self) -> bool:
        """Whether this game answers its states opaque (encrypted with its seal keys)."""
        return self._engine.opaque

    @property
    def committed(self) -> bool:
        """Whether this game's states carry the players' commitments (Caesar! answered opaque): ``new`` then
        needs ``commitments``, ``replay``, ``position`` and ``perft`` are refused, and the calls that reveal a
        player's information need their ``secret``."""
        return self._engine.committed

    @property
    def facts(self) -> dict[str, Any]:
        """What adapters (OpenSpiel, PettingZoo) need of the game before any position, from the engine:
        ``min_players``, ``max_players``, ``max_decisions`` (a bound of a game's length in decisions),
        ``max_chance_outcomes`` (the last action ids; 0 without chance), ``chance``, ``hidden_information``."""
        return cast(dict[str, Any], self._engine.facts)

    def __repr__(self) -> str:
        return f"referee.game({self.name!r}, setup={self.setup!r})"

    def info(self) -> GameInfo:
        """Variants, options, board geometry and notation of the game."""
        return cast(GameInfo, self._engine.info())

    def new(self, seed: int | None = None, commitments: Mapping[str, str] | None = None) -> StateT:
        """The initial state of this setup. ``commitments`` (``{player: referee.commitment(secret)}``) are
        needed when the game is ``committed`` and ignored otherwise; raises ``MalformedRequest``. A committed
        game draws its seed itself: ``seed`` is then ``MalformedRequest``, starting hands ``InvalidOptions``."""
        return cast(StateT, self._engine.new_state(None, seed, commitments))

    def check(self, state: Mapping[str, Any] | str) -> StateT:
        """An untrusted state, checked and normalised (defaults filled in); raises ``InvalidState``."""
        return cast(StateT, self._engine.check_state(state))

    def position(self, state: StateT | str) -> str:
        """The one-line position notation of a state; ``NotThisPlayer`` for a committed state (it shows all)."""
        return self._engine.position(state)

    def parse_position(self, text: str) -> StateT:
        """The JSON state of a position written in notation, with this game's setup. Never sealed."""
        return cast(StateT, self._engine.parse_position(text))

    def legal_moves(self, state: StateT | str, compact: bool = False, secret: str | None = None) -> list[str]:
        """The legal moves in notation, in the game's list order. ``compact`` asks for the game's
        shorter form (Isaac: one entry a removable piece with its advances, ``xc4-g4+0..18!7``).
        ``secret``: the mover's, for a committed state."""
        return self._engine.legal_moves(state, compact, secret)

    def outcome(self, state: StateT | str) -> Outcome:
        """Status, side to move, scores, and the winner once the game is over."""
        return cast(Outcome, self._engine.outcome(state))

    def play(self, state: StateT | str, move: str, player: str | None = None,
             secret: str | None = None) -> Played[StateT, EffectsT]:
        """``{"state", "position", "effects", "outcome"}`` after the move, the state in the form it was given
        (an object, or a position string, as over HTTP and in ``play_batch``); raises the move's error. Opaque:
        no ``position`` and the mover's ``view``; a committed state plays only with the mover's ``secret``
        (else ``NotThisPlayer``)."""
        return cast(Played[StateT, EffectsT], self._engine.play(state, move, player, secret))

    def validate(self, state: StateT | str, move: str, player: str | None = None,
                 secret: str | None = None) -> Verdict:
        """``{"legal": True}`` or ``{"legal": False, "reason": {...}}``; raises only for a bad state (and,
        for a committed state, without the mover's ``secret``)."""
        return cast(Verdict, self._engine.validate(state, move, player, secret))

    def suggest(self, state: StateT | str, player: str | None = None, secret: str | None = None, *,
                level: int | None = None, simulations: int | None = None, think_ms: int | None = None,
                seed: int | None = None) -> Suggestion:
        """The move the engine's search suggests to the player to move, seeing only what that player sees:
        ``{"move", "action", "value", "simulations", "spent_ms", "seed", "candidates"}``, the answer of
        ``POST /v1/games/{game}/suggest`` for the same inputs. ``level`` 1 to 8 (its simulations:
        ``referee._core.LEVELS``; 4 when neither is given) or ``simulations``; ``think_ms`` bounds the time
        as well; the same ``seed`` and simulations suggest the same again. ``player`` must be the player to
        move when given; a committed state needs the mover's ``secret``. The GIL is released while it thinks
        (docs/bots.md)."""
        search = self._engine.search(state, player, secret, level=level, simulations=simulations,
                                     think_ms=think_ms, seed=seed)
        return cast(Suggestion, search.run())

    def replay(self, moves: Iterable[str], seed: int | None = None, *, result: ClaimedResult | None = None,
               termination: Termination | None = None, by: str | None = None) -> ReplayResult[StateT]:
        """Replays a record from the initial state; reports the first illegal ply, if any, and judges what
        the record claims about how the game ended (``result``, ``termination``, ``by``, as in an archive's
        record: ``claim`` and ``claim_reason``; a malformed claim raises ``MalformedRequest``). Refused
        (``MalformedRequest``) when the game is ``committed``: its refusals would show hands without a secret."""
        claim = {key: value for key, value in (("result", result), ("termination", termination), ("by", by))
                 if value is not None}
        return cast(ReplayResult[StateT], self._engine.replay(list(moves), None, seed, None, claim))

    def validate_batch(self, items: Iterable[Mapping[str, Any]],
                       with_state: bool = False) -> list[BatchResult[StateT, EffectsT]]:
        """Validates many ``{"state", "move", "player"?, "secret"?}`` items in one native call, in parallel.
        Results keep input order; a bad item gets ``{"error": {...}}`` without failing the others.

        The items cross to the engine as one JSON buffer and are checked exactly as the HTTP batch checks
        them: encoding them (orjson) and decoding the results costs less than reading Python objects
        one by one under the GIL. An item JSON cannot carry goes as null, and is refused alone."""
        answer = self._engine.validate_array(_json_array(list(items)), with_state)[0]
        with _collector_paused():
            results: list[dict[str, Any]] = orjson.loads(answer)
        for result in results:
            del result["index"]
        return cast(list[BatchResult[StateT, EffectsT]], results)

    def play_batch(self, items: Iterable[Mapping[str, Any]]) -> list[BatchResult[StateT, EffectsT]]:
        """Like ``validate_batch``, with the next state, effects and outcome of every legal move."""
        return self.validate_batch(items, with_state=True)

    def validate_batch_json(self, data: bytes, with_state: bool = False) -> bytes:
        """The batch path for data that is already JSON: a JSON array of items in, a JSON array of results
        out. Parsing runs in parallel with the rules and nothing becomes a Python object, so this is the
        fastest way to validate many items. Raises MalformedJson (a ValueError) when the data or an item is
        not JSON, MalformedRequest (also a ValueError) when it is not an array."""
        return self._engine.validate_array(data, with_state)[0]

    def validate_batch_ndjson(self, data: bytes, with_state: bool = False) -> bytes:
        """Like ``validate_batch_json`` for NDJSON: one item a line in, one result a line out. Raises
        ValueError at the first line that is not JSON."""
        results, _, malformed, _ = self._engine.validate_lines(data, with_state)
        if malformed is not None:
            raise ValueError(f"line {malformed[0]} is not valid JSON: {malformed[1]}")
        return results

    def view(self, state: StateT | str, player: str, secret: str | None = None) -> ViewT:
        """What ``player`` may see of a state: games with hidden information (Caesar!'s hands, bags
        and random source) hide the rest; others show the whole state. Raises ``UnknownPlayer``, and
        ``NotThisPlayer`` for a committed state without ``player``'s ``secret``. A view is never sealed:
        it is for showing, not for sending back."""
        return cast(ViewT, self._engine.view(state, player, secret))

    def svg(self, state: StateT | str, *, move: str | None = None, legal: bool = False, player: str | None = None,
            size: int | None = None, secret: str | None = None) -> str:
        """An SVG picture of the state (in the spirit of python-chess's ``chess.svg``). ``move``: play it
        first and mark what it did (the picture shows the state after it); ``legal``: mark the legal
        moves; ``player``: draw it for that player (their side at the bottom; Caesar!: the other hand
        face down); ``size``: the width in pixels; ``secret``: for a committed state, the secret of the player
        it is drawn for (``player`` defaults to its owner; with ``move``, the mover's). Every element a move names carries its notation
        (``data-cell="e5"``, ``data-border="HC-GA"``, ...). Raises the engine's errors for a bad state,
        an illegal move or an unknown player, ValueError for a size out of range."""
        from referee import pictures

        return pictures.render(self._engine, state, move=move, legal=legal, player=player, size=size, secret=secret)

    def start(self, seed: int | None = None) -> Position:
        """A native position handle on a new game (the game ``new(seed=...)`` starts): see ``referee.Position``.
        A committed game (Caesar! opaque) has none: ``NotThisPlayer``, a handle shows every hand."""
        return _core.start(self._engine, seed)

    def load(self, state: StateT | str) -> Position:
        """A native position handle on a state or position string, checked as every call checks one (seals,
        opaque states as this game's keys say; a committed state is ``NotThisPlayer``)."""
        return _core.load(self._engine, state)

    def _action_space(self) -> Position:
        if self._space is None:
            self._space = _core.action_space(self._engine)
        return self._space

    @property
    def num_actions(self) -> int:
        """How many action ids this setup has: ids are ``0..num_actions`` (see each game's encoding in
        docs/bots.md)."""
        return self._action_space().num_actions

    def action_of(self, move: str) -> int:
        """The action id of one decision in notation (a whole move of Iago and Isaac; a roll, one die move
        or ``pass`` of Hypnosia; a placement, a bonus choice or a draw ``=D42`` of Caesar!); raises
        ``MalformedMove``."""
        return self._action_space().action_of(move)

    def move_of(self, action: int) -> str:
        """The notation of an action id; raises ``MalformedMove`` out of range."""
        return self._action_space().move_of(action)

    @property
    def observation_shape(self) -> list[int]:
        """The shape of ``Position.observation``'s tensor for this setup."""
        return self._action_space().observation_shape

    def perft(self, state: StateT | str, depth: int) -> int:
        """The number of move sequences of exactly ``depth`` plies; ``NotThisPlayer`` for a committed state."""
        return self._engine.perft(state, depth)
