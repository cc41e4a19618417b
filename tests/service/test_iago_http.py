"""Iago through the HTTP service: its setups, legal moves under a forced capture, captures and their
effects, refusals with their rule and facts, untrusted and unreachable boards answered with 422 problems
naming the field, replay and batches (the generic suite of every game is test_http.py)."""

from __future__ import annotations

import orjson
import pytest

import referee
from helpers.inprocess import post, problem
from helpers.properties import random_moves

START = "...../....../......./......../........./......../......./....../....."
# White e7, Black e8; Black to move must capture e7 from e6.
CAPTURE = "...../....../......./......../......WB./......../......./....../..... b"
game = referee.game("iago")


def state_of(position: str, **setup) -> dict:
    return referee.game("iago", **setup).parse_position(position)


def test_info_has_its_variants_option_and_board(client) -> None:
    info = client.get("/v1/games/iago").json
    assert {v["name"] for v in info["variants"]} == {"standard", "loose", "simple"}
    assert [o["name"] for o in info["options"]] == ["penalty"]
    cells = info["board"]["cells"]
    assert len(cells) == 61 and info["board"]["centre"] == "e5"
    assert sum(c["area"] == "outer" for c in cells) == 24
    assert [c["cell"] for c in cells if c["area"] == "centre"] == ["e5"]


# ------------------------------------------------------------------ Iago: new, legal moves, play, validate


def test_new_for_each_setup(client) -> None:
    body = post(client, "/v1/games/iago/new", {}).json
    assert body["position"] == f"{START} b"
    assert body["outcome"] == {"status": "ongoing", "to_move": "black", "scores": {"black": 1, "white": 1},
                               "winner": None, "decided_by": None}
    loose = post(client, "/v1/games/iago/new", {"variant": "loose", "seed": 7}).json["state"]
    assert loose["variant"] == "loose" and loose["options"] == {"penalty": False}
    assert post(client, "/v1/games/iago/new", {"options": {"penalty": True}}).json["state"]["options"] == {"penalty": True}


@pytest.mark.parametrize(("setup", "field"), [
    ({"variant": "loose", "options": {"penalty": True}}, "options.penalty"),
    ({"variant": "huge"}, "setup"),
    ({"options": {"handicap": 2}}, "setup"),
    ({"options": {"penalty": "yes"}}, "setup"),
])
def test_new_refuses_bad_setups(client, setup: dict, field: str) -> None:
    assert problem(post(client, "/v1/games/iago/new", setup), 422, "invalid-options")["field"] == field


def test_legal_moves_at_the_start_and_under_a_forced_capture(client) -> None:
    body = post(client, "/v1/games/iago/legal-moves", {"state": game.new()}).json
    assert body["count"] == 36 == len(body["moves"]) and "e5" not in body["moves"]
    assert post(client, "/v1/games/iago/legal-moves", {"state": state_of(CAPTURE)}).json["moves"] == ["e6"]


def test_play_answers_the_capture_and_its_effects(client) -> None:
    body = post(client, "/v1/games/iago/play", {"state": state_of(CAPTURE), "move": "e6", "player": "black"}).json
    assert body["position"] == "...../....../......./......../.....BwB./......../......./....../..... w"
    assert body["effects"] == {"player": "black", "cell": "e6", "captured": ["e7"], "released": [],
                               "penalty_skip": False, "penalty_claimed": False}
    assert body["outcome"]["scores"] == {"black": 2, "white": 1}
    # The answered state is accepted back as it is.
    again = post(client, "/v1/games/iago/legal-moves", {"state": body["state"]})
    assert again.status_code == 200


def test_illegal_moves_name_the_rule_and_its_facts(client) -> None:
    body = problem(post(client, "/v1/games/iago/play", {"state": state_of(CAPTURE), "move": "d4"}), 422, "illegal-move")
    assert body["rule"] == "forced-capture"
    assert body["capture"] == 1 and body["cells"] == ["e6"]
    assert body["detail"] == "a capture of 1 is available at e6: d4 captures fewer"
    for move, rule in [("e8", "occupied"), ("a1", "outer-needs-flip")]:
        assert problem(post(client, "/v1/games/iago/play", {"state": state_of(CAPTURE), "move": move}), 422, "illegal-move")["rule"] == rule
    assert problem(post(client, "/v1/games/iago/play", {"state": game.new(), "move": "e5"}), 422, "illegal-move")["rule"] == "centre-needs-flip"


