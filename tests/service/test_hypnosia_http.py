"""Hypnosia through every HTTP endpoint: the same generic routes as Iago, with dice, boards as data
and the `invalid-board` problem."""

from __future__ import annotations

import random

import orjson
import pytest

import referee
from helpers.inprocess import post, problem

game = referee.game("hypnosia", options={"first_player": "red"})
# Red's pawn on 0.2 can reach blue's single on 0.5 (capture) with a 3; blue's double on 0.7.
CAPTURE = "r:h2,h3,h4,0.2/b:h1,0.5,0.7,0.7 r 32 - 0/0 7:0"
SINGLE_CIRCLE = {
    "circles": [8], "entries": [0, 0, 0, 0, 0, 0],
    "bridges": [{"from": [0, 3], "to": "centre"}],
    "centre_points": [5, 4, 3, 2, 1], "home_length": 4,
}


def state_of(position: str) -> dict:
    return game.parse_position(position)


def random_game(seed: int, limit: int = 60) -> list[str]:
    """A game record of `limit` plies at most, rolls drawn by the engine from seed `seed`."""
    rng, state, moves = random.Random(seed), game.new(seed=seed), []
    while (legal := game.legal_moves(state)) and len(moves) < limit:
        moves.append(rng.choice(legal))
        state = game.play(state, moves[-1])["state"]
    return moves


def test_game_info_publishes_the_default_board_seats_and_options(client) -> None:
    info = client.get("/v1/games/hypnosia").json
    assert info["rules"] == "hypnosia@1" and info["chance"] is True
    assert info["players"] == ["red", "yellow", "green", "blue", "purple", "orange"]
    assert info["board"]["default"]["circles"] == [36, 24, 12]
    assert len(info["board"]["default"]["bridges"]) == 18
    assert [seat["entry"] for seat in info["board"]["seats"]] == [0, 6, 12, 18, 24, 30]
    assert info["board"]["default_seats"]["3"] == [0, 2, 4]
    assert [o["name"] for o in info["options"]] == ["players", "seats", "first_player", "doubles_cross_bridges", "board"]
    summary = next(g for g in client.get("/v1/games").json["games"] if g["name"] == "hypnosia")
    assert summary["variants"] == ["standard"] and summary["href"] == "/v1/games/hypnosia"


def test_new_is_seeded_and_self_contained(client) -> None:
    body = post(client, "/v1/games/hypnosia/new", {"options": {"players": 3}, "seed": 11}).json
    state = body["state"]
    assert state["options"]["seats"] == [0, 2, 4] and state["options"]["board"] is None  # the default board
    assert state["dice"] is None and state["to_move"] in ("red", "green", "purple")
    assert set(state["pawns"]) == {"red", "green", "purple"}
    assert body["outcome"]["status"] == "ongoing"
    # Same seed, same first player and the same drawn roll.
    again = post(client, "/v1/games/hypnosia/new", {"options": {"players": 3}, "seed": 11}).json["state"]
    assert again == state
    rolls = {tuple(post(client, "/v1/games/hypnosia/play", {"state": state, "move": "roll"}).json["effects"]["roll"]) for _ in range(3)}
    assert len(rolls) == 1


def test_legal_moves_before_and_after_the_roll(client) -> None:
    start = game.new(seed=1)
    assert post(client, "/v1/games/hypnosia/legal-moves", {"state": start}).json["moves"] == ["roll"]
    rolled = game.play(start, "1-1")["state"]
    body = post(client, "/v1/games/hypnosia/legal-moves", {"state": rolled}).json
    assert body["moves"] == ["h1+1 0.0+1"] and body["count"] == 1
    moves = post(client, "/v1/games/hypnosia/legal-moves", {"state": state_of(CAPTURE)}).json["moves"]
    assert moves == sorted(moves) and "0.2+3 0.5^2" in moves


