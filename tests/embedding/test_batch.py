"""The batch paths: JSON bytes judged natively (embedding and HTTP), streamed NDJSON, game records."""

from __future__ import annotations

import random

import orjson
import pytest
from hypothesis import given, strategies as st
from marshmallow import ValidationError

import referee
from helpers.properties import Branches, examples
from helpers.records import (assert_records_cover_every_game_and_chance, assert_result_is_the_models,
                     expected_by_game_replay, random_records)
from referee.http.api import longer_line
from referee.http.app import create_app
from referee.http.schemas import BatchItem, MoveRequest
from referee.http.settings import Settings

game = referee.game("iago")
START = game.new()
NDJSON = "application/x-ndjson"
CLIENT = create_app(Settings(access_log=False)).test_client()


def ndjson(items) -> bytes:
    return b"".join(orjson.dumps(item) + b"\n" for item in items)


def results_of(data: bytes) -> list[dict]:
    return [orjson.loads(line) for line in data.splitlines()]


# ------------------------------------------------------------------ one envelope check, two homes

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2),
    max_leaves=4,
)
items = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {},
        optional={
            "state": st.one_of(st.just(START), json_values),
            "move": st.one_of(st.sampled_from(["e4", "", "x" * 257, "é" * 256]), json_values),
            "player": st.one_of(st.sampled_from(["black", "", "p" * 65]), json_values),
            # a secret's bounds, held to the schema's (`referee._game.MIN_SECRET_CHARS`, ...)
            "secret": st.one_of(st.sampled_from(["s" * 15, "s" * 16, "é" * 256, "s" * 257]), json_values),
            "extra": json_values,
        },
    ),
    # good envelopes, with at most one field of the wrong shape: the branch where both checks must accept
    st.fixed_dictionaries(
        {"state": st.just(START) | st.dictionaries(st.text(max_size=3), json_values, max_size=2),
         "move": st.sampled_from(["e4", "e5", "zz", "x" * 256, "é" * 64])},
        optional={"player": st.sampled_from(["black", "white", "p" * 64]) | st.none() | json_values,
                  "secret": st.sampled_from(["s" * 16, "é" * 256, "s" * 15]) | st.none()},
    ),
)


def schema_fields(schema, item) -> set[str]:
    """The fields a marshmallow schema refuses in an item (none when it accepts it)."""
    try:
        schema.load(item)
        return set()
    except ValidationError as error:
        return set(error.messages)


def test_the_native_item_check_agrees_with_the_marshmallow_schema() -> None:
    """The native batch checks item envelopes itself (no Python objects on the fast path); it must accept
    and refuse exactly what the service's BatchItem schema does, naming the same fields."""
    branches = Branches()

    @examples(300)
    @given(item=items)
    def check(item) -> None:
        [result] = results_of(game.validate_batch_ndjson(ndjson([item])))
        native_fields = {error["field"] for error in result.get("error", {}).get("errors", [])}
        expected = schema_fields(BatchItem(), item) if isinstance(item, dict) else {"item"}
        assert native_fields == expected
        branches("refused" if expected else "accepted")

    check()
    branches.assert_share("accepted", 0.15)


def test_the_native_play_and_validate_bodies_agree_with_the_marshmallow_schema() -> None:
    """`play` and `validate` hand the body's bytes to the engine, which checks the envelope natively: the
    same refusals as the MoveRequest schema, naming the same fields, in the same problem."""
    branches = Branches()

    @examples(300)
    @given(body=items, path=st.sampled_from(["play", "validate"]))
    def check(body, path) -> None:
        agree(body, path)
        branches("accepted" if isinstance(body, dict) and not schema_fields(MoveRequest(), body) else "refused")

    check()
    branches.assert_share("accepted", 0.15)


def agree(body, path) -> None:
    response = CLIENT.post(f"/v1/games/iago/{path}", data=orjson.dumps(body), content_type="application/json")
    expected = schema_fields(MoveRequest(), body) if isinstance(body, dict) else {"body"}
    if expected:
        problem = response.get_json()
        assert (response.status_code, problem["code"]) == (400, "malformed-request")
        assert {error["field"] for error in problem["errors"]} == expected
        assert problem["detail"] == "; ".join(f"{e['field']}: {e['message']}" for e in problem["errors"])
    else:  # a good envelope: what follows is the engine's answer about the state and the move
        assert response.status_code in (200, 422)
        assert response.get_json().get("code") != "malformed-request"


