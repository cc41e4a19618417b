"""The HTTP service: every endpoint and every problem code for each of the four games (a per-game table of
states and moves built from the engine's own `new` and `legal_moves`), and hostile input to every game's
routes (never a 5xx). Each game's rules-specific answers are in test_<game>_http.py."""

from __future__ import annotations

import io
import logging
import random

import orjson
import pytest
import yaml

import referee
from referee.http import app as app_module
from referee.http import offload
from referee.http.api import ENGINES_KEY, THINKERS_KEY
from referee.http.app import create_app
from referee.codes import CODES
from referee.http.settings import Settings
from helpers.games import illegal_at_start
from helpers.inprocess import post, problem


# ------------------------------------------------------------------ games


def test_games_lists_every_game(client) -> None:
    games = client.get("/v1/games").json["games"]
    assert [g["name"] for g in games] == referee.games()
    assert games[0]["rules"] == "iago@1" and games[0]["variants"] == ["standard", "loose", "simple"]


def test_unknown_game_is_one_answer_from_every_entry_point(client) -> None:
    """`unknown-game` is worded once (the engine's error type): the same code, detail and facts from a
    route of each owner (Flask's game info, batches and replays; the native move routes), the Python
    binding, and an archive's record."""
    expected = {"code": "unknown-game", "detail": f'unknown game "chess"; known games: {", ".join(referee.games())}',
                "game": "chess", "known": referee.games()}
    answers = [
        client.get("/v1/games/chess"),
        post(client, "/v1/games/chess/play", {"state": {}, "move": "e4"}),
        post(client, "/v1/games/chess/validate", {"state": {}, "move": "e4"}),
        post(client, "/v1/games/chess/batch", [{"state": {}, "move": "e4"}]),
        post(client, "/v1/games/chess/replay", {"moves": []}),
    ]
    for answer in answers:
        body = problem(answer, 404, "unknown-game")
        assert {key: body[key] for key in expected} == expected
        assert set(body) - set(expected) == {"type", "title", "status", "request_id"}
    with pytest.raises(referee.UnknownGame) as caught:
        referee.game("chess")
    assert caught.value.as_reason() == expected
    output = referee.replay_records(orjson.dumps({"game": "chess", "moves": []}) + b"\n")
    assert orjson.loads(output)["error"] == expected


# ------------------------------------------------------------------ every game: one table of states and moves


def case_of(name: str) -> dict:
    """A game's start (seed 7), one of its legal moves and the state after it, a well-formed move its rules
    refuse there with the rule (None where a game has none, helpers.games), a malformed one, a seated player not to move, a finished state and a
    whole seeded record: built from the engine's own `new`, `legal_moves` and `play`."""
    one = referee.game(name)
    start = one.new(seed=7)
    legal = one.legal_moves(start)
    to_move = one.outcome(start)["to_move"]
    seated = [p for p in one.info()["players"] if p in one.outcome(start)["scores"]]
    illegal = illegal_at_start(name, start)
    rng, state, record = random.Random(name), start, []
    while moves := one.legal_moves(state):
        record.append(rng.choice(moves))
        state = one.play(state, record[-1])["state"]
    return {"game": one, "start": start, "legal": legal[0], "illegal": illegal, "malformed": "zz?",
            "other": next(p for p in seated if p != to_move), "finished": state, "record": record}


CASES = {name: case_of(name) for name in referee.games()}
#: The games that draw, whose states carry their generator's seed.
CHANCE = [name for name in referee.games() if referee.game(name).info()["chance"]]


@pytest.mark.parametrize("name", referee.games())
def test_game_info_names_its_rules_players_and_setups(client, name: str) -> None:
    info = client.get(f"/v1/games/{name}").json
    one = CASES[name]["game"]
    assert info == one.info() and info["name"] == name and info["rules"] == one.rules_version
    assert CASES[name]["start"]["rules"] == one.rules_version


@pytest.mark.parametrize("name", referee.games())
def test_new_answers_the_seeded_state_its_position_and_outcome(client, name: str) -> None:
    one, start = CASES[name]["game"], CASES[name]["start"]
    body = post(client, f"/v1/games/{name}/new", {"seed": 7}).json
    assert body == {"state": start, "position": one.position(start), "outcome": one.outcome(start)}
    assert one.parse_position(body["position"]) == start


@pytest.mark.parametrize("name", referee.games())
def test_legal_moves_and_play_answer_as_the_engine(client, name: str) -> None:
    case = CASES[name]
    one, start = case["game"], case["start"]
    listed = post(client, f"/v1/games/{name}/legal-moves", {"state": start}).json
    assert listed["moves"] == one.legal_moves(start) and listed["count"] == len(listed["moves"]) > 0
    body = post(client, f"/v1/games/{name}/play", {"state": start, "move": case["legal"]}).json
    assert body == one.play(start, case["legal"])
    assert post(client, f"/v1/games/{name}/legal-moves", {"state": body["state"]}).status_code == 200
    assert post(client, f"/v1/games/{name}/validate", {"state": start, "move": case["legal"]}).json == {"legal": True}


