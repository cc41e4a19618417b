"""The gunicorn worker of the service: gevent's, so that a slow client costs a greenlet, not a worker.

Sync workers read a request's body inside the worker: five clients trickling bodies held all five
workers, and a slow honest upload was killed by the worker timeout. Under gevent a worker serves
thousands of connections at once; the engine's calls are short and CPU-bound, so they run between reads
without yielding, and the worker timeout only catches a worker whose loop is really stuck.

Two more things only the worker can do:
- a silent client is dropped: every read and write on a connection waits at most
  `REFEREE_READ_TIMEOUT` seconds (the app answers 408 when the body stalls);
- errors that gunicorn answers before the app sees the request (a bad request line, bare CR or LF,
  oversized headers, Content-Length with chunked) are problem+json with a request id, like every other
  answer, instead of gunicorn's HTML page.
"""

from __future__ import annotations

import socket
from typing import Any

import orjson
from gunicorn.http import errors as http_errors
from gunicorn.workers.base_async import AsyncWorker
from gunicorn.workers.ggevent import GeventWorker

from referee.codes import CODES
from referee.observe import new_request_id
from referee.problems import INTERNAL_DETAIL, document
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
        f"HTTP/1.1 {status} {title}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
        f"Content-Length: {len(body)}\r\nX-Request-ID: {request_id}\r\n\r\n"
    )
    return head.encode("latin-1") + body


class RefereeWorker(GeventWorker):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.read_timeout = Settings.from_env().read_timeout

    def handle(self, listener: Any, client: socket.socket, addr: Any) -> None:
        # GeventWorker.handle would make the socket blocking without a limit; this one bounds each read
        # and write instead, so a client that goes silent mid-request lets go of its connection.
        client.settimeout(self.read_timeout)
        AsyncWorker.handle(self, listener, client, addr)

    def handle_error(self, req: Any, client: socket.socket, addr: Any, exc: BaseException) -> None:
        code = problem_code(exc) or "internal-error"
        request_id = new_request_id(dict(getattr(req, "headers", None) or []).get("X-REQUEST-ID", ""))
        if code == "internal-error":
            self.log.exception("error handling a request (request id %s)", request_id)
            detail = INTERNAL_DETAIL
        else:
            self.log.info("refused a request gunicorn could not parse (request id %s): %s", request_id, exc)
            detail = str(exc) or type(exc).__name__
        try:
            client.sendall(problem_answer(code, detail, request_id))
        except OSError:
            self.log.debug("could not send the problem of request %s", request_id)
