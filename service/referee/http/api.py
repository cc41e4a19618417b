"""The `/v1` blueprint: one set of routes serves every game through its native engine. `play` and
`validate`, the hot path, are answered beside Flask, by `referee.http.moves`."""

from __future__ import annotations

import contextlib
import io
import itertools
import logging
import tempfile
from typing import Any, Callable, Iterator

import orjson
from flask import Blueprint, Response, current_app, request
from marshmallow import Schema, ValidationError

from referee import _core, pictures

from referee.http import lifecycle, offload, thinking
from referee.http.body import (
    BODY_KEY, CLOSE_KEY, HOLD_KEY, JSON, NDJSON, body_of, drainable, endable, media_type, read_counted,
    unsupported_media_type,
)
from referee.http.budget import RETRY_AFTER_SECONDS, Budget, Hold, busy
from referee.errors import RefereeError
from referee.http.pages import source
from referee.http.problems import Problem, unknown_game
from referee.http.schemas import LegalMovesRequest, NewRequest, RenderRequest, SuggestRequest, ViewRequest, malformed
from referee.http.settings import SPOOL_MEMORY_BYTES, SPOOL_ROOM_BYTES, STREAM_CHUNK_BYTES

__all__ = ["ENGINES_KEY", "GAMES", "SPOOL_KEY", "THINKERS_KEY", "engine_of", "engines", "json_response", "longer_line",
           "v1"]

v1 = Blueprint("v1", __name__, url_prefix="/v1")
log = logging.getLogger("referee.http")

GAMES: list[str] = _core.games()
#: Where an app keeps its engines (`engines`): with the app's seal keys, if any.
ENGINES_KEY = "REFEREE_ENGINES"
#: Where an app keeps its worker's budget of bytes of streamed answers in temporary files.
SPOOL_KEY = "REFEREE_SPOOL"
#: Where an app keeps its worker's threads that think (`referee.http.thinking.Thinkers`).
THINKERS_KEY = "REFEREE_THINKERS"

_new_request = NewRequest()
_legal_moves_request = LegalMovesRequest()
_view_request = ViewRequest()
_render_request = RenderRequest()
_suggest_request = SuggestRequest()


def json_response(body: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status=status, mimetype=JSON)


def engines(seal_keys: _core.SealKeys | None = None) -> dict[str, _core.Engine]:
    """An engine a game; with seal keys, each checks the seal of every state it takes and seals every
    state it answers."""
    return {name: _core.Engine(name, None, seal_keys) for name in GAMES}


def engine_of(game: str) -> _core.Engine:
    engine = current_app.config[ENGINES_KEY].get(game)
    if engine is None:
        raise unknown_game(game)
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
        raise Problem.from_engine(malformed(error)) from None


def body_size() -> int:
    return len(request.environ.get(BODY_KEY, b""))


def engine_call(call: Callable[..., Any], *args: Any, costly: bool = False) -> Any:
    """Calls the engine (off the event loop when the body is big, or the route says the call is `costly`
    whatever the body's size: see `referee.http.offload`); its typed errors become problems with the same codes."""
    try:
        return offload.run(call, *args, size=body_size(), costly=costly)
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
        | {"variants": [variant["name"] for variant in info["variants"]], "href": f"/v1/games/{info['name']}"}
        for info in map(pictures.info_of, GAMES)
    ]
    return json_response({"games": games})


@game_route("", "GET")
def game_info(game: str) -> Response:
    engine_of(game)  # unknown games are a 404 problem
    return json_response(pictures.info_of(game))


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
    # Drawn on the pool whatever the body's size: 790 bytes name the largest board, 30–230 ms to draw.
    svg = engine_call(lambda: pictures.render(engine, body["state"], move=body.get("move"), legal=body["legal"],
                                              player=body.get("player"), size=body.get("size"),
                                              secret=body.get("secret")), costly=True)
    # Opened on its own, the picture may style itself and do nothing else.
    policy = f"default-src 'none'; style-src {source([pictures.STYLES[game]])}"
    return Response(svg, mimetype="image/svg+xml", headers={"Content-Security-Policy": policy})


