"""The gunicorn worker of the service: gevent's, so that a slow client costs a greenlet, not a worker.

Sync workers read a request's body inside the worker: five clients trickling bodies held all five
workers, and a slow honest upload was killed by the worker timeout. Under gevent a worker serves
thousands of connections at once; the engine's calls are short and CPU-bound, so they run between reads
without yielding, and the worker timeout only catches a worker whose loop is really stuck.

What only the worker can do:
- a silent client is dropped: every read and write on a connection waits at most
  `REFEREE_READ_TIMEOUT` seconds (the app answers 408 when the body stalls), and a client that stops
  reading its answer leaves one JSON log line with the request id, not a traceback;
- errors that gunicorn answers before the app sees the request (a bad request line, bare CR or LF,
  oversized headers, Content-Length with chunked) are problem+json with a request id, like every other
  answer, instead of gunicorn's HTML page;
- what must be refused before gunicorn answers `100 Continue` or the app reads anything: a body declared
  larger than `REFEREE_MAX_BODY_BYTES` with `Expect: 100-continue` (413 at once, so the client never
  sends it), and an HTTP/1.1 request without `Host` (400, as RFC 9112 says).
"""

from __future__ import annotations

import gc
import socket
import sys
from typing import Any

import orjson
from gunicorn.http import errors as http_errors
from gunicorn.workers.base_async import AsyncWorker
from gunicorn.workers.ggevent import GeventWorker

from referee import lifecycle, offload
from referee.codes import CODES
from referee.observe import new_request_id
from referee.problems import PROBLEM_JSON, document, internal_error
from referee.settings import Settings

__all__ = ["RefereeWorker"]

#: gunicorn's parse errors, by the problem code that answers them (the first match wins).
PARSE_ERRORS: list[tuple[type[BaseException] | tuple[type[BaseException], ...], str]] = [
    # Header errors of the app's own answer, and a bad configuration, are ours, not the client's.
    ((http_errors.InvalidResponseHeader, http_errors.InvalidResponseHeaderName), "internal-error"),
    (http_errors.ConfigurationProblem, "internal-error"),
    (http_errors.LimitRequestLine, "request-line-too-long"),
    (http_errors.LimitRequestHeaders, "headers-too-large"),
    (http_errors.UnsupportedTransferCoding, "not-implemented"),
    (http_errors.ParseException, "malformed-http"),
]


def problem_code(error: BaseException) -> str | None:
    """The code of a request gunicorn could not parse; None for any other error (a bug)."""
    return next((code for kind, code in PARSE_ERRORS if isinstance(error, kind)), None)


def problem_answer(code: str, detail: str, request_id: str) -> bytes:
    """A whole HTTP/1.1 answer carrying one problem; the connection closes after it."""
    status, title, _ = CODES[code]
    body = orjson.dumps(document(code, detail, request_id))
    head = (
        f"HTTP/1.1 {status} {title}\r\nConnection: close\r\nContent-Type: {PROBLEM_JSON}\r\n"
        f"Content-Length: {len(body)}\r\nX-Content-Type-Options: nosniff\r\nX-Request-ID: {request_id}\r\n\r\n"
    )
    return head.encode("latin-1") + body


def header(req: Any, name: str) -> str | None:
    """A request header gunicorn parsed (`name` in capitals), the first if given twice."""
    return next((value for key, value in getattr(req, "headers", None) or [] if key == name), None)


def refusal_before_reading(req: Any, max_body_bytes: int) -> tuple[str, str] | None:
    """The problem of a request refused before gunicorn answers `100 Continue` or the app runs: its code
    and detail."""
    if req.version == (1, 1) and header(req, "HOST") is None:
        return "malformed-http", "an HTTP/1.1 request has a Host header (RFC 9112, section 3.2)"
    length = header(req, "CONTENT-LENGTH")
    if getattr(req, "_expected_100_continue", False) and length and length.isdigit() and int(length) > max_body_bytes:
        return "payload-too-large", f"the body is larger than {max_body_bytes} bytes (refused before 100 Continue)"
    return None


class RefereeWorker(GeventWorker):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        settings = Settings.from_env()
        self.read_timeout = settings.read_timeout
        self.max_body_bytes = settings.max_body_bytes

    def init_process(self) -> None:
        # Python code on the pool's threads gives the GIL back sooner, so the loop waits less for it.
        sys.setswitchinterval(offload.SWITCH_SECONDS)
        try:
            super().init_process()  # serves until the worker stops
        finally:
            # What the master froze (gunicorn_conf.pre_fork) is freed while the modules are whole: freed at
            # the interpreter's end, a log handler among it printed a traceback on every SIGTERM.
            gc.unfreeze()
            gc.collect()

    def handle_exit(self, sig: int, frame: Any) -> None:
        super().handle_exit(sig, frame)
        lifecycle.stop()  # open streams end with a problem line, before the graceful timeout

    def handle_quit(self, sig: int, frame: Any) -> None:
        lifecycle.stop()
        super().handle_quit(sig, frame)

    def handle(self, listener: Any, client: socket.socket, addr: Any) -> None:
        # GeventWorker.handle would make the socket blocking without a limit; this one bounds each read
        # and write instead, so a client that goes silent mid-request lets go of its connection.
        client.settimeout(self.read_timeout)
        AsyncWorker.handle(self, listener, client, addr)

    def handle_request(self, listener_name: Any, req: Any, sock: socket.socket, addr: Any) -> bool:
        # The request id is chosen here, so that what happens outside the app is logged with it: the
        # app takes a valid `X-Request-ID` as it is.
        request_id = new_request_id(header(req, "X-REQUEST-ID") or "")
        req.headers = [(key, value) for key, value in req.headers if key != "X-REQUEST-ID"]
        req.headers.append(("X-REQUEST-ID", request_id))
        refusal = refusal_before_reading(req, self.max_body_bytes)
        if refusal is not None:
            self.log.info("refused a request before reading it", extra={"fields": {"request_id": request_id}})
            self.send_problem(sock, *refusal, request_id)
            raise StopIteration()  # the connection closes
        try:
            return super().handle_request(listener_name, req, sock, addr)
        except TimeoutError:
            self.log.info("the client stopped reading its answer for %s seconds; connection closed",
                          self.read_timeout, extra={"fields": {"request_id": request_id}})
            raise StopIteration() from None

    def send_problem(self, sock: socket.socket, code: str, detail: str, request_id: str) -> None:
        try:
            sock.sendall(problem_answer(code, detail, request_id))
        except OSError:
            self.log.debug("could not send the problem of request %s", request_id)

    def handle_error(self, req: Any, client: socket.socket, addr: Any, exc: BaseException) -> None:
        code = problem_code(exc)
        request_id = new_request_id(header(req, "X-REQUEST-ID") or "")
        if code is None or code == "internal-error":
            problem = internal_error(self.log, "error handling a request", request_id)
            code, detail = problem.code, problem.detail
        else:
            self.log.info("refused a request gunicorn could not parse: %s", exc,
                          extra={"fields": {"request_id": request_id}})
            detail = str(exc) or type(exc).__name__
        self.send_problem(client, code, detail, request_id)
