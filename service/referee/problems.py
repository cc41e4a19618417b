"""RFC 9457 problem details: every error the service answers is one of these, never a stack trace."""

from __future__ import annotations

from typing import Any

import orjson
from flask import Response

from referee.errors import RefereeError
from referee.logs import request_id

PROBLEM_TYPE = "urn:referee:problem:"

#: HTTP status and title of each stable code.
CODES: dict[str, tuple[int, str]] = {
    "malformed-json": (400, "The body is not valid JSON"),
    "malformed-request": (400, "The request does not have the expected shape"),
    "malformed-http": (400, "The request is not valid HTTP/1.1"),
    "not-found": (404, "No such resource"),
    "unknown-game": (404, "No such game"),
    "method-not-allowed": (405, "Method not allowed"),
    "request-timeout": (408, "The client stopped sending the request"),
    "payload-too-large": (413, "The request body is too large"),
    "request-line-too-long": (414, "The request line is too long"),
    "unsupported-media-type": (415, "Unsupported media type"),
    "invalid-options": (422, "Invalid game options"),
    "invalid-state": (422, "The state cannot occur in this game"),
    "invalid-board": (422, "The board description is not a playable board"),
    "malformed-move": (422, "The move is not in the game's notation"),
    "illegal-move": (422, "The rules forbid this move"),
    "game-over": (422, "The game is over"),
    "not-your-turn": (422, "It is not this player's turn"),
    "unknown-player": (422, "No such player in this game"),
    "headers-too-large": (431, "The request headers are too large"),
    "internal-error": (500, "Internal error"),
    "not-implemented": (501, "The server does not support this HTTP feature"),
    "not-ready": (503, "The engine is not ready"),
}


def document(code: str, detail: str, request_id: str | None = None, **extra: Any) -> dict[str, Any]:
    """The problem+json object of a code: also written outside any request (by the gunicorn worker)."""
    status, title = CODES[code]
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE + code, "title": title, "status": status, "code": code, "detail": detail, **extra,
    }
    if request_id:
        body["request_id"] = request_id
    return body


class Problem(Exception):
    """An error answer of the service; raised anywhere in a request, rendered by the app."""

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra

    @classmethod
    def malformed(cls, field: str, message: str, detail: str) -> Problem:
        """A `malformed-request` about one field of the request."""
        return cls("malformed-request", detail, errors=[{"field": field, "message": message}])

    @classmethod
    def from_engine(cls, error: RefereeError) -> Problem:
        return cls(error.code, error.detail, **error.data)

    @property
    def status(self) -> int:
        return CODES[self.code][0]

    def body(self) -> dict[str, Any]:
        return document(self.code, self.detail, request_id(), **self.extra)

    def response(self) -> Response:
        return Response(orjson.dumps(self.body()), status=self.status, mimetype="application/problem+json")
