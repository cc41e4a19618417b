"""Caesar! over HTTP: every endpoint, the player view (hidden information) and refused states."""

from __future__ import annotations

import random

import orjson
import pytest

import referee
from helpers.inprocess import post, problem

BONUSES = {
    "HU": "senate", "HC": "senate", "MT": "tactics", "SD": "senate", "GA": "senate", "NU": "tactics",
    "SC": "might", "GC": "wealth", "AF": "wealth", "AC": "tactics", "MD": "might", "DM": "wealth",
    "CY": "might", "CR": "tactics", "AG": "might", "AS": "wealth", "SY": "senate",
}
OPTIONS = {"bonuses": BONUSES, "hands": {"caesar": ["S60", "L40"], "pompey": ["D51", "N42"]}}
game = referee.game("caesar", options=OPTIONS)


def start(seed: int = 7) -> dict:
    return game.new(seed=seed)


def random_record(seed: int) -> tuple[list[str], dict]:
    """A whole seeded game of listed moves (draws from the state's generator)."""
    rng, state, moves = random.Random(seed), referee.game("caesar").new(seed=seed), []
    while legal := game.legal_moves(state):
        moves.append(rng.choice(legal))
        state = game.play(state, moves[-1])["state"]
    return moves, state


def test_the_game_is_listed_with_its_map(client) -> None:
    summary = next(g for g in client.get("/v1/games").json["games"] if g["name"] == "caesar")
    assert summary == {"name": "caesar", "title": "Caesar!", "rules": "caesar@1", "players": ["caesar", "pompey"],
                       "chance": True, "hidden_information": True, "variants": ["standard"], "href": "/v1/games/caesar"}
    info = client.get("/v1/games/caesar").json
    provinces, borders = info["board"]["provinces"], info["board"]["borders"]
    assert [p["code"] for p in provinces][:3] == ["HU", "HC", "MT"] and len(provinces) == 18
    assert next(p for p in provinces if p["code"] == "IT")["spaces"] == ["IT", "IT*"] == info["board"]["italia_spaces"]
    assert len(borders) == 30 and borders[0] == {"id": "HU-HC", "provinces": ["HU", "HC"], "icon": "shield"}
    assert sum(len(p["borders"]) for p in provinces) == 60
    assert {b["icon"] for b in borders} == {"sword", "shield", "ship"}
    assert sum(t["count"] for t in info["tokens"]) == 16 and info["tokens"][2] == {"code": "L22", "icon": "laurel", "numbers": [2, 2], "count": 2}
    assert {b["name"]: b["count"] for b in info["bonus_tokens"]} == {"senate": 6, "tactics": 4, "wealth": 4, "might": 4}


def test_new_with_given_or_drawn_chance(client) -> None:
    body = post(client, "/v1/games/caesar/new", {"options": OPTIONS, "seed": 7}).json
    assert body["state"] == start()
    assert body["state"]["hands"] == {"caesar": ["L40", "S60"], "pompey": ["D51", "N42"]}
    assert body["outcome"]["to_move"] == "caesar" and body["position"].endswith(":0")
    drawn = post(client, "/v1/games/caesar/new", {"seed": 11}).json["state"]
    assert drawn == post(client, "/v1/games/caesar/new", {"seed": 11}).json["state"]
    assert drawn["provinces"]["IT"]["bonus"] == "senate" and len(drawn["hands"]["caesar"]) == 2
    bad = dict(BONUSES, HU="gold")
    assert problem(post(client, "/v1/games/caesar/new", {"options": {"bonuses": bad}}), 422, "invalid-options")["field"] == "options.bonuses.HU"
    assert problem(post(client, "/v1/games/caesar/new", {"variant": "solo"}), 422, "invalid-options")["field"] == "setup"


def test_legal_moves_play_and_validate(client) -> None:
    body = post(client, "/v1/games/caesar/legal-moves", {"state": start()}).json
    assert body["count"] == 80 and body["moves"] == sorted(body["moves"])
    played = post(client, "/v1/games/caesar/play", {"state": start(), "move": "L40@HU-HC =S51", "player": "caesar"}).json
    assert played["effects"]["faces"] == {"HU": 4, "HC": 0} and played["effects"]["drawn"] == ["S51"]
    closing = post(client, "/v1/games/caesar/play", {"state": played["state"], "move": "N42@MT-HU =D60"}).json
    assert closing["effects"]["closures"] == [{"province": "HU", "bonus": "senate", "sums": {"caesar": 4, "pompey": 2},
                                               "control": "caesar", "markers": ["HU"], "choice": None}]
    assert closing["outcome"]["scores"] == {"caesar": 1, "pompey": 0} and closing["state"]["senate"]["pompey"] == 1
    verdict = post(client, "/v1/games/caesar/validate", {"state": start(), "move": "S60@HU-HC"}).json
    assert verdict["legal"] is False
    assert verdict["reason"] | {"detail": ""} == {"code": "illegal-move", "rule": "icon-mismatch", "detail": "", "token": "S60",
                                                    "icon": "sword", "border": "HU-HC", "border_icon": "shield"}
    assert post(client, "/v1/games/caesar/validate", {"state": start(), "move": "S60@HC-GA"}).json == {"legal": True}
    body = problem(post(client, "/v1/games/caesar/play", {"state": start(), "move": "D51@HU-HC"}), 422, "illegal-move")
    assert body["rule"] == "token-not-in-hand" and body["hand"] == ["L40", "S60"]
    problem(post(client, "/v1/games/caesar/play", {"state": start(), "move": "S60@HU-IT"}), 422, "malformed-move")
    problem(post(client, "/v1/games/caesar/play", {"state": start(), "move": "S60@HC-GA", "player": "pompey"}), 422, "not-your-turn")