@pytest.mark.parametrize("move", ["z1", "e0", "e10", "E4", " e4", "4e", "\u00e94", "e4;drop table"])
def test_malformed_moves(client, move: str) -> None:
    problem(post(client, "/v1/games/iago/play", {"state": game.new(), "move": move}), 422, "malformed-move")


def test_not_your_turn_and_game_over(client) -> None:
    problem(post(client, "/v1/games/iago/play", {"state": game.new(), "move": "e4", "player": "white"}), 422, "not-your-turn")
    final = game.replay(random_moves(game, 1))["state"]
    problem(post(client, "/v1/games/iago/play", {"state": final, "move": "a1"}), 422, "game-over")
    assert post(client, "/v1/games/iago/legal-moves", {"state": final}).json["moves"] == []


def test_validate_answers_illegal_moves_with_200(client) -> None:
    assert post(client, "/v1/games/iago/validate", {"state": state_of(CAPTURE), "move": "e6"}).json == {"legal": True}
    body = post(client, "/v1/games/iago/validate", {"state": state_of(CAPTURE), "move": "d4"}).json
    assert body["legal"] is False and body["reason"]["rule"] == "forced-capture"
    for move, code in [("zz", "malformed-move"), ("e6", "not-your-turn")]:
        verdict = post(client, "/v1/games/iago/validate", {"state": state_of(CAPTURE), "move": move, "player": "white" if code == "not-your-turn" else None}).json
        assert verdict["legal"] is False and verdict["reason"]["code"] == code
    # A bad state is not a verdict: it is a problem.
    problem(post(client, "/v1/games/iago/validate", {"state": {"rules": "iago@1"}, "move": "e4"}), 422, "invalid-state")


@pytest.mark.parametrize(("change", "field", "needle"), [
    ({"rules": "iago@2"}, "rules", "unknown rules version"),
    ({"board": ["....."] * 9}, "board[1]", "row b has 6 hexes"),
    ({"board": [".....", "......", ".......", "........", "...Q.....", "........", ".......", "......", "....."]}, "board[4]", "'Q' at e4"),
    ({"board": [".....", "......", ".......", "........", "...WW....", "........", ".......", "......", "....."]}, "board", "black must have as many as white or one more"),
    ({"to_move": "white"}, "to_move", "black is to move"),
    ({"board": ["B....", "......", ".......", "........", ".........", "........", ".......", "......", "....w"]}, "board", "white moved last"),
    ({"to_move": "red"}, "to_move", "black or white"),
    ({"penalty_claim": True}, "penalty_claim", "option is off"),
    ({"variant": "simple", "options": {"penalty": True}}, "options.penalty", "standard rules only"),
    ({"turn": 3}, "state", "unknown field `turn`"),
    ({"board": "........."}, "state", "expected a sequence"),
    ({"penalty_claim": {}}, "state", "expected a boolean"),
])
def test_untrusted_states_are_refused_precisely(client, change: dict, field: str, needle: str) -> None:
    state = game.new() | change
    body = problem(post(client, "/v1/games/iago/legal-moves", {"state": state}), 422, "invalid-state")
    assert body["field"] == field and needle in body["detail"], body


# The forgeries of issue 14, which the consistency checks used to accept: a lone disc that only a flip
# can have placed, on the outer ring or the centre, and a captive that no capture can have turned.
FORGERIES = [
    ("B..../....../......./......../........./......../......./....../..... w", "board[0]",
     "a1 is a black disc on the outer ring, where a placement must flip discs, but no line from it shows what a flip leaves"),
    ("...../....../......./......../....B..../......../......./....../..... w", "board[4]",
     "e5 is a black disc on the centre, where a placement must flip discs or, by the centre exception, end the game"),
    ("...../....w./..B..../...W..../........./......../..B..../....../..... b", "board[1]",
     "b5 is a white captive, but no line through it has a black disc at both ends of a run of white discs"),
]


