"""Shared fixtures: the Flask app in-process, with access logs off to keep test output readable."""

from __future__ import annotations

import json

import pytest
import schemathesis

from referee.app import create_app
from referee.settings import Settings


@pytest.fixture(scope="session")
def app():
    return create_app(Settings(access_log=False, max_body_bytes=256 * 1024, max_batch_items=50, max_replay_moves=100))


@pytest.fixture()
def client(app):
    return app.test_client()


@schemathesis.serializer("application/x-ndjson")
def ndjson(ctx, value):  # noqa: ANN001 - schemathesis serializer signature
    """How schemathesis sends an NDJSON batch (for every contract test): a string as it is, else one
    JSON line an item. json, not orjson: generated items may hold integers beyond 64 bits."""
    if isinstance(value, str):
        return value.encode()
    items = value if isinstance(value, list) else [value]
    return b"".join(json.dumps(item).encode() + b"\n" for item in items)
