"""The `/v1` blueprint: one set of routes serves every game through its native engine. `play` and
`validate`, the hot path, are answered beside Flask, by `referee.moves`."""

from __future__ import annotations

import tempfile
from typing import Any, Callable, Iterator

import orjson
from flask import Blueprint, Response, current_app, request
from marshmallow import Schema, ValidationError

from referee import _core, offload, pictures
from referee.body import (
    BODY_KEY, CLOSE_KEY, HOLD_KEY, JSON, NDJSON, UNREADABLE, body_of, media_type, unsupported_media_type,
)
from referee.budget import Budget, Hold, busy
from referee.errors import RefereeError
from referee.pages import source
from referee.problems import Problem, unknown_game
from referee.schemas import LegalMovesRequest, NewRequest, RenderRequest, ViewRequest, malformed

__all__ = ["v1", "GAMES", "INFO", "ENGINES_KEY", "SPOOL_KEY", "engines", "engine_of", "json_response", "longer_line"]

v1 = Blueprint("v1", __name__, url_prefix="/v1")

GAMES: list[str] = _core.games()
#: Static game descriptions, built once: they never change while the process runs.
INFO: dict[str, dict[str, Any]] = {name: _core.Engine(name).info() for name in GAMES}
#: Where an app keeps its engines (`engines`): with the app's seal keys, if any.
ENGINES_KEY = "REFEREE_ENGINES"
#: Where an app keeps its worker's budget of bytes of streamed answers in temporary files.
SPOOL_KEY = "REFEREE_SPOOL"

_new_request = NewRequest()
_legal_moves_request = LegalMovesRequest()
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
        raise unknown_game(game, GAMES)
    return engine


def parse_json(data: bytes) -> Any:
    """The body as JSON, read by the engine's own reader: every route takes exactly the JSON that
    `play` and `validate` take (they read it natively), and a body that would become more than a few
    MiB of objects is refused (413) before any is made (see `_core.loads`)."""
    return engine_call(_core.loads, data)


def load(schema: Schema) -> dict[str, Any]:
    """The JSON object body, checked against the envelope schema."""
    body = parse_json(body_of(request.environ, JSON))
    if not isinstance(body, dict):
        raise Problem.malformed("body", "not a JSON object", "body: not a JSON object")
    try:
        return offload.run(schema.load, body, size=body_size())
    except ValidationError as error:
        raise Problem("malformed-request", **malformed(error)) from None


def body_size() -> int:
    return len(request.environ.get(BODY_KEY, b""))


def engine_call(call: Callable[..., Any], *args: Any) -> Any:
    """Calls the engine (off the event loop when the body is big: see `referee.offload`); its typed
    errors become problems with the same codes."""
    try:
        return offload.run(call, *args, size=body_size())
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
    # Opened on its own, the picture may style itself and do nothing else.
    policy = f"default-src 'none'; style-src {source([pictures.STYLES[game]])}"
    return Response(svg, mimetype="image/svg+xml", headers={"Content-Security-Policy": policy})


@game_route("/replay", "POST")
def replay(game: str) -> Response:
    """A game record, as archives hold it (any other field passes): its verdict, and its claim's. The
    engine reads the body itself, as `referee validate` reads a record: no Python object is made of it
    (a record's metadata would have become hundreds of MiB of them), and its envelope is checked there
    with the `ReplayRequest` schema's words."""
    engine = engine_of(game)
    limit = current_app.config["REFEREE"].max_replay_moves
    answer = engine_call(engine.replay_json, body_of(request.environ, JSON), limit)
    return Response(answer, mimetype=JSON)


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
    answered at once; NDJSON (the clients of before `batch/ndjson`) as `batch_ndjson` answers it."""
    engine = engine_of(game)
    with_state = flag("with_state")
    if media_type(request.environ) == NDJSON:
        return stream_batch(engine, with_state)
    settings = current_app.config["REFEREE"]
    data = body_of(request.environ, JSON, NDJSON)
    results, count = engine_call(engine.validate_array, data, with_state, settings.max_batch_items)
    return Response(b'{"results":%b,"count":%d}' % (results, count), mimetype=JSON)


@game_route("/batch/ndjson", "POST")
def batch_ndjson(game: str) -> Response:
    """NDJSON in and out, read and judged chunk by chunk, in constant memory: its own operation, so that
    a client generated from the contract sends it (and a generator that cannot skips only this one)."""
    engine = engine_of(game)
    with_state = flag("with_state")
    if media_type(request.environ) != NDJSON:
        raise unsupported_media_type(request.environ, NDJSON)
    return stream_batch(engine, with_state)


#: Bytes read from a streamed batch before they are judged: large enough for the native batch to run
#: in parallel, small enough that memory stays flat however long the stream.
STREAM_CHUNK_BYTES = 1 << 20
#: Lines judged by one call of the engine: what one call answers stays small however short the lines.
LINES_PER_CALL = 4096
#: Results of a streamed batch kept in memory before they move to a temporary file.
SPOOL_MEMORY_BYTES = 256 << 10
#: Bytes of an answer sent at a time.
SEND_BYTES = 64 << 10
#: Room a new streamed batch needs in the worker's spool budget, or it is refused (503).
SPOOL_ROOM_BYTES = 8 << 20


def stream_memory_bytes(max_line_bytes: int) -> int:
    """What a streamed batch holds in memory at most: a chunk read (and a line cut at its end), the
    results of one call, and its spool's part in memory."""
    return 2 * STREAM_CHUNK_BYTES + max_line_bytes + SPOOL_MEMORY_BYTES