# ------------------------------------------------------------------ embedding

def test_json_batches_in_process_keep_order_and_framing() -> None:
    batch = [{"state": START, "move": "e4"}, {"state": START, "move": "e5"}, 7, {"state": {}, "move": "e4"}]
    as_array = orjson.loads(game.validate_batch_json(orjson.dumps(batch)))
    as_lines = results_of(game.validate_batch_ndjson(ndjson(batch)))
    assert as_array == as_lines
    assert [r["index"] for r in as_array] == [0, 1, 2, 3]
    assert as_array[0] == {"index": 0, "legal": True}
    assert as_array[1]["reason"]["rule"] == "centre-needs-flip"
    assert as_array[2]["error"]["code"] == "malformed-request"
    assert as_array[3]["error"]["code"] == "invalid-state"
    # The same verdicts as the object path.
    objects = game.validate_batch([item for item in batch if isinstance(item, dict)])
    assert objects[0] == {"legal": True} and objects[1]["reason"] == as_array[1]["reason"]
    with pytest.raises(ValueError, match="line 2"):
        game.validate_batch_ndjson(b'{"state": {}, "move": "e4"}\n{oops\n')
    with pytest.raises(ValueError, match="array"):
        game.validate_batch_json(b'{"state": {}, "move": "e4"}')


def test_play_batch_gives_next_states() -> None:
    [played, refused] = game.play_batch([{"state": START, "move": "e4"}, {"state": START, "move": "e5"}])
    assert played["legal"] is True and played["state"] == game.play(START, "e4")["state"]
    assert refused["legal"] is False


def test_records_of_any_game_replay_in_order() -> None:
    records = [
        {"game": "iago", "moves": ["e4"], "id": 1},
        {"game": "iago", "moves": ["e4", "e5"], "id": "two"},
        {"game": "nope", "moves": []},
        {"game": "iago", "moves": "e4"},
    ]
    results = results_of(referee.replay_records(ndjson(records) + b"{broken\n", first_record=5))
    assert [r["record"] for r in results] == [5, 6, 7, 8, 9]
    assert results[0]["legal"] is True and results[0]["id"] == 1
    assert results[0]["position"] == game.play(START, "e4")["position"]
    assert results[1]["legal"] is False and results[1]["ply"] == 1 and results[1]["move"] == "e5"
    assert results[2]["error"]["code"] == "unknown-game"
    assert results[3]["error"]["code"] == "malformed-record"
    assert results[4]["error"]["code"] == "malformed-record"


@pytest.mark.slow
def test_records_of_every_game_with_seeds_options_and_chance_replay_as_game_replay_and_the_models() -> None:
    records = random_records(160)
    assert_records_cover_every_game_and_chance(records)
    results = results_of(referee.replay_records(ndjson(records)))
    assert [r["record"] for r in results] == list(range(1, len(records) + 1))
    assert {r["legal"] for r in results} == {True, False}
    for result, record in zip(results, records):
        assert result["id"] == record["id"] and result["game"] == record["game"]
        assert {key: result[key] for key in expected_by_game_replay(record)} == expected_by_game_replay(record)
        assert_result_is_the_models(result, record)


# ------------------------------------------------------------------ HTTP streaming

@pytest.fixture()
def stream_client():
    app = create_app(Settings(access_log=False, max_body_bytes=64 * 1024, max_stream_items=30_000, max_line_bytes=8192))
    return app.test_client()


def test_a_long_ndjson_stream_is_answered_in_order_beyond_the_body_limit(stream_client) -> None:
    moves = ["e4", "e5", "d4"]
    body = ndjson({"state": START, "move": moves[i % 3]} for i in range(12_000))
    assert len(body) > 2 * (1 << 20)  # several chunks, and far beyond the 64 KiB body limit
    response = stream_client.post("/v1/games/iago/batch", data=body, content_type=NDJSON)
    assert response.status_code == 200 and response.mimetype == NDJSON
    results = results_of(response.data)
    assert [r["index"] for r in results] == list(range(12_000))
    expected = [r["legal"] for r in game.validate_batch([{"state": START, "move": m} for m in moves])]
    assert [r["legal"] for r in results] == expected * 4000


