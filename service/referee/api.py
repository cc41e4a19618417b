"""The `/v1` blueprint: one set of routes serves every game through its native engine."""

from __future__ import annotations

from typing import Any, Callable

import orjson
from flask import Blueprint, Response, current_app, request
from marshmallow import Schema, ValidationError

from referee import _core
from referee.errors import RefereeError
from referee.problems import Problem
from referee.schemas import BatchItem, LegalMovesRequest, MoveRequest, NewRequest, ReplayRequest, malformed

v1 = Blueprint("v1", __name__, url_prefix="/v1")

ENGINES: dict[str, _core.Engine] = {name: _core.Engine(name) for name in _core.games()}
#: Static game descriptions, built once: they never change while the process runs.
INFO: dict[str, dict[str, Any]] = {name: engine.info() for name, engine in ENGINES.items()}
JSON = "application/json"
NDJSON = "application/x-ndjson"

_new_request = NewRequest()
_legal_moves_request = LegalMovesRequest()
_move_request = MoveRequest()
_replay_request = ReplayRequest()
_batch_item = BatchItem()


def json_response(body: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status=status, mimetype=JSON)


def engine_of(game: str) -> _core.Engine:
    engine = ENGINES.get(game)
    if engine is None:
        raise Problem("unknown-game", f"unknown game {game!r}; known games: {', '.join(ENGINES)}", known=list(ENGINES))
    return engine


def body_bytes(*media_types: str) -> bytes:
    if request.mimetype not in media_types:
        raise Problem(
            "unsupported-media-type",
            f"the body must be {' or '.join(media_types)}, not {request.mimetype or 'untyped'}",
            accepted=list(media_types),
        )
    data = request.get_data(cache=False)
    if not data.strip():
        raise Problem("malformed-json", "the body is empty")
    return data


def parse_json(data: bytes, where: str = "the body") -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as error:
        raise Problem("malformed-json", f"{where} is not valid JSON: {error}") from None


def load(schema: Schema) -> dict[str, Any]:
    """The JSON object body, checked against the envelope schema."""
    body = parse_json(body_bytes(JSON))
    if not isinstance(body, dict):
        raise Problem.malformed("body", "not an object", "the body must be a JSON object")
    try:
        return schema.load(body)
    except ValidationError as error:
        raise Problem("malformed-request", **malformed(error)) from None


def engine_call(call: Callable[..., Any], *args: Any) -> Any:
    """Calls the engine; its typed errors become problems with the same codes."""
    try:
        return call(*args)
    except RefereeError as error:
        raise Problem.from_engine(error) from None


def setup_of(body: dict[str, Any]) -> dict[str, Any]:
    return {key: body[key] for key in ("variant", "options") if key in body}


@v1.get("/games")
def list_games() -> Response:
    games = [
        {key: info[key] for key in ("name", "title", "rules", "players", "chance", "hidden_information")}
        | {"variants": [variant["name"] for variant in info["variants"]], "href": f"/v1/games/{name}"}
        for name, info in INFO.items()
    ]
    return json_response({"games": games})


@v1.get("/games/<game>")
def game_info(game: str) -> Response:
    engine_of(game)  # unknown games are a 404 problem
    return json_response(INFO[game])


@v1.post("/games/<game>/new")
def new(game: str) -> Response:
    engine = engine_of(game)
    body = load(_new_request)
    state = engine_call(engine.new_state, setup_of(body), body.get("seed"))
    return json_response({"state": state, "position": engine.position(state), "outcome": engine.outcome(state)})


@v1.post("/games/<game>/legal-moves")
def legal_moves(game: str) -> Response:
    engine = engine_of(game)
    body = load(_legal_moves_request)
    state = body["state"]
    moves = engine_call(engine.legal_moves, state, body["compact"])
    return json_response({"moves": moves, "count": len(moves), "outcome": engine.outcome(state)})


@v1.post("/games/<game>/play")
def play(game: str) -> Response:
    engine = engine_of(game)
    body = load(_move_request)
    return json_response(engine_call(engine.play, body["state"], body["move"], body.get("player")))


@v1.post("/games/<game>/validate")
def validate(game: str) -> Response:
    engine = engine_of(game)
    body = load(_move_request)
    return json_response(engine_call(engine.validate, body["state"], body["move"], body.get("player")))


@v1.post("/games/<game>/replay")
def replay(game: str) -> Response:
    engine = engine_of(game)
    body = load(_replay_request)
    limit = current_app.config["REFEREE"].max_replay_moves
    if len(body["moves"]) > limit:
        raise Problem.malformed("moves", f"longer than {limit}", f"a replay has at most {limit} moves")
    return json_response(engine_call(engine.replay, body["moves"], setup_of(body), body.get("seed")))


def batch_items() -> list[Any]:
    """The items of a batch body: a JSON array, or NDJSON with one item a line."""
    data = body_bytes(JSON, NDJSON)
    if request.mimetype == JSON:
        items = parse_json(data)
        if not isinstance(items, list):
            raise Problem.malformed("body", "not an array", "a JSON batch is an array of items")
    else:
        items = [parse_json(line, f"line {number}") for number, line in enumerate(data.splitlines(), 1) if line.strip()]
    limit = current_app.config["REFEREE"].max_batch_items
    if len(items) > limit:
        raise Problem.malformed("body", f"more than {limit} items", f"a batch has at most {limit} items, this one has {len(items)}")
    return items


def flag(name: str) -> bool:
    """A boolean query parameter: absent, `true` or `false`, once."""
    values = request.args.getlist(name)
    if not values:
        return False
    if len(values) > 1 or values[0] not in ("true", "false"):
        raise Problem.malformed(name, "not a boolean", f"{name} is true or false, given once")
    return values[0] == "true"


@v1.post("/games/<game>/batch")
def batch(game: str) -> Response:
    """Validates every item; a bad item gets its own error and never fails the others."""
    engine = engine_of(game)
    with_state = flag("with_state")
    items = batch_items()
    results: list[dict[str, Any] | None] = [None] * len(items)
    good: list[dict[str, Any]] = []
    good_index: list[int] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            error = ValidationError({"item": ["not a JSON object"]})
        else:
            try:
                good.append(_batch_item.load(item))
                good_index.append(index)
                continue
            except ValidationError as invalid:
                error = invalid
        results[index] = {"error": {"code": "malformed-request", **malformed(error)}}
    for index, result in zip(good_index, engine.validate_batch(good, with_state)):
        results[index] = result
    for index, result in enumerate(results):
        result["index"] = index  # type: ignore[index]
    if request.mimetype == NDJSON:  # NDJSON in, NDJSON out: one result a line, in input order
        return Response(b"".join(orjson.dumps(result) + b"\n" for result in results), mimetype=NDJSON)
    return json_response({"results": results, "count": len(results)})
