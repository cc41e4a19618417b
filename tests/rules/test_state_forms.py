"""The two forms a state travels in (the JSON object and the position notation), for every game, and the
lean object states: Hypnosia's default board written as null, its boards compiled once and kept by content."""

from __future__ import annotations

import orjson
import pytest

import referee
from helpers.hypnosia_boards import CUSTOM_BOARDS, default_board
from helpers.properties import GAMES, played
from referee import _core
from referee.errors import MalformedJson
from referee.http.app import create_app
from referee.http.settings import Settings

CLIENT = create_app(Settings(access_log=False)).test_client()
ENGINES = {name: _core.Engine(name) for name in GAMES}
SEEDS = range(6)
PLIES = (0, 7, 30, 10_000)


def states(name: str) -> list[dict]:
    """Default-setup states of seeded random games: the start, early, middle and the end."""
    return [played(name, 0, seed, plies) for seed in SEEDS for plies in PLIES]


def move_of(name: str, state: dict, seed: int) -> str:
    """A legal move when there is one (else a move the game refuses)."""
    moves = ENGINES[name].legal_moves(state)
    return moves[seed % len(moves)] if moves else "e5"


def without_state(answer: dict) -> dict:
    return {key: value for key, value in answer.items() if key != "state"}


@pytest.mark.parametrize("name", GAMES)
def test_a_position_string_is_the_same_state_as_its_object(name: str) -> None:
    engine = ENGINES[name]
    for seed, state in enumerate(states(name)):
        position = engine.position(state)
        assert engine.check_state(position) == engine.check_state(state)
        assert engine.legal_moves(position) == engine.legal_moves(state)
        assert engine.outcome(position) == engine.outcome(state)
        move = move_of(name, state, seed)
        as_object = orjson.loads(engine.validate_json(orjson.dumps({"state": state, "move": move})))
        as_text = orjson.loads(engine.validate_json(orjson.dumps({"state": position, "move": move})))
        assert as_text == as_object


@pytest.mark.parametrize("name", GAMES)
def test_an_answer_gives_the_next_state_in_the_form_of_the_request(name: str) -> None:
    engine, played_any = ENGINES[name], False
    for seed, state in enumerate(states(name)):
        if not engine.legal_moves(state):
            continue
        move, position = move_of(name, state, seed), engine.position(state)
        from_object = orjson.loads(engine.play_json(orjson.dumps({"state": state, "move": move})))
        from_text = orjson.loads(engine.play_json(orjson.dumps({"state": position, "move": move})))
        assert isinstance(from_object["state"], dict)
        assert from_text["state"] == from_text["position"] == from_object["position"]
        assert without_state(from_text) == without_state(from_object)
        assert engine.check_state(from_text["state"]) == from_object["state"]
        played_any = True
    assert played_any


@pytest.mark.parametrize("name", GAMES)
def test_batch_items_keep_their_own_form(name: str) -> None:
    engine = ENGINES[name]
    items = []
    for seed, state in enumerate(states(name)):
        move = move_of(name, state, seed)
        items += [{"state": state, "move": move}, {"state": engine.position(state), "move": move}]
    results = orjson.loads(engine.validate_array(orjson.dumps(items), True)[0])
    assert len(results) == len(items)
    for as_object, as_text in zip(results[::2], results[1::2]):
        assert without_state(as_object) | {"index": 0} == without_state(as_text) | {"index": 0}
        if "state" in as_object:
            assert isinstance(as_object["state"], dict) and as_text["state"] == as_text["position"]


@pytest.mark.parametrize("name", GAMES)
def test_every_way_to_play_answers_the_next_state_in_the_form_it_was_given(name: str) -> None:
    """`Game.play`, `Game.play_batch` and HTTP's `play` (the engine's call that answers it) give one answer
    for one item: the next state as an object for an object, as a position string for a position string."""
    game, played_any = referee.game(name), False
    for seed, state in enumerate(states(name)):
        if not game.legal_moves(state):
            continue
        move = move_of(name, state, seed)
        for given in (state, game.position(state)):
            answer = game.play(given, move)
            over_http = orjson.loads(ENGINES[name].play_json(orjson.dumps({"state": given, "move": move})))
            [in_batch] = game.play_batch([{"state": given, "move": move}])
            assert answer == over_http == {key: value for key, value in in_batch.items() if key != "legal"}
            assert type(answer["state"]) is type(given)
        played_any = True
    assert played_any


