"""Shared fixtures: the Flask app in-process, with access logs off to keep test output readable, and the one
live server (`server`, a gunicorn shared by a module's tests, with the settings of `server_env`).

Hypothesis profiles: ``ci`` (loaded when the ``CI`` environment variable is set) derandomizes every
property test, so each run tries the same examples, and bounds their number; ``deep`` (select it with
``HYPOTHESIS_PROFILE=deep``) tries ten times more for local runs; ``dev`` is the default otherwise.
A property test that states its own ``max_examples`` scales it by the profile's (see properties.py)."""

from __future__ import annotations

import inspect
import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from referee.http.app import create_app
from referee.http.settings import Settings

# How schemathesis sends NDJSON and reads the contract's YAML, for every contract test as for the
# repository's schemathesis.toml: importing the module registers both.
from helpers import schemathesis_hooks  # noqa: F401
from helpers.live import Server, serve

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


def pytest_collection_modifyitems(config, items) -> None:
    """A test that starts a server (takes `server`, or calls `serve(...)`) is marked `live`, so that `make
    test-fast` leaves it out (one that was not ran beside a cargo build and missed its bound)."""
    unmarked = [item.nodeid for item in items if item.get_closest_marker("live") is None and starts_a_server(item)]
    if unmarked:
        raise pytest.UsageError("tests that start a server without the `live` marker: " + ", ".join(unmarked))


def starts_a_server(item) -> bool:
    function = getattr(item, "function", None)
    if "server" in getattr(item, "fixturenames", ()):
        return True
    try:
        return function is not None and "serve(" in inspect.getsource(function)
    except (OSError, TypeError):
        return False


@pytest.fixture(scope="session")
def app():
    return create_app(Settings(access_log=False, max_body_bytes=256 * 1024, max_batch_items=50, max_replay_moves=100))


@pytest.fixture()
def client(app):
    return app.test_client()


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    """The REFEREE_* settings of the module's live server beyond tests/helpers/live.py's (2 workers, no access
    log): none. A module that needs others overrides this fixture."""
    return {}


@pytest.fixture(scope="module")
def server(server_env: dict[str, str]) -> Iterator[Server]:
    """A live gunicorn shared by a module's tests, as `make serve` runs it, with `server_env`'s settings; a
    test that needs one of its own (to stop it, to wear it down) starts it with `serve(...)`."""
    with serve(**server_env) as live:
        yield live
