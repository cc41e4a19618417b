"""Type stubs of the native module ``referee._core`` (Rust, PyO3; ``rust_core/src/python.rs``).

States, setups and results cross as plain JSON values: an ``Engine`` serves any game, so its answers are
``dict[str, Any]`` here; ``referee.Game`` gives each game its own types (``referee.types``). Every method
that takes a state takes the JSON object or a position string of the engine's setup. Errors are the
classes of ``referee.errors``."""

from typing import Any, Mapping, Sequence, final

from referee.errors import MalformedRequest, UnknownGame

__all__ = ["Engine", "Position", "SealKeys", "start", "load", "action_space", "games", "replay_records", "replay_rows",
           "Tally", "loads", "json_schemas", "__version__", "MIN_SECRET_CHARS", "MAX_SECRET_CHARS",
           "MAX_MOVE_CHARS", "MAX_PLAYER_CHARS", "MAX_COMMITMENTS", "MAX_SEED", "SCHEMA_MESSAGES", "SCHEMA_PREFIXES",
           "RESULT_FIELDS", "ERROR_CODES", "CLAIM_CODES", "unknown_game", "malformed_request", "set_board_cache_bytes",
           "board_cache_bytes", "Search", "Stop", "LEVELS", "DEFAULT_LEVEL",
           "TREE_BYTES_PER_SIMULATION"]
__version__: str
#: A player's secret's length bounds, in characters (the engine's, `opaque.rs`).
MIN_SECRET_CHARS: int
MAX_SECRET_CHARS: int
#: The longest move and player name a request gives, in characters (the engine's envelope check, `request.rs`).
MAX_MOVE_CHARS: int
MAX_PLAYER_CHARS: int
#: The most entries of a request's ``commitments`` (more than any game's players).
MAX_COMMITMENTS: int
#: The largest seed a request gives as a number (a JavaScript number holds it exactly).
MAX_SEED: int
#: Every message about a field at fault, by name (``required``, ``string``, ``length``, ``state``, ...), as the
#: engine's envelope checks word them (``error.rs``); ``referee.http.schemas`` gives them to marshmallow.
SCHEMA_MESSAGES: dict[str, str]
#: Every code of the engine's refusals (its one error type, ``error.rs``): codes of ``referee.codes``.
ERROR_CODES: list[str]
#: Every code of why a record's claim disagrees (``claims::ClaimCode``): ``referee.codes.CLAIM_CODES``.
CLAIM_CODES: list[str]
#: Each game's prefix of its schema names in ``json_schemas`` (``"iago"``: ``"Iago"``, for ``IagoState``).
SCHEMA_PREFIXES: dict[str, str]
#: The simulations of each level of the engine's search, level 1 first (``search.rs``), and the default level.
LEVELS: list[int]
DEFAULT_LEVEL: int
#: The most bytes a simulation adds to a search's tree (``search.rs``): a tree of n simulations holds at most
#: n + 1 times this.
TREE_BYTES_PER_SIMULATION: int
#: The fields of every result of ``replay_records``: ``keep`` may not name one.
RESULT_FIELDS: list[str]

_State = Mapping[str, Any] | str

def games() -> list[str]:
    """The names of the games this build knows."""

def replay_records(
    data: bytes,
    first_record: int = 1,
    keep: Sequence[str] = ...,
    positions: bool = False,
    tally: bool = False,
    max_record_bytes: int | None = None,
) -> tuple[bytes, dict[str, int], Tally | None]:
    """Replays NDJSON game records (any mix of games) in parallel and judges their claims: the NDJSON
    results, numbered from ``first_record``, with the fields ``keep`` names and (``positions``) every
    position of a legal record; the counts (``records``, ``legal``, ``illegal``, ``errors``, ``agrees``,
    ``disagrees``, ``absent``); and with ``tally``, what a report shows of them (``referee.archives.report``).
    A record longer than ``max_record_bytes`` (its line end aside) is its own ``malformed-record``,
    unread. ValueError for a field to keep that results already have."""

def replay_rows(
    data: bytes, first_record: int = 1, tally: bool = False, max_record_bytes: int | None = None
) -> tuple[dict[str, Any], dict[str, int], Tally | None]:
    """The same replay as ``replay_records``, giving a data set's rows instead of results (one a ply of
    every legal record, its start included): ``rows`` (how many) and each column but ``source`` as its
    Arrow buffers (``bytes``, a validity bitmap ``None`` without nulls) in ``pyarrow.Array.from_buffers``'
    order, ``returns_values`` the float64s of ``returns``; the counts; and with ``tally``, the tally. A
    record longer than ``max_record_bytes`` is its own ``malformed-record`` (no row), unread."""

