"""The tests' facts of each game, in one table keyed by the game's name: what a generic test needs of a game
beyond what the engine answers (`referee.games()`, `info()`, `new`, `legal_moves`). Generic tests take the
engine's list of games and read a game's facts here; a game of the list with no entry here fails
tests/rules/test_one_list.py by name. A new game's test facts go here (docs/development.md, "Adding a game")."""

from __future__ import annotations

import random
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

import referee
from helpers.caesar_states import engine_projection, setup_from_state
from helpers.hypnosia_boards import CUSTOM_BOARDS
from rules.reference import caesar, hypnosia, iago, isaac
from rules.reference.chacha import ChaCha8, draw_token
from rules.reference.isaac_cells import independent_perft

#: A well-formed move the rules refuse at a game's start, and the rule that refuses it: the pair, or made
#: from the start state and its legal moves.
Illegal = tuple[str, str] | Callable[[dict[str, Any], list[str]], tuple[str, str]]

#: An independent count of a perft table's (tests/rules/perft.json) move sequences: (table, start state, depth).
Counter = Callable[[dict[str, Any], dict[str, Any], int], int]


@dataclass(frozen=True)
class Facts:
    #: Its reference model (tests/rules/reference/<game>.py): naive, from the rules doc, sharing no code with
    #: the engine.
    model: ModuleType
    #: A move refused at the start (seed 7) and its rule; None where a game refuses no well-formed move there.
    illegal_at_start: Illegal | None
    #: The rules tag of its states in release 0.1.0 (None for a game added since).
    rules_0_1_0: str | None
    #: Setups the random games of the schema tests cycle through, so that every option's shape reaches them.
    schema_setups: list[dict[str, Any]]
    #: Setups property tests play: every variant and option value that changes the rules.
    property_setups: list[dict[str, Any]]
    #: The errors a broken state of the game may raise.
    state_errors: tuple[type[Exception], ...]
    #: Setups the claim tests play to their end.
    claim_setups: list[dict[str, Any]]
    #: Setups of the example archive's records.
    archive_setups: list[dict[str, Any]]
    #: Fields of its state whose change a seal must catch (what issue 9 names: a cell, a token, a pawn, ...).
    sealed_fields: list[str]
    #: Fields beside the state's own that a refusal of a broken state may name.
    extra_refused_fields: set[str]
    #: Whether a move has exactly one spelling, the one `legal_moves` lists (no supplied roll or draws).
    one_spelling: bool
    #: Whether some of its moves take several decisions (a roll and a whole turn, a placement and its choices).
    moves_of_several_decisions: bool
    #: Simulations an MCTS bot needs to beat random moves (the bots' tests); None where MCTS may circle for
    #: ever (a match of it abandoned): random plays in its place.
    mcts_simulations: int | None
    #: The independent implementations that count its perft tables (tests/rules/test_perft.py): (name, counter,
    #: the largest count it makes within the suite; larger counts were agreed outside it, see `agreed_by`).
    perft_counters: list[tuple[str, Counter, int]]
    #: Plies a random record may end with, illegal (or malformed) somewhere in a game (helpers/records.py).
    illegal_plies: list[str]
    #: A random record's variant and options.
    random_setup: Callable[[random.Random], tuple[str | None, dict]]
    #: A record's start in the reference model, and its step (a ply played, the model's own chance drawn
    #: from the record's seed).
    model_start: Callable[[dict, ChaCha8], tuple[Any, Callable[[Any, str], tuple[Any, Any]]]]
    #: Asserts that a record's result says what the model's final position says.
    model_agrees: Callable[[dict, dict, Any], None]


#: Caesar!'s token kinds in the order of the game's token table, which draws count along.
TOKEN_KINDS = [token["code"] for token in referee.game("caesar").info()["tokens"]]


def iago_model(table: dict[str, Any], state: dict[str, Any], depth: int) -> int:
    options = table["setup"].get("options", {})
    position = iago.initial(table["setup"].get("variant", "standard"), options.get("penalty", False))
    return iago.perft(position, depth)


def isaac_model(table: dict[str, Any], state: dict[str, Any], depth: int) -> int:
    return isaac.perft(isaac.initial(**table["setup"].get("options", {})), depth)


