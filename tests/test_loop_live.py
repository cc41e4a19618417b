"""The event loop, the disk and the worker's end against a live gunicorn (tests/live.py): work that costs
more than a few milliseconds runs off the loop whatever its size, a full spool ends an answer with a
problem line and gives back what it took, a shutdown ends an open stream with a problem line a client
resumes from, and the log stays one JSON object a line. Every loop here is bounded in count and time."""

from __future__ import annotations

import json
import socket
import statistics
import threading
import time

import orjson
import pytest

import referee
from live import exchange, read_answer, request_bytes, serve

pytestmark = pytest.mark.live  # against a gunicorn of its own (tests/live.py)

HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n"


def largest_small_board() -> dict:
    """The largest board (8 circles of 360 spaces) in the fewest bytes: one bridge a circle. A state on it
    is under 1 KB, and drawing it takes tens of milliseconds."""
    bridges = [{"from": [c, 0], "to": "centre" if c == 7 else [c + 1, 0]} for c in range(8)]
    return {"circles": [360] * 8, "entries": [60 * s for s in range(6)], "bridges": bridges,
            "centre_points": [5, 4, 3, 2, 1], "home_length": 4}


def json_lines(log: str) -> list[dict]:
    """Every line of a server's log, each a JSON object (or the test fails, naming the line)."""
    entries = []
    for line in log.splitlines():
        try:
            entries.append(json.loads(line))
        except ValueError:
            pytest.fail(f"a log line is not JSON: {line!r}\n{log[-3000:]}")
    return entries


# ------------------------------------------------------------------ cost, not size, decides


def render_client(server, raw: bytes, stop: threading.Event, drawn: list[int]) -> None:
    with socket.create_connection((server.host, server.port), timeout=60) as sock:
        reader = sock.makefile("rb")
        while not stop.is_set():
            sock.sendall(raw)
            answer = read_answer(sock, reader)
            assert answer.status == 200 and answer.body.startswith(b"<svg"), answer.body[:300]
            drawn.append(1)


def test_small_costly_pictures_do_not_hold_healthz() -> None:
    """Four clients draw a 790-byte state on the largest board over and over, each picture tens of
    milliseconds of Python: inline (the body is small) they held `/healthz` a median of 1.2 s; on the
    pool it answers at once while they draw."""
    state = referee.game("hypnosia", options={"board": largest_small_board()}).new(seed=1)
    body = orjson.dumps({"state": state, "legal": True})
    assert len(body) < 1024
    raw = request_bytes("POST", "/v1/games/hypnosia/render", body)
    with serve(REFEREE_WORKERS="1") as live:
        stop, drawn, latencies = threading.Event(), [], []
        clients = [threading.Thread(target=render_client, args=(live, raw, stop, drawn)) for _ in range(4)]
        for client in clients:
            client.start()
        try:
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline:
                started = time.perf_counter()
                assert exchange(live, HEALTHZ, timeout=30).status == 200
                latencies.append(time.perf_counter() - started)
                time.sleep(0.01)
        finally:
            stop.set()
            for client in clients:
                client.join(timeout=30)
    assert len(drawn) >= 8, "the pictures should keep being drawn"
    assert statistics.median(latencies) < 0.25 and max(latencies) < 1.0, latencies