@pytest.mark.parametrize("name", referee.games())
def test_illegal_and_malformed_moves_are_422_in_play_and_verdicts_in_validate(client, name: str) -> None:
    case = CASES[name]
    if case["illegal"] is not None:  # a game may refuse no well-formed move at its start
        move, rule = case["illegal"]
        body = problem(post(client, f"/v1/games/{name}/play", {"state": case["start"], "move": move}), 422, "illegal-move")
        assert body["rule"] == rule
        verdict = post(client, f"/v1/games/{name}/validate", {"state": case["start"], "move": move}).json
        assert verdict["legal"] is False and verdict["reason"]["code"] == "illegal-move" and verdict["reason"]["rule"] == rule
    problem(post(client, f"/v1/games/{name}/play", {"state": case["start"], "move": case["malformed"]}), 422, "malformed-move")
    verdict = post(client, f"/v1/games/{name}/validate", {"state": case["start"], "move": case["malformed"]}).json
    assert verdict["legal"] is False and verdict["reason"]["code"] == "malformed-move"


@pytest.mark.parametrize("name", referee.games())
def test_not_your_turn_and_game_over(client, name: str) -> None:
    case = CASES[name]
    body = {"state": case["start"], "move": case["legal"], "player": case["other"]}
    problem(post(client, f"/v1/games/{name}/play", body), 422, "not-your-turn")
    problem(post(client, f"/v1/games/{name}/play", {"state": case["finished"], "move": case["legal"]}), 422, "game-over")
    assert post(client, f"/v1/games/{name}/legal-moves", {"state": case["finished"]}).json["moves"] == []


@pytest.mark.parametrize("name", referee.games())
def test_untrusted_states_name_the_field_at_fault(client, name: str) -> None:
    start = CASES[name]["start"]
    for change, field in [({"rules": f"{name}@9"}, "rules"), ({"turn": 3}, "state")]:
        body = problem(post(client, f"/v1/games/{name}/legal-moves", {"state": start | change}), 422, "invalid-state")
        assert body["field"] == field, body
    problem(post(client, f"/v1/games/{name}/validate", {"state": {"rules": f"{name}@1"}, "move": "x"}), 422, "invalid-state")


@pytest.mark.parametrize("name", referee.games())
def test_replay_of_a_seeded_record_and_its_first_illegal_ply(client, name: str) -> None:
    case = CASES[name]
    moves = case["record"][:60]
    body = post(client, f"/v1/games/{name}/replay", {"seed": 7, "moves": moves}).json
    expected = case["game"].replay(moves, seed=7)
    assert body == expected and body["legal"] is True and body["plies"] == len(moves)
    assert (body["outcome"]["status"] == "finished") == (len(moves) == len(case["record"]))
    bad = post(client, f"/v1/games/{name}/replay", {"seed": 7, "moves": [case["legal"], case["legal"]]}).json
    assert bad["legal"] is False and (bad["ply"], bad["move"], bad["plies"]) == (1, case["legal"], 1)


@pytest.mark.parametrize("name", referee.games())
def test_batch_json_and_ndjson_keep_order_and_isolate_bad_items(client, name: str) -> None:
    case = CASES[name]
    start = case["start"]
    items = [
        {"state": start, "move": case["legal"]},
        {"state": start, "move": case["illegal"][0] if case["illegal"] else case["malformed"]},
        {"state": {"rules": f"{name}@1"}, "move": case["legal"]},
        {"state": start},
        "not an item",
        {"state": start, "move": case["legal"], "player": case["other"]},
    ]
    body = post(client, f"/v1/games/{name}/batch", items).json
    results = body["results"]
    assert body["count"] == 6 and [r["index"] for r in results] == list(range(6))
    assert results[0] == {"index": 0, "legal": True}
    if case["illegal"] is not None:
        assert results[1]["legal"] is False and results[1]["reason"]["rule"] == case["illegal"][1]
    else:  # no well-formed move refused at the start: a malformed one in its place
        assert results[1]["legal"] is False and results[1]["reason"]["code"] == "malformed-move"
    assert results[2]["error"]["code"] == "invalid-state"
    assert results[3]["error"]["code"] == "malformed-request" and results[3]["error"]["errors"][0]["field"] == "move"
    assert results[4]["error"]["code"] == "malformed-request"
    assert results[5]["reason"]["code"] == "not-your-turn"
    lines = b"".join(orjson.dumps(item) + b"\n" for item in items[:2])
    response = client.post(f"/v1/games/{name}/batch/ndjson?with_state=true", data=lines, content_type="application/x-ndjson")
    assert response.mimetype == "application/x-ndjson"
    streamed = [orjson.loads(line) for line in response.data.splitlines()]
    played = case["game"].play(start, case["legal"])
    assert streamed[0] == {"index": 0, "legal": True, **played}
    assert streamed[1]["legal"] is False and "state" not in streamed[1]
    # NDJSON sent to the JSON batch's path, as clients did before `batch/ndjson`, is answered the same.
    before = client.post(f"/v1/games/{name}/batch?with_state=true", data=lines, content_type="application/x-ndjson")
    assert before.data == response.data and before.mimetype == response.mimetype