def isaac_cell_sets(table: dict[str, Any], state: dict[str, Any], depth: int) -> int:
    assert not any(state["pieces"].values()), "the count over cell sets starts from the empty board"
    return independent_perft()[depth]


def hypnosia_model(table: dict[str, Any], state: dict[str, Any], depth: int) -> int:
    return hypnosia.perft(hypnosia.initial(table["setup"]["options"]), depth)


def caesar_model(table: dict[str, Any], state: dict[str, Any], depth: int) -> int:
    """The model from the engine's drawn setup, every later draw from the reference generator."""
    pos = caesar.initial(*setup_from_state(state))
    assert engine_projection(state) == caesar.projection(pos)
    return seeded_perft(pos, ChaCha8.from_state(state["rng"]), depth)


def seeded_perft(pos: caesar.Position, rng: ChaCha8, depth: int) -> int:
    """Perft in which every draw comes from the reference generator, each line of play from its own copy."""
    moves = caesar.legal_moves(pos)
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        line = ChaCha8(rng.key, rng.word_pos)
        child, _ = caesar.play(pos, move, draw=lambda player, bag: draw_token(line, list(bag), TOKEN_KINDS))
        total += seeded_perft(child, line, depth - 1)
    return total


# ------------------------------------------------------------------ records (helpers/records.py)
# A random record's setup, and a record replayed by the game's reference model and held to its result.

COLOURS = ["red", "yellow", "green", "blue", "purple", "orange"]
FULL_BAG = [token["code"] for token in referee.game("caesar").info()["tokens"] for _ in range(token["count"])]
Step = Callable[[Any, str], tuple[Any, Any]]


def _iago_random_setup(rng: random.Random) -> tuple[str | None, dict]:
    variant = rng.choice(["standard", "loose", "simple"])
    return variant, {"penalty": variant == "standard" and rng.random() < 0.5}


def _isaac_random_setup(rng: random.Random) -> tuple[str | None, dict]:
    return None, {"first_player": rng.choice(["black", "white"]), "scoring_starts": rng.choice(["first_to_pass", "first_player"])}


def _hypnosia_random_setup(rng: random.Random) -> tuple[str | None, dict]:
    options = {"players": rng.randint(2, 6), "doubles_cross_bridges": rng.random() < 0.5}
    if rng.random() < 0.5:
        options["first_player"] = COLOURS[referee.game("hypnosia", options=options).setup["options"]["seats"][0]]
    return None, options


def _caesar_random_setup(rng: random.Random) -> tuple[str | None, dict]:
    options = {}
    if rng.random() < 0.4:
        options["hands"] = {"caesar": ["S60", "L40"], "pompey": ["D51", "N42"]}
    return None, options


def _iago_model_start(record: dict, rng: ChaCha8) -> tuple[Any, Step]:
    options = record.get("options", {})
    pos = iago.initial(record.get("variant", "standard"), options.get("penalty", False))
    return pos, lambda pos, move: iago.play(pos, move)


def _isaac_model_start(record: dict, rng: ChaCha8) -> tuple[Any, Step]:
    options = record.get("options", {})
    pos = isaac.initial(options.get("first_player", "black"), options.get("scoring_starts", "first_to_pass"))
    return pos, lambda pos, move: isaac.play(pos, move)


def _hypnosia_model_start(record: dict, rng: ChaCha8) -> tuple[Any, Step]:
    options = record.get("options", {})
    seats = referee.game("hypnosia", options=options).setup["options"]["seats"]  # the default seats by count
    first = options.get("first_player") or COLOURS[seats[rng.below(len(seats))]]
    pos = hypnosia.initial(options | {"first_player": first})

    def step(pos, move):
        if move == "roll" and pos.dice is None and not hypnosia.is_finished(pos):
            return hypnosia.play(pos, move, drawn=(rng.die(), rng.die()))
        return hypnosia.play(pos, move)
    return pos, step


def _caesar_model_start(record: dict, rng: ChaCha8) -> tuple[Any, Step]:
    pos = caesar.initial(*caesar_setup(record.get("options", {}), rng))

    def step(pos, move):
        return caesar.play(pos, move, draw=lambda player, bag: draw_token(rng, list(bag), TOKEN_KINDS))
    return pos, step


