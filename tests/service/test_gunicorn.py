"""The service under gunicorn with the project's config, as `make serve` runs it: it starts, answers
from several workers, shares metrics across them, and shuts down gracefully on SIGTERM."""

from __future__ import annotations

import json
import signal
import urllib.error
import urllib.request

import pytest

from helpers.live import get, serve

pytestmark = pytest.mark.live  # against a gunicorn of its own (tests/helpers/live.py)


@pytest.fixture()
def server():
    with serve() as live:
        yield live.base, live.process


def test_serves_shares_metrics_and_stops_gracefully(server) -> None:
    base, process = server
    body = json.dumps({"state": {"rules": "iago@1", "to_move": "black", "board": [
        ".....", "......", ".......", "........", "......WB.", "........", ".......", "......", "....."]},
        "move": "e6"}).encode()
    for _ in range(40):
        request = urllib.request.Request(f"{base}/v1/games/iago/play", data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as response:
            assert json.loads(response.read())["effects"]["captured"] == ["e7"]
    status, metrics = get(f"{base}/metrics")
    assert status == 200
    line = next(l for l in metrics.decode().splitlines() if l.startswith('referee_requests_total{endpoint="/v1/games/iago/play",method="POST",status="200"}'))
    assert float(line.rsplit(" ", 1)[1]) == 40.0  # every worker's requests, counted once
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=35) == 0


def post(url: str, body: bytes, content_type: str = "application/json") -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_a_bounded_load_gets_no_errors_and_no_5xx(server) -> None:
    """Short and bounded (a benchmark measures speed; this checks behaviour under concurrency): 16
    clients, every kind of request, good and bad, at once; every answer is the expected one."""
    from concurrent.futures import ThreadPoolExecutor

    base, _ = server
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
        status, answer = post(base + path, body, content_type)
        if "batch" in path and status == 200:
            assert answer.count(b'"legal":true') == (200 if content_type == "application/json" else 3000)
        return status, expected

    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(run, range(16 * 40)))
    assert all(status < 500 for status, _ in answers)
    assert [status for status, _ in answers] == [expected for _, expected in answers]