@pytest.mark.parametrize("endpoint", ["legal-moves", "validate"])
@pytest.mark.parametrize(("position", "field", "start"), FORGERIES)
def test_boards_no_game_reaches_are_refused(client, endpoint: str, position: str, field: str, start: str) -> None:
    board, side = position.split(" ")
    state = game.new() | {"board": board.split("/"), "to_move": {"b": "black", "w": "white"}[side]}
    for sent in (state, position):  # the JSON state and the position string alike
        request = {"state": sent} | ({"move": "e4"} if endpoint == "validate" else {})
        body = problem(post(client, f"/v1/games/iago/{endpoint}", request), 422, "invalid-state")
        assert body["field"] == field and body["detail"].startswith(start), body


def test_a_pending_claim_needs_a_skippable_capture(client) -> None:
    state = state_of("...../....../......./......../...B.W.../......../......./....../..... b", options={"penalty": True})
    body = problem(post(client, "/v1/games/iago/play", {"state": state | {"penalty_claim": True}, "move": "e4"}), 422, "invalid-state")
    assert "fewer than 3 discs" in body["detail"]


# ------------------------------------------------------------------ replay and batch


def test_replay_of_a_whole_game(client) -> None:
    moves = random_moves(game, 3)
    body = post(client, "/v1/games/iago/replay", {"moves": moves}).json
    assert body["legal"] is True and body["plies"] == len(moves)
    assert body["outcome"]["status"] == "finished" and body["outcome"]["winner"] in ("black", "white")


def test_replay_reports_the_first_illegal_ply(client) -> None:
    body = post(client, "/v1/games/iago/replay", {"moves": ["e4", "e6", "e3", "a1", "b2"]}).json
    assert body["legal"] is False
    assert (body["ply"], body["move"], body["plies"]) == (3, "a1", 3)
    assert body["reason"]["code"] == "illegal-move" and body["reason"]["rule"] == "outer-needs-flip"
    assert body["position"] == "...../....../......./......../..BB.W.../......../......./....../..... w"


def test_replay_limits_and_setups(client) -> None:
    problem(post(client, "/v1/games/iago/replay", {"moves": ["e4"] * 101}), 400, "malformed-request")
    problem(post(client, "/v1/games/iago/replay", {"moves": [], "variant": "chess"}), 422, "invalid-options")
    assert post(client, "/v1/games/iago/replay", {"moves": [], "variant": "simple"}).json["state"]["variant"] == "simple"


def test_batch_json_keeps_order_and_isolates_bad_items(client) -> None:
    items = [
        {"state": state_of(CAPTURE), "move": "e6"},
        {"state": state_of(CAPTURE), "move": "d4"},
        {"state": {"rules": "iago@1"}, "move": "e4"},
        {"state": state_of(CAPTURE)},
        "not an item",
        {"state": game.new(), "move": "e4", "player": "white"},
    ]
    body = post(client, "/v1/games/iago/batch", items).json
    results = body["results"]
    assert body["count"] == 6 and [r["index"] for r in results] == list(range(6))
    assert results[0] == {"index": 0, "legal": True}
    assert results[1]["legal"] is False and results[1]["reason"]["rule"] == "forced-capture"
    assert results[2]["error"]["code"] == "invalid-state"
    assert results[3]["error"]["code"] == "malformed-request" and results[3]["error"]["errors"][0]["field"] == "move"
    assert results[4]["error"]["code"] == "malformed-request"
    assert results[5]["reason"]["code"] == "not-your-turn"


def test_batch_ndjson_in_and_out_with_states(client) -> None:
    lines = b"\n".join(orjson.dumps({"state": state_of(CAPTURE), "move": move}) for move in ["e6", "d4"]) + b"\n\n"
    response = client.post("/v1/games/iago/batch?with_state=true", data=lines, content_type="application/x-ndjson")
    assert response.status_code == 200 and response.mimetype == "application/x-ndjson"
    results = [orjson.loads(line) for line in response.data.splitlines()]
    assert results[0]["legal"] is True and results[0]["effects"]["captured"] == ["e7"]
    assert results[0]["position"].endswith(" w") and results[0]["index"] == 0
    assert results[1]["legal"] is False and "state" not in results[1]
