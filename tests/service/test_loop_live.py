"""The event loop, the disk and the worker's end against a live gunicorn (tests/helpers/live.py): work that costs
more than a few milliseconds runs off the loop whatever its size, a full spool ends an answer with a
problem line and gives back what it took, a shutdown ends an open stream with a problem line a client
resumes from, and the log stays one JSON object a line. Every loop here is bounded in count and time."""

from __future__ import annotations

import io
import json
import signal
import socket
import statistics
import subprocess
import threading
import time

import orjson
import pytest

import referee
from helpers.live import distinct_lines, exchange, get, healthz_latencies, held_back, read_answer, request_bytes, serve

pytestmark = pytest.mark.live  # against a gunicorn of its own (tests/helpers/live.py)



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
            healthz_latencies(live, lambda: time.monotonic() > deadline, latencies)
        finally:
            stop.set()
            for client in clients:
                client.join(timeout=30)
    assert len(drawn) >= 8, "the pictures should keep being drawn"
    assert statistics.median(latencies) < 0.25 and not held_back(latencies), latencies


# ------------------------------------------------------------------ a full disk

MIB = 1024 * 1024
IAGO = referee.game("iago")
ITEM = orjson.dumps({"state": IAGO.new(), "move": "e4"}) + b"\n"


@pytest.fixture
def small_disk(tmp_path):
    """A directory on a filesystem of 4 MiB (a tmpfs: the tests run as root in CI)."""
    where = tmp_path / "spool"
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(where)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs for the spool (needs root): {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def ndjson_answer(answer) -> list[dict]:
    assert answer.status == 200 and answer.headers["content-type"] == "application/x-ndjson", answer.body[:300]
    return [json.loads(line) for line in answer.body.splitlines()]


def test_a_full_disk_ends_big_batches_with_a_problem_line_and_gives_the_spool_back(small_disk) -> None:
    """Streamed answers wait in temporary files; with their directory on a full filesystem, 8 of 8 big
    batches were 500 `internal-error`, and what they took of the worker's spool budget was never given
    back, so that even a 20-line batch was 503 from then on. Now a big batch gets the results stored
    before the disk filled and a last line `insufficient-storage` naming the first item not answered, or
    a plain 507 when none could be stored; and a small batch after them is answered."""
    big = request_bytes("POST", "/v1/games/iago/batch?with_state=true", distinct_lines(20_000), "application/x-ndjson")
    small = request_bytes("POST", "/v1/games/iago/batch", ITEM * 20, "application/x-ndjson")
    filler = small_disk / "filler"
    with serve(REFEREE_WORKERS="1", REFEREE_WORKER_SPOOL_BYTES=str(12 * MIB), TMPDIR=str(small_disk)) as live:
        filler.write_bytes(b"x" * 3 * MIB)  # less room than the first engine call's results (~2.4 MB)
        nothing_stored = exchange(live, big)
        filler.unlink()  # room for them, not for the next call's
        cut = [exchange(live, big) for _ in range(3)]
        after = exchange(live, small)
        log = live.log_text()
    assert nothing_stored.status == 507, nothing_stored.body[:300]
    problem = json.loads(nothing_stored.body)
    assert problem["code"] == "insufficient-storage" and problem["index"] == 0
    for answer in cut:
        *results, last = ndjson_answer(answer)
        assert last["code"] == "insufficient-storage" and last["status"] == 507, last
        assert 0 < last["index"] < 20_000 and [result["index"] for result in results] == list(range(last["index"]))
        assert all(result["legal"] and "state" in result for result in results)
    assert len(ndjson_answer(after)) == 20
    assert '"internal-error"' not in log
    json_lines(log)


# ------------------------------------------------------------------ the worker's end


def trickle(sock: socket.socket, rest: bytes, stop: threading.Event) -> None:
    """Sends `rest` a byte every 0.2 s, until `stop` or the server lets go."""
    for byte in rest:
        if stop.wait(0.2):
            return
        try:
            sock.sendall(bytes([byte]))
        except OSError:
            return


def test_a_stream_being_read_when_the_worker_stops_ends_with_a_line_to_resume_from() -> None:
    """A client sends 1.5 MB of a batch, then trickles the rest, when the server is told to stop (SIGTERM
    to the master, a graceful timeout of 8 s): the stream was cut after the graceful timeout without a
    word. Now its reading stops at once, the answer gives the results of the lines judged and a last line
    `service-unavailable` with the index of the first item not judged, and the connection closes, long
    before the graceful timeout; sent again from that index, the rest is judged."""
    items = distinct_lines(8_000)
    lines = items.splitlines(keepends=True)
    body = request_bytes("POST", "/v1/games/iago/batch/ndjson", items, "application/x-ndjson")
    head = len(body) - len(items)
    sent = head + 1_500_000
    with serve(REFEREE_WORKERS="1", REFEREE_GRACEFUL_TIMEOUT="8", REFEREE_READ_TIMEOUT="30") as live:
        with socket.create_connection((live.host, live.port), timeout=30) as sock:
            sock.sendall(body[:sent])
            stop = threading.Event()
            trickler = threading.Thread(target=trickle, args=(sock, body[sent:], stop))
            trickler.start()
            try:
                time.sleep(1.5)  # the first megabyte judged, the reader waiting for the rest
                stopped = time.monotonic()
                live.process.send_signal(signal.SIGTERM)
                answer = read_answer(sock)
                took = time.monotonic() - stopped
            finally:
                stop.set()
                trickler.join(timeout=10)
        live.process.wait(timeout=30)
        log = live.log_text()
    *results, last = ndjson_answer(answer)
    assert last["code"] == "service-unavailable" and last["status"] == 503, last
    index = last["index"]
    assert 0 < index < len(lines) and [result["index"] for result in results] == list(range(index))
    assert took < 5, f"answered {took:.1f} s after SIGTERM (the graceful timeout is 8 s)"
    json_lines(log)
    with serve(REFEREE_WORKERS="1") as live:
        rest = exchange(live, request_bytes("POST", "/v1/games/iago/batch/ndjson", b"".join(lines[index:]),
                                            "application/x-ndjson"))
    assert len(ndjson_answer(rest)) == len(lines) - index


def send_then_read(sock: socket.socket, raw: bytes, first: int, sent: threading.Event) -> None:
    """A client that sends all of its request before it reads (curl, requests, http.client): `first` bytes at
    once (`sent` set then), the rest 64 KiB every 50 ms."""
    sock.sendall(raw[:first])
    sent.set()
    for start in range(first, len(raw), 65536):
        time.sleep(0.05)
        sock.sendall(raw[start:start + 65536])


def recycle(live) -> None:
    """Makes the worker reach `REFEREE_MAX_REQUESTS`: a request at a time until the log says it restarts."""
    for _ in range(100):
        if "Autorestarting worker" in live.log_text():
            return
        get(f"{live.base}/healthz")
    pytest.fail("the worker was not recycled after 100 requests")


@pytest.mark.parametrize("stop, framing", [("sigterm", "length"), ("sigterm", "chunked"), ("recycle", "length")])
def test_a_stream_sent_before_its_answer_is_read_ends_with_its_line_when_the_worker_stops(stop, framing) -> None:
    """A client that sends all of its body before it reads, and the worker stops while it sends (SIGTERM, or
    recycled by `REFEREE_MAX_REQUESTS`): the answer ended with its problem line, but the connection closed
    with the client's bytes unread, and the reset destroyed the answer on its way (2 of 2 after SIGTERM,
    2 of 4 recycled, 1 of 5 chunked). Now what the client sends is thrown away until it closes: it reads
    the results, the `service-unavailable` line and the last chunk, and no reset."""
    items = distinct_lines(16_000)  # 3.6 MB, 2.3 s to send after the first 600 KB
    raw = request_bytes("POST", "/v1/games/iago/batch/ndjson?with_state=true", items, "application/x-ndjson",
                        chunked=framing == "chunked")
    env = {"REFEREE_WORKERS": "1", "REFEREE_GRACEFUL_TIMEOUT": "8"}
    if stop == "recycle":
        env["REFEREE_MAX_REQUESTS"] = "40"
    with serve(**env) as live:
        with socket.create_connection((live.host, live.port), timeout=30) as sock:
            sent = threading.Event()
            sender = threading.Thread(target=send_then_read, args=(sock, raw, 600_000, sent))
            sender.start()
            sent.wait(10)
            time.sleep(1.0)  # the first lines judged, the reader waiting for the rest
            if stop == "sigterm":
                live.process.send_signal(signal.SIGTERM)
            else:
                recycle(live)
            sender.join(timeout=30)
            assert not sender.is_alive()
            answer = read_answer(sock)  # a reset raises ConnectionResetError; a cut answer, an IncompleteRead
    *results, last = ndjson_answer(answer)
    assert last["code"] == "service-unavailable" and last["status"] == 503, last
    assert 0 < last["index"] < 16_000 and [result["index"] for result in results] == list(range(last["index"]))


def test_an_answer_being_sent_when_the_worker_stops_is_sent_whole() -> None:
    """A batch judged, its answer (megabytes, more than the sockets buffer) being read when the server is
    told to stop: the answer's end waited for bytes the client might still send (under gevent a read
    with MSG_DONTWAIT waits for its timeout), so the worker was killed at the graceful timeout and the
    answer cut. Now it is sent whole, its chunked framing ended, before the graceful timeout."""
    items = distinct_lines(12_000)
    raw = request_bytes("POST", "/v1/games/iago/batch/ndjson?with_state=true", items, "application/x-ndjson")
    with serve(REFEREE_WORKERS="1", REFEREE_GRACEFUL_TIMEOUT="8") as live:
        with socket.create_connection((live.host, live.port), timeout=30) as sock:
            sock.sendall(raw)
            reader = sock.makefile("rb")
            assert reader.readline().startswith(b"HTTP/1.1 200")  # the answer has begun
            stopped = time.monotonic()
            live.process.send_signal(signal.SIGTERM)
            answer = read_answer(sock, io.BufferedReader(io.BytesIO(b"HTTP/1.1 200 OK\r\n" + reader.read())))
            took = time.monotonic() - stopped
    results = ndjson_answer(answer)
    assert [result["index"] for result in results] == list(range(12_000)) and "state" in results[-1]
    assert took < 7, f"answered {took:.1f} s after SIGTERM (the graceful timeout is 8 s)"


def test_refusals_of_big_bodies_and_a_worker_stopping_leave_only_json_lines() -> None:
    """Every refused request over 16 KiB (worked on by the pool) wrote a multi-line traceback to the log,
    and every worker stopped by SIGTERM another: the log is one JSON object a line, and a refusal is
    only its access-log line, with its request id."""
    padding = b" " * 20_000
    refusals = {
        "big-illegal": ("/v1/games/iago/play", orjson.dumps({"state": IAGO.new(), "move": "a1"}) + padding),
        "big-malformed": ("/v1/games/iago/legal-moves", orjson.dumps({"state": 1}) + padding),
        "big-not-json": ("/v1/games/iago/new", b"{" + padding),
        "small-picture": ("/v1/games/iago/render", orjson.dumps({"state": IAGO.new(), "move": "a1"})),
    }
    with serve(REFEREE_WORKERS="1", REFEREE_ACCESS_LOG="1") as live:
        statuses = {name: exchange(live, request_bytes("POST", path, body, extra=f"X-Request-ID: {name}\r\n")).status
                    for name, (path, body) in refusals.items()}
        live.process.send_signal(signal.SIGTERM)
        live.process.wait(timeout=30)
        entries = json_lines(live.log_text())
    assert statuses == {"big-illegal": 422, "big-malformed": 400, "big-not-json": 400, "small-picture": 422}
    for name, status in statuses.items():
        [entry] = [entry for entry in entries if entry.get("request_id") == name]
        assert entry["message"] == "request" and entry["status"] == status and "exception" not in entry
    assert any(entry["message"].startswith("Worker exiting") for entry in entries)


def test_a_stream_whose_client_is_gone_is_not_judged_as_a_whole() -> None:
    """A client declares 20 MB of lines, sends 1.8 MB and stops sending (here it still reads): what it sent
    was judged to its end as if it were the whole batch. Now the chunk the body ends in is not judged, and
    the answer ends with a `malformed-http` line saying where the body ended."""
    items = distinct_lines(8_000)
    assert 1.5 * MIB < len(items) < 2 * MIB
    head = (f"POST /v1/games/iago/batch/ndjson HTTP/1.1\r\nHost: test\r\nContent-Type: application/x-ndjson\r\n"
            f"Content-Length: {20 * MIB}\r\n\r\n").encode()
    with serve(REFEREE_WORKERS="1") as live:
        with socket.create_connection((live.host, live.port), timeout=30) as sock:
            sock.sendall(head + items)
            sock.shutdown(socket.SHUT_WR)
            answer = read_answer(sock)
    *results, last = ndjson_answer(answer)
    assert last["code"] == "malformed-http" and f"after {len(items)} of its {20 * MIB} bytes" in last["detail"]
    assert 0 < len(results) < 8_000  # the first megabyte's lines, not those of the part the body ended in
