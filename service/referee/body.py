"""Request bodies, read before the app sees them: bounded in size however they are framed, bounded in
silence, and drained before a refusal so that the refusal reaches the client.

A body sent with `Transfer-Encoding: chunked` has no length up front; werkzeug cut such a body at the
limit and went on with the part it read. Here every body (but a streamed NDJSON batch) is read whole, up
to `REFEREE_MAX_BODY_BYTES`, before the app runs, and the app gets it with its length.

A client that sends its whole body before it reads (Python's http.client and requests, curl) sees a
refusal only if the server reads what it sent: closing a socket with unread data resets the connection
and destroys the answer in flight. So a refused body is read and discarded first, up to
`REFEREE_MAX_DRAIN_BYTES`; beyond that the connection closes after the answer."""

from __future__ import annotations

import io
from typing import Any, Callable, Iterable

from werkzeug.http import parse_options_header

from referee.logs import REQUEST_ID_KEY
from referee.problems import Problem

__all__ = ["Bodies", "BODY_KEY", "CLOSE_KEY", "UNREADABLE"]

#: Set in the WSGI environ when the connection must close after the answer (its body is not all read).
CLOSE_KEY = "referee.close"
#: The body read whole, in the WSGI environ, for the routes to take without reading a stream again.
BODY_KEY = "referee.body"
#: Problems of a body that cannot be read further: it is not drained.
UNREADABLE = frozenset({"request-timeout", "malformed-http"})
#: Bytes read at a time while draining.
DRAIN_BLOCK = 64 * 1024
NDJSON = "application/x-ndjson"

StartResponse = Callable[..., Any]


class Input:
    """The raw WSGI input, whose faults are problems: silence past the read timeout is 408, a broken
    chunked framing or a body cut short is 400 `malformed-http`."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def read(self, size: int) -> bytes:
        try:
            return self.raw.read(size)
        except TimeoutError:
            raise Problem("request-timeout", "the client sent nothing for too long; the body is incomplete") from None
        except Exception as error:  # noqa: BLE001 - gunicorn's framing errors have no common public base here
            raise Problem("malformed-http", f"the body could not be read: {error or type(error).__name__}") from None

    def drain(self, limit: int) -> bool:
        """Reads and discards up to `limit` bytes; True when the body ended within them."""
        left = limit
        try:
            while left > 0:
                block = self.raw.read(min(DRAIN_BLOCK, left))
                if not block:
                    return True
                left -= len(block)
            return not self.raw.read(1)
        except Exception:  # noqa: BLE001 - a client gone or silent while we drain: nothing left to read
            return False


def is_stream(environ: dict[str, Any]) -> bool:
    """A streamed batch: NDJSON to a batch route, bounded per line and by items rather than in total.
    The media type is read as werkzeug reads it for the route (`Request.mimetype`), so that the two never
    disagree: a body left unread here must be one the route streams."""
    if not environ.get("PATH_INFO", "").endswith(("/batch", "/batch/ndjson")):
        return False
    return parse_options_header(environ.get("CONTENT_TYPE", ""))[0].lower() == NDJSON


def declared_length(environ: dict[str, Any]) -> int | None:
    """The Content-Length, or None for a chunked body (gunicorn refuses a bad or doubled length)."""
    value = environ.get("CONTENT_LENGTH") or ""
    return int(value) if value else None


def has_body(environ: dict[str, Any]) -> bool:
    """A request with a body: a Content-Length (even 0) or chunked framing."""
    chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
    return chunked or declared_length(environ) is not None


def too_large(limit: int) -> Problem:
    return Problem("payload-too-large", f"the body is larger than {limit} bytes", limit=limit)


def read_body(stream: Input, length: int | None, limit: int) -> bytes:
    """The whole body, at most `limit` bytes, or a problem."""
    if length is not None and length > limit:
        raise too_large(limit)
    data = stream.read(limit + 1 if length is None else length)
    if length is None and len(data) > limit:
        raise too_large(limit)
    if length is not None and len(data) < length:
        raise Problem("malformed-http", f"the body ended after {len(data)} of its {length} bytes")
    return data


class Bodies:
    """WSGI middleware: reads every body whole (but streamed batches) and refuses what it must, after
    draining what the client sent."""

    def __init__(self, app: Callable[[dict[str, Any], StartResponse], Iterable[bytes]],
                 max_body_bytes: int, max_drain_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_drain_bytes = max_drain_bytes

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if is_stream(environ):
            environ["wsgi.input"] = Input(environ["wsgi.input"])
            return self.app(environ, start_response)
        if not has_body(environ):
            return self.app(environ, start_response)
        stream = Input(environ["wsgi.input"])
        try:
            body = read_body(stream, declared_length(environ), self.max_body_bytes)
        except Problem as problem:
            environ[CLOSE_KEY] = True
            length = declared_length(environ)
            if problem.code not in UNREADABLE and (length is None or length <= self.max_drain_bytes):
                stream.drain(self.max_drain_bytes)
            return refuse(problem, environ, start_response)
        environ[BODY_KEY] = body
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        return self.app(environ, start_response)


def refuse(problem: Problem, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
    """Answers a problem found before the app ran, and closes the connection (the body may be unread)."""
    response = problem.response(environ.get(REQUEST_ID_KEY))
    response.headers["Connection"] = "close"
    return response(environ, start_response)