@pytest.mark.parametrize("name", referee.games())
def test_view_for_each_seated_player(client, name: str) -> None:
    case = CASES[name]
    for player in [case["game"].outcome(case["start"])["to_move"], case["other"]]:
        body = post(client, f"/v1/games/{name}/view", {"state": case["start"], "player": player}).json
        assert body == case["game"].view(case["start"], player)
        if not case["game"].info()["hidden_information"]:
            assert body == case["start"]
    problem(post(client, f"/v1/games/{name}/view", {"state": case["start"], "player": "nobody"}), 422, "unknown-player")


def mid_game(name: str) -> dict:
    """A state a few turns into a seeded random game of `name`, with its mover deciding (not a roll)."""
    case = CASES[name]
    state, rng = case["start"], random.Random(name)
    for _ in range(6):
        state = case["game"].play(state, rng.choice(case["game"].legal_moves(state)))["state"]
    while case["game"].legal_moves(state) == ["roll"]:
        state = case["game"].play(state, "roll")["state"]
    return state


@pytest.mark.parametrize("name", referee.games())
def test_suggest_answers_as_the_engine_a_move_play_takes(client, name: str) -> None:
    """`suggest` is `game.suggest`: the same seed and simulations, the same answer (but its time), a move
    `legal-moves` lists and `play` takes; the default level's simulations when none are asked."""
    case, state = CASES[name], mid_game(name)
    body = post(client, f"/v1/games/{name}/suggest", {"state": state, "simulations": 60, "seed": 3}).json
    expected = case["game"].suggest(state, simulations=60, seed=3)
    assert {**body, "spent_ms": None} == {**expected, "spent_ms": None} and body["simulations"] == 60
    assert body["move"] in post(client, f"/v1/games/{name}/legal-moves", {"state": state}).json["moves"]
    assert post(client, f"/v1/games/{name}/play", {"state": state, "move": body["move"]}).status_code == 200
    position = case["game"].position(state)
    assert post(client, f"/v1/games/{name}/suggest", {"state": position, "level": 2, "seed": 3}).json["move"] == \
        case["game"].suggest(state, level=2, seed=3)["move"]
    default = post(client, f"/v1/games/{name}/suggest", {"state": state, "seed": 1}).json
    assert default["simulations"] == referee._core.LEVELS[referee._core.DEFAULT_LEVEL - 1] and default["seed"] == 1


@pytest.mark.parametrize("name", referee.games())
def test_suggest_refuses_as_play_does_and_past_the_bounds(client, name: str) -> None:
    case, path = CASES[name], f"/v1/games/{name}/suggest"
    start = case["start"]
    assert problem(post(client, path, {"state": start, "player": case["other"]}), 422, "not-your-turn")
    problem(post(client, path, {"state": case["finished"]}), 422, "game-over")
    problem(post(client, path, {"state": start | {"rules": f"{name}@9"}}), 422, "invalid-state")
    problem(post(client, path, {"state": start, "player": "nobody"}), 422, "unknown-player")
    settings = client.application.config["REFEREE"]
    for body, field, limit in (({"level": 9}, "level", 8), ({"level": 0}, "level", 8),
                               ({"simulations": settings.max_simulations + 1}, "simulations", settings.max_simulations),
                               ({"simulations": 0}, "simulations", settings.max_simulations),
                               ({"think_ms": settings.max_think_ms + 1}, "think_ms", settings.max_think_ms)):
        refused = problem(post(client, path, {"state": start} | body), 422, "over-budget")
        assert (refused["field"], refused["limit"]) == (field, limit), refused
    for body, field in (({"level": 2, "simulations": 30}, "simulations"), ({"seed": 2**53}, "seed"), ({"seed": -1}, "seed"),
                        ({"level": 256}, "level"), ({"simulations": 2**32}, "simulations"), ({"think_ms": -1}, "think_ms"),
                        ({"level": "2"}, "level"), ({"think_ms": 1.5}, "think_ms"), ({"extra": 1}, "extra")):
        refused = problem(post(client, path, {"state": start} | body), 400, "malformed-request")
        assert [error["field"] for error in refused["errors"]] == [field], refused


def test_suggest_refuses_another_game_s_state_as_play_does(client) -> None:
    for name in referee.games():
        other = next(one for one in referee.games() if one != name)
        state = CASES[other]["start"]
        played = post(client, f"/v1/games/{name}/play", {"state": state, "move": CASES[name]["legal"]})
        suggested = post(client, f"/v1/games/{name}/suggest", {"state": state})
        assert (suggested.status_code, suggested.json["code"], suggested.json["detail"]) == \
            (played.status_code, played.json["code"], played.json["detail"]), (name, suggested.json)


class Running:
    """A search whose `run` first calls `before(the search's and the run's arguments)`."""

    def __init__(self, search, asked, before) -> None:
        self.search, self.asked, self.before = search, asked, before
        self.simulations = search.simulations

    def run(self, **kwargs):
        self.before(self.asked | kwargs)
        return self.search.run(**kwargs)


