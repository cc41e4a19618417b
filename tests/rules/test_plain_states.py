"""A state dict of plain JSON values is read straight from its Python objects, anything else through its
JSON text (orjson): the two paths must answer the same for any state, accepted or refused, and a value
that is not plain JSON (a tuple, a subclass, an int beyond 64 bits, a float that is not finite) must be
answered as the JSON path answers it.

A dict subclass always takes the JSON path (only exact dicts are read directly), so each state is sent
twice, as a dict and as a `Via` of the same content, and the answers compared."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given

import referee
from helpers.properties import GAMES, Branches, changed, examples, played, setup_game


class Via(dict):
    """The same dict, read through its JSON text."""


class Int(int):
    pass


class Text(str):
    pass


def answer(call: Any, *args: Any) -> tuple[str, Any]:
    try:
        return "answer", call(*args)
    except referee.RefereeError as error:
        return "refused", (type(error).__name__, str(error))


def both(game: referee.Game, state: Any, move: str) -> list[tuple[str, Any]]:
    return [answer(game._engine.check_state, state), answer(game.outcome, state),
            answer(game.validate, state, move)]


@pytest.mark.parametrize("name", GAMES)
def test_a_state_read_from_its_objects_answers_as_its_json_text(name: str) -> None:
    branches, game = Branches(), setup_game(name, 0)
    move = game.legal_moves(game.new(seed=1))[0]

    @examples(150)
    @given(case=changed(name))
    def check(case: tuple[int, dict, str]) -> None:
        index, state, _ = case
        game = setup_game(name, index)
        direct, via = both(game, state, move), both(game, Via(state), move)
        assert direct == via
        branches(direct[0][0])

    check()
    branches.assert_share("answer", 0.3)


def mapped(value: Any, kind: type, change: Any) -> Any:
    """``value`` with every value of exactly type ``kind`` (at any depth) changed by ``change``."""
    if type(value) is kind:
        value = change(value)
    if isinstance(value, dict):
        return {key: mapped(inner, kind, change) for key, inner in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(mapped(inner, kind, change) for inner in value)
    return value


NOT_PLAIN = [
    ("lists as tuples", list, tuple),
    ("ints as an int subclass", int, Int),
    ("strings as a str subclass", str, Text),
    ("ints beyond 64 bits", int, lambda n: n + 2**70),
    ("nulls as NaN (orjson writes null)", type(None), lambda _: math.nan),
    ("ints as infinity", int, lambda _: math.inf),
    ("ints as floats", int, float),
    ("ints as bools", int, bool),
]


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("label, kind, change", NOT_PLAIN, ids=[label for label, *_ in NOT_PLAIN])
def test_values_that_are_not_plain_json_answer_as_their_json_text(name: str, label: str, kind: type,
                                                                 change: Any) -> None:
    game = setup_game(name, 0)
    move = game.legal_moves(game.new(seed=1))[0]
    for seed in range(4):
        state = played(name, 0, seed, 12 * seed)
        state = {key: mapped(value, kind, change) for key, value in state.items()}
        assert both(game, state, move) == both(game, Via(state), move), label
