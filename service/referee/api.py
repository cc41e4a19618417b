"""The `/v1` blueprint: one set of routes serves every game through its native engine."""

from __future__ import annotations

import logging
import tempfile
from typing import Any, Callable, Iterator

import orjson
from flask import Blueprint, Response, current_app, request
from marshmallow import Schema, ValidationError

from referee import _core, pictures
from referee.body import BODY_KEY, CLOSE_KEY, UNREADABLE
from referee.errors import RefereeError
from referee.logs import REQUEST_ID_KEY
from referee.observe import ROUTE_KEY
from referee.problems import INTERNAL_DETAIL, Problem
from referee.schemas import LegalMovesRequest, NewRequest, RenderRequest, ReplayRequest, ViewRequest, malformed

__all__ = ["v1", "MoveRoutes", "GAMES", "INFO", "ENGINES_KEY", "engines", "engine_of", "json_response"]

v1 = Blueprint("v1", __name__, url_prefix="/v1")
log = logging.getLogger("referee.http")

GAMES: list[str] = _core.games()
#: Static game descriptions, built once: they never change while the process runs.
INFO: dict[str, dict[str, Any]] = {name: _core.Engine(name).info() for name in GAMES}
#: Where an app keeps its engines (`engines`): with the app's seal keys, if any.
ENGINES_KEY = "REFEREE_ENGINES"
JSON = "application/json"
NDJSON = "application/x-ndjson"

_new_request = NewRequest()
_legal_moves_request = LegalMovesRequest()
_replay_request = ReplayRequest()
_view_request = ViewRequest()
_render_request = RenderRequest()


def json_response(body: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status=status, mimetype=JSON)


def engines(seal_keys: _core.SealKeys | None = None) -> dict[str, _core.Engine]:
    """An engine a game; with seal keys, each checks the seal of every state it takes and seals every
    state it answers."""
    return {name: _core.Engine(name, None, seal_keys) for name in GAMES}


def engine_of(game: str) -> _core.Engine:
    engine = current_app.config[ENGINES_KEY].get(game)
    if engine is None:
        raise Problem("unknown-game", f"unknown game {game!r}; known games: {', '.join(GAMES)}", known=GAMES)
    return engine


def body_bytes(*media_types: str) -> bytes:
    # The exact header, as clients send it, spares parsing it on every request.
    if request.environ.get("CONTENT_TYPE") not in media_types and request.mimetype not in media_types:
        raise Problem(
            "unsupported-media-type",
            f"the body must be {' or '.join(media_types)}, not {request.mimetype or 'untyped'}",
            accepted=list(media_types),
        )
    data = request.environ.get(BODY_KEY, b"")  # read whole by referee.body.Bodies
    if not data.strip():
        raise Problem("malformed-json", "the body is empty")
    return data


def parse_json(data: bytes) -> Any:
    """The body as JSON, read by the engine's own reader: every route takes exactly the JSON that
    `play` and `validate` take (they read it natively)."""
    return engine_call(_core.loads, data)


