"""Request bodies, read before the app sees them: bounded in size however they are framed, bounded in
silence, counted with their answers against the worker's memory budget (`referee.http.budget`), and drained
before a refusal so that the refusal reaches the client.

A body sent with `Transfer-Encoding: chunked` has no length up front; werkzeug cut such a body at the
limit and went on with the part it read. Here every body (but a streamed NDJSON batch) is read whole, up
to `REFEREE_MAX_BODY_BYTES`, before the app runs, and the app gets it with its length.

A client that sends its whole body before it reads (Python's http.client and requests, curl) sees a
refusal only if the server reads what it sent: closing a socket with unread data resets the connection
and destroys the answer in flight. So a refused body is read and discarded first, up to
`REFEREE_MAX_DRAIN_BYTES`; beyond that the connection closes after the answer.

A body holds in the budget only what has arrived (a connection that sent headers holds nothing), for its
client (`referee.http.budget.peer_of`). The operations' probes (`/healthz`, `/readyz`, `/metrics`, sent
without a body) take nothing from the budget: a full budget never refuses them."""

from __future__ import annotations

import contextlib
import io
from typing import Any, Callable, Iterable, Iterator

import gevent
from werkzeug.http import parse_options_header

from referee.http.budget import Budget, Hold, peer_of
from referee.http.logs import REQUEST_ID_KEY
from referee.http.problems import Problem

__all__ = ["BLOCK", "BODY_KEY", "Bodies", "CLOSE_KEY", "HOLD_KEY", "JSON", "NDJSON", "PROBES", "StartResponse",
           "body_of", "drainable", "endable", "is_stream", "media_type", "read_counted", "unsupported_media_type"]

#: Set in the WSGI environ when the connection must close after the answer (its body is not all read).
CLOSE_KEY = "referee.close"
#: The body read whole, in the WSGI environ, for the routes to take without reading a stream again.
BODY_KEY = "referee.http.body"
#: What a request holds of the worker's memory budget (`referee.http.budget.Hold`), in the WSGI environ: a
#: streamed batch takes its own bytes from it.
HOLD_KEY = "referee.hold"
#: Problems of a body that cannot be read further: it is not drained.
UNREADABLE = frozenset({"request-timeout", "malformed-http", "not-implemented"})
#: Bytes read at a time (while reading a body, each block is taken from the budget once read; and draining).
BLOCK = 64 * 1024
#: Paths answered without a body, whose answers are small and made at once: never refused by a budget, so
#: that a worker full of other clients' bodies still says it is alive.
PROBES = frozenset({"/healthz", "/readyz", "/metrics"})
JSON = "application/json"
NDJSON = "application/x-ndjson"

#: The WSGI `start_response` callable (one name for every layer that answers).
StartResponse = Callable[..., Any]


