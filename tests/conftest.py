"""Shared fixtures: the Flask app in-process, with access logs off to keep test output readable.

Hypothesis profiles: ``ci`` (loaded when the ``CI`` environment variable is set) derandomizes every
property test, so each run tries the same examples, and bounds their number; ``deep`` (select it with
``HYPOTHESIS_PROFILE=deep``) tries ten times more for local runs; ``dev`` is the default otherwise.
A property test that states its own ``max_examples`` scales it by the profile's (see properties.py)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from referee.app import create_app
from referee.settings import Settings

# How schemathesis sends NDJSON and reads the contract's YAML, for every contract test as for the
# repository's schemathesis.toml: importing the module registers both.
from helpers import schemathesis_hooks  # noqa: F401

QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile("dev", max_examples=100, deadline=None, suppress_health_check=QUIET)
settings.register_profile("ci", max_examples=100, deadline=None, derandomize=True, database=None,
                          print_blob=True, suppress_health_check=QUIET)
settings.register_profile("deep", max_examples=1000, deadline=None, suppress_health_check=QUIET)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


def pytest_configure(config) -> None:
    # `make test` runs every test; `make test-fast` deselects both (-m "not slow and not live").
    config.addinivalue_line("markers", "slow: a long known-answer check (run by default and in CI; deselect with -m 'not slow')")
    config.addinivalue_line("markers", "live: talks to a gunicorn (tests/helpers/live.py) or a browser the test starts, from outside "
                                       "(run by default and in CI; deselect with -m 'not live')")


@pytest.fixture(scope="session")
def app():
    return create_app(Settings(access_log=False, max_body_bytes=256 * 1024, max_batch_items=50, max_replay_moves=100))


@pytest.fixture()
def client(app):
    return app.test_client()