class Recording:
    """An engine whose searches record, as they run, what they are given and what the request holds of the
    worker's memory; any other call is the real engine's."""

    def __init__(self, engine, memory) -> None:
        self.engine, self.memory, self.calls = engine, memory, []

    def __getattr__(self, name: str):
        return getattr(self.engine, name)

    def search(self, *args, **kwargs):
        return Running(self.engine.search(*args, **kwargs), kwargs,
                       lambda asked: self.calls.append((asked, self.memory.held)))


def test_a_suggest_the_engine_refuses_is_refused_before_it_waits_to_think() -> None:
    """A request the engine would refuse (a budget past the bounds, a broken state, another player) never
    asks for a thread: it could otherwise end another client's search, or wait for nothing."""
    app = create_app(Settings(access_log=False))

    class NoThread:
        def admit(self, *args, **kwargs):
            raise AssertionError("a refused request asked for a thread")

    app.config[THINKERS_KEY] = NoThread()
    state = CASES["iago"]["start"]
    for body, code in (({"state": state, "level": 9}, "over-budget"),
                       ({"state": state, "simulations": 10**6}, "over-budget"),
                       ({"state": {**state, "board": ["x"]}}, "invalid-state"),
                       ({"state": state, "player": "white"}, "not-your-turn")):
        answer = app.test_client().post("/v1/games/iago/suggest", data=orjson.dumps(body), content_type="application/json")
        assert (answer.status_code, answer.json["code"]) == (422, code), answer.json
        answer.close()


def test_suggest_always_thinks_within_the_service_s_bounds_holding_its_tree() -> None:
    """The service's bounds go to the engine, which refuses more (`over-budget`); a request without a think
    time thinks at most the service's; the tree's bytes the simulations asked may grow are taken from the
    worker's memory budget while it thinks (the search kept within them) and given back after."""
    settings = Settings(access_log=False, max_simulations=5000, max_think_ms=700, search_memory_bytes=1 << 20)
    app = create_app(settings)
    memory = app.wsgi_app.app.memory  # Observed -> Bodies, whose budget every request holds from
    recording = Recording(app.config[ENGINES_KEY]["iago"], memory)
    app.config[ENGINES_KEY] = {**app.config[ENGINES_KEY], "iago": recording}
    state = CASES["iago"]["start"]
    default = referee._core.LEVELS[referee._core.DEFAULT_LEVEL - 1]
    for body, simulations, think in (({}, default, 700), ({"simulations": 5000, "think_ms": 90}, 5000, 90),
                                     ({"level": 1}, 25, 700)):
        raw = orjson.dumps({"state": state} | body)
        answer = app.test_client().post("/v1/games/iago/suggest", data=raw, content_type="application/json")
        assert answer.status_code == 200 and answer.json["move"]
        answer.close()
        kwargs, held = recording.calls[-1]
        tree = settings.tree_bytes(simulations)
        assert tree == min(1 << 20, (simulations + 1) * referee._core.TREE_BYTES_PER_SIMULATION)
        assert (kwargs["think_ms"], kwargs["max_think_ms"], kwargs["max_simulations"], kwargs["memory"]) == \
            (think, 700, 5000, tree)
        assert held == len(raw) + tree  # the body and the tree, while it thinks
        assert memory.held == 0  # all given back once answered


def test_a_search_whose_client_must_pay_for_memory_stops_and_says_why() -> None:
    """While a search thinks, its request's hold of the worker's memory (its body and tree) can be ended for a
    lighter client's (`Hold.end`, as a full budget does): the search's stop flag is raised, so it ends at its
    next look, and the request answers the problem of a client made to pay (503, `Retry-After`)."""
    from referee.http.budget import paid

    app = create_app(Settings(access_log=False))
    memory = app.wsgi_app.app.memory
    real = app.config[ENGINES_KEY]["iago"]
    seen = {}

    class Ending:
        def __getattr__(self, name: str):
            return getattr(real, name)

        def search(self, *args, **kwargs):
            def end(asked):
                (hold,) = [hold for holds in memory.holds.values() for hold in holds]
                hold.end(paid("request bodies and answers in memory"))  # a lighter client needed the bytes
                seen["stopped"] = asked["stop"].is_set()
            return Running(real.search(*args, **kwargs), kwargs, end)

    app.config[ENGINES_KEY] = {**app.config[ENGINES_KEY], "iago": Ending()}
    answer = app.test_client().post("/v1/games/iago/suggest", data=orjson.dumps(
        {"state": CASES["iago"]["start"], "simulations": 10_000, "seed": 1}), content_type="application/json")
    body = problem(answer, 503, "service-busy")
    assert seen == {"stopped": True} and "holds the most" in body["detail"] and answer.headers["Retry-After"] == "1"
    answer.close()
    assert memory.held == 0


