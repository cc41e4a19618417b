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
from referee import app as app_module
from referee import api, logs
from referee.app import create_app
from referee.body import BODY_KEY
from referee.logs import REQUEST_ID_KEY
from referee.codes import CODES
from referee.settings import Settings
from inprocess import post, problem


# ------------------------------------------------------------------ games


def test_games_lists_every_game(client) -> None:
    games = client.get("/v1/games").json["games"]
    assert [g["name"] for g in games] == ["iago", "isaac", "hypnosia", "caesar"]
    assert games[0]["rules"] == "iago@1" and games[0]["variants"] == ["standard", "loose", "simple"]


def test_unknown_game(client) -> None:
    body = problem(client.get("/v1/games/chess"), 404, "unknown-game")
    assert body["known"] == ["iago", "isaac", "hypnosia", "caesar"]
    problem(post(client, "/v1/games/chess/play", {"state": {}, "move": "e4"}), 404, "unknown-game")


# ------------------------------------------------------------------ every game: one table of states and moves


def case_of(name: str) -> dict:
    """A game's start (seed 7), one of its legal moves and the state after it, a well-formed move its rules
    refuse there (with the rule), a malformed one, a seated player not to move, a finished state and a
    whole seeded record: built from the engine's own `new`, `legal_moves` and `play`."""
    one = referee.game(name)
    start = one.new(seed=7)
    legal = one.legal_moves(start)
    to_move = one.outcome(start)["to_move"]
    seated = [p for p in one.info()["players"] if p in one.outcome(start)["scores"]]
    illegal = {"iago": ("e5", "centre-needs-flip"), "isaac": ("pass", "must-place"), "hypnosia": ("pass", "roll-first")}.get(name)
    if name == "caesar":  # a legal placement made with a token of the bag instead of the hand
        token = next(t for t in start["bags"][to_move] if t not in start["hands"][to_move])
        illegal = (token + legal[0][3:], "token-not-in-hand")
    rng, state, record = random.Random(name), start, []
    while moves := one.legal_moves(state):
        record.append(rng.choice(moves))
        state = one.play(state, record[-1])["state"]
    return {"game": one, "start": start, "legal": legal[0], "illegal": illegal, "malformed": "zz?",
            "other": next(p for p in seated if p != to_move), "finished": state, "record": record}


CASES = {name: case_of(name) for name in referee.games()}


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
        {"state": start, "move": case["illegal"][0]},
        {"state": {"rules": f"{name}@1"}, "move": case["legal"]},
        {"state": start},
        "not an item",
        {"state": start, "move": case["legal"], "player": case["other"]},
    ]
    body = post(client, f"/v1/games/{name}/batch", items).json
    results = body["results"]
    assert body["count"] == 6 and [r["index"] for r in results] == list(range(6))
    assert results[0] == {"index": 0, "legal": True}
    assert results[1]["legal"] is False and results[1]["reason"]["rule"] == case["illegal"][1]
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


@pytest.mark.parametrize("name", ["hypnosia", "caesar"])
def test_a_seed_is_a_number_or_the_hexadecimal_a_state_carries(client, name: str) -> None:
    by_number = post(client, f"/v1/games/{name}/new", {"seed": 7}).json
    assert by_number["state"]["rng"]["seed"] == SEED_7_HEX
    assert post(client, f"/v1/games/{name}/new", {"seed": SEED_7_HEX}).json == by_number
    assert post(client, f"/v1/games/{name}/new", {"seed": SEED_7_HEX.upper()}).json == by_number
    largest = post(client, f"/v1/games/{name}/new", {"seed": 2**53 - 1}).json["state"]["rng"]["seed"]
    assert largest == (2**53 - 1).to_bytes(32, "little").hex()


@pytest.mark.parametrize("name", ["hypnosia", "caesar"])
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


def spellings_answered(client, path: str, body: bytes, normal=lambda data: data) -> set[tuple]:
    """The distinct answers (status, headers, `normal` of the body) to `body` sent with three spellings
    of the JSON media type and one request id: the exact spelling, which `MoveRoutes` answers before
    Flask on `play` and `validate`, and two that reach the Flask views."""
    answers = [
        client.post(path, data=body, content_type=content_type, headers={"X-Request-ID": "one-id"})
        for content_type in ("application/json", "application/json; charset=utf-8", "Application/JSON")
    ]
    return {(answer.status, tuple(sorted(answer.headers.items())), normal(answer.data)) for answer in answers}


#: Seal keys and players' secrets of the spelling test (test values, never used elsewhere).
SPELLING_KEYS = "k1:dGVzdC1zZWNyZXQtb25lLXRlc3Qtc2VjcmV0LW9uZS0"
PLAYER_SECRETS = {"caesar": "caesar's own secret, 16+ chars", "pompey": "pompey's own secret, 16+ chars"}


