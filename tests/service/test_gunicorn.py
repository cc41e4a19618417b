"""The service under gunicorn with the project's config, as `make serve` runs it: it starts, answers
from several workers, shares metrics across them, and shuts down gracefully on SIGTERM."""

from __future__ import annotations

import json
import signal

import pytest

from helpers.live import get, post, send, serve

pytestmark = pytest.mark.live  # against a gunicorn of its own (tests/helpers/live.py)


def test_serves_shares_metrics_and_stops_gracefully() -> None:
    body = json.dumps({"state": {"rules": "iago@1", "to_move": "black", "board": [
        ".....", "......", ".......", "........", "......WB.", "........", ".......", "......", "....."]},
        "move": "e6"}).encode()
    with serve() as live:  # its own, not the module's `server`: this test stops it
        for _ in range(40):
            status, played = post(live, "/v1/games/iago/play", body)
            assert status == 200 and played["effects"]["captured"] == ["e7"]
        status, metrics = get(f"{live.base}/metrics")
        assert status == 200
        line = next(row for row in metrics.decode().splitlines() if row.startswith('referee_requests_total{endpoint="/v1/games/iago/play",method="POST",status="200"}'))
        assert float(line.rsplit(" ", 1)[1]) == 40.0  # every worker's requests, counted once
        live.process.send_signal(signal.SIGTERM)
        assert live.process.wait(timeout=35) == 0


def test_a_bounded_load_gets_no_errors_and_no_5xx(server) -> None:
    """Short and bounded (a benchmark measures speed; this checks behaviour under concurrency): 16
    clients, every kind of request, good and bad, at once; every answer is the expected one."""
    from concurrent.futures import ThreadPoolExecutor

    state = {"rules": "iago@1", "to_move": "black", "board": [
        ".....", "......", ".......", "........", "......WB.", "........", ".......", "......", "....."]}
    item = json.dumps({"state": state, "move": "e6"}).encode()
    cases = [
        ("/v1/games/iago/play", item, "application/json", 200),
        ("/v1/games/iago/validate", json.dumps({"state": state, "move": "d4"}).encode(), "application/json", 200),
        ("/v1/games/iago/play", json.dumps({"state": state, "move": "d4"}).encode(), "application/json", 422),
        ("/v1/games/iago/play", b'{"state": ', "application/json", 400),
        ("/v1/games/iago/batch", b"[" + b",".join([item] * 200) + b"]", "application/json", 200),
        ("/v1/games/iago/batch", (item + b"\n") * 3000, "application/x-ndjson", 200),
        ("/v1/games/iago/batch/ndjson", (item + b"\n") * 3000, "application/x-ndjson", 200),
        ("/v1/games/nope/play", item, "application/json", 404),
    ]

    def run(index: int) -> tuple[int, int]:
        path, body, content_type, expected = cases[index % len(cases)]
        sent = send(server, path, body, content_type)
        status, answer = sent.status, sent.body
        if "batch" in path and status == 200:
            assert answer.count(b'"legal":true') == (200 if content_type == "application/json" else 3000)
        return status, expected

    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(run, range(16 * 40)))
    assert all(status < 500 for status, _ in answers)
    assert [status for status, _ in answers] == [expected for _, expected in answers]