@pytest.mark.parametrize("name", referee.games())
def test_batch_problems(client, name: str) -> None:
    body = problem(client.post(f"/v1/games/{name}/batch", data=b'{"move": "e4"}\n{"move": \n', content_type="application/x-ndjson"), 400, "malformed-json")
    assert body["detail"].startswith("line 2 ")
    problem(post(client, f"/v1/games/{name}/batch", {"items": []}), 400, "malformed-request")
    problem(post(client, f"/v1/games/{name}/batch", [{"state": {}, "move": "e4"}] * 51), 400, "malformed-request")
    problem(client.post(f"/v1/games/{name}/batch?with_state=yes", json=[]), 400, "malformed-request")
    problem(client.post(f"/v1/games/{name}/batch", data=b"[]", content_type="text/csv"), 415, "unsupported-media-type")
    refused = problem(post(client, f"/v1/games/{name}/batch/ndjson", []), 415, "unsupported-media-type")
    assert refused["accepted"] == ["application/x-ndjson"]
    body = problem(client.post(f"/v1/games/{name}/batch/ndjson", data=b'{"move": "e4"}\n{"move": \n',
                               content_type="application/x-ndjson"), 400, "malformed-json")
    assert body["detail"].startswith("line 2 ")


# ------------------------------------------------------------------ hostile input


@pytest.mark.parametrize("name", referee.games())
@pytest.mark.parametrize("path", ["play", "validate", "legal-moves", "new", "render"])
@pytest.mark.parametrize("body", [
    b"", b"   ", b"\xff\xfe\x00", b"{", b"nul", b"[" * 2000, b'{"state": NaN}',
    b'{"a": 1}{"b": 2}', b"\xef\xbb\xbf{}",
])
def test_bodies_that_are_not_json(client, body: bytes, path: str, name: str) -> None:
    problem(client.post(f"/v1/games/{name}/{path}", data=body, content_type="application/json"), 400, "malformed-json")


STATE_OF_ROUTE = {"play": b', "move": "e4"', "validate": b', "move": "e4"', "legal-moves": b"", "view": b', "player": "black"',
                  "render": b', "legal": true'}


@pytest.mark.parametrize("name", referee.games())
@pytest.mark.parametrize("path", ["play", "validate", "legal-moves", "new", "view", "replay", "batch", "render"])
@pytest.mark.parametrize("body", [b"[" * 2000 + b"]" * 2000, b'"\\ud800"', b'{"move": "\\udc00", "state": {}}'])
def test_json_at_the_edges_is_malformed_json_on_every_route(client, body: bytes, path: str, name: str) -> None:
    """Deep nesting and lone surrogates are JSON by the grammar, but not JSON every route can read: one
    reader (the engine's) decides for every route, and the answer is the same 400 everywhere."""
    problem(client.post(f"/v1/games/{name}/{path}", data=body, content_type="application/json"), 400, "malformed-json")


@pytest.mark.parametrize("path", STATE_OF_ROUTE)
@pytest.mark.parametrize("inside", [
    b'{"x": ' * 200 + b"1" + b"}" * 200,  # deeper than the readers' 128 levels
    b'{"rules": "iago@1", "x": 1e400}',  # beyond a double
    b'{"rules": "iago@1", "x": "\\ud800"}',  # a lone surrogate
    b'{"rules": "iago@1", "penalty_claim": 1' + b"0" * 5000 + b"}",
])
def test_unreadable_json_inside_a_state_is_malformed_json_on_every_route(client, inside: bytes, path: str) -> None:
    raw = b'{"state": ' + inside + STATE_OF_ROUTE[path] + b"}"
    problem(client.post(f"/v1/games/iago/{path}", data=raw, content_type="application/json"), 400, "malformed-json")


@pytest.mark.parametrize("body", [
    [], "e4", 42, None, {"state": [], "move": "e4"}, {"state": {}, "move": 4},
    {"state": {}, "move": "e" * 300}, {"state": {}, "move": "e4", "extra": 1}, {"state": {}},
    {"state": {}, "move": "e4", "player": 7},
])
@pytest.mark.parametrize("name", referee.games())
def test_envelopes_of_the_wrong_shape(client, body, name: str) -> None:
    response = post(client, f"/v1/games/{name}/play", body)
    assert problem(response, 400, "malformed-request")["errors"]


def test_a_player_the_game_does_not_have_is_unknown_player_on_every_route(client) -> None:
    state = referee.game("iago").new()
    for path in ("play", "validate", "view", "render"):
        body = {"state": state, "player": "purple"} | ({} if path in ("view", "render") else {"move": "e4"})
        assert problem(post(client, f"/v1/games/iago/{path}", body), 422, "unknown-player")["players"] == ["black", "white"]
    batch = post(client, "/v1/games/iago/batch", [{"state": state, "move": "e4", "player": "purple"}]).json
    assert batch["results"][0]["error"]["code"] == "unknown-player"
    # A player of the game who is not to move is still the move's fault: refused by play, a verdict of validate.
    problem(post(client, "/v1/games/iago/play", {"state": state, "move": "e4", "player": "white"}), 422, "not-your-turn")
    verdict = post(client, "/v1/games/iago/validate", {"state": state, "move": "e4", "player": "white"}).json
    assert verdict["legal"] is False and verdict["reason"]["code"] == "not-your-turn"