@game_route("/suggest", "POST")
def suggest(game: str) -> Response:
    """The move the engine's search suggests to the player to move, seeing what that player sees: thought on
    the pool, within the server's bounds and its client's shares (`referee.http.thinking`)."""
    engine = engine_of(game)
    body = load(_suggest_request)
    config = current_app.config
    try:
        answer = thinking.suggest(engine, body, config["REFEREE"], config[THINKERS_KEY], request.environ)
    except RefereeError as error:
        raise Problem.from_engine(error) from None
    return json_response(answer)


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
#: Lines judged by one call of the engine: what one call answers stays small however short the lines.
LINES_PER_CALL = 4096
#: Bytes of an answer sent at a time.
SEND_BYTES = 64 << 10


def line_chunks(stream: Any, max_line_bytes: int, memory: Hold,
                length: int | None = None) -> Iterator[tuple[bytes, int]]:
    """Whole lines of a byte stream, in chunks of about STREAM_CHUNK_BYTES, each with the number of lines
    before it. A line longer than `max_line_bytes` is a problem, and so is a stream that ends before its
    declared `length` (the client gone: the chunk it cut is not judged, nor taken for the whole body).
    The bytes read and not yet judged are held in `memory`."""
    pending, lines_before, received = b"", 0, 0
    while True:
        block = read_counted(stream, STREAM_CHUNK_BYTES, memory)
        received += len(block)
        # A read comes short only at the body's end: before its length, the client is gone.
        if len(block) < STREAM_CHUNK_BYTES and length is not None and received < length:
            raise Problem("malformed-http", f"the body ended after {received} of its {length} bytes")
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
            memory.give(len(chunk))  # judged
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


class Spool:
    """The results of a streamed batch: in memory up to SPOOL_MEMORY_BYTES, then in a temporary file (in
    `tempfile.gettempdir()`, unbuffered). A write the disk refuses (full) raises OSError and leaves the
    spool as it was: whole lines only."""

    def __init__(self) -> None:
        self.memory = io.BytesIO()
        self.file: Any = None
        self.size = 0  # bytes kept

    def write(self, data: bytes) -> None:
        if self.file is None and self.size + len(data) <= SPOOL_MEMORY_BYTES:
            self.memory.write(data)
        else:
            try:
                if self.file is None:
                    self.file = tempfile.TemporaryFile(buffering=0)
                    write_all(self.file, self.memory.getvalue())
                    self.memory = io.BytesIO()
                write_all(self.file, data)
            except OSError:
                self.undo()
                raise
        self.size += len(data)

    def undo(self) -> None:
        """Back to the bytes kept, after a write that failed: the file cut to them, or dropped when they
        are still in memory."""
        if self.file is None:
            return
        if self.memory.tell():  # the move to the file failed: the memory holds them all
            self.file.close()
            self.file = None
        else:
            self.file.truncate(self.size)
            self.file.seek(self.size)

    def blocks(self, size: int) -> Iterator[bytes]:
        """The bytes kept, about `size` at a time, each block whole lines."""
        source = self.memory if self.file is None else self.file
        source.seek(0)
        rest = b""
        while block := source.read(size):
            block, rest = rest + block, b""
            end = block.rfind(b"\n") + 1
            block, rest = block[:end], block[end:]
            if block:
                yield block
        if rest:
            yield rest

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def write_all(file: Any, data: bytes) -> None:
    """Writes all of `data` to an unbuffered file (whose writes may take part of it)."""
    view = memoryview(data)
    while view:
        view = view[file.write(view):]