@pytest.mark.parametrize("name", GAMES)
def test_the_service_takes_and_answers_either_form(name: str) -> None:
    state = played(name, 0, 1, 7)
    position = ENGINES[name].position(state)
    moves = CLIENT.post(f"/v1/games/{name}/legal-moves", json={"state": position})
    assert moves.status_code == 200, moves.json
    assert moves.json["moves"] == ENGINES[name].legal_moves(state)
    answer = CLIENT.post(f"/v1/games/{name}/play", json={"state": position, "move": moves.json["moves"][0]})
    assert answer.status_code == 200 and answer.json["state"] == answer.json["position"]
    bad = CLIENT.post(f"/v1/games/{name}/play", json={"state": [position], "move": "e5"})
    assert bad.status_code == 400
    assert bad.json["errors"] == [{"field": "state", "message": "Not a valid state: a JSON object or a position string."}]
    wrong = CLIENT.post(f"/v1/games/{name}/validate", json={"state": "not a position", "move": "e5"})
    assert wrong.status_code == 422 and wrong.json["code"] == "invalid-state", wrong.json


def test_a_position_string_is_read_with_the_setup_of_its_reader() -> None:
    """The service's engines read positions with the default setup; a game of another setup (Iago's loose
    variant) reads its own, and its states travel to the service as objects."""
    loose = referee.game("iago", variant="loose")
    state = played("iago", 2, 4, 9)
    assert state["variant"] == "loose"
    position = loose.position(state)
    assert loose.check(position) == state
    assert loose.legal_moves(position) == loose.legal_moves(state)
    assert ENGINES["iago"].check_state(position)["variant"] == "standard"


# ------------------------------------------------------------------ Hypnosia: lean states, boards compiled once


def test_hypnosia_states_write_the_default_board_as_null_and_accept_it_spelt_out() -> None:
    engine = ENGINES["hypnosia"]
    for state in states("hypnosia"):
        assert state["options"]["board"] is None
        spelt_out = {**state, "options": {**state["options"], "board": default_board()}}
        assert engine.check_state(spelt_out) == state
        assert engine.legal_moves(spelt_out) == engine.legal_moves(state)
        assert engine.position(spelt_out) == engine.position(state)


def test_hypnosia_boards_are_told_apart_by_content() -> None:
    """Games of several boards, taking turns: each state is judged on its own board (the compiled boards
    are kept by their description, so a cached board never stands in for another)."""
    games = {label: referee.game("hypnosia", options={"board": board}) for label, board in CUSTOM_BOARDS.items()}
    games["default"] = referee.game("hypnosia")
    alone = {}
    for label, game in games.items():
        state = game.new(seed=5)
        for _ in range(12):
            state = game.play(state, game.legal_moves(state)[0])["state"]
        alone[label] = (state, game.legal_moves(state), game.position(state))
    for _ in range(3):
        for label, (state, moves, position) in alone.items():
            expected = None if label == "default" else CUSTOM_BOARDS[label]
            assert (state["options"]["board"] is None) == (expected is None)
            assert ENGINES["hypnosia"].legal_moves(state) == moves
            assert ENGINES["hypnosia"].position(state) == position


# ------------------------------------------------------------------ Caesar!: a key given twice


@pytest.mark.parametrize("part, key", [("borders", "HU-HC"), ("provinces", "GA")])
def test_caesar_refuses_a_border_or_province_listed_twice(part: str, key: str) -> None:
    state = played("caesar", 0, 3, 5)
    text = orjson.dumps(state).decode()
    entry = orjson.dumps({key: state[part][key]}).decode()[1:-1]
    twice = text.replace(f'"{part}":{{', f'"{part}":{{{entry},', 1)
    assert twice != text
    # A key given twice is refused by the JSON reader, before the state is read, naming where it is.
    with pytest.raises(MalformedJson) as refused:
        ENGINES["caesar"].validate_json(f'{{"state":{twice},"move":"L40 HU-HC"}}'.encode())
    assert refused.value.detail.endswith(f"duplicate key at state.{part}.{key}")