def test_a_whole_number_written_with_a_fraction_is_an_integer_seed(client) -> None:
    """JSON Schema's integers include 7.0; the contract says `seed` is an integer."""
    whole = client.post("/v1/games/caesar/new", data=b'{"seed": 7.0}', content_type="application/json")
    assert whole.status_code == 200 and whole.json == post(client, "/v1/games/caesar/new", {"seed": 7}).json


def test_a_json_batch_that_is_not_json_or_not_an_array(client) -> None:
    problem(client.post("/v1/games/iago/batch", data=b"[{bad", content_type="application/json"), 400, "malformed-json")
    problem(client.post("/v1/games/iago/batch", data=b"[{}, tru]", content_type="application/json"), 400, "malformed-json")
    refused = problem(post(client, "/v1/games/iago/batch", {"a": 1}), 400, "malformed-request")
    assert refused["errors"][0]["field"] == "body"


#: A state's `rng.seed` of the u64 seed 7: 7 little-endian in 16 hexadecimal digits, then 48 zeros.
SEED_7_HEX = "07" + "0" * 62


@pytest.mark.parametrize("name", referee.games())
@pytest.mark.parametrize("seed", [-1, 2**53, 2**64, 10**400, 1.5, "7", True, SEED_7_HEX[:-1], SEED_7_HEX[:-1] + "1",
                                  "0x" + SEED_7_HEX[2:], "g" + SEED_7_HEX[1:]])
def test_seeds_out_of_range_or_type(client, seed, name: str) -> None:
    """A seed is a whole number every client language holds exactly (at most 2^53 - 1), or a state's
    `rng.seed` made from a 64-bit seed; anything else is refused."""
    raw = b'{"seed": ' + (str(seed).encode() if isinstance(seed, int) and not isinstance(seed, bool) else orjson.dumps(seed)) + b"}"
    response = client.post(f"/v1/games/{name}/new", data=raw, content_type="application/json")
    body = problem(response, 400, "malformed-json" if seed == 10**400 else "malformed-request")
    assert body["code"] == "malformed-json" or body["errors"][0]["field"] == "seed"


@pytest.mark.parametrize("name", CHANCE)
def test_a_seed_is_a_number_or_the_hexadecimal_a_state_carries(client, name: str) -> None:
    by_number = post(client, f"/v1/games/{name}/new", {"seed": 7}).json
    assert by_number["state"]["rng"]["seed"] == SEED_7_HEX
    assert post(client, f"/v1/games/{name}/new", {"seed": SEED_7_HEX}).json == by_number
    assert post(client, f"/v1/games/{name}/new", {"seed": SEED_7_HEX.upper()}).json == by_number
    largest = post(client, f"/v1/games/{name}/new", {"seed": 2**53 - 1}).json["state"]["rng"]["seed"]
    assert largest == (2**53 - 1).to_bytes(32, "little").hex()


@pytest.mark.parametrize("name", CHANCE)
def test_a_game_the_service_seeded_replays_from_the_seed_its_states_carry(client, name: str) -> None:
    """`new` without a seed draws 64 bits, beyond the numbers a request gives: the record replays with the
    seed the game's states carry (`rng.seed`), as it did when requests took any 64-bit number."""
    state, moves = post(client, f"/v1/games/{name}/new", {}).json["state"], []
    seed = state["rng"]["seed"]
    for _ in range(6):
        moves.append(post(client, f"/v1/games/{name}/legal-moves", {"state": state}).json["moves"][0])
        state = post(client, f"/v1/games/{name}/play", {"state": state, "move": moves[-1]}).json["state"]
    replayed = post(client, f"/v1/games/{name}/replay", {"moves": moves, "seed": seed}).json
    assert replayed["legal"] and replayed["state"] == state
    as_number = int.from_bytes(bytes.fromhex(seed[:16]), "little")
    assert referee.game(name).replay(moves, seed=as_number)["state"] == state  # the embedding API takes 64 bits


@pytest.mark.parametrize("name", referee.games())
def test_media_types_and_sizes(client, name: str) -> None:
    problem(client.post(f"/v1/games/{name}/play", data=b"{}", content_type="text/plain"), 415, "unsupported-media-type")
    problem(client.post(f"/v1/games/{name}/play", data=b"{}"), 415, "unsupported-media-type")
    huge = b'{"state": {}, "move": "' + b"e" * (300 * 1024) + b'"}'
    problem(client.post(f"/v1/games/{name}/play", data=huge, content_type="application/json"), 413, "payload-too-large")


#: How clients write the JSON media type: the move routes take each alike.
JSON_SPELLINGS = ("application/json", "application/json; charset=utf-8", "Application/JSON",
                  "APPLICATION/JSON ; charset=UTF-8")


