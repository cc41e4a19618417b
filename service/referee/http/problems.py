"""RFC 9457 problem details: every error the service answers is one of these, never a stack trace. Also
what every route answers about its methods (405, `OPTIONS`), whichever app owns it (Flask, or the move
routes of `referee.http.moves`)."""

from __future__ import annotations

from typing import Any, Iterable

import orjson
from flask import Response

from referee import _core
from referee.codes import CODES
from referee.errors import RefereeError
from referee.http.logs import request_id as current_request_id

__all__ = [
    "INTERNAL_DETAIL", "PROBLEM_JSON", "Problem", "document", "internal_error", "method_not_allowed", "options_answer",
    "unknown_game",
]

PROBLEM_TYPE = "urn:referee:problem:"
PROBLEM_JSON = "application/problem+json"
#: The detail of every `internal-error`: what went wrong is in the logs, under the request id, never in the answer.
INTERNAL_DETAIL = "an internal error occurred; the request id identifies it in the logs"


def document(code: str, detail: str, request_id: str | None = None, **extra: Any) -> dict[str, Any]:
    """The problem+json object of a code: also written outside any request (by the gunicorn worker)."""
    status, title, _ = CODES[code]
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE + code, "title": title, "status": status, "code": code, "detail": detail, **extra,
    }
    if request_id:
        body["request_id"] = request_id
    return body


class Problem(Exception):
    """An error answer of the service; raised anywhere in a request, rendered by the app."""

    def __init__(self, code: str, detail: str, *, headers: dict[str, str] | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra
        #: Headers of the answer beside its type and request id (`Retry-After`, ...).
        self.headers = headers or {}

    @classmethod
    def malformed(cls, field: str, message: str, detail: str) -> Problem:
        """A `malformed-request` about one field of the request."""
        return cls("malformed-request", detail, errors=[{"field": field, "message": message}])

    @classmethod
    def from_engine(cls, error: RefereeError) -> Problem:
        return cls(error.code, error.detail, **error.data)

    @property
    def status(self) -> int:
        return CODES[self.code].status

    def body(self, request_id: str | None = None) -> dict[str, Any]:
        """The problem+json object, with `request_id`, else the id of the Flask request being answered."""
        return document(self.code, self.detail, request_id or current_request_id(), **self.extra)

    def response(self, request_id: str | None = None) -> Response:
        return Response(orjson.dumps(self.body(request_id)), status=self.status, mimetype=PROBLEM_JSON,
                        headers=self.headers)


def internal_error(log: Any, message: str, request_id: str | None) -> Problem:
    """The answer to the unexpected error being handled (a bug), wherever it happens: in the app, in the
    move routes or in the gunicorn worker. Its traceback goes to `log` with the request id; the answer
    says only that it happened."""
    log.exception(message, extra={"fields": {"request_id": request_id}})
    return Problem("internal-error", INTERNAL_DETAIL)


def method_not_allowed(method: str, path: str, allowed: Iterable[str], request_id: str | None = None) -> Response:
    """405 for a method a route does not take, with the methods it takes in `Allow`."""
    response = Problem("method-not-allowed", f"{method} is not allowed on {path}").response(request_id)
    if allowed := ", ".join(allowed):
        response.headers["Allow"] = allowed
    return response


def options_answer(allowed: Iterable[str]) -> Response:
    """`OPTIONS` on a route: 204 with `Allow` and nothing else (Flask's default is an empty `text/html` 200)."""
    response = Response(status=204)
    response.allow.update(allowed)
    del response.headers["Content-Type"]
    return response


def unknown_game(name: str) -> Problem:
    """No game named `name`, in the engine's words (as its bindings and archives say it)."""
    return Problem.from_engine(_core.unknown_game(name))