@final
class Tally:
    """What a report shows of records, as ``replay_records`` counts it: merged natively across chunks,
    read as Python values once (``as_dict``); pickled as its JSON."""

    def __new__(cls, json: bytes | None = None) -> Tally:
        """A tally from its JSON (``json``), or the tally of no records."""
    @staticmethod
    def from_dict(value: dict[str, Any]) -> Tally:
        """The tally of a dict ``as_dict`` gave."""
    def merge(self, other: Tally) -> None:
        """Adds the tally of other records to this one."""
    def as_dict(self) -> dict[str, Any]:
        """The tally as Python values (its histograms keyed by numbers)."""
    def json(self) -> bytes: ...

def unknown_game(game: str) -> UnknownGame:
    """The ``UnknownGame`` of a name that is no game, as every entry point words it (``game``, ``known``)."""

def malformed_request(errors: Sequence[tuple[str, str]]) -> MalformedRequest:
    """The ``MalformedRequest`` of these ``(field, message)``s, worded as the engine's own checks word it."""

def loads(data: bytes) -> Any:
    """A request body read as JSON by the engine's rules (numbers that fit a double, no lone surrogate,
    at most 128 levels of nesting, no key twice in an object); raises ``MalformedJson``, or
    ``PayloadTooLarge`` for a body that would become more than 4 MiB of Python objects (checked, like the
    JSON, before any object is made and without the GIL)."""

def set_board_cache_bytes(bytes: int) -> None:
    """Sets the most bytes of compiled Hypnosia boards the process keeps (64 MiB until set)."""

def board_cache_bytes() -> tuple[int, int]:
    """The bytes of compiled Hypnosia boards the process keeps now, and its bound."""

def json_schemas() -> dict[str, dict[str, dict[str, Any]]]:
    """The JSON Schemas derived from the Rust types, by game (``"common"`` for the shared ones):
    ``{"iago": {"State": ..., "Setup": ..., "Effects": ...}, ...}``. ``Name`` under a game is the
    component ``<Prefix>Name`` (``IagoState``); every ``$ref`` is ``#/components/schemas/<that>``."""

@final
class SealKeys:
    """Seal keys read once from ``"id:SECRET,id:SECRET"`` (the first seals, all verify); raises ValueError
    naming the entry at fault. Its repr shows the ids only. ``opaque``: the games whose states are
    answered encrypted (``{"opaque": "<key id>.<...>"}``); ValueError for a name that is not a game."""

    def __new__(cls, text: str, opaque: Sequence[str] = ...) -> SealKeys: ...
    @property
    def ids(self) -> list[str]:
        """The key ids, the sealing one first."""
    @property
    def opaque(self) -> list[str]:
        """The games answered opaque."""