def load(schema: Schema, precheck: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """The JSON object body, checked against the envelope schema (after `precheck`, for limits that
    must hold before the schema's per-item work)."""
    body = parse_json(body_bytes(JSON))
    if not isinstance(body, dict):
        raise Problem.malformed("body", "not a JSON object", "body: not a JSON object")
    if precheck is not None:
        precheck(body)
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


def game_route(path: str, method: str) -> Callable[[Callable[..., Response]], Callable[..., Response]]:
    """Registers a view of one game at `/games/<game>{path}`: at a static path for each known game, and
    for any other name (which answers `unknown-game`) through the converter. Static paths because werkzeug
    matches them by lookup, while a converter costs a tenth of a whole `play` request."""

    def register(view: Callable[..., Response]) -> Callable[..., Response]:
        for name in GAMES:
            v1.add_url_rule(f"/games/{name}{path}", view_func=view, methods=[method], defaults={"game": name})
        v1.add_url_rule(f"/games/<game>{path}", view_func=view, methods=[method])
        return view

    return register


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


@game_route("", "GET")
def game_info(game: str) -> Response:
    engine_of(game)  # unknown games are a 404 problem
    return json_response(INFO[game])


@game_route("/new", "POST")
def new(game: str) -> Response:
    engine = engine_of(game)
    body = load(_new_request)
    state = engine_call(engine.new_state, setup_of(body), body.get("seed"), body.get("commitments"))
    if engine.opaque:  # the notation would show what the opaque state hides
        return json_response({"state": state, "outcome": engine.outcome(state)})
    return json_response({"state": state, "position": engine.position(state), "outcome": engine.outcome(state)})


@game_route("/legal-moves", "POST")
def legal_moves(game: str) -> Response:
    engine = engine_of(game)
    body = load(_legal_moves_request)
    state = body["state"]
    moves = engine_call(engine.legal_moves, state, body["compact"], body.get("secret"))
    return json_response({"moves": moves, "count": len(moves), "outcome": engine.outcome(state)})


# `play` and `validate` are the hot path: the engine takes the body's bytes and answers bytes, checking
# the envelope as `MoveRequest` does (a test holds the two together), without a Python object between.
# Most requests never reach these views: `MoveRoutes` answers them first, the same way.
@game_route("/play", "POST")
def play(game: str) -> Response:
    engine = engine_of(game)
    return Response(engine_call(engine.play_json, body_bytes(JSON)), mimetype=JSON)


@game_route("/validate", "POST")
def validate(game: str) -> Response:
    engine = engine_of(game)
    return Response(engine_call(engine.validate_json, body_bytes(JSON)), mimetype=JSON)


class MoveRoutes:
    """WSGI middleware answering `play` and `validate` as their views do, without Flask's dispatch
    (request context, URL matching, a response object), which cost more than the engine's answer:
    ~90 µs of a ~200 µs `play` under gunicorn, against 3–15 µs for the engine. It takes a request only in
    its plain form: POST to a known game's path, `Content-Type` exactly `application/json`, a body not
    blank (read whole by `referee.body.Bodies`, which runs first). Every other request goes on to Flask,
    whose views answer the same (a test sends each body both ways)."""

    def __init__(self, app: Callable[[dict[str, Any], Any], Any], engines: dict[str, _core.Engine]) -> None:
        self.app = app
        # The app's engines, taken once: they are made with the app and never replaced.
        self.calls = {
            f"{v1.url_prefix}/games/{name}/{endpoint}": call
            for name, engine in engines.items()
            for endpoint, call in (("play", engine.play_json), ("validate", engine.validate_json))
        }

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        path = environ.get("PATH_INFO")
        call = self.calls.get(path)
        body = environ.get(BODY_KEY)
        if call is None or environ["REQUEST_METHOD"] != "POST" or environ.get("CONTENT_TYPE") != JSON \
                or not body or body.isspace():
            return self.app(environ, start_response)
        environ[ROUTE_KEY] = path  # the pattern of the route: a known game's path is static
        try:
            answer = call(body)
        except RefereeError as error:
            problem = Problem.from_engine(error)
        except Exception:  # noqa: BLE001 - answered as the app's handler of unexpected errors answers them
            # Outside Flask's request context the log line takes its request id from here.
            log.exception("unhandled error", extra={"fields": {"request_id": environ.get(REQUEST_ID_KEY)}})
            problem = Problem("internal-error", INTERNAL_DETAIL)
        else:
            start_response("200 OK", [("Content-Type", JSON), ("Content-Length", str(len(answer)))])
            return [answer]
        return problem.response(environ.get(REQUEST_ID_KEY))(environ, start_response)


@game_route("/view", "POST")
def view(game: str) -> Response:
    """What one player may see of a state (the whole state for games without hidden information)."""
    engine = engine_of(game)
    body = load(_view_request)
    return json_response(engine_call(engine.view, body["state"], body["player"], body.get("secret")))


@game_route("/render", "POST")
def render(game: str) -> Response:
    """The SVG picture of a state, or of the state after `move` with what the move did marked."""
    engine = engine_of(game)
    body = load(_render_request)
    svg = engine_call(lambda: pictures.render(engine, body["state"], move=body.get("move"), legal=body["legal"],
                                              player=body.get("player"), size=body.get("size"),
                                              secret=body.get("secret")))
    return Response(svg, mimetype="image/svg+xml")


@game_route("/replay", "POST")
def replay(game: str) -> Response:
    """A game record, as archives hold it (any other field passes): its verdict, and its claim's."""
    engine = engine_of(game)
    limit = current_app.config["REFEREE"].max_replay_moves
    body = load(_replay_request, lambda raw: check_replay_length(raw, limit))
    if body.get("game", game) != game:
        raise Problem.malformed("game", f"not {game}", f"the record is a game of {body['game']!r}, not of {game}")
    claim = {key: body[key] for key in ("result", "termination", "by") if key in body}
    return json_response(engine_call(engine.replay, body["moves"], setup_of(body), body.get("seed"),
                                     body.get("commitments"), claim))


def check_replay_length(body: dict[str, Any], limit: int) -> None:
    """A replay's move count, checked before the schema checks every move."""
    moves = body.get("moves")
    if isinstance(moves, list) and len(moves) > limit:
        raise Problem.malformed("moves", f"longer than {limit}", f"a replay has at most {limit} moves")


def flag(name: str) -> bool:
    """A boolean query parameter: absent, `true` or `false`, once."""
    values = request.args.getlist(name)
    if not values:
        return False
    if len(values) > 1 or values[0] not in ("true", "false"):
        raise Problem.malformed(name, "not a boolean", f"{name} is true or false, given once")
    return values[0] == "true"


@game_route("/batch", "POST")
def batch(game: str) -> Response:
    """Validates every item; a bad item gets its own error and never fails the others. A JSON array is
    answered at once; NDJSON is read and judged chunk by chunk, in constant memory."""
    engine = engine_of(game)
    with_state = flag("with_state")
    if request.mimetype == NDJSON:
        return stream_batch(engine, with_state)
    settings = current_app.config["REFEREE"]
    data = body_bytes(JSON, NDJSON)
    results, count = engine_call(engine.validate_array, data, with_state, settings.max_batch_items)
    return Response(b'{"results":%b,"count":%d}' % (results, count), mimetype=JSON)


#: Bytes read from a streamed batch before they are judged: large enough for the native batch to run
#: in parallel, small enough that memory stays flat however long the stream.
STREAM_CHUNK_BYTES = 1 << 20
#: Results of a streamed batch kept in memory before they move to a temporary file.
SPOOL_BYTES = 8 << 20


def line_chunks(stream: Any, max_line_bytes: int) -> Iterator[tuple[bytes, int]]:
    """Whole lines of a byte stream, in chunks of about STREAM_CHUNK_BYTES, each with the number of lines
    before it. A line longer than `max_line_bytes` is a problem."""
    pending, lines_before = b"", 0
    while True:
        block = stream.read(STREAM_CHUNK_BYTES)
        data = pending + block
        cut = data.rfind(b"\n") + 1 if block else len(data)
        chunk, pending = data[:cut], data[cut:]
        lines = chunk.split(b"\n") if chunk else []
        if chunk.endswith(b"\n"):
            lines.pop()  # the empty rest after the last newline is not a line
        lengths = [len(line) for line in lines] + [len(pending)]
        if max(lengths) > max_line_bytes:
            line = lines_before + next(n for n, length in enumerate(lengths, 1) if length > max_line_bytes)
            raise Problem("payload-too-large", f"line {line} is longer than {max_line_bytes} bytes", line=line)
        if chunk:
            yield chunk, lines_before
            lines_before += chunk.count(b"\n")
        if not block:
            return


class StreamedBatch:
    """One NDJSON batch: its lines judged a chunk at a time, the results spooled (to a temporary file
    beyond SPOOL_BYTES, and at most `max_spool_bytes` of them). The first fault ends the judging."""

    def __init__(self, engine: _core.Engine, with_state: bool, settings: Any) -> None:
        self.engine, self.with_state, self.settings = engine, with_state, settings
        self.spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
        self.items = 0  # items judged so far
        self.spooled = 0  # bytes of results so far

    def judge(self, chunk: bytes, lines_before: int) -> tuple[bytes, int, Problem | None]:
        results, count, malformed_line = self.engine.validate_lines(chunk, self.with_state, self.items)
        problem = None
        if malformed_line is not None:
            line = lines_before + malformed_line[0]
            problem = Problem("malformed-json", f"line {line} is not valid JSON: {malformed_line[1]}", line=line)
        limit = self.settings.max_stream_items
        if self.items + count > limit:
            count = max(limit - self.items, 0)
            results = b"".join(results.splitlines(keepends=True)[:count])
            problem = Problem.malformed("body", f"more than {limit} items", f"a streamed batch has at most {limit} items")
        return results, count, problem

    def keep(self, results: bytes, count: int) -> Problem | None:
        """Spools the results of a chunk (one line each); once they would pass `max_spool_bytes`, the
        lines that fit and a problem."""
        limit = self.settings.max_spool_bytes
        problem = None
        if self.spooled + len(results) > limit:
            results = results[: results.rfind(b"\n", 0, limit - self.spooled + 1) + 1]
            count = results.count(b"\n")
            problem = Problem(
                "payload-too-large",
                f"the results of this batch pass {limit} bytes at item {self.items + count}; "
                "send the rest in another batch",
                index=self.items + count,
            )
        self.spool.write(results)
        self.spooled += len(results)
        self.items += count
        return problem

    def end(self, problem: Problem) -> None:
        self.spool.write(orjson.dumps(problem.body()) + b"\n")

    def answer(self) -> Iterator[bytes]:
        self.spool.seek(0)
        with self.spool:
            while block := self.spool.read(STREAM_CHUNK_BYTES):
                yield block


def stream_batch(engine: _core.Engine, with_state: bool) -> Response:
    """NDJSON in, NDJSON out, read and judged a chunk (about a megabyte) at a time. A fault in the first
    chunk, or an empty body, is a plain problem; later, a fault ends the answer with a problem line after
    the results of the lines before it. After a fault the rest of the body is drained (up to
    REFEREE_MAX_DRAIN_BYTES), so that clients that send the whole body before reading get the answer."""
    settings = current_app.config["REFEREE"]
    stream = request.environ["wsgi.input"]  # a referee.body.Input: its faults are problems
    chunks = line_chunks(stream, settings.max_line_bytes)
    batch = StreamedBatch(engine, with_state, settings)
    try:
        first = next(chunks, None)
        if first is None:
            raise Problem("malformed-json", "the body is empty")
        results, count, problem = batch.judge(*first)
        if problem is not None:
            raise problem
        if count == 0:
            raise Problem("malformed-json", "the body has no items")
    except Problem as problem:
        if not finish(stream, problem, settings):
            request.environ[CLOSE_KEY] = True
        raise

    # The whole body is read before the answer starts: many clients (Python's http.client and requests
    # among them) send all of a body before they read any of the answer, and a server writing while
    # they send would fill both socket buffers and stall.
    while True:
        problem = batch.keep(results, count) or problem
        if problem is not None:
            batch.end(problem)
            break
        try:
            results, count, problem = batch.judge(*next(chunks))
        except StopIteration:
            break
        except Problem as fault:  # a line too long, or the body broken off
            problem, results, count = fault, b"", 0
    if problem is not None and not finish(stream, problem, settings):
        request.environ[CLOSE_KEY] = True
    return Response(batch.answer(), mimetype=NDJSON)


def finish(stream: Any, problem: Problem, settings: Any) -> bool:
    """Drains what is left of a batch that a fault ended; True when the whole body was read. A body that
    cannot be read (silent, broken framing) is not drained."""
    return problem.code not in UNREADABLE and stream.drain(settings.max_drain_bytes)
