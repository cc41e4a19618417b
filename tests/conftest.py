"""Shared fixtures: the Flask app in-process, with access logs off to keep test output readable.

Hypothesis profiles: ``ci`` (loaded when the ``CI`` environment variable is set) derandomizes every
property test, so each run tries the same examples, and bounds their number; ``deep`` (select it with
``HYPOTHESIS_PROFILE=deep``) tries ten times more for local runs; ``dev`` is the default otherwise.
A property test that states its own ``max_examples`` scales it by the profile's (see properties.py)."""

from __future__ import annotations

import json
import os

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from referee.app import create_app
from referee.settings import Settings

QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile("dev", max_examples=100, deadline=None, suppress_health_check=QUIET)
settings.register_profile("ci", max_examples=100, deadline=None, derandomize=True, database=None,
                          print_blob=True, suppress_health_check=QUIET)
settings.register_profile("deep", max_examples=1000, deadline=None, suppress_health_check=QUIET)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "slow: a long known-answer check (run by default and in CI; deselect with -m 'not slow')")


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