@final
class Engine:
    """Every operation of one game on plain Python values. With ``seal_keys`` every state it takes must
    carry a valid seal (``InvalidSeal``; so it takes no position string), and every state it answers is
    sealed."""

    def __new__(
        cls, game: str, setup: Mapping[str, Any] | None = None, seal_keys: SealKeys | None = None
    ) -> Engine:
        """An engine of ``game`` with its own ``setup`` (checked once; the default when None): for new
        games and replays, and for states given as position strings. Raises ``UnknownGame``,
        ``InvalidOptions``."""
    @property
    def name(self) -> str: ...
    @property
    def rules_version(self) -> str: ...
    @property
    def sealed(self) -> bool:
        """Whether the engine has seal keys (checks and seals every state)."""
    @property
    def opaque(self) -> bool:
        """Whether the engine answers its states opaque (encrypted with its seal keys)."""
    @property
    def committed(self) -> bool:
        """Whether the engine's states carry the players' commitments (opaque, with hidden information):
        ``new_state`` and ``replay`` need ``commitments``, and every call that reveals a player's
        information that player's ``secret`` (else ``NotThisPlayer``)."""
    @property
    def facts(self) -> dict[str, Any]:
        """What adapters need of the game before any position: ``min_players``, ``max_players``,
        ``max_decisions``, ``max_chance_outcomes``, ``chance``, ``hidden_information``."""
    def info(self) -> dict[str, Any]: ...
    def check_setup(self, setup: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The setup with every default filled in (the engine's own when None); raises InvalidOptions."""
    def new_state(
        self, setup: Mapping[str, Any] | None = None, seed: int | None = None,
        commitments: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """The initial state; ``commitments`` (player: SHA-256 hex of their secret) when ``committed``
        (else ignored); raises MalformedRequest when they are missing or malformed."""
    def check_state(self, state: _State) -> dict[str, Any]: ...
    def position(self, state: _State) -> str: ...
    def parse_position(self, text: str, setup: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The state of a position written in notation, for a setup. Never sealed."""
    def legal_moves(self, state: _State, compact: bool = False, secret: str | None = None) -> list[str]: ...
    def outcome(self, state: _State) -> dict[str, Any]: ...
    def play(
        self, state: _State, move: str, player: str | None = None, secret: str | None = None
    ) -> dict[str, Any]:
        """``{"state", "position", "effects", "outcome"}``, the state in the form it was given; raises the
        move's error."""
    def validate(
        self, state: _State, move: str, player: str | None = None, secret: str | None = None
    ) -> dict[str, Any]:
        """``{"legal": true}`` or ``{"legal": false, "reason": {...}}``; raises only for a bad state."""
    def play_json(self, body: bytes) -> bytes:
        """A ``play`` request body (JSON bytes) answered as JSON bytes; raises MalformedJson,
        MalformedRequest, or the error of the state or the move."""
    def validate_json(self, body: bytes) -> bytes:
        """A ``validate`` request body answered as JSON bytes; an illegal move is a verdict."""
    def replay_json(self, body: bytes, max_moves: int) -> bytes:
        """A ``replay`` request body (a game record, JSON bytes) answered as JSON bytes, read natively by
        the archives' reader (no Python object of it; the GIL released) with at most ``max_moves`` moves;
        raises MalformedJson, MalformedRequest (worded as the ``ReplayRequest`` schema), InvalidOptions,
        or the replay's refusal."""
    def replay(
        self, moves: Sequence[str], setup: Mapping[str, Any] | None = None, seed: int | None = None,
        commitments: Mapping[str, str] | None = None, claim: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The record replayed, and its ``claim`` (``result``, ``termination``, ``by``) judged: ``claim``
        and, when it disagrees, ``claim_reason``. A malformed claim raises ``MalformedRequest``."""
    def validate_lines(
        self, data: bytes, with_state: bool = False, first_index: int = 0, compact: bool = False,
        max_lines: int = ..., start: int = 0,
    ) -> tuple[bytes, int, tuple[int, str] | None, int]:
        """NDJSON items judged in parallel, from byte ``start`` of ``data``, at most ``max_lines`` of them:
        the results of the lines before the first line that is not JSON, their count, that line's
        ``(number, detail)`` if there is one, and the byte where the lines not judged start. ``compact``:
        a result equal to the last one written in full is ``{"index", "same_as"}``."""
    def validate_array(self, data: bytes, with_state: bool = False, max_items: int = ...) -> tuple[bytes, int]:
        """A JSON array of at most ``max_items`` items judged in parallel: the results as a JSON array and
        their count. Raises MalformedJson, or MalformedRequest when it is no array or too long."""
    def view(self, state: _State, player: str | None = None, secret: str | None = None) -> dict[str, Any]:
        """What ``player`` may see of a state (the whole state when None; a committed state: the view of
        the player whose ``secret`` is given); raises UnknownPlayer, NotThisPlayer. Never sealed."""
    def scene(
        self, state: _State, move: str | None = None, player: str | None = None, legal: bool = False,
        secret: str | None = None,
    ) -> dict[str, Any]:
        """What a picture shows: ``{"shown", "viewer", "outcome", "effects", "moves"}`` (see ``referee.pictures``)."""
    def perft(self, state: _State, depth: int) -> int:
        """Move sequences of exactly ``depth`` plies (at most 12)."""
    def search(
        self, state: _State, player: str | None = None, secret: str | None = None, *, level: int | None = None,
        simulations: int | None = None, think_ms: int | None = None, seed: int | None = None,
        max_simulations: int = ..., max_think_ms: int = ...,
    ) -> Search:
        """The engine's search for the player to move (``player`` must be it when given; ``secret``, the
        mover's, for a committed state), checked and ready to ``run``. ``level`` (1 to 8) or ``simulations``;
        above the bounds (``max_simulations``, ``max_think_ms``) raises OverBudget naming the bound, without
        thinking."""


@final
class Search:
    """A search checked and ready to run (``Engine.search``)."""
    @property
    def simulations(self) -> int:
        """The simulations it runs at most."""
    def run(self, *, memory: int | None = None, stop: Stop | None = None) -> dict[str, Any]:
        """Thinks, the GIL released, its tree within ``memory`` bytes (64 MiB when not given), until a raised ``stop``:
        ``{"move", "action", "value", "simulations", "spent_ms", "seed", "candidates"}``."""


@final
class Stop:
    """A flag that ends a search at its next look (``Search.run``'s ``stop``), from any thread."""
    def __init__(self) -> None: ...
    def set(self) -> None: ...
    def is_set(self) -> bool: ...


@final
class Position:
    """A native position handle (``Game.start``, ``Game.load``): the checked position kept in Rust. A move
    given as text is played as ``Game.play`` plays it; an action id (an int) is one decision of the game's
    action space. Errors are the classes of ``referee.errors``."""

    @property
    def players(self) -> list[str]:
        """The game's players in player-number order (Hypnosia: the seated colours by seat)."""
    @property
    def to_move(self) -> str | None:
        """The player to move; None once the game is over."""
    @property
    def ply(self) -> int:
        """Pushes since the handle was made."""
    @property
    def num_actions(self) -> int:
        """How many action ids this position's setup has."""
    @property
    def observation_shape(self) -> list[int]:
        """The shape of ``observation``'s tensor."""
    def action_of(self, move: str) -> int:
        """The id of one decision in notation."""
    def move_of(self, action: int) -> str:
        """The notation of an action id."""
    def legal_moves(self) -> list[str]:
        """The legal moves in notation (``Game.legal_moves``' list)."""
    def legal_actions(self) -> list[int]:
        """The legal action ids, ascending (chance outcomes at a chance node)."""
    def legal_action_mask(self) -> Any:
        """One byte an action id, 1 where legal: numpy int8 when numpy is installed, else bytes."""
    def push(self, move: str | int) -> None:
        """Plays a move or takes a decision in place; raises the move's error, the position unchanged."""
    def pop(self) -> None:
        """Takes back the last push exactly; IndexError when there is none."""
    def copy(self, stack: bool = True) -> Position:
        """An independent copy (``stack=False``: without the pushes, so nothing to pop)."""
    def __copy__(self) -> Position: ...
    def __deepcopy__(self, memo: Any) -> Position: ...
    def history(self) -> list[str]:
        """The moves completed since the handle was made, in notation."""
    def at_turn_start(self) -> bool:
        """No decision of a turn is pending."""
    def is_over(self) -> bool: ...
    def is_chance(self) -> bool:
        """Whether chance takes the next decision."""
    def chance_outcomes(self, ids: bool = False) -> list[tuple[Any, float]]:
        """At a chance node ``[(move, probability)]`` (action ids with ``ids=True``), summing to 1."""
    def sample_chance(self, rng: Any) -> int:
        """At a chance node, an outcome's action id chosen by its probabilities with one ``rng.random()``."""
    def outcome(self) -> dict[str, Any]: ...
    def returns(self) -> list[float]:
        """Per player in ``players`` order: +1 winner, -1 other (Hypnosia by rank), 0 while going on."""
    def state(self) -> dict[str, Any]:
        """The JSON state, sealed or opaque as the game's keys say."""
    def position(self) -> str:
        """The position notation."""
    def hash(self) -> int:
        """A 64-bit key, equal for equal positions."""
    def view(self, player: str) -> dict[str, Any]: ...
    def effects(self) -> dict[str, Any] | None:
        """The effects of the last push's move, computed now; None when it completed no move."""
    def observation(self, player: str) -> Any:
        """A float32 numpy array of ``observation_shape`` (numpy installed), else a flat list."""
    def information_state(self, player: str) -> str:
        """A key equal exactly for positions ``player`` cannot tell apart."""
    def resample(self, player: str, rng: Any) -> Position:
        """A full position consistent with what ``player`` sees; ``rng``: ``random.Random`` or an int seed."""
    def rollout(self, rng: Any, count: int = 1) -> list[float]:
        """Mean returns of ``count`` random playouts run in Rust."""
    def suggest(
        self, *, level: int | None = None, simulations: int | None = None, think_ms: int | None = None,
        seed: int | None = None, memory: int = ...,
    ) -> int:
        """The action id the engine's search suggests for the player to decide here (the GIL released);
        ValueError at a chance node (sample it), GameOver once over, OverBudget for a budget out of range."""

def start(engine: Engine, seed: int | None = None) -> Position:
    """A handle on a new game of the engine's setup."""

def load(engine: Engine, state: _State) -> Position:
    """A handle on a checked state or position string."""

def action_space(engine: Engine) -> Position:
    """A handle on a start of the engine's setup, for its action space."""