def line_chunks(stream: Any, max_line_bytes: int) -> Iterator[tuple[bytes, int]]:
    """Whole lines of a byte stream, in chunks of about STREAM_CHUNK_BYTES, each with the number of lines
    before it. A line longer than `max_line_bytes` is a problem."""
    pending, lines_before = b"", 0
    while True:
        block = stream.read(STREAM_CHUNK_BYTES)
        data = pending + block
        cut = data.rfind(b"\n") + 1 if block else len(data)
        chunk, pending = data[:cut], data[cut:]
        del data
        too_long = longer_line(chunk, max_line_bytes)
        if too_long is None and len(pending) > max_line_bytes:
            too_long = chunk.count(b"\n") + 1
        if too_long is not None:
            line = lines_before + too_long
            raise Problem("payload-too-large", f"line {line} is longer than {max_line_bytes} bytes", line=line)
        if chunk:
            yield chunk, lines_before
            lines_before += chunk.count(b"\n")
        if not block:
            return


def longer_line(chunk: bytes, limit: int) -> int | None:
    """The number (1-based) of the first line of `chunk` longer than `limit` bytes, if any. Found without
    cutting the chunk into lines (30,000 lines of `{}` made as many objects, whose memory the worker kept):
    such a line holds a whole stretch of `limit // 2 + 1` bytes that starts at a multiple of it, so only
    the stretches without a newline are looked at closer."""
    stretch = limit // 2 + 1
    for start in range(0, len(chunk) - stretch + 1, stretch):
        if chunk.find(b"\n", start, start + stretch) >= 0:
            continue
        begins = chunk.rfind(b"\n", 0, start) + 1
        ends = chunk.find(b"\n", start)
        if (ends if ends >= 0 else len(chunk)) - begins > limit:
            return chunk.count(b"\n", 0, begins) + 1
    return None


