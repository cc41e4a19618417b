"""Isaac through the HTTP service: every endpoint, the compact move list, refusals with their rule and
facts, and untrusted states answered with 422 problems naming the field."""

from __future__ import annotations

import re

import orjson
import pytest

import referee
from helpers.inprocess import post, problem
from helpers.properties import random_moves

game = referee.game("isaac")
START = "- placement b 0,0 - - -/-"
# The rules' worked example: Black's c5-g5 on row 5 scores 3 pieces × value 3 × 2 (White's marker on a5).
ROW5 = "Bd1-f1,Wa3-a7,Wb4-b6,Bc5-g5,Bh5-j5,Bd9-f9 scoring b 0,59 w - -/3"
# The same with Black on 30: advance 10 would land on White's marker (a5).
ROW5_30 = "Bd1-f1,Wa3-a7,Wb4-b6,Bc5-g5,Bh5-j5,Bd9-f9 scoring b 30,59 w - 3/33"


def state_of(position: str) -> dict:
    return game.parse_position(position)


def test_an_isaac_piece_listed_twice_is_named_so(client) -> None:
    """(From test_hostile.py, where it was asked of a live gunicorn: the same answer in process.)"""
    state = game.play(game.new(), "a1-c1")["state"]
    state["pieces"]["black"] = state["pieces"]["black"] * 2
    response = post(client, "/v1/games/isaac/legal-moves", {"state": state})
    body = problem(response, 422, "invalid-state")
    assert re.fullmatch(r"[0-9a-f]{32}", response.headers["X-Request-ID"])
    assert "listed twice" in body["detail"] and body["field"] == "pieces.black[1]"


def test_game_info(client) -> None:
    info = client.get("/v1/games/isaac").json
    assert info["rules"] == "isaac@1" and [v["name"] for v in info["variants"]] == ["standard"]
    assert [o["name"] for o in info["options"]] == ["first_player", "scoring_starts"]
    assert info["board"]["pieces"] == [
        {"length": 3, "count": 5, "value": 1}, {"length": 4, "count": 4, "value": 2},
        {"length": 5, "count": 3, "value": 3}, {"length": 6, "count": 2, "value": 4},
        {"length": 7, "count": 1, "value": 6},
    ]


def test_new_with_options(client) -> None:
    body = post(client, "/v1/games/isaac/new", {}).json
    assert body["position"] == START
    assert body["state"] == {
        "rules": "isaac@1", "variant": "standard",
        "options": {"first_player": "black", "scoring_starts": "first_to_pass"},
        "pieces": {"black": [], "white": []}, "phase": "placement", "to_move": "black",
        "scores": {"black": 0, "white": 0}, "first_to_pass": None, "passed": [],
        "removed": {"black": [], "white": []},
    }
    assert body["outcome"] == {"status": "ongoing", "to_move": "black", "scores": {"black": 0, "white": 0},
                               "winner": None, "decided_by": None}
    white = post(client, "/v1/games/isaac/new", {"options": {"first_player": "white"}}).json
    assert white["position"] == "- placement w 0,0 - - -/-"


@pytest.mark.parametrize(("setup", "field"), [
    ({"options": {"first_player": "red"}}, "options.first_player"),
    ({"options": {"scoring_starts": "never"}}, "options.scoring_starts"),
    ({"variant": "hari"}, "variant"),
    ({"options": {"handicap": 1}}, "setup"),
])
def test_new_refuses_bad_setups(client, setup: dict, field: str) -> None:
    assert problem(post(client, "/v1/games/isaac/new", setup), 422, "invalid-options")["field"] == field


def test_legal_moves_full_and_compact(client) -> None:
    body = post(client, "/v1/games/isaac/legal-moves", {"state": game.new()}).json
    assert body["count"] == 600 and body["moves"][:2] == ["a1-c1", "b1-d1"]
    assert post(client, "/v1/games/isaac/legal-moves", {"state": game.new(), "compact": True}).json["count"] == 600
    full = post(client, "/v1/games/isaac/legal-moves", {"state": state_of(ROW5_30)}).json
    assert full["count"] == 27 and "xc5-g5+10" not in full["moves"]
    compact = post(client, "/v1/games/isaac/legal-moves", {"state": state_of(ROW5_30), "compact": True}).json
    assert compact["moves"] == ["xd1-f1+0..0", "xc5-g5+0..18!10", "xh5-j5+0..6", "xd9-f9+0..0"]
    assert compact["count"] == 4 and compact["outcome"]["to_move"] == "black"
    # Other games answer their full list.
    iago = referee.game("iago").new()
    assert post(client, "/v1/games/iago/legal-moves", {"state": iago, "compact": True}).json["count"] == 36


