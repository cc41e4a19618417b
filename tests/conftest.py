"""Shared fixtures: the Flask app in-process, with access logs off to keep test output readable."""

from __future__ import annotations

import pytest

from referee.app import create_app
from referee.settings import Settings


@pytest.fixture(scope="session")
def app():
    return create_app(Settings(access_log=False, max_body_bytes=256 * 1024, max_batch_items=50, max_replay_moves=100))


@pytest.fixture()
def client(app):
    return app.test_client()
