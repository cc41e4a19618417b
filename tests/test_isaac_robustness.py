"""Isaac property tests: whatever a client sends as a state, a position or a move, the engine answers
with a result or a typed error; every state it accepts is playable and every answered state is accepted
back."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import referee
from properties import assert_position_round_trips, assert_verdict_or_invalid_state

game = referee.game("isaac")
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=9) | st.dictionaries(st.text(max_size=12), children, max_size=8),
    max_leaves=40,
)
KEYS = st.sampled_from(["rules", "variant", "options", "pieces", "phase", "to_move", "scores", "first_to_pass",
                        "passed", "removed"])
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
CELLS = [f"{column}{row}" for row in range(1, 11) for column in "abcdefghij"]


def piece(anchor: int, length: int, vertical: bool) -> str:
    step = 10 if vertical else 1
    return f"{CELLS[anchor]}-{CELLS[min(anchor + (length - 1) * step, 99)]}"


pieces = st.lists(st.builds(piece, st.integers(0, 99), st.integers(3, 7), st.booleans()), max_size=16).map(
    lambda listed: sorted(listed, key=lambda p: CELLS.index(p.split("-")[0])))
colors = st.sampled_from(["black", "white", None])
states = st.fixed_dictionaries({
    "rules": st.just("isaac@1"),
    "pieces": st.fixed_dictionaries({"black": pieces, "white": pieces}),
    "phase": st.sampled_from(["placement", "scoring"]),
    "to_move": colors,
    "scores": st.fixed_dictionaries({"black": st.integers(0, 120), "white": st.integers(0, 120)}),
    "first_to_pass": colors,
    "passed": st.sampled_from([[], ["black"], ["white"], ["black", "white"]]),
    "removed": st.fixed_dictionaries({
        "black": st.lists(st.integers(3, 7), max_size=4).map(sorted),
        "white": st.lists(st.integers(3, 7), max_size=4).map(sorted),
    }),
})


@SETTINGS
@given(state=JSON | st.dictionaries(KEYS, JSON), move=st.text(max_size=12))
def test_any_json_state_is_a_result_or_invalid_state(state, move: str) -> None:
    assert_verdict_or_invalid_state(game, state, move)


@SETTINGS
@given(text=st.text(alphabet="BW-,abcdefghij0123456789 placementscoringx/", max_size=60) | st.text(max_size=40))
def test_any_position_text_is_a_state_or_invalid_state(text: str) -> None:
    assert_position_round_trips(game, text)


@SETTINGS
@given(move=st.text(alphabet="x+-!.pas0123456789abcdefghijk", max_size=14) | st.text(max_size=14))
def test_any_move_text_is_a_verdict(move: str) -> None:
    verdict = game.validate(game.new(), move)
    assert verdict["legal"] is True or verdict["reason"]["code"] in ("malformed-move", "illegal-move")


def expand(entry: str) -> list[str]:
    if "+0.." not in entry:
        return [entry]
    head, span = entry.split("+0..")
    top, _, forbidden = span.partition("!")
    return [f"{head}+{a}" for a in range(int(top) + 1) if str(a) != forbidden]


def played(seed: int, plies: int, first_player: str, scoring_starts: str) -> dict:
    """The state after up to ``plies`` random legal moves of a game with these options."""
    isaac = referee.game("isaac", options={"first_player": first_player, "scoring_starts": scoring_starts})
    rng, state = random.Random(seed), isaac.new()
    for _ in range(plies):
        moves = isaac.legal_moves(state)
        if not moves:
            break
        state = isaac.play(state, rng.choice(moves))["state"]
    return state


MUTATIONS = [
    ("to_move", st.sampled_from(["black", "white", None])),
    ("first_to_pass", st.sampled_from(["black", "white", None])),
    ("passed", st.sampled_from([[], ["black"], ["white"], ["black", "white"]])),
    ("phase", st.sampled_from(["placement", "scoring"])),
    ("scores", st.fixed_dictionaries({"black": st.integers(0, 172), "white": st.integers(0, 172)})),
]
played_states = st.builds(
    played, st.integers(0, 2**32), st.integers(0, 90), st.sampled_from(["black", "white"]),
    st.sampled_from(["first_to_pass", "first_player"]),
)


@st.composite
def near_reachable(draw) -> dict:
    """A played state, often with one field changed: mostly impossible, sometimes still possible."""
    state = draw(played_states)
    if draw(st.booleans()):
        key, values = draw(st.sampled_from(MUTATIONS))
        state = state | {key: draw(values)}
    if draw(st.booleans()) and (state["pieces"]["black"] or state["pieces"]["white"]):
        color = draw(st.sampled_from([c for c in ("black", "white") if state["pieces"][c]]))
        kept = list(state["pieces"][color])
        del kept[draw(st.integers(0, len(kept) - 1))]
        state = state | {"pieces": state["pieces"] | {color: kept}}
    return state


@SETTINGS
@given(state=states | near_reachable())
def test_every_accepted_state_is_playable(state: dict) -> None:
    try:
        state = game.check(state)
    except referee.InvalidState as error:
        assert error.data["field"].split(".")[0].split("[")[0] in (
            "pieces", "phase", "to_move", "scores", "first_to_pass", "passed", "removed")
        return
    moves = game.legal_moves(state)
    assert bool(moves) == (game.outcome(state)["status"] == "ongoing")
    assert [m for entry in game.legal_moves(state, compact=True) for m in expand(entry)] == moves
    for move in moves[:40]:
        result = game.play(state, move)
        assert game.check(result["state"]) == result["state"]