class StreamedBatch:
    """One NDJSON batch: its lines judged a slice at a time (off the event loop), the results spooled
    (`Spool`): at most `max_spool_bytes` of them and within the worker's spool budget. The first fault
    ends the judging; what it took is given back when its answer is done with, or at once if it fails."""

    def __init__(self, engine: _core.Engine, with_state: bool, settings: Any, memory: Hold, spool: Budget) -> None:
        self.engine, self.with_state, self.settings, self.memory = engine, with_state, settings, memory
        self.disk = spool.hold(memory.peer)
        # Room to begin in: a full spool makes its heaviest client pay (`referee.http.budget`), or refuses this one.
        self.disk.take(SPOOL_ROOM_BYTES)
        self.disk.give(SPOOL_ROOM_BYTES)
        self.disk.ender = lambda problem: None  # its work ends where it next looks (`ended`, `blocks`)
        self.spool = Spool()
        self.last = b""  # the line that ends the answer, if a problem ended it (kept in memory)
        self.chunks = 0  # chunks judged so far
        self.items = 0  # items judged so far
        self.spooled = 0  # bytes of results so far
        self.cut = False  # whether the results kept before the problem that ended the batch are answered

    def judge(self, chunk: bytes, lines_before: int) -> Problem | None:
        """Judges and keeps the results of a chunk's lines, LINES_PER_CALL at a time; the problem that
        ends the batch, if any: a limit on the results' bytes (`cut`), on the items, a disk that refuses
        them, or a line that is not JSON."""
        self.chunks += 1
        start = 0
        while start < len(chunk):
            results, count, malformed_line, start = offload.run(
                self.engine.validate_lines, chunk, self.with_state, self.items, True, LINES_PER_CALL, start,
                size=len(chunk))
            results, count, too_many = self.within_items(results, count)
            cut = self.keep(results, count)
            if cut or too_many:
                return cut or too_many
            if self.disk.ended is not None:  # its client held the most of a full spool: it stops here
                return self.paid()
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
        worker's spool budget, the lines that fit and a problem; when the disk refuses them, none of
        them and a problem (`insufficient-storage`)."""
        batch_room = self.settings.max_spool_bytes - self.spooled
        if len(results) <= batch_room:
            with contextlib.suppress(Problem):  # room made, by a heavier client's work if need be
                self.disk.take(len(results))
                self.disk.give(len(results))
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
        self.memory.take(min(self.spooled + len(results), SPOOL_MEMORY_BYTES) - self.spool_in_memory())
        self.disk.take(len(results))
        try:
            self.spool.write(results)
        except OSError as error:
            self.disk.give(len(results))
            log.warning("the results of a streamed batch could not be stored from item %d: %s", self.items, error)
            return self.stopped("insufficient-storage", f"the results from item {self.items} on could not be "
                                f"stored (the service's disk is full); send them again later")
        self.spooled += len(results)
        self.items += count
        return problem

    def paid(self, what: str = "judged") -> Problem:
        """The problem of a batch whose client held the most of a full spool: ended where it stands, its
        items from `self.items` on not `what` (judged, or sent)."""
        ended = self.disk.ended
        assert ended is not None
        return self.stopped(ended.code, f"{ended.detail} (items from {self.items} on were not {what}; send them again)")

    def stopped(self, code: str, detail: str) -> Problem:
        """The problem of a batch stopped before its end by the service (its disk, its shutdown): after the
        results kept, if any, as the answer's last line; else the whole answer."""
        self.cut = self.items > 0
        return Problem(code, detail, index=self.items, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})

    def answered_alone(self) -> bool:
        """Whether the problem that ended the batch is the whole answer: a fault of the first chunk, or one
        before any item, but for results kept before a limit or the service stopped the batch."""
        return not self.cut and (self.chunks <= 1 or self.items == 0)

    def end(self, problem: Problem) -> None:
        self.last = orjson.dumps(problem.body()) + b"\n"

    def answer(self) -> Response:
        """The answer: the spooled results, sent a block at a time, and the problem that ended them; the
        spool closed and its bytes given back when the server is done with the answer, sent or abandoned.
        Until then the answer holds in memory only its spool's part there."""
        self.memory.give(self.memory.bytes - self.spool_in_memory())
        response = Response(itertools.chain(self.blocks(), self.tail()), mimetype=NDJSON)
        response.call_on_close(self.close)
        return response

    def blocks(self) -> Iterator[bytes]:
        """The spooled results, a block of whole lines at a time; once its client must pay for a full spool
        (`referee.http.budget`), the rest is not sent: the answer ends with the problem saying where to resume."""
        sent = 0  # items sent
        for block in self.spool.blocks(SEND_BYTES):
            if self.disk.ended is not None:
                self.items, self.cut = sent, True
                self.end(self.paid("sent"))
                return
            sent += block.count(b"\n")
            yield block

    def tail(self) -> Iterator[bytes]:
        """The problem line that ends the answer, if any."""
        if self.last:
            yield self.last

    def spool_in_memory(self) -> int:
        """The bytes of results the spool holds in memory (the rest are in its file)."""
        return min(self.spooled, SPOOL_MEMORY_BYTES)

    def close(self) -> None:
        self.spool.close()
        self.disk.release()