def test_replay_and_batch(client) -> None:
    moves, final = random_record(5)
    body = post(client, "/v1/games/caesar/replay", {"moves": moves, "seed": 5}).json
    assert body["legal"] is True and body["state"] == final and body["outcome"]["status"] == "finished"
    failed = post(client, "/v1/games/caesar/replay", {"moves": ["L40@HU-HC", "L40@HU-HC"], "options": OPTIONS, "seed": 7}).json
    assert (failed["legal"], failed["ply"]) == (False, 1) and failed["reason"]["code"] == "illegal-move"
    items = [{"state": start(), "move": "S60@HC-GA"}, {"state": start(), "move": "S60@HU-HC"}, {"state": {"rules": "caesar@1"}, "move": "x"}]
    results = post(client, "/v1/games/caesar/batch?with_state=true", items).json["results"]
    assert results[0]["legal"] is True and results[0]["effects"]["border"] == "HC-GA"
    assert results[1]["reason"]["rule"] == "icon-mismatch"
    assert results[2]["error"]["code"] == "invalid-state"


def test_game_over_after_a_whole_game(client) -> None:
    _, final = random_record(9)
    assert post(client, "/v1/games/caesar/legal-moves", {"state": final}).json["moves"] == []
    problem(post(client, "/v1/games/caesar/play", {"state": final, "move": "L40@HU-HC"}), 422, "game-over")


@pytest.mark.parametrize("player", ["caesar", "pompey"])
def test_the_view_shows_only_what_the_player_may_see(client, player: str) -> None:
    state = game.play(start(), "L40@HU-HC =S51")["state"]
    opponent = "pompey" if player == "caesar" else "caesar"
    view = post(client, "/v1/games/caesar/view", {"state": state, "player": player}).json
    assert view["hands"] == {player: state["hands"][player]}
    assert view["hand_sizes"] == {"caesar": 2, "pompey": 2}
    assert view["bag_sizes"] == {p: len(state["bags"][p]) for p in ("caesar", "pompey")}
    assert "rng" not in view and "bags" not in view and opponent not in view["hands"]
    text = orjson.dumps(view).decode()
    assert state["rng"]["seed"] not in text
    hidden = [t for t in state["hands"][opponent] if t not in state["hands"][player]]
    placed = {b["token"] for b in state["borders"].values() if b}
    for token in hidden:
        if token not in placed:
            assert f'"{token}"' not in text
    assert view["borders"] == state["borders"] and view["markers"] == state["markers"]


def test_view_problems(client) -> None:
    body = problem(post(client, "/v1/games/caesar/view", {"state": start(), "player": "crassus"}), 422, "unknown-player")
    assert body["players"] == ["caesar", "pompey"] and body["player"] == "crassus"
    problem(post(client, "/v1/games/caesar/view", {"state": start()}), 400, "malformed-request")
    problem(post(client, "/v1/games/caesar/view", {"state": start() | {"rules": "caesar@9"}, "player": "caesar"}), 422, "invalid-state")
    # A game without hidden information shows its whole state.
    iago = referee.game("iago").new()
    assert post(client, "/v1/games/iago/view", {"state": iago, "player": "white"}).json == iago
    problem(post(client, "/v1/games/iago/view", {"state": iago, "player": "caesar"}), 422, "unknown-player")


def change(state: dict, path: str, value) -> dict:
    state = orjson.loads(orjson.dumps(state))
    *parents, last = path.split(".")
    target = state
    for key in parents:
        target = target[key]
    target[last] = value
    return state


@pytest.mark.parametrize(("path", "value", "field", "needle"), [
    ("rules", "caesar@2", "rules", "unknown rules version"),
    ("to_move", "pompey", "to_move", "cannot be to move"),
    ("to_move", None, "to_move", "nobody is to move"),
    ("hands.caesar", ["S60", "L40"], "hands.caesar", "token order"),
    ("hands.caesar", ["L40", "S60", "N60"], "bags.caesar", "in all"),
    ("bags.pompey", [], "bags.pompey", "in all"),
    ("markers.caesar", 2, "markers.caesar", "not 2 placed"),
    ("senate.pompey", 1, "senate", "Senate tokens have left"),
    ("hand_limits.caesar", 1, "hand_limits.caesar", "at least 2"),
    ("provinces.HU.bonus", None, "provinces.HU.bonus", "not closed"),
    ("provinces.HU.control", "caesar", "provinces.HU.control", "not closed"),
    ("provinces.IT.bonus", "might", "provinces.IT.bonus", "Senate"),
    ("italia_dashed", "caesar", "italia_dashed", "controls IT"),
    ("borders.HU-HC", {"player": "caesar", "token": "S60", "faces": {"HU": 6, "HC": 0}, "flipped": False, "marker": None}, "borders.HU-HC.token", "shield border"),
    ("rng.seed", "xyz", "rng", "64 hexadecimal"),
    ("extra", 1, "state", "unknown field"),
    ("borders", {}, "borders", "missing"),
])
def test_untrusted_states_are_refused_precisely(client, path: str, value, field: str, needle: str) -> None:
    body = problem(post(client, "/v1/games/caesar/legal-moves", {"state": change(start(), path, value)}), 422, "invalid-state")
    assert body["field"] == field and needle in body["detail"], body