def test_play_answers_the_next_state_and_effects(client) -> None:
    body = post(client, "/v1/games/hypnosia/play", {"state": state_of(CAPTURE), "move": "0.2+3 0.5^2", "player": "red"}).json
    first, second = body["effects"]["moves"]
    assert first == {"from": "0.2", "pawns": 1, "die": 3, "cross": False, "to": "0.5",
                     "captured": [{"player": "blue", "pawns": 1}], "centre_points": 0}
    assert second["cross"] is True and second["to"] == "1.1"
    assert body["effects"]["turn_over"] is True and body["effects"]["roll"] is None
    assert body["state"]["to_move"] == "blue" and body["state"]["dice"] is None
    assert body["outcome"]["scores"] == {"red": 1, "blue": -1}
    assert body["position"] == "r:h2,h3,h4,1.1/b:h1,0.7,0.7,captured b - - 1/0 7:0"
    # The answered state is accepted back as it is.
    assert post(client, "/v1/games/hypnosia/legal-moves", {"state": body["state"]}).json["moves"] == ["roll"]


def test_validate_names_the_rule_of_an_illegal_move(client) -> None:
    state = state_of(CAPTURE)
    assert post(client, "/v1/games/hypnosia/validate", {"state": state, "move": "0.2+3 0.5^2"}).json == {"legal": True}
    verdict = post(client, "/v1/games/hypnosia/validate", {"state": state, "move": "0.2+2 0.4+3"}).json
    assert verdict["legal"] is False
    assert verdict["reason"] == {"code": "illegal-move", "rule": "single-on-enemy-double", "to": "0.7", "player": "blue",
                                 "detail": "a single pawn may not end on blue's double on 0.7"}
    verdict = post(client, "/v1/games/hypnosia/validate", {"state": state, "move": "pass"}).json
    assert verdict["reason"]["rule"] == "must-use-dice" and verdict["reason"]["usable"] == 2
    verdict = post(client, "/v1/games/hypnosia/validate", {"state": state, "move": "h2+9"}).json
    assert verdict["reason"]["code"] == "malformed-move"
    body = problem(post(client, "/v1/games/hypnosia/play", {"state": state, "move": "h3+2"}), 422, "illegal-move")
    assert (body["rule"], body["distance"], body["die"]) == ("die-too-small", 3, 2)


def test_replay_of_a_seeded_record_and_its_first_illegal_ply(client) -> None:
    moves = random_game(5)
    body = post(client, "/v1/games/hypnosia/replay", {"options": {"first_player": "red"}, "seed": 5, "moves": moves}).json
    assert body["legal"] is True and body["plies"] == len(moves)
    assert body["state"] == game.replay(moves, seed=5)["state"]
    body = post(client, "/v1/games/hypnosia/replay", {"options": {"first_player": "red"}, "seed": 5,
                                                      "moves": ["6-2: h1+6 0.5^2", "roll", "roll"]}).json
    assert (body["legal"], body["ply"], body["move"]) == (False, 2, "roll")
    assert body["reason"]["rule"] == "already-rolled"


def test_batch_keeps_order_and_isolates_bad_items(client) -> None:
    state = state_of(CAPTURE)
    items = [
        {"state": state, "move": "0.2+3 0.5^2"},
        {"state": state, "move": "0.2+2 0.4+3"},
        {"state": state | {"scores": {"red": 3, "blue": 0}}, "move": "pass"},
        {"state": state, "move": "pass", "player": "blue"},
    ]
    results = post(client, "/v1/games/hypnosia/batch?with_state=true", items).json["results"]
    assert results[0]["legal"] is True and results[0]["state"]["to_move"] == "blue"
    assert results[1]["reason"]["rule"] == "single-on-enemy-double"
    assert results[2]["error"]["code"] == "invalid-state" and results[2]["error"]["field"] == "scores.red"
    assert results[3]["reason"]["code"] == "not-your-turn"
    lines = b"".join(orjson.dumps(item) + b"\n" for item in items[:2])
    response = client.post("/v1/games/hypnosia/batch", data=lines, content_type="application/x-ndjson")
    assert [orjson.loads(line)["legal"] for line in response.data.splitlines()] == [True, False]