class Input:
    """The raw WSGI input, whose faults are problems: silence past the read timeout is 408, a broken
    chunked framing or a body cut short is 400 `malformed-http`."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def read(self, size: int) -> bytes:
        try:
            return self.raw.read(size)
        except Problem:  # the request's work ended while it waited (`Hold.end`: its client held the most)
            raise
        except TimeoutError:
            raise Problem("request-timeout", "the client sent nothing for too long, or sent its body too slowly; "
                          "the body is incomplete") from None
        except Exception as error:  # noqa: BLE001 - gunicorn's framing errors have no common public base here
            raise Problem("malformed-http", f"the body could not be read: {error or type(error).__name__}") from None

    def drain(self, limit: int) -> bool:
        """Reads and discards up to `limit` bytes; True when the body ended within them."""
        left = limit
        try:
            while left > 0:
                block = self.raw.read(min(BLOCK, left))
                if not block:
                    return True
                left -= len(block)
            return not self.raw.read(1)
        except Exception:  # noqa: BLE001 - a client gone or silent while we drain: nothing left to read
            return False


def media_type(environ: dict[str, Any]) -> str:
    """The body's media type, as every route and the body reader read it: without its parameters, in
    lower case (werkzeug's `Request.mimetype`); empty when the request names none."""
    content_type = environ.get("CONTENT_TYPE", "")
    if content_type == JSON:  # as nearly every client writes it: spares parsing it
        return JSON
    return parse_options_header(content_type)[0].lower()


def unsupported_media_type(environ: dict[str, Any], *accepted: str) -> Problem:
    return Problem("unsupported-media-type",
                   f"the body must be {' or '.join(accepted)}, not {media_type(environ) or 'untyped'}",
                   accepted=list(accepted))


def body_of(environ: dict[str, Any], *accepted: str) -> bytes:
    """The body read whole (by `Bodies`), of one of the `accepted` media types and not blank; else the
    problem: `unsupported-media-type`, or `malformed-json` for an empty body."""
    if media_type(environ) not in accepted:
        raise unsupported_media_type(environ, *accepted)
    body: bytes = environ.get(BODY_KEY, b"")
    if not body or body.isspace():
        raise Problem("malformed-json", "the body is empty")
    return body


def is_stream(environ: dict[str, Any]) -> bool:
    """A streamed batch: NDJSON to a batch route, bounded per line and by items rather than in total.
    The media type is read as the routes read it, so that the two never disagree: a body left unread
    here must be one the route streams."""
    if not environ.get("PATH_INFO", "").endswith(("/batch", "/batch/ndjson")):
        return False
    return media_type(environ) == NDJSON


def declared_length(environ: dict[str, Any]) -> int | None:
    """The Content-Length, or None for a chunked body (gunicorn refuses a bad or doubled length)."""
    value = environ.get("CONTENT_LENGTH") or ""
    return int(value) if value else None


def has_body(environ: dict[str, Any]) -> bool:
    """A request with a body: a Content-Length (even 0) or chunked framing."""
    return "HTTP_TRANSFER_ENCODING" in environ or declared_length(environ) is not None


def transfer_coding_fault(environ: dict[str, Any]) -> Problem | None:
    """Any transfer coding but chunked alone: gunicorn takes `gzip, chunked` as chunked and would hand
    the app the compressed bytes."""
    codings = [coding.strip().lower() for coding in environ.get("HTTP_TRANSFER_ENCODING", "chunked").split(",")]
    if codings == ["chunked"]:
        return None
    return Problem("not-implemented", f"the transfer coding {', '.join(codings)!r} is not supported: only chunked")


def too_large(limit: int) -> Problem:
    return Problem("payload-too-large", f"the body is larger than {limit} bytes", limit=limit)


def read_body(stream: Input, length: int | None, limit: int, hold: Hold) -> bytes:
    """The whole body, at most `limit` bytes, each block taken from the worker's budget once it is read
    (a client holds only what it sent); or a problem."""
    if length is not None and length > limit:
        raise too_large(limit)
    body = read_counted(stream, limit + 1 if length is None else length, hold)
    if length is None and len(body) > limit:
        raise too_large(limit)
    if length is not None and len(body) < length:
        raise Problem("malformed-http", f"the body ended after {len(body)} of its {length} bytes")
    return body


def read_counted(stream: Any, size: int, memory: Hold) -> bytes:
    """Up to `size` bytes of a stream (fewer only at its end), read a block at a time, each taken from the
    budget as it comes: gunicorn gathers a read whole before it returns it, so a megabyte read at once was
    held uncounted (600 streams took a worker from 134 MiB to 1.3 GiB); a block of `BLOCK` bounds that.
    A stream that sends nothing holds nothing. The bytes read stay held."""
    blocks, got = [], 0
    while got < size:
        block = stream.read(min(BLOCK, size - got))
        if not block:
            break
        memory.take(len(block))
        blocks.append(block)
        got += len(block)
    return b"".join(blocks)


@contextlib.contextmanager
def endable(hold: Hold) -> Iterator[None]:
    """While a body arrives (and a streamed one is judged), its request can be made to pay for its client
    (`Hold.end`): the problem is thrown where it waits, and raised here if it came as its last read
    returned; a kill still on its way lands here, not in the answer or the next request."""
    reader = gevent.getcurrent()
    hold.ender = lambda problem: gevent.kill(reader, problem)
    try:
        yield
        if hold.ended is not None:
            raise hold.ended
    finally:
        hold.ender = None
        if hold.ended is not None:
            with contextlib.suppress(Problem):
                gevent.sleep(0)


def drainable(problem: Problem, hold: Hold) -> bool:
    """Whether the rest of a body refused with `problem` is read before the refusal: not when it cannot be
    read, nor when its client was made to pay (reading it on would hold what the payment freed)."""
    return problem.code not in UNREADABLE and problem is not hold.ended


class Bodies:
    """WSGI middleware: reads every body whole (but streamed batches) and refuses what it must, after
    draining what the client sent; holds each body and then its answer in the worker's memory budget
    until the answer is sent."""

    def __init__(self, app: Callable[[dict[str, Any], StartResponse], Iterable[bytes]],
                 max_body_bytes: int, max_drain_bytes: int, memory: Budget,
                 trusted_proxies: frozenset[str] = frozenset(), ipv6_prefix: int = 64) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_drain_bytes = max_drain_bytes
        self.memory = memory
        self.trusted_proxies = trusted_proxies
        self.ipv6_prefix = ipv6_prefix

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") in PROBES and not has_body(environ):
            return self.app(environ, start_response)
        peer = peer_of(environ.get("REMOTE_ADDR", ""), environ.get("HTTP_X_FORWARDED_FOR"), self.trusted_proxies,
                       self.ipv6_prefix)
        hold = environ[HOLD_KEY] = self.memory.hold(peer)
        try:
            with endable(hold):
                self.take_body(environ, hold)
        except BaseException as error:  # a problem of the body, or its client made to pay while it arrived
            hold.release()
            if not isinstance(error, Problem):
                raise
            environ[CLOSE_KEY] = True
            if drainable(error, hold) and (declared_length(environ) or 0) <= self.max_drain_bytes:
                Input(environ["wsgi.input"]).drain(self.max_drain_bytes)
            return refuse(error, environ, start_response)
        return self.answer(environ, start_response, hold)

    def take_body(self, environ: dict[str, Any], hold: Hold) -> None:
        """Reads the body into the environ (a streamed batch's is left to the route, to read as it goes)."""
        if fault := transfer_coding_fault(environ):
            raise fault
        stream = Input(environ["wsgi.input"])
        if is_stream(environ):
            environ["wsgi.input"] = stream
            return
        if not has_body(environ):
            return
        body = read_body(stream, declared_length(environ), self.max_body_bytes, hold)
        environ[BODY_KEY] = body
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        environ.pop("HTTP_TRANSFER_ENCODING", None)

    def answer(self, environ: dict[str, Any], start_response: StartResponse, hold: Hold) -> Iterable[bytes]:
        """The app's answer, held in the budget (instead of its body) until it is sent; a 503 when the
        budget cannot hold it."""
        started: list[Any] = []

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], Any]:
            started[:] = status, headers, exc_info
            return lambda data: None  # the apps behind answer by their iterable, never by `write`

        try:
            answer = self.app(environ, start)
        except BaseException:
            hold.release()
            raise
        hold.give(len(environ.pop(BODY_KEY, b"")))  # read and done with
        environ.pop("wsgi.input", None)
        status, headers, exc_info = started
        length = next((int(value) for name, value in headers if name.lower() == "content-length"), 0)
        try:
            hold.take(length)
        except Problem as problem:
            close = getattr(answer, "close", None)
            if close is not None:
                close()
            hold.release()
            return problem.response(environ.get(REQUEST_ID_KEY))(environ, start_response)
        start_response(status, headers, exc_info)
        return Held(answer, hold)


class Held:
    """An answer's iterable that gives back what its request held once the server is done with it:
    all of it taken (to send), or closed (sent, or abandoned by the client). Servers close it, as WSGI
    says; some in-process clients only read it to the end."""

    def __init__(self, answer: Iterable[bytes], hold: Hold) -> None:
        self.answer = answer
        self.hold = hold

    def __iter__(self) -> Iterator[bytes]:
        yield from self.answer
        self.hold.release()

    def close(self) -> None:
        try:
            close = getattr(self.answer, "close", None)
            if close is not None:
                close()
        finally:
            self.hold.release()


def refuse(problem: Problem, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
    """Answers a problem found before the app ran, and closes the connection (the body may be unread)."""
    response = problem.response(environ.get(REQUEST_ID_KEY))
    response.headers["Connection"] = "close"
    return response(environ, start_response)