def caesar_setup(options: dict, rng: ChaCha8) -> tuple[dict, dict]:
    """The bonus layout and hands of a seeded setup (those `options` do not fix), drawn as the engine does
    (rust_core/src/caesar/mod.rs `start`; docs/rules/chance.md): the 17 bonus tokens but Italia's Senate
    (5 senate, 4 tactics, 4 wealth, 4 might, in that order) shuffled by Fisher-Yates from the last
    (j = below(i + 1) for i = 16 down to 1) and laid on the other provinces in map order; then Caesar, then
    Pompey draw 2 tokens each from a full bag."""
    bonuses = options.get("bonuses")
    if bonuses is None:
        tokens = ["senate"] * 5 + ["tactics"] * 4 + ["wealth"] * 4 + ["might"] * 4
        for i in range(len(tokens) - 1, 0, -1):
            j = rng.below(i + 1)
            tokens[i], tokens[j] = tokens[j], tokens[i]
        bonuses = dict(zip([p for p in caesar.PROVINCES if p != "IT"], tokens))
    hands = options.get("hands")
    if hands is None:
        hands = {}
        for player in ("caesar", "pompey"):
            bag = list(FULL_BAG)
            hands[player] = [draw_token(rng, bag, TOKEN_KINDS) for _ in range(2)]
    return bonuses, hands


def _iago_model_agrees(result: dict, record: dict, pos: Any) -> None:
    assert result["position"] == iago.format_position(pos)
    assert result["outcome"]["scores"] == iago.scores(pos) and result["outcome"]["winner"] == iago.winner(pos)
    assert (result["outcome"]["status"] == "finished") == iago.is_finished(pos)


def _isaac_model_agrees(result: dict, record: dict, pos: Any) -> None:
    assert result["position"] == isaac.format_position(pos)
    model = isaac.outcome(pos)
    assert {key: result["outcome"][key] for key in model} == model


def _projection_agrees(module: Any) -> Callable[[dict, dict, Any], None]:
    """The model's outcome and state projection against a result's (Hypnosia's, Caesar!'s)."""
    def agrees(result: dict, record: dict, pos: Any) -> None:
        game = referee.game(record["game"], variant=record.get("variant"), options=record.get("options"))
        state = game.parse_position(result["position"])  # the engine reads its own notation; the fields are compared
        model, projected = module.outcome(pos), module.projection(pos)
        if model["decided_by"] == "twelfth_marker":  # the spec leaves whose turn it is then open (test_caesar_engine)
            del projected["to_move"]
        assert {key: state[key] for key in projected} == projected
        assert {key: result["outcome"].get(key) for key in model} == model
    return agrees


def _caesar_token_not_in_hand(start: dict[str, Any], legal: list[str]) -> tuple[str, str]:
    """A legal placement made with a token of the bag instead of the hand."""
    to_move = referee.game("caesar").outcome(start)["to_move"]
    token = next(t for t in start["bags"][to_move] if t not in start["hands"][to_move])
    return token + legal[0][3:], "token-not-in-hand"