@pytest.mark.parametrize("keys", ["none", "sealed", "opaque"])
@pytest.mark.parametrize("name", referee.games())
def test_json_as_clients_spell_it(name: str, keys: str) -> None:
    """Any spelling of `application/json` gets the same answer, byte for byte, whether the move is legal
    or not, the state broken, the envelope wrong or the body not JSON; without keys, with seals, and
    with opaque states (Caesar!'s committed, played with the mover's secret)."""
    seal_keys = None if keys == "none" else referee.SealKeys(SPELLING_KEYS, opaque=[name] if keys == "opaque" else [])
    client = create_app(Settings(access_log=False, seal_keys=seal_keys)).test_client()
    game = referee.game(name, seal_keys=seal_keys)
    commitments = {player: referee.commitment(secret) for player, secret in PLAYER_SECRETS.items()}
    state = game.new(seed=None if game.committed else 3, commitments=commitments)
    secret = PLAYER_SECRETS.get(game.outcome(state)["to_move"]) if game.committed else None
    move = game.legal_moves(state, secret=secret)[0]
    envelope = {"state": state, "move": move} | ({"secret": secret} if secret else {})
    bodies = [orjson.dumps(body) for body in (
        envelope,
        envelope | {"move": "not a move"},
        envelope | {"state": {**state, "to_move": "nobody"}},
        {"state": state},
        envelope | {"extra": 1},
    )] + [b'{"state":', b"[]", b" \n"]
    def opened(data: bytes) -> bytes:
        """An answer with its opaque state (encrypted with a fresh nonce each time) as what it opens to."""
        answer = orjson.loads(data)
        state = answer.get("state") if isinstance(answer, dict) else None
        if isinstance(state, dict) and "opaque" in state:
            answer["state"] = {"length": len(state["opaque"]), "outcome": game.outcome(state)}
        return orjson.dumps(answer)

    for endpoint in ("play", "validate"):
        for body in bodies:
            answers = spellings_answered(client, f"/v1/games/{name}/{endpoint}", body, opened)
            assert len(answers) == 1, (endpoint, body[:60], answers)


def test_move_routes_take_only_the_plain_form() -> None:
    """`MoveRoutes` answers a plain `play` or `validate` itself and passes every other request on (so
    the spellings above are answered both ways)."""
    passed_on: list[str] = []

    def app(environ: dict, start_response) -> list[bytes]:
        passed_on.append(environ["PATH_INFO"])
        start_response("204 No Content", [])
        return []

    game = referee.Game("iago")
    state = game.new()
    body = orjson.dumps({"state": state, "move": game.legal_moves(state)[0]})
    routes = api.MoveRoutes(app, api.engines())

    def call(path: str = "/v1/games/iago/play", method: str = "POST", content_type: str = "application/json",
             data: bytes | None = body) -> str:
        statuses = []
        environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "CONTENT_TYPE": content_type, BODY_KEY: data}
        answer = b"".join(routes(environ, lambda status, headers, exc_info=None: statuses.append(status)))
        return f"{statuses[0]} {answer[:12]!r}"

    assert call() == "200 OK b'{\"state\":{\"r'"
    assert call("/v1/games/iago/validate") == "200 OK b'{\"legal\":tru'"
    assert call(data=b'{"state":{}}').startswith("400 BAD REQUEST b'{\"type\":\"urn")
    assert passed_on == []
    passed = [call(path="/v1/games/chess/play"), call(path="/v1/games/iago/new"), call(path="/v1/games/iago/play/"),
              call(method="PUT"), call(content_type="application/json; charset=utf-8"), call(data=b" \r\n"),
              call(data=b""), call(data=None)]
    assert passed == ["204 No Content b''"] * 8 and len(passed_on) == 8


def test_move_routes_answer_an_unexpected_error_as_the_app_does() -> None:
    """An engine call that fails unexpectedly is a 500 `internal-error` without its details, and its log
    line carries the request id the answer gives (there is no Flask request to take it from)."""

    class Broken:
        def play_json(self, body: bytes) -> bytes:
            raise ZeroDivisionError("the details stay in the logs")

        validate_json = play_json

    routes = api.MoveRoutes(lambda environ, start_response: [], {"iago": Broken()})
    environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/v1/games/iago/play", "CONTENT_TYPE": "application/json",
               BODY_KEY: b"{}", REQUEST_ID_KEY: "the-request"}
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.JsonFormatter())
    logger = logging.getLogger("referee.http")
    logger.addHandler(handler)
    try:
        statuses: list[str] = []
        answer = b"".join(routes(environ, lambda status, headers, exc_info=None: statuses.append(status)))
    finally:
        logger.removeHandler(handler)
    body = orjson.loads(answer)
    assert statuses[0].startswith("500") and body["code"] == "internal-error"
    assert body["request_id"] == "the-request" and "details" not in body["detail"]
    line = orjson.loads(stream.getvalue().splitlines()[0])
    assert line["request_id"] == "the-request" and "ZeroDivisionError" in line["exception"]


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
    assert client.get("/healthz").json == {"status": "ok"}
    assert client.get("/readyz").json == {"status": "ready", "games": ["iago", "isaac", "hypnosia", "caesar"]}
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
    refused = 'referee_requests_total{endpoint="unmatched",method="POST",status="405"}'
    assert counted(text, refused) == counted(before, refused) + 1
    latency = 'referee_request_seconds_count{endpoint="/healthz"}'
    assert counted(text, latency) == counted(before, latency) + 3
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
