"""Prometheus metrics. Under gunicorn, PROMETHEUS_MULTIPROC_DIR (set by the gunicorn config) makes
every worker write its samples to a shared directory, so `/metrics` reports the whole server."""

from __future__ import annotations

import os
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Histogram, generate_latest
from prometheus_client import multiprocess

__all__ = ["exposition", "observe"]

#: One histogram serves as the request counter too: `referee_request_seconds_count{endpoint, method,
#: status}` counts answered requests. (Each sample costs a write to a shared file; a separate counter
#: would add a third.) `endpoint` is the route's pattern, with the game's name for a known game.
LATENCY = Histogram(
    "referee_request_seconds",
    "Time to answer an HTTP request",
    ["endpoint", "method", "status"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)


# The labelled children, looked up once: `labels()` costs more than the observation itself.
_children: dict[tuple[str, str, int], Any] = {}


def observe(endpoint: str, method: str, status: int, seconds: float) -> None:
    """Counts an answered request and its latency."""
    key = (endpoint, method, status)
    child = _children.get(key)
    if child is None:
        child = _children[key] = LATENCY.labels(endpoint, method, status)
    child.observe(seconds)


def exposition() -> tuple[bytes, str]:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(), CONTENT_TYPE_LATEST