class StreamedBatch:
    """One NDJSON batch: its lines judged a slice at a time (off the event loop), the results spooled:
    in memory up to SPOOL_MEMORY_BYTES, then in a temporary file, at most `max_spool_bytes` of them and
    within the worker's spool budget. The first fault ends the judging."""

    def __init__(self, engine: _core.Engine, with_state: bool, settings: Any, memory: Hold, spool: Budget) -> None:
        self.engine, self.with_state, self.settings, self.memory = engine, with_state, settings, memory
        memory.take(stream_memory_bytes(settings.max_line_bytes))
        if spool.held + SPOOL_ROOM_BYTES > spool.limit:
            raise busy(spool.what)
        self.disk = spool.hold()
        self.spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY_BYTES)
        self.items = 0  # items judged so far
        self.spooled = 0  # bytes of results so far
        self.cut = False  # whether the results were cut short by a limit on their bytes

    def judge(self, chunk: bytes, lines_before: int) -> Problem | None:
        """Judges and keeps the results of a chunk's lines, LINES_PER_CALL at a time; the problem that
        ends the batch, if any: a limit on the results' bytes (`cut`), on the items, or a line that is
        not JSON."""
        start = 0
        while start < len(chunk):
            results, count, malformed_line, start = offload.run(
                self.engine.validate_lines, chunk, self.with_state, self.items, True, LINES_PER_CALL, start,
                size=len(chunk))
            results, count, too_many = self.within_items(results, count)
            cut = self.keep(results, count)
            if cut or too_many:
                return cut or too_many
            if malformed_line is not None:
                line = lines_before + malformed_line[0]
                return Problem("malformed-json", f"line {line} is not valid JSON: {malformed_line[1]}", line=line)
        return None

    def within_items(self, results: bytes, count: int) -> tuple[bytes, int, Problem | None]:
        """The results of a slice that the item limit leaves, and a problem if it left out any."""
        limit = self.settings.max_stream_items
        if self.items + count <= limit:
            return results, count, None
        count = max(limit - self.items, 0)
        results = b"".join(results.splitlines(keepends=True)[:count])
        return results, count, Problem.malformed(
            "body", f"more than {limit} items", f"a streamed batch has at most {limit} items")

    def keep(self, results: bytes, count: int) -> Problem | None:
        """Spools the results of a slice (one line each); once they would pass `max_spool_bytes` or the
        worker's spool budget, the lines that fit and a problem."""
        batch_room = self.settings.max_spool_bytes - self.spooled
        worker_room = self.disk.budget.limit - self.disk.budget.held
        problem = None
        if len(results) > min(batch_room, worker_room):
            results = results[: results.rfind(b"\n", 0, min(batch_room, worker_room) + 1) + 1]
            count = results.count(b"\n")
            index = self.items + count
            self.cut = True
            if batch_room <= worker_room:
                limit = self.settings.max_spool_bytes
                problem = Problem("payload-too-large", f"the results of this batch pass {limit} bytes at item "
                                  f"{index}; send the rest in another batch", index=index)
            else:
                problem = busy(self.disk.budget.what, index=index)
        self.disk.take(len(results))
        self.spool.write(results)
        self.spooled += len(results)
        self.items += count
        return problem

    def end(self, problem: Problem) -> None:
        self.spool.write(orjson.dumps(problem.body()) + b"\n")

    def answer(self) -> Response:
        """The answer: the spooled results, sent a block at a time; the spool closed and its bytes given
        back when the server is done with the answer, sent or abandoned. Until then the answer holds in
        memory only its spool's part there."""
        self.memory.give(stream_memory_bytes(self.settings.max_line_bytes) - SPOOL_MEMORY_BYTES)
        self.spool.seek(0)
        response = Response(iter(lambda: self.spool.read(SEND_BYTES), b""), mimetype=NDJSON)
        response.call_on_close(self.close)
        return response

    def close(self) -> None:
        self.spool.close()
        self.disk.release()


def stream_batch(engine: _core.Engine, with_state: bool) -> Response:
    """NDJSON in, NDJSON out, read and judged a chunk (about a megabyte) at a time. A fault in the first
    chunk, or an empty body, is a plain problem; later, a fault ends the answer with a problem line after
    the results of the lines before it. After a fault the rest of the body is drained (up to
    REFEREE_MAX_DRAIN_BYTES), so that clients that send the whole body before reading get the answer."""
    settings = current_app.config["REFEREE"]
    stream = request.environ["wsgi.input"]  # a referee.body.Input: its faults are problems
    chunks = line_chunks(stream, settings.max_line_bytes)
    batch = None
    try:
        batch = StreamedBatch(engine, with_state, settings, request.environ[HOLD_KEY], current_app.config[SPOOL_KEY])
        first = next(chunks, None)
        if first is None:
            raise Problem("malformed-json", "the body is empty")
        problem = batch.judge(*first)
        if problem is not None and not batch.cut:
            raise problem
        if batch.items == 0 and problem is None:
            raise Problem("malformed-json", "the body has no items")
    except Problem as problem:
        if batch is not None:
            batch.close()
        if not finish(stream, problem, settings):
            request.environ[CLOSE_KEY] = True
        raise

    # The whole body is read before the answer starts: many clients (Python's http.client and requests
    # among them) send all of a body before they read any of the answer, and a server writing while
    # they send would fill both socket buffers and stall.
    while problem is None:
        try:
            problem = batch.judge(*next(chunks))
        except StopIteration:
            break
        except Problem as fault:  # a line too long, or the body broken off
            problem = fault
    if problem is not None:
        batch.end(problem)
        if not finish(stream, problem, settings):
            request.environ[CLOSE_KEY] = True
    return batch.answer()


def finish(stream: Any, problem: Problem, settings: Any) -> bool:
    """Drains what is left of a batch that a fault ended; True when the whole body was read. A body that
    cannot be read (silent, broken framing) is not drained."""
    return problem.code not in UNREADABLE and stream.drain(settings.max_drain_bytes)