@pytest.mark.parametrize("compact", ["yes", 1, "true", None])
def test_compact_is_a_strict_boolean(client, compact) -> None:
    body = problem(post(client, "/v1/games/isaac/legal-moves", {"state": game.new(), "compact": compact}), 400,
                   "malformed-request")
    assert body["errors"][0]["field"] == "compact"


def test_play_placement_and_the_worked_removal(client) -> None:
    body = post(client, "/v1/games/isaac/play", {"state": game.new(), "move": "c4-g4", "player": "black"}).json
    assert body["effects"] == {"player": "black", "kind": "place", "piece": "c4-g4"}
    assert body["position"] == "Bc4-g4 placement w 0,0 - - -/-"
    body = post(client, "/v1/games/isaac/play", {"state": state_of(ROW5), "move": "xc5-g5+18"}).json
    assert body["effects"] == {
        "player": "black", "kind": "remove", "piece": "c5-g5", "line": "row 5", "pieces_on_line": 3,
        "value": 3, "markers_on_line": 1, "points": 18, "advance": 18, "score": 18,
    }
    assert body["outcome"]["scores"] == {"black": 18, "white": 59}
    # The answered state is accepted back as it is.
    assert post(client, "/v1/games/isaac/legal-moves", {"state": body["state"]}).status_code == 200


@pytest.mark.parametrize(("position", "move", "rule", "facts"), [
    (START, "pass", "must-place", {"moves": 600}),
    (START, "xc4-g4+0", "wrong-phase", {"phase": "placement"}),
    ("Bc4-g4 placement w 0,0 - - -/-", "e2-e6", "occupied", {"cells": ["e4"]}),
    ("Wa1-a3,Bc4-i4 placement b 0,0 - - -/-", "a10-g10", "no-piece-left", {"length": 7}),
    (ROW5, "xc5-g5+19", "advance-too-far", {"advance": 19, "points": 18}),
    (ROW5_30, "xc5-g5+10", "lands-on-marker", {"advance": 10, "cell": "a5"}),
    (ROW5, "xa3-a7+0", "not-your-piece", {"piece": "a3-a7"}),
    (ROW5, "xa1-c1+0", "no-such-piece", {"piece": "a1-c1"}),
    (ROW5, "pass", "must-remove", {"moves": 28}),
    ("Bd1-f1,Wa3-a7,Wb4-b6,Bc5-g5,Bh5-j5,Bd9-f9 scoring b 44,59 w - 3/33", "xc5-g5+0", "marker-on-piece",
     {"piece": "c5-g5", "cells": ["e5"], "markers": ["black"]}),
    ("Bd1-f1,Wa3-a7,Wb4-b6,Bc5-g5,Bh5-j5,Bd9-f9 scoring b 30,59 w - 5/33", "xh5-j5+0", "shorter-than-removed",
     {"piece": "h5-j5", "length": 3, "longest_removed": 5}),
])
def test_illegal_moves_name_the_rule_and_its_facts(client, position: str, move: str, rule: str, facts: dict) -> None:
    body = problem(post(client, "/v1/games/isaac/play", {"state": state_of(position), "move": move}), 422,
                   "illegal-move")
    assert body["rule"] == rule and body["detail"]
    assert {key: body[key] for key in facts} == facts


@pytest.mark.parametrize("move", ["g4-c4", "c4-d4", "c4-d5", "k1-k3", "xc4-g4", "xc4-g4+012", "PASS", "c4-g4;"])
def test_malformed_moves(client, move: str) -> None:
    problem(post(client, "/v1/games/isaac/play", {"state": game.new(), "move": move}), 422, "malformed-move")


def test_validate_answers_an_illegal_move_with_its_rule(client) -> None:
    assert post(client, "/v1/games/isaac/validate", {"state": state_of(ROW5), "move": "xc5-g5+18"}).json == {"legal": True}
    body = post(client, "/v1/games/isaac/validate", {"state": state_of(ROW5), "move": "xc5-g5+19"}).json
    assert body["legal"] is False and body["reason"]["code"] == "illegal-move"
    assert body["reason"]["rule"] == "advance-too-far" and body["reason"]["points"] == 18
    turn = post(client, "/v1/games/isaac/validate", {"state": game.new(), "move": "c4-g4", "player": "white"}).json
    assert turn["reason"]["code"] == "not-your-turn"


def test_a_finished_game(client) -> None:
    final = game.replay(random_moves(game, 5))["state"]
    assert final["to_move"] is None
    problem(post(client, "/v1/games/isaac/play", {"state": final, "move": "pass"}), 422, "game-over")
    body = post(client, "/v1/games/isaac/legal-moves", {"state": final}).json
    assert body["moves"] == [] and body["outcome"]["status"] == "finished"
    assert body["outcome"]["winner"] in ("black", "white")