FACTS: dict[str, Facts] = {
    "iago": Facts(
        model=iago,
        illegal_at_start=("e5", "centre-needs-flip"),
        rules_0_1_0="iago@1",
        schema_setups=[{}, {"variant": "loose"}, {"variant": "simple"}, {"options": {"penalty": True}}],
        property_setups=[{"variant": "standard", "options": {"penalty": False}},
                         {"variant": "standard", "options": {"penalty": True}}, {"variant": "loose"}, {"variant": "simple"}],
        state_errors=(referee.InvalidState,),
        claim_setups=[{"variant": "standard"}, {"variant": "simple"}],
        archive_setups=[{"variant": "standard"}, {"variant": "standard", "options": {"penalty": True}}, {"variant": "simple"}],
        sealed_fields=["board"],
        extra_refused_fields=set(),
        one_spelling=True,
        moves_of_several_decisions=False,
        mcts_simulations=40,
        perft_counters=[("model", iago_model, 1_100_000)],  # the model needs some 13 minutes for 26 million
        illegal_plies=["e5", "a1", "zz"],
        random_setup=_iago_random_setup,
        model_start=_iago_model_start,
        model_agrees=_iago_model_agrees,
    ),
    "isaac": Facts(
        model=isaac,
        illegal_at_start=("pass", "must-place"),
        rules_0_1_0="isaac@1",
        schema_setups=[{}, {"options": {"first_player": "white", "scoring_starts": "first_player"}}],
        property_setups=[{"options": {"first_player": first, "scoring_starts": starts}}
                         for first in ("black", "white") for starts in ("first_to_pass", "first_player")],
        state_errors=(referee.InvalidState,),
        claim_setups=[{"options": {"first_player": "white"}}],
        archive_setups=[{}, {"options": {"first_player": "white"}}],
        sealed_fields=["pieces", "scores"],
        extra_refused_fields=set(),
        one_spelling=True,
        moves_of_several_decisions=False,
        mcts_simulations=150,
        # the model needs some 25 minutes for 131 million
        perft_counters=[("model", isaac_model, 400_000), ("cell-sets", isaac_cell_sets, 200_000_000)],
        illegal_plies=["a1-c1", "xa1-c1+3", "pass"],
        random_setup=_isaac_random_setup,
        model_start=_isaac_model_start,
        model_agrees=_isaac_model_agrees,
    ),
    "hypnosia": Facts(
        model=hypnosia,
        illegal_at_start=("pass", "roll-first"),
        rules_0_1_0="hypnosia@1",
        schema_setups=[{"options": {"players": players}} for players in range(2, 7)]
        + [{"options": {"seats": [1, 4, 5], "first_player": "orange", "doubles_cross_bridges": False}}]
        + [{"options": {"players": 3, "board": board}} for board in CUSTOM_BOARDS.values()],
        property_setups=[{"options": {"players": 2}}, {"options": {"players": 3, "first_player": "red"}},
                         {"options": {"players": 4, "doubles_cross_bridges": False}}, {"options": {"players": 6}}],
        state_errors=(referee.InvalidState, referee.InvalidBoard),
        claim_setups=[{"options": {"players": 2}}, {"options": {"players": 3}}, {"options": {"players": 6}}],
        archive_setups=[{"options": {"players": 2}}, {"options": {"players": 3}}, {"options": {"players": 4}}],
        sealed_fields=["pawns", "scores", "rng", "dice"],
        extra_refused_fields={"board"},
        one_spelling=False,
        moves_of_several_decisions=True,
        mcts_simulations=None,
        perft_counters=[("model", hypnosia_model, 200_000)],
        illegal_plies=["pass", "h1+6", "7-7"],
        random_setup=_hypnosia_random_setup,
        model_start=_hypnosia_model_start,
        model_agrees=_projection_agrees(hypnosia),
    ),
    "caesar": Facts(
        model=caesar,
        illegal_at_start=_caesar_token_not_in_hand,
        rules_0_1_0="caesar@1",
        schema_setups=[{}],
        property_setups=[{}, {"options": {"hands": {"caesar": ["S60", "L40"], "pompey": ["D51", "N42"]}}}],
        state_errors=(referee.InvalidState,),
        claim_setups=[{}],
        archive_setups=[{}],
        sealed_fields=["hands", "bags", "borders", "rng", "senate"],
        extra_refused_fields=set(),
        one_spelling=False,
        moves_of_several_decisions=True,
        mcts_simulations=40,
        perft_counters=[("model", caesar_model, 200_000)],  # the model: 6 and 20 minutes for 1.5 and 5.5 million
        illegal_plies=["L40@HU-HC", "S60@HU-HU", "T"],
        random_setup=_caesar_random_setup,
        model_start=_caesar_model_start,
        model_agrees=_projection_agrees(caesar),
    ),
}


def illegal_at_start(name: str, start: dict[str, Any]) -> tuple[str, str] | None:
    """A well-formed move the rules refuse at `start`, a game's start, and its rule (None where there is none)."""
    illegal = FACTS[name].illegal_at_start
    if illegal is None or isinstance(illegal, tuple):
        return illegal
    return illegal(start, referee.game(name).legal_moves(start))