@pytest.mark.parametrize(("change", "field", "needle"), [
    ({"rules": "hypnosia@0"}, "rules", "unknown rules version"),
    ({"pawns": {"red": ["h1", "h2", "h3"], "blue": ["h1", "h2", "h3", "h4"]}}, "pawns.red", "4 pawns, not 3"),
    ({"dice": [7, 1]}, "dice[0]", "1 to 6"),
    ({"to_move": "green"}, "to_move", "not a seated colour"),
    ({"captures": {"red": 2, "blue": 0}}, "captures.red", "the other players lost 0"),
    ({"rng": {"algorithm": "chacha8", "seed": "00", "word_pos": 0}}, "rng", "64 hexadecimal digits"),
    ({"options": {"players": 9}}, "options.players", "2 to 6 players"),
    ({"turn": 1}, "state", "unknown field `turn`"),
])
def test_untrusted_states_are_refused_precisely(client, change: dict, field: str, needle: str) -> None:
    body = problem(post(client, "/v1/games/hypnosia/legal-moves", {"state": game.new(seed=3) | change}), 422, "invalid-state")
    assert body["field"] == field and needle in body["detail"], body


def test_a_custom_board_with_a_single_circle(client) -> None:
    body = post(client, "/v1/games/hypnosia/new", {"options": {"board": SINGLE_CIRCLE, "first_player": "red"}, "seed": 2}).json
    state = body["state"]
    assert state["options"]["board"] == SINGLE_CIRCLE
    played = post(client, "/v1/games/hypnosia/play", {"state": state, "move": "4-1: h1+4 0.3^1"}).json
    assert played["effects"]["moves"][1] == {"from": "0.3", "pawns": 1, "die": 1, "cross": True, "to": "centre",
                                             "captured": [], "centre_points": 5}
    assert played["state"]["centre"] == ["red"] and played["outcome"]["scores"]["red"] == 5
    # A state on that board still refuses spaces the board lacks.
    bad = played["state"] | {"pawns": {"red": ["h2", "h3", "h4", "1.0"], "blue": ["h1", "h2", "h3", "h4"]}}
    assert problem(post(client, "/v1/games/hypnosia/legal-moves", {"state": bad}), 422, "invalid-state")["field"] == "pawns.red[3]"


@pytest.mark.parametrize(("board", "field"), [
    (SINGLE_CIRCLE | {"bridges": [{"from": [0, 3], "to": [1, 0]}]}, "board.bridges[0].to"),
    (SINGLE_CIRCLE | {"entries": [0, 0, 0]}, "board.entries"),
    (SINGLE_CIRCLE | {"circles": [0]}, "board.circles[0]"),
    (SINGLE_CIRCLE | {"bridges": []}, "board.bridges"),
    (SINGLE_CIRCLE | {"home_length": 3}, "board.home_length"),
])
def test_an_invalid_board_is_a_422_naming_the_field(client, board: dict, field: str) -> None:
    body = problem(post(client, "/v1/games/hypnosia/new", {"options": {"board": board}}), 422, "invalid-board")
    assert body["field"] == field
    state = game.new(seed=1)
    state["options"]["board"] = board
    assert problem(post(client, "/v1/games/hypnosia/legal-moves", {"state": state}), 422, "invalid-board")["field"] == field


def test_setup_errors_and_game_over(client) -> None:
    body = problem(post(client, "/v1/games/hypnosia/new", {"options": {"seats": [0, 3], "first_player": "green"}}), 422, "invalid-options")
    assert body["field"] == "options.first_player"
    final = state_of("r:h4,centre,centre,centre/b:h1,h2,centre,centre - - rrbbr 0/0 7:0")
    problem(post(client, "/v1/games/hypnosia/play", {"state": final, "move": "roll"}), 422, "game-over")
    body = post(client, "/v1/games/hypnosia/legal-moves", {"state": final}).json
    assert body["moves"] == [] and body["outcome"]["winner"] == "red" and body["outcome"]["ranking"] == [["red"], ["blue"]]
