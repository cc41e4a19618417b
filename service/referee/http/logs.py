"""Structured logs: one JSON object a line, each with the request id of the request it belongs to."""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

import orjson
from flask import has_request_context, request

__all__ = ["REQUEST_ID_KEY", "JsonFormatter", "access", "configure", "request_id"]

#: Where a request's id waits in its WSGI environ (put there by `referee.http.observe`).
REQUEST_ID_KEY = "referee.request_id"


def request_id() -> str | None:
    """The id of the request being answered, if any."""
    return request.environ.get(REQUEST_ID_KEY) if has_request_context() else None


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": timestamp(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, "fields", {})
        # The access log passes the request id itself; other logs inside a request look it up.
        if "request_id" not in fields and (current := request_id()):
            entry["request_id"] = current
        entry.update(fields)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(entry, default=str).decode()


def timestamp(created: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(created)) + f".{int(created * 1000) % 1000:03d}Z"


ACCESS = logging.getLogger("referee.http")


def access(fields: dict[str, Any]) -> None:
    """One access-log line, in the same JSON shape as every other log line. It skips the logging
    machinery (caller lookup, record, formatter), which cost more than the rest of a request's own
    work, and writes the line to the configured stream in one call, as the handler would."""
    if not ACCESS.isEnabledFor(logging.INFO):
        return
    now = time.time()
    entry = {"time": timestamp(now), "level": "info", "logger": ACCESS.name, "message": "request", **fields}
    for handler in logging.getLogger("referee").handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.stream.write(orjson.dumps(entry, default=str).decode() + "\n")
            handler.flush()


def configure(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger("referee")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False
