"""What the service records of every request: its id, its metrics and its access-log line.

This is a WSGI middleware around the Flask app rather than Flask's before/after hooks. Hooks reach the
request through context proxies, and on `play` that cost more than the engine's whole answer. Here
everything comes from the WSGI environ and the answer's status line and headers."""

from __future__ import annotations

import os
import re
import time
from typing import Any, Callable, Iterable

from flask import Request
from werkzeug.routing import Rule

from referee.http import logs, metrics
from referee.http.body import CLOSE_KEY, StartResponse
from referee.http.logs import REQUEST_ID_KEY

__all__ = ["ROUTE_KEY", "Observed", "RoutedRequest", "new_request_id"]

REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
#: Methods counted by name in the metrics; any other is counted as `other` (a bounded label).
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"})
#: Where the matched route's pattern waits for the metrics (a bounded label, unlike the path).
ROUTE_KEY = "referee.route"


def close_after(environ: dict[str, Any], start_response: StartResponse) -> None:
    """Makes gunicorn close the connection after this answer (it ignores an app's `Connection` header):
    its `start_response` is a method of its response, which can be told so. The body is not read further:
    what the client still sends is thrown away as it comes (`referee.http.worker.Paced.discard_rest`), so that
    a client that sends all of its body before it reads gets the answer, not a reset."""
    force_close = getattr(getattr(start_response, "__self__", None), "force_close", None)
    if force_close is not None:
        force_close()
    discard_rest = getattr(environ.get("gunicorn.socket"), "discard_rest", None)
    if discard_rest is not None:
        discard_rest()


def new_request_id(incoming: str) -> str:
    """The client's `X-Request-ID` when it is a sane one, else a random one."""
    return incoming if REQUEST_ID.fullmatch(incoming) else os.urandom(16).hex()


class RoutedRequest(Request):
    """Flask's request, leaving the pattern of the route it matched in the WSGI environ."""

    @property
    def url_rule(self) -> Rule | None:  # type: ignore[override]
        return self.__dict__.get("_url_rule")

    @url_rule.setter
    def url_rule(self, rule: Rule | None) -> None:
        self.__dict__["_url_rule"] = rule
        self.environ[ROUTE_KEY] = rule.rule if rule is not None else "unmatched"


class Observed:
    """Gives every request an id (the client's `X-Request-ID` when it is a sane one, else a random one),
    answers it in `X-Request-ID` (with `X-Content-Type-Options: nosniff`), counts the request and its latency in the metrics, and writes its
    access-log line."""

    def __init__(self, app: Callable[[dict[str, Any], StartResponse], Iterable[bytes]], access_log: bool) -> None:
        self.app = app
        self.access_log = access_log

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        started = time.perf_counter()
        request_id = new_request_id(environ.get("HTTP_X_REQUEST_ID", ""))
        environ[REQUEST_ID_KEY] = request_id
        answer: list[Any] = []

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            headers.append(("X-Request-ID", request_id))
            headers.append(("X-Content-Type-Options", "nosniff"))  # every answer is the type it says
            answer[:] = status, headers
            return start_response(status, headers, exc_info)

        body = self.app(environ, start)
        if environ.get(CLOSE_KEY):
            close_after(environ, start_response)
        # Flask has started the answer by now; a streamed body is timed to its start, as before it is sent.
        elapsed = time.perf_counter() - started
        status_line, headers = answer
        status = int(status_line[:3])
        method = environ["REQUEST_METHOD"]
        metrics.observe(environ.get(ROUTE_KEY, "unmatched"), method if method in METHODS else "other", status, elapsed)
        if self.access_log:
            length = next((value for name, value in headers if name == "Content-Length"), None)
            logs.access({
                "request_id": request_id, "method": method, "path": environ.get("PATH_INFO", ""), "status": status,
                "duration_ms": round(elapsed * 1000, 3), "bytes": None if length is None else int(length),
            })
        return body