@pytest.mark.parametrize("name", referee.games())
def test_moves_take_json_however_it_is_spelled_and_nothing_else(client, name: str) -> None:
    """`play` and `validate` answer as the engine does under every spelling of `application/json`, and
    refuse any other media type (or none) with 415 naming what they take."""
    case = CASES[name]
    one, start, move = case["game"], case["start"], case["legal"]
    body = orjson.dumps({"state": start, "move": move})
    for content_type in JSON_SPELLINGS:
        played = client.post(f"/v1/games/{name}/play", data=body, content_type=content_type)
        assert played.status_code == 200 and played.mimetype == "application/json" and played.json == one.play(start, move)
        assert played.headers["Content-Length"] == str(len(played.data))
        verdict = client.post(f"/v1/games/{name}/validate", data=body, content_type=content_type)
        assert verdict.status_code == 200 and verdict.json == {"legal": True}
    for endpoint in ("play", "validate"):
        for content_type, named in (("text/plain", "text/plain"), ("application/x-ndjson", "application/x-ndjson"),
                                    ("application/jsonx", "application/jsonx"), (None, "untyped")):
            refused = problem(client.post(f"/v1/games/{name}/{endpoint}", data=body, content_type=content_type),
                              415, "unsupported-media-type")
            assert refused["accepted"] == ["application/json"]
            assert refused["detail"] == f"the body must be application/json, not {named}"


@pytest.mark.parametrize("endpoint", ["play", "validate"])
def test_moves_refuse_as_every_route_does(client, endpoint: str) -> None:
    """The move routes' own refusals: an unknown game (before its body is looked at), a body empty or
    blank, a method they do not take (405 with `Allow`, no body for HEAD), `OPTIONS` (204 with `Allow`),
    and paths that are not theirs, each as the other routes answer them."""
    for content_type in ("application/json", "text/plain"):
        unknown = problem(client.post(f"/v1/games/chess/{endpoint}", data=b"{}", content_type=content_type),
                          404, "unknown-game")
        assert unknown["known"] == referee.games() and unknown["detail"].startswith('unknown game "chess"')
    for blank in (b"", b" \r\n\t"):
        empty = problem(client.post(f"/v1/games/iago/{endpoint}", data=blank, content_type="application/json"),
                        400, "malformed-json")
        assert empty["detail"] == "the body is empty"
    assert problem(client.post(f"/v1/games/iago/{endpoint}"), 415, "unsupported-media-type")
    for method in ("GET", "PUT", "DELETE", "PATCH"):
        refused = client.open(f"/v1/games/iago/{endpoint}", method=method)
        body = problem(refused, 405, "method-not-allowed")
        assert body["detail"] == f"{method} is not allowed on /v1/games/iago/{endpoint}"
        assert set(refused.headers["Allow"].split(", ")) == {"POST", "OPTIONS"}
    head = client.head(f"/v1/games/iago/{endpoint}")
    assert head.status_code == 405 and head.data == b"" and head.headers["Content-Type"] == "application/problem+json"
    for path in (f"/v1/games/iago/{endpoint}", f"/v1/games/chess/{endpoint}"):
        options = client.options(path)
        assert options.status_code == 204 and options.data == b"" and "Content-Type" not in options.headers
        assert set(options.headers["Allow"].split(", ")) == {"POST", "OPTIONS"}
    assert set(client.options("/v1/games/iago/new").headers["Allow"].split(", ")) == {"POST", "OPTIONS"}
    for path in (f"/v1/games/iago/{endpoint}/", f"/v1//games/iago/{endpoint}", f"/v1/games//{endpoint}",
                 f"/v1/games/iago/{endpoint}x", f"/V1/games/iago/{endpoint}"):
        assert problem(client.post(path, data=b"{}", content_type="application/json"), 404, "not-found")["detail"] == \
            f"no resource at {path}"


def test_moves_count_under_their_routes_and_unknown_games_under_one_pattern(client) -> None:
    """A known game's move counts under its path, any other name under `/v1/games/<game>/play`, and a
    method refused under the route that refuses it: the labels stay a closed set."""
    def count(series: str) -> float:
        return counted(client.get("/metrics").get_data(as_text=True), f"referee_requests_total{{{series}}}")

    series = ['endpoint="/v1/games/iago/play",method="POST",status="200"',
              'endpoint="/v1/games/<game>/play",method="POST",status="404"',
              'endpoint="/v1/games/iago/play",method="GET",status="405"',
              'endpoint="/v1/games/iago/validate",method="OPTIONS",status="204"']
    before = [count(one) for one in series]
    post(client, "/v1/games/iago/play", {"state": CASES["iago"]["start"], "move": CASES["iago"]["legal"]})
    for name in ("chess", "go", "x" * 100):
        post(client, f"/v1/games/{name}/play", {})
    client.get("/v1/games/iago/play")
    client.options("/v1/games/iago/validate")
    assert [count(one) - was for one, was in zip(series, before, strict=True)] == [1, 3, 1, 1]
    assert "x" * 100 not in client.get("/metrics").get_data(as_text=True)


