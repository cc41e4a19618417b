"""Property tests of every game: whatever a client sends as a state, a position or a move, the engine
answers with a result or a typed error, never anything else; and every state it accepts is fully playable.

Inputs start from reachable states (seeded random play in every setup, see properties.py) with at most one
change, mixed with arbitrary JSON and text; each test asserts that a stated share of its examples reached
the branch it is about (an accepted state, a parsed position, a legal move), so that none of them can pass
by refusing everything."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import referee
from helpers.games import FACTS
from helpers.properties import (
    GAMES, REFUSED, SETUPS, Branches, assert_playable, assert_position_round_trips, assert_verdict_or_invalid_state,
    changed, examples, game_of, played, reachable, setup_game,
)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=9) | st.dictionaries(st.text(max_size=12), children, max_size=7),
    max_leaves=40,
)
STATE_KEYS = {name: sorted(setup_game(name, 0).new(seed=0)) for name in GAMES}
# the fields a refusal may name: the state's own, and a game's others (the board description of its options)
ROOT_FIELDS = {name: set(keys) | {"state"} | FACTS[name].extra_refused_fields for name, keys in STATE_KEYS.items()}


def root(field: str) -> str:
    return field.split(".")[0].split("[")[0]


@pytest.mark.parametrize("name", GAMES)
def test_any_json_or_changed_state_is_a_verdict_or_invalid_state(name: str) -> None:
    branches, game = Branches(), referee.game(name)
    start_moves = game.legal_moves(game.new(seed=1))[:20]

    states = {"changed": changed(name).map(lambda c: c[1]), "json": JSON,
              "fields": st.dictionaries(st.sampled_from(STATE_KEYS[name]), JSON)}

    @examples(200)
    @given(state=st.sampled_from(["changed", "changed", "json", "fields"]).flatmap(states.__getitem__),
           move=st.sampled_from(start_moves) | st.text(max_size=12))
    def check(state, move: str) -> None:
        verdict = assert_verdict_or_invalid_state(game, state, move, REFUSED[name])
        branches(verdict if verdict == "refused" else f"verdict:{verdict}")

    check()
    # a verdict (legal or not) is the branch that exercises the rules; half the inputs are changed states
    branches.assert_share("verdict", 0.2)


@pytest.mark.parametrize("name", GAMES)
def test_every_accepted_state_is_playable(name: str) -> None:
    branches = Branches()

    @examples(150)
    @given(change=changed(name))
    def check(change) -> None:
        index, state, kind = change
        try:
            accepted = setup_game(name, index).check(state)
        except REFUSED[name] as error:
            assert error.detail and root(error.data["field"]) in ROOT_FIELDS[name], (error.data, error.detail)
            branches(f"refused:{kind}")
            return
        branches(f"accepted:{kind}")
        assert setup_game(name, index).check(accepted) == accepted
        game = game_of(name, accepted)
        assert game.parse_position(game.position(accepted)) == accepted
        assert_playable(game, accepted)

    check()
    branches.assert_share("accepted", 0.25)


@st.composite
def position_texts(draw, name: str) -> tuple[int, str, str]:
    """(setup, text, label): a reachable state's position, the same with one character changed, or any text."""
    index, state = draw(reachable(name))
    text = setup_game(name, index).position(state)
    kind = draw(st.sampled_from(["reachable", "reachable", "character", "any"]))
    if kind == "character":
        at = draw(st.integers(0, len(text) - 1))
        text = text[:at] + draw(st.sampled_from(sorted(set(text)) + ["x", "9"])) + text[at + 1:]
    elif kind == "any":
        text = draw(st.text(max_size=90))
    return index, text, kind


@pytest.mark.parametrize("name", GAMES)
def test_any_position_text_is_a_state_or_refused(name: str) -> None:
    branches = Branches()

    @examples(150)
    @given(drawn=position_texts(name))
    def check(drawn) -> None:
        index, text, kind = drawn
        branches(f"{assert_position_round_trips(setup_game(name, index), text, REFUSED[name])}:{kind}")

    check()
    branches.assert_share("accepted", 0.3)


@st.composite
def moves(draw, name: str) -> tuple[int, dict, str, str]:
    """(setup, ongoing state, move, label): one of the state's legal moves, one with a character changed,
    or any text."""
    index, state = draw(reachable(name).filter(lambda drawn: setup_game(name, drawn[0]).legal_moves(drawn[1])))
    legal = setup_game(name, index).legal_moves(state)
    kind = draw(st.sampled_from(["listed", "listed", "character", "any"]))
    move = draw(st.sampled_from(legal))
    if kind == "character":
        at = draw(st.integers(0, len(move) - 1))
        move = move[:at] + draw(st.sampled_from(sorted(set("".join(legal))) + ["?"])) + move[at + 1:]
    elif kind == "any":
        move = draw(st.text(max_size=14))
    return index, state, move, kind


@pytest.mark.parametrize("name", GAMES)
def test_any_move_text_is_a_verdict(name: str) -> None:
    """A move is judged legal exactly when the engine lists it (where a move has one spelling; games of chance
    may also accept a supplied roll or draws that `legal_moves` leaves out), and a legal move plays."""
    branches = Branches()

    @examples(150)
    @given(drawn=moves(name))
    def check(drawn) -> None:
        index, state, move, kind = drawn
        game = setup_game(name, index)
        verdict = game.validate(state, move)
        listed = move in game.legal_moves(state)
        if listed or FACTS[name].one_spelling:
            assert verdict["legal"] is listed, (move, verdict)
        if verdict["legal"]:
            result = game.play(state, move)
            assert game.check(result["state"]) == result["state"]
        else:
            assert verdict["reason"]["code"] in ("malformed-move", "illegal-move"), verdict
        branches(f"{'legal' if verdict['legal'] else 'refused'}:{kind}")

    check()
    branches.assert_share("legal", 0.3)


def test_the_reachable_inputs_cover_every_setup_and_finished_games() -> None:
    """The inputs above come from every setup and include finished games (whose states have no moves)."""
    for name in GAMES:
        for index in range(len(SETUPS[name])):
            finished = played(name, index, seed=index, plies=10_000)
            assert setup_game(name, index).outcome(finished)["status"] == "finished", (name, index)