def stream_batch(engine: _core.Engine, with_state: bool) -> Response:
    """NDJSON in, NDJSON out, read and judged a chunk (about a megabyte) at a time. A fault in the first
    chunk, or an empty body, is a plain problem; later, a fault ends the answer with a problem line after
    the results of the lines before it. After a fault the rest of the body is drained (up to
    REFEREE_MAX_DRAIN_BYTES), so that clients that send the whole body before reading get the answer.
    Whatever happens, the batch gives back what it took."""
    settings = current_app.config["REFEREE"]
    stream = request.environ["wsgi.input"]  # a referee.http.body.Input: its faults are problems
    hold = request.environ[HOLD_KEY]  # what the request holds of the worker's memory, endable
    batch = None
    try:
        batch = StreamedBatch(engine, with_state, settings, hold, current_app.config[SPOOL_KEY])
        # The whole body is read before the answer starts: many clients (Python's http.client and requests
        # among them) send all of a body before they read any of the answer, and a server writing while
        # they send would fill both socket buffers and stall.
        with lifecycle.reading(request.environ.get("gunicorn.socket")):
            problem = judge_stream(batch, line_chunks(stream, settings.max_line_bytes, hold, request.content_length),
                                   hold)
        if problem is not None:
            if not finish(stream, problem, hold, settings):
                request.environ[CLOSE_KEY] = True
            if batch.answered_alone():
                raise problem
            batch.end(problem)
        return batch.answer()
    except BaseException as error:
        if batch is not None:
            batch.close()
        elif isinstance(error, Problem) and not finish(stream, error, hold, settings):
            request.environ[CLOSE_KEY] = True
        raise


def judge_stream(batch: StreamedBatch, chunks: Iterator[tuple[bytes, int]], hold: Hold) -> Problem | None:
    """Judges a stream's chunks to its end; the problem that ended it, if any: a fault of its lines or
    its body, no items at all, its client made to pay for a full budget (`hold` ended), or the worker
    stopping (the chunk read then is not judged)."""
    try:
        with endable(hold):
            for chunk, lines_before in chunks:
                if lifecycle.stopping:
                    return batch.stopped("service-unavailable", stopping_detail(batch.items))
                if problem := batch.judge(chunk, lines_before):
                    return problem
    except Problem as fault:  # a line too long, the body broken off, a budget full (or the worker stopping)
        if lifecycle.stopping:
            return batch.stopped("service-unavailable", stopping_detail(batch.items))
        batch.chunks += 1  # the fault is the next chunk's
        if fault.code in ("service-busy", "too-many-requests"):
            fault.extra.setdefault("index", batch.items)
        return fault
    if batch.items == 0:
        return Problem("malformed-json", "the body has no items" if batch.chunks else "the body is empty")
    return None


def stopping_detail(index: int) -> str:
    return f"the service is stopping (a restart or a deploy): items from {index} on were not judged; send them again"


def finish(stream: Any, problem: Problem, hold: Hold, settings: Any) -> bool:
    """Drains what is left of a batch that a fault ended; True when the whole body was read. A body that
    cannot be read (silent, broken framing), whose client was made to pay, or read by a worker that is
    stopping, is not drained."""
    return drainable(problem, hold) and not lifecycle.stopping and stream.drain(settings.max_drain_bytes)
