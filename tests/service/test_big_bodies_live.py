"""Big bodies against one live worker: what an 8 MB body becomes is bounded, and reading it holds neither
the event loop nor the worker's memory. A `replay` record is read by the engine without a Python object
(its metadata passes unread); the other routes' bodies are measured before any object is made of them,
and a body that would become more than a few MiB of objects is refused (413)."""

from __future__ import annotations

import threading
import time

import orjson
import pytest

from helpers.live import (connect, distinct_lines, exchange, healthz_latencies, held_back, request_bytes, rss_bytes,
                          serve, workers)

pytestmark = pytest.mark.live  # against a gunicorn of its own (tests/helpers/live.py)

MIB = 1024 * 1024
#: The body limit's default, which these bodies fill.
BODY_BYTES = 8 * MIB
#: What a worker stays under with the default settings (docs/operations.md, "Memory is budgeted in bytes").
CEILING = 250 * MIB


def filled(head: bytes, unit: bytes, tail: bytes) -> bytes:
    """`head`, `unit` repeated, then `tail`: a body just under the body limit."""
    return head + unit * ((BODY_BYTES - len(head) - len(tail) - 64) // len(unit)) + tail


#: A record whose metadata is `{}` repeated: 8 MB of it once took a worker by 250 MiB.
EMPTY_METADATA = filled(b'{"moves":["e4"],"metadata":[{}', b",{}", b"]}")
#: A state of `{}` repeated: over the objects a body may become, refused before any is made.
EMPTY_STATE = filled(b'{"player":"black","state":[{}', b",{}", b"]}")


def send_all(live, requests: list[bytes]) -> tuple[list, list[float], int]:
    """The requests sent at once on connections of their own while `/healthz` is probed: their answers,
    the probe's latencies, and the worker's peak resident memory."""
    [worker] = workers(live)
    stop, latencies = threading.Event(), []
    prober = threading.Thread(target=healthz_latencies, args=(live, stop.is_set, latencies))
    prober.start()
    answers: list = [None] * len(requests)

    def client(index: int) -> None:
        answers[index] = exchange(live, requests[index], timeout=60, peer=f"127.0.0.{10 + index}")  # 8 clients

    clients = [threading.Thread(target=client, args=(index,)) for index in range(len(requests))]
    try:
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join(timeout=60)
    finally:
        stop.set()
        prober.join(timeout=30)
    return answers, latencies, rss_bytes(worker, "VmHWM")


def test_big_records_and_states_hold_neither_the_loop_nor_the_memory() -> None:
    """Four 8 MB records of `{}` metadata replayed, and four 8 MB states of `{}` refused, at once: `/healthz`
    answers within a second throughout (it waited 2.4 s behind four records), and the worker stays under
    the documented ceiling (four such records took it past 1 GiB)."""
    with serve(REFEREE_WORKERS="1", REFEREE_READ_TIMEOUT="10") as live:
        replays = [request_bytes("POST", "/v1/games/iago/replay", EMPTY_METADATA)] * 4
        views = [request_bytes("POST", "/v1/games/iago/view", EMPTY_STATE)] * 4
        answers, latencies, peak = send_all(live, replays + views)
    assert not held_back(latencies), sorted(latencies)[-5:]
    assert peak < CEILING, f"the worker reached {peak / MIB:.0f} MiB"
    for answer in answers[:4]:
        assert answer.status == 200 and orjson.loads(answer.body)["plies"] == 1, answer
    for answer in answers[4:]:
        problem = orjson.loads(answer.body)
        assert answer.status == 413 and problem["code"] == "payload-too-large", problem
        assert problem["limit"] == 4 * MIB


def test_a_key_twice_in_a_records_metadata_is_refused_by_the_service_and_the_cli_alike(tmp_path) -> None:
    """The one rule on keys given twice holds wherever the key is: in a record's metadata too, over HTTP
    (`malformed-json`) as in `referee validate` (`malformed-record`), with the same words."""
    from referee import cli

    record = b'{"game":"iago","moves":["e4"],"meta":{"players":[{"name":"Ann","name":"Bob"}]}}'
    with serve(REFEREE_WORKERS="1") as live:
        answer = exchange(live, request_bytes("POST", "/v1/games/iago/replay", record))
        fine = exchange(live, request_bytes("POST", "/v1/games/iago/replay", record.replace(b'"name":"Bob"', b'"nick":"Bob"')))
    problem = orjson.loads(answer.body)
    assert answer.status == 400 and problem["code"] == "malformed-json", problem
    assert problem["detail"] == "the body is not valid JSON: duplicate key at meta.players[0].name"
    assert fine.status == 200 and orjson.loads(fine.body)["legal"] is True
    path, out = tmp_path / "records.jsonl", tmp_path / "results.jsonl"
    path.write_bytes(record + b"\n")
    assert cli.main(["validate", str(path), "-o", str(out), "--no-progress"]) == 1
    [result] = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    assert result["error"] == {"code": "malformed-record", "detail": "duplicate key at meta.players[0].name"}


def test_six_hundred_streams_stay_under_the_ceiling_and_their_memory_goes_back() -> None:
    """600 streamed batches from 6 addresses (100 each, a client's connections), each sending 400 KB of its
    lines and then waiting for the rest: gunicorn gathered each stream's 1 MiB read before the app counted
    it, and one worker went from 134 to 1,321 MiB, 977 MiB of it kept after the streams closed. Now every
    block is counted as it comes: the worker stays under the ceiling, `/healthz` answers, and within 10 s of
    the streams closing the worker gives back all but 64 MiB of what it took (it kept 140 MiB)."""
    lines = distinct_lines(2_000)[:400_000]
    lines = lines[: lines.rfind(b"\n") + 1]
    head = request_bytes("POST", "/v1/games/iago/batch/ndjson", b"", "application/x-ndjson")
    head = head.replace(b"Content-Length: 0", b"Content-Length: %d" % (3 * len(lines)))  # the rest never comes
    with serve(REFEREE_WORKERS="1") as live:
        [worker] = workers(live)
        before, held = rss_bytes(worker), []

        def client(peer: str) -> None:
            for _ in range(100):
                sock = connect(live, peer, timeout=60)
                held.append(sock)
                sock.sendall(head + lines)

        clients = [threading.Thread(target=client, args=(f"127.0.1.{index}",)) for index in range(1, 7)]
        try:
            for thread in clients:
                thread.start()
            for thread in clients:
                thread.join(timeout=60)
            assert len(held) == 600
            time.sleep(2)  # every stream read as far as it was sent
            assert exchange(live, b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n", timeout=5).status == 200
        finally:
            for sock in held:
                sock.close()
        peak = rss_bytes(worker, "VmHWM")
        deadline = time.monotonic() + 10
        while (after := rss_bytes(worker)) > before + 64 * MIB and time.monotonic() < deadline:
            time.sleep(0.5)
    assert peak < CEILING, f"the worker took {peak / MIB:.0f} MiB"
    assert after <= before + 64 * MIB, f"{after / MIB:.0f} MiB 10 s after the streams closed ({before / MIB:.0f} before)"