def test_an_unexpected_error_is_answered_alike_by_every_route(monkeypatch) -> None:
    """A bug (here: in the call of the engine) is a 500 `internal-error` without its details, on the move
    routes as on Flask's; its log line has the traceback and the request id the answer gives."""
    app = create_app(Settings(access_log=False))
    stream = io.StringIO()
    logging.getLogger("referee").handlers[0].setStream(stream)

    def broken(call, *args, size: int, costly: bool = False):
        raise ZeroDivisionError("the details stay in the logs")

    monkeypatch.setattr(offload, "run", broken)
    state = CASES["iago"]["start"]
    for path, body in (("/v1/games/iago/play", {"state": state, "move": "e4"}), ("/v1/games/iago/validate", {"state": state, "move": "e4"}),
                       ("/v1/games/iago/legal-moves", {"state": state})):
        answer = app.test_client().post(path, data=orjson.dumps(body), content_type="application/json",
                                        headers={"X-Request-ID": "the-request"})
        body = problem(answer, 500, "internal-error")
        assert body["request_id"] == "the-request" and "details" not in body["detail"]
        line = orjson.loads(stream.getvalue().splitlines()[-1])
        assert line["request_id"] == "the-request" and line["level"] == "error"
        assert "ZeroDivisionError: the details stay in the logs" in line["exception"]


@pytest.mark.parametrize("name", referee.games())
def test_wrong_methods_and_paths(client, name: str) -> None:
    response = client.get(f"/v1/games/{name}/play")
    problem(response, 405, "method-not-allowed")
    assert "POST" in response.headers["Allow"]
    problem(client.get("/v2/anything"), 404, "not-found")


def test_internal_errors_hide_their_details(monkeypatch) -> None:
    app = create_app(Settings(access_log=False))
    monkeypatch.setattr(app_module, "self_test", lambda: 1 / 0)
    body = problem(app.test_client().get("/readyz"), 500, "internal-error")
    assert "ZeroDivision" not in body["detail"]


# ------------------------------------------------------------------ operations


def test_request_ids(client) -> None:
    assert client.get("/healthz", headers={"X-Request-ID": "abc-123"}).headers["X-Request-ID"] == "abc-123"
    replaced = client.get("/healthz", headers={"X-Request-ID": "bad id\u00e9" * 30}).headers["X-Request-ID"]
    assert len(replaced) == 32 and replaced.isalnum()


def test_health_readiness_and_not_ready(client, monkeypatch) -> None:
    assert client.get("/healthz").json == {"status": "ok", "version": referee.__version__}
    assert client.get("/readyz").json == {"status": "ready", "games": referee.games()}
    monkeypatch.setattr(app_module, "self_test", lambda: ["iago"])
    assert problem(client.get("/readyz"), 503, "not-ready")["games"] == ["iago"]


def counted(text: str, series: str) -> float:
    """The value of one series in a Prometheus exposition, 0 when it is not there."""
    return next((float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(series + " ")), 0.0)


def test_metrics_count_requests_by_route_method_and_status(client) -> None:
    before = client.get("/metrics").get_data(as_text=True)
    for _ in range(3):
        client.get("/healthz")
    client.post("/healthz")
    text = client.get("/metrics").get_data(as_text=True)
    requests = 'referee_requests_total{endpoint="/healthz",method="GET",status="200"}'
    assert counted(text, requests) == counted(before, requests) + 3
    refused = 'referee_requests_total{endpoint="/healthz",method="POST",status="405"}'
    assert counted(text, refused) == counted(before, refused) + 1
    latency = 'referee_request_seconds_count{endpoint="/healthz"}'
    assert counted(text, latency) == counted(before, latency) + 4  # the 405 too, under its route
    buckets = [line for line in text.splitlines() if line.startswith('referee_request_seconds_bucket{endpoint="/healthz",')]
    assert buckets[-1].startswith('referee_request_seconds_bucket{endpoint="/healthz",le="+Inf"} ')
    counts = [float(line.rsplit(" ", 1)[1]) for line in buckets]
    assert counts == sorted(counts) and counts[-1] == counted(text, latency)


def test_openapi_and_docs_pages(client) -> None:
    spec = yaml.safe_load(client.get("/openapi.yaml").data)
    page = client.get("/docs")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    for path in spec["paths"]:
        assert f"<code>{path}</code>" in html
    assert "http://" not in html.replace("http://localhost", "") and "https://" not in html  # local assets only
    for code in CODES:
        assert f"<code>{code}</code>" in html


def test_json_access_logs_carry_the_request_id() -> None:
    app = create_app(Settings(access_log=True))
    stream = io.StringIO()
    logging.getLogger("referee").handlers[0].setStream(stream)
    response = app.test_client().get("/healthz", headers={"X-Request-ID": "log-me"})
    entry = orjson.loads(stream.getvalue().splitlines()[-1])
    assert response.status_code == 200
    assert entry["request_id"] == "log-me" and entry["status"] == 200 and entry["path"] == "/healthz"
    assert entry["level"] == "info" and entry["duration_ms"] >= 0