def test_a_malformed_line_after_the_first_chunk_ends_the_stream_with_a_problem(stream_client) -> None:
    good = ndjson({"state": START, "move": "e4"} for _ in range(6_000))
    response = stream_client.post("/v1/games/iago/batch", data=good + b"{nope\n" + good, content_type=NDJSON)
    assert response.status_code == 200
    *results, problem = results_of(response.data)
    assert len(results) == 6_000 and all(r["legal"] for r in results)
    assert problem["code"] == "malformed-json" and problem["line"] == 6_001 and problem["status"] == 400


def test_stream_limits(stream_client) -> None:
    too_long = ndjson([{"state": START, "move": "e4"}]) + b'{"pad": "' + b"x" * 9000 + b'"}\n'
    response = stream_client.post("/v1/games/iago/batch", data=too_long, content_type=NDJSON)
    assert response.status_code == 413 and response.json["line"] == 2
    # A long line that straddles the first chunk's end is still numbered right.
    head = ndjson({"state": START, "move": "e4"} for _ in range(4_000))
    straddling = head + b'{"pad": "' + b"x" * ((1 << 20) - len(head) + 9000) + b'"}\n'
    response = stream_client.post("/v1/games/iago/batch", data=straddling, content_type=NDJSON)
    assert response.status_code == 413 and response.json["line"] == 4_001
    many = ndjson({"state": START, "move": "e4"} for _ in range(30_001))
    response = stream_client.post("/v1/games/iago/batch", data=many, content_type=NDJSON)
    *results, problem = results_of(response.data)
    assert len(results) == 30_000 and problem["code"] == "malformed-request"
    response = stream_client.post("/v1/games/iago/batch", data=b"\n\n", content_type=NDJSON)
    assert response.status_code == 400 and response.json["code"] == "malformed-json"


@given(lengths=st.lists(st.integers(0, 90), max_size=12), limit=st.integers(1, 40), last_newline=st.booleans())
def test_the_first_line_too_long_is_the_one_a_split_finds(lengths, limit, last_newline) -> None:
    """A stream's chunk is checked for a line longer than the limit without cutting it into lines: the
    line found is the first that `bytes.split` gives longer than the limit (`\\r` counted), or none."""
    chunk = b"\n".join(b"x" * (length - 1) + b"\r" if length else b"" for length in lengths)
    chunk += b"\n" if last_newline and lengths else b""
    lines = chunk.split(b"\n")[: len(lengths)]
    expected = next((number for number, line in enumerate(lines, 1) if len(line) > limit), None)
    assert longer_line(chunk, limit) == expected


# ------------------------------------------------------------------ the byte paths and the object paths


def outcome_of(call, *args):
    """A call's answer, or the code, detail and facts of the engine error it raised."""
    try:
        answer = call(*args)
    except referee.RefereeError as error:
        return error.as_reason()
    return orjson.loads(answer) if isinstance(answer, bytes) else answer


def as_item(outcome: dict) -> dict:
    """A validate outcome as a batch item's result: a verdict as it is, a request fault as its `error`."""
    return outcome if "legal" in outcome else {"error": outcome}


@pytest.mark.parametrize("name", referee.games())
def test_the_byte_paths_answer_as_the_object_paths_in_every_game(name) -> None:
    """`play_json`/`validate_json` (the HTTP hot path) and `validate_batch` (JSON both ways) give what
    `play`/`validate` give on Python objects, at every ply of seeded games of every game, for legal moves,
    illegal ones and players who are not to move or not in the game."""
    game, rng = referee.game(name), random.Random(name)
    engine = game._engine
    for seed in range(3):
        state = game.new(seed=seed)
        for _ in range(40):
            legal = game.legal_moves(state)
            if not legal:
                break
            players = [None, game.outcome(state).get("to_move"), "nobody"]
            tries = [(move, rng.choice(players)) for move in rng.sample(legal, min(3, len(legal))) + ["zz", "a1"]]
            bodies = [{"state": state, "move": move, "player": player} for move, player in tries]
            for body in bodies:
                data = orjson.dumps(body)
                args = (body["state"], body["move"], body["player"])
                assert outcome_of(engine.validate_json, data) == outcome_of(engine.validate, *args)
                assert outcome_of(engine.play_json, data) == outcome_of(engine.play, *args)
            assert game.validate_batch(bodies) == [as_item(outcome_of(engine.validate, b["state"], b["move"], b["player"]))
                                                   for b in bodies]
            state = game.play(state, rng.choice(legal))["state"]