def test_replay(client) -> None:
    moves = random_moves(game, 2)
    body = post(client, "/v1/games/isaac/replay", {"moves": moves}).json
    assert body["legal"] is True and body["plies"] == len(moves) and body["outcome"]["status"] == "finished"
    body = post(client, "/v1/games/isaac/replay", {"moves": ["c4-g4", "e2-e6", "a1-c1"]}).json
    assert (body["legal"], body["ply"], body["move"], body["plies"]) == (False, 1, "e2-e6", 1)
    assert body["reason"]["rule"] == "occupied" and body["position"] == "Bc4-g4 placement w 0,0 - - -/-"
    white = post(client, "/v1/games/isaac/replay", {"moves": ["c4-g4"], "options": {"first_player": "white"}}).json
    assert white["state"]["pieces"] == {"black": [], "white": ["c4-g4"]}


def test_batch_json_and_ndjson(client) -> None:
    items = [
        {"state": state_of(ROW5), "move": "xc5-g5+18"},
        {"state": state_of(ROW5), "move": "xc5-g5+19"},
        {"state": {"rules": "isaac@1"}, "move": "pass"},
        {"state": game.new(), "move": "c4-g4", "player": "white"},
    ]
    results = post(client, "/v1/games/isaac/batch", items).json["results"]
    assert results[0] == {"index": 0, "legal": True}
    assert results[1]["reason"]["rule"] == "advance-too-far"
    assert results[2]["error"]["code"] == "invalid-state"
    assert results[3]["reason"]["code"] == "not-your-turn"
    lines = b"".join(orjson.dumps(item) + b"\n" for item in items[:2])
    response = client.post("/v1/games/isaac/batch?with_state=true", data=lines, content_type="application/x-ndjson")
    first, second = (orjson.loads(line) for line in response.data.splitlines())
    assert first["effects"]["points"] == 18 and first["position"].endswith("scoring w 18,59 w - 5/3")
    assert second["legal"] is False and "state" not in second


@pytest.mark.parametrize(("change", "field", "needle"), [
    ({"rules": "isaac@0"}, "rules", "unknown rules version"),
    ({"options": {"first_player": "red"}}, "options.first_player", "not \"red\""),
    ({"pieces": {"black": ["c4-g4", "c4-g4"], "white": []}}, "pieces.black[1]", "c4-g4 is listed twice"),
    ({"pieces": {"black": ["d6-f6", "c4-g4"], "white": []}}, "pieces.black[1]", "listed by lower-left cell"),
    ({"pieces": {"black": ["c4-g4"], "white": ["e2-e6"]}}, "pieces.white[0]", "overlaps another piece on e4"),
    ({"pieces": {"black": ["g4-c4"], "white": []}}, "pieces.black[0]", "lower-left end comes first"),
    ({"pieces": {"black": ["a1-g1", "a2-g2"], "white": ["a3-c3", "a4-c4"]}}, "pieces.black", "owns only 1"),
    ({"pieces": {"black": ["a1-c1"], "white": []}}, "to_move", "white is to move here, not black"),
    ({"to_move": None}, "to_move", "black is to move here"),
    ({"phase": "finished"}, "phase", "placement or scoring"),
    ({"scores": {"black": 3, "white": 0}}, "scores.black", "before the scoring phase"),
    ({"removed": {"black": [3], "white": []}}, "removed.black", "before the scoring phase"),
    ({"passed": ["black"], "first_to_pass": "black"}, "passed", "black passed, so it cannot place"),
    ({"passed": ["white", "black"]}, "passed", "passed is"),
    ({"first_to_pass": "white"}, "first_to_pass", "nobody has passed"),
    ({"turn": 3}, "state", "unknown field `turn`"),
    ({"scores": {"black": 1.5, "white": 0}}, "state", "invalid type"),
])
def test_untrusted_states_are_refused_precisely(client, change: dict, field: str, needle: str) -> None:
    state = game.new() | change
    body = problem(post(client, "/v1/games/isaac/legal-moves", {"state": state}), 422, "invalid-state")
    assert body["field"] == field and needle in body["detail"], body


def test_a_missing_to_move_is_not_a_null_one(client) -> None:
    state = game.new()
    del state["to_move"]
    body = problem(post(client, "/v1/games/isaac/play", {"state": state, "move": "c4-g4"}), 422, "invalid-state")
    assert body["field"] == "state" and "to_move" in body["detail"]
