"""What one client can take of a worker, against the live service (gunicorn on loopback): a share of its
memory budget and of its connections, and only as long as it keeps a minimum rate, sending and reading.
Clients are told apart by their address: all of 127/8 is loopback on Linux, so each client here binds
its own (127.0.0.2, 127.0.0.3, ...). Every wait is bounded."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import threading
import time
from typing import Any

import orjson
import pytest

import referee
from helpers.live import APP, GUNICORN, Answer, connect, distinct_lines, exchange, read_answer, read_at, request_bytes, serve

pytestmark = pytest.mark.live  # against a gunicorn of its own (tests/helpers/live.py)

MIB = 1024 * 1024
BODY_LIMIT = MIB
PEER_SHARE = 4 * MIB
PEER_CONNECTIONS = 40
READ_TIMEOUT = 2
UPLOAD_RATE = 256 * 1024
IAGO = referee.game("iago")
START = IAGO.new()
PLAY = orjson.dumps({"state": START, "move": "e4"})


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    """One worker, whose budget (16 MiB) a few connections could fill before, and whose clients may each
    hold a quarter of it."""
    return dict(
        REFEREE_WORKERS="1", REFEREE_MAX_BODY_BYTES=str(BODY_LIMIT), REFEREE_MAX_LINE_BYTES=str(64 * 1024),
        REFEREE_WORKER_MEMORY_BYTES=str(16 * MIB), REFEREE_PEER_MEMORY_BYTES=str(PEER_SHARE),
        REFEREE_PEER_CONNECTIONS=str(PEER_CONNECTIONS), REFEREE_READ_TIMEOUT=str(READ_TIMEOUT),
        REFEREE_MIN_UPLOAD_RATE=str(UPLOAD_RATE), REFEREE_TRUSTED_PROXIES="127.0.0.9",
    )


def problem_code(answer: Answer) -> str:
    return json.loads(answer.body)["code"]


def ndjson_head(length: int, extra: str = "") -> bytes:
    return (f"POST /v1/games/iago/batch/ndjson HTTP/1.1\r\nHost: test\r\nContent-Type: application/x-ndjson\r\n"
            f"Content-Length: {length}\r\n{extra}\r\n").encode()


def json_head(path: str, length: int, extra: str = "") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n{extra}\r\n").encode()


def test_one_client_holding_many_connections_denies_no_other_and_its_slow_bodies_get_408(server) -> None:
    """One peer opens 34 connections: bodies sent but for their last KB, streamed batches and `new`s that
    sent only their headers, bodies trickled a byte at a time (never silent for the read timeout).
    Before, the first 16 held the worker's whole budget (16 MiB) and every request was 503, /healthz
    included. Now,
    while they are held, another peer's /healthz, /readyz, /metrics and `play` are served; and each of
    the hostile ones ends: 429 once its peer holds its share, 408 once it is below the minimum rate."""
    hostile = "127.0.0.2"
    almost_whole = [connect(server, hostile, timeout=15) for _ in range(16)]
    for sock in almost_whole:
        sock.sendall(json_head("/v1/games/iago/replay", BODY_LIMIT) + b" " * (BODY_LIMIT - 1024))
    streams = [connect(server, hostile, timeout=15) for _ in range(6)]
    for sock in streams:
        sock.sendall(ndjson_head(10 * MIB))
    headers_only = [connect(server, hostile, timeout=15) for _ in range(6)]
    for sock in headers_only:
        sock.sendall(json_head("/v1/games/iago/new", BODY_LIMIT - 1))
    tricklers = [connect(server, hostile, timeout=15) for _ in range(6)]
    for sock in tricklers:
        sock.sendall(json_head("/v1/games/iago/new", 100))
    stop = threading.Event()

    def trickle() -> None:
        for _ in range(60):  # a byte every half second, for at most 30 s
            for sock in tricklers:
                try:
                    sock.sendall(b" ")
                except OSError:
                    pass
            if stop.wait(0.5):
                return

    thread = threading.Thread(target=trickle)
    thread.start()
    try:
        time.sleep(0.5)  # the server has read what they sent
        other = "127.0.0.3"
        for path in ("/healthz", "/readyz", "/metrics"):
            answer = exchange(server, peer=other, timeout=3, raw=f"GET {path} HTTP/1.1\r\nHost: test\r\n\r\n".encode())
            assert answer.status == 200, (path, answer.status, answer.body[:200])
        played = exchange(server, peer=other, timeout=3, raw=request_bytes("POST", "/v1/games/iago/play", PLAY))
        assert played.status == 200 and json.loads(played.body)["position"], played.body[:200]
        probe = exchange(server, peer=hostile, timeout=3, raw=b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        assert probe.status == 200  # probes are never refused by a budget, even the hostile peer's
        started = time.monotonic()
        ends = {name: [problem_code(read_answer(sock)) for sock in group] for name, group in
                (("streams", streams), ("headers only", headers_only), ("almost whole", almost_whole),
                 ("tricklers", tricklers))}
        waited = time.monotonic() - started
    finally:
        stop.set()
        thread.join(timeout=5)
        for sock in streams + headers_only + almost_whole + tricklers:
            sock.close()
    assert set(ends["streams"]) == set(ends["headers only"]) == set(ends["tricklers"]) == {"request-timeout"}, ends
    assert set(ends["almost whole"]) == {"too-many-requests", "request-timeout"}, ends  # the share, then the rate
    # The slowest: a body sent but for 1 KB, by the read timeout and a second each UPLOAD_RATE bytes after.
    assert waited < READ_TIMEOUT + BODY_LIMIT / UPLOAD_RATE + 3


def test_a_client_past_its_connections_is_refused_at_once_and_another_is_served(server) -> None:
    held = [connect(server, "127.0.0.4", timeout=15) for _ in range(PEER_CONNECTIONS)]
    try:
        time.sleep(0.3)  # all accepted
        with connect(server, "127.0.0.4", timeout=3) as sock:
            sock.sendall(request_bytes("POST", "/v1/games/iago/play", PLAY))
            answer = read_answer(sock)
            assert answer.status == 429 and problem_code(answer) == "too-many-requests"
            assert answer.headers["retry-after"] == "1" and answer.headers["connection"] == "close"
            assert sock.recv(1) == b""
        played = exchange(server, peer="127.0.0.5", timeout=3, raw=request_bytes("POST", "/v1/games/iago/play", PLAY))
        assert played.status == 200
    finally:
        for sock in held:
            sock.close()
    assert "refused a connection" in server.log_text()


def test_a_trusted_proxy_is_not_one_client_the_address_it_forwards_is(server) -> None:
    """From a trusted proxy (127.0.0.9) each forwarded address has its own share; the proxy's own
    connections are not counted. `X-Forwarded-For` from anyone else is the client's word: ignored."""
    proxy, almost = "127.0.0.9", b" " * (BODY_LIMIT - 1024)
    held = [connect(server, proxy, timeout=15) for _ in range(PEER_CONNECTIONS + 4)]  # past a peer's connections
    try:
        for sock in held[:5]:  # five almost whole bodies of one forwarded client: past its share
            sock.sendall(json_head("/v1/games/iago/replay", BODY_LIMIT, "X-Forwarded-For: 10.0.0.7, 10.0.0.1\r\n")
                         + almost)
        time.sleep(0.5)
        codes = []
        for sock in held[:5]:
            sock.sendall(b" " * 1024)  # the rest of the body: those within the share are judged
            codes.append(read_answer(sock).status)
        assert 429 in codes and 400 in codes, codes  # past the share; within it, judged (blank: malformed)
        played = exchange(server, peer=proxy, timeout=3, raw=request_bytes("POST", "/v1/games/iago/play", PLAY,
                                                          extra="X-Forwarded-For: 10.0.0.2\r\n"))
        assert played.status == 200
    finally:
        for sock in held:
            sock.close()


def test_a_streamed_batch_over_the_body_limit_with_expect_100_continue_is_judged(server) -> None:
    """curl sends `Expect: 100-continue` by itself for bodies over 1 MiB; a streamed batch is bounded per
    line and per stream, not by the body limit, so it gets `100 Continue` and is judged."""
    lines = (PLAY + b"\n") * (BODY_LIMIT // len(PLAY) + 1000)
    assert len(lines) > BODY_LIMIT
    with connect(server, "127.0.0.6", timeout=15) as sock:
        sock.sendall(ndjson_head(len(lines), "Expect: 100-continue\r\n"))
        reader = sock.makefile("rb")
        assert read_answer(sock, reader).status == 100
        sock.sendall(lines)
        answer = read_answer(sock, reader)
    results = [json.loads(line) for line in answer.body.splitlines()]
    assert answer.status == 200 and len(results) == lines.count(b"\n") and results[-1]["index"] == len(results) - 1


# ------------------------------------------------------------------ reading answers: a minimum rate


def test_a_steady_reader_above_the_minimum_rate_gets_its_whole_answer_and_a_slower_one_is_let_go() -> None:
    """An 8 MB streamed answer read steadily at 1 MB/s: before, a send that waited for the kernel to free
    a third of the socket's buffer (over a megabyte) longer than the read timeout (1 s) cut it at about
    5 MB. Now only the rate counts (500 KB/s here): it gets the whole answer. A reader at 20 KB/s with a
    small buffer is let go once it is below the rate (the server's kernel buffers several megabytes ahead
of it first), with one JSON log line."""
    lines = distinct_lines(15_000)
    raw = request_bytes("POST", "/v1/games/iago/batch/ndjson?with_state=true", lines, "application/x-ndjson",
                        extra="X-Request-ID: slow-reader-1\r\n")
    with serve(REFEREE_WORKERS="1", REFEREE_READ_TIMEOUT="1", REFEREE_MIN_READ_RATE=str(500_000)) as live:
        with socket.create_connection((live.host, live.port), timeout=10) as sock:
            sock.sendall(raw.replace(b"slow-reader-1", b"steady-reader"))
            answer, _ = read_at(sock, 1_000_000, 30)
        assert answer.endswith(b"\r\n0\r\n\r\n"), (len(answer), answer[-200:])  # the last chunk: whole
        results = read_answer(None, io.BytesIO(answer)).body.splitlines()
        assert len(results) == 15_000 and json.loads(results[-1])["index"] == 14_999 and len(answer) > 8_000_000
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.settimeout(10)
            sock.connect((live.host, live.port))
            sock.sendall(raw)
            # Let go: the server closes its end (what its kernel had buffered still arrives, slowly).
            read_at(sock, 20_000, 30, until=lambda: "slow-reader-1" in live.log_text())
        log = live.log_text()
    assert "Traceback" not in log
    [line] = [json.loads(line) for line in log.splitlines() if "slow-reader-1" in line]
    assert "stopped reading" in line["message"]


# ------------------------------------------------------------------ settings checked together at start


BAD_SETTINGS = [
    ({"REFEREE_WORKERS": "two"}, "REFEREE_WORKERS"),
    ({"REFEREE_TIMEOUT": "-5"}, "REFEREE_TIMEOUT"),
    ({"REFEREE_WORKER_CONNECTIONS": "many"}, "REFEREE_WORKER_CONNECTIONS"),
    ({"REFEREE_GRACEFUL_TIMEOUT": "-1"}, "REFEREE_GRACEFUL_TIMEOUT"),
    ({"REFEREE_KEEPALIVE": "5s"}, "REFEREE_KEEPALIVE"),
    ({"REFEREE_MAX_REQUESTS": "1e3"}, "REFEREE_MAX_REQUESTS"),
    # Every streamed batch, even one line on an idle worker, was 503 for ever with these.
    ({"REFEREE_WORKER_MEMORY_BYTES": str(3 * MIB), "REFEREE_MAX_BODY_BYTES": str(MIB)}, "REFEREE_WORKER_MEMORY_BYTES"),
    ({"REFEREE_PEER_MEMORY_BYTES": str(MIB)}, "REFEREE_PEER_MEMORY_BYTES"),
    ({"REFEREE_WORKER_SPOOL_BYTES": str(MIB)}, "REFEREE_WORKER_SPOOL_BYTES"),
    ({"REFEREE_PEER_CONNECTIONS": "2000"}, "REFEREE_PEER_CONNECTIONS"),
    ({"REFEREE_TRUSTED_PROXIES": "nginx"}, "REFEREE_TRUSTED_PROXIES"),
    ({"REFEREE_MIN_READ_RATE": "0"}, "REFEREE_MIN_READ_RATE"),
]


def test_gunicorn_with_a_bad_setting_stops_at_once_naming_it(tmp_path) -> None:
    """Started all at once (each stops before its workers would boot); each must exit within 30 s, not
    serve, and say which variable is wrong in one message, without a traceback."""
    runs = []
    for number, (settings, _) in enumerate(BAD_SETTINGS):
        env = os.environ | {"REFEREE_BIND": "127.0.0.1:0"} | settings
        out = open(tmp_path / f"{number}.log", "wb")
        runs.append((subprocess.Popen([str(GUNICORN), "-c", "python:referee.http.gunicorn_conf", APP], env=env,
                                      stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                      cwd=tmp_path, process_group=0), out))
    deadline = time.monotonic() + 30
    try:
        for number, ((settings, name), (process, _)) in enumerate(zip(BAD_SETTINGS, runs)):
            try:
                code = process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                code = None
            text = (tmp_path / f"{number}.log").read_text(errors="replace")
            assert code not in (None, 0), (settings, text[-800:])
            assert name in text and "Traceback" not in text, (settings, text[-800:])
    finally:
        for process, out in runs:
            out.close()
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=5)


@pytest.mark.parametrize("head", [json_head("/v1/games/iago/replay", BODY_LIMIT), ndjson_head(BODY_LIMIT)],
                         ids=["bodies", "streams"])
def test_when_memory_is_full_the_heaviest_client_pays_and_a_light_one_is_served(server, head) -> None:
    """Four clients each hold their share and a fifth a body (bodies, or streamed batches, of a MiB but
    their last KB, of which the worker holds the blocks it read: 960 KiB each, so 17 fill all but 64 KiB of
    its 16 MiB). Before, every other client's request that needed more was 503 for as long as they kept
    their bodies coming (a streamed batch's could not be ended at all). Now a light client's `play` of
    100 KB is served, and the work that paid for it is the newest body of a client holding the most: ended
    at once, 503 `service-busy` with `Retry-After`."""
    heavy = {f"127.0.0.{n}": 4 for n in range(4, 8)} | {"127.0.0.10": 1}
    bodies = {peer: [connect(server, peer, timeout=15) for _ in range(count)] for peer, count in heavy.items()}
    for peer, group in bodies.items():
        for sock in group:
            sock.sendall(head + b" " * (BODY_LIMIT - 1024))
    try:
        time.sleep(1)  # the worker has read what they sent: its memory full but 16 KB
        light = PLAY + b" " * (100 * 1024)
        played = exchange(server, peer="127.0.0.8", timeout=5, raw=request_bytes("POST", "/v1/games/iago/play", light))
        assert played.status == 200, played.body[:300]
        ends = [read_answer(sock) for group in bodies.values() for sock in group]
    finally:
        for group in bodies.values():
            for sock in group:
                sock.close()
    codes = [problem_code(answer) for answer in ends]
    assert codes.count("service-busy") == 1 and codes.count("request-timeout") == 16, codes
    assert codes[-1] == "request-timeout"  # the fifth client, lighter than the four, did not pay
    paid = next(answer for answer in ends if problem_code(answer) == "service-busy")
    assert "holds the most" in json.loads(paid.body)["detail"] and paid.headers.get("retry-after") == "1"


def test_a_body_sent_fast_then_stalling_is_ended_a_window_after_its_burst(server) -> None:
    """Bytes sent fast buy no lasting credit: the minimum rate is judged over a sliding window (the read
    timeout). Before, a body of 1 MiB but its last KB, sent at once, bought 4 s more at 256 KiB/s, and a
    byte a second (never silent for the 2 s timeout) kept it 6 s; the window ends it 2 s after its burst."""
    with connect(server, "127.0.0.11", timeout=15) as sock:
        sock.sendall(json_head("/v1/games/iago/replay", BODY_LIMIT) + b" " * (BODY_LIMIT - 1024))
        burst = time.monotonic()
        ended = threading.Event()

        def trickle() -> None:
            while not ended.wait(1):
                try:
                    sock.sendall(b" ")
                except OSError:
                    return

        thread = threading.Thread(target=trickle)
        thread.start()
        try:
            answer = read_answer(sock)
            waited = time.monotonic() - burst
        finally:
            ended.set()
            thread.join(5)
    assert problem_code(answer) == "request-timeout"
    assert waited < READ_TIMEOUT + 1.5, waited  # the window after the burst, not the 6 s it had bought


def test_connections_full_of_headers_leave_a_probe_and_a_light_client_waiting_for_nothing() -> None:
    """Clients from six addresses open 64 connections, all of a worker's, sending only a request's headers
    (their bodies never come). Before, the worker's connections were full, and `/healthz` from anyone
    waited until the first of them was let go (30 s by default). Now the probes' listener
    (REFEREE_PROBE_BIND) has connections of its own, and the service keeps spare ones: past them the client
    holding the most loses its longest idle connection, so a light client's `/healthz` and `play` go on."""
    from helpers.live import free_port

    probe_port = free_port()
    with serve(REFEREE_WORKERS="1", REFEREE_WORKER_CONNECTIONS="64", REFEREE_PEER_CONNECTIONS="40",
               REFEREE_PROBE_BIND=f"127.0.0.1:{probe_port}") as live:
        held = [connect(live, f"127.0.0.{20 + n % 6}", timeout=30) for n in range(64)]
        try:
            for sock in held:
                sock.sendall(json_head("/v1/games/iago/play", 1000))
            time.sleep(0.5)
            started = time.monotonic()
            with socket.create_connection(("127.0.0.1", probe_port), timeout=5) as probe:
                probe.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
                assert read_answer(probe).status == 200
            with socket.create_connection(("127.0.0.1", probe_port), timeout=5) as probe:
                probe.sendall(request_bytes("POST", "/v1/games/iago/play", PLAY))
                assert problem_code(read_answer(probe)) == "not-found"  # the probes' listener serves probes alone
            healthy = exchange(live, b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n", peer="127.0.0.30", timeout=5)
            played = exchange(live, request_bytes("POST", "/v1/games/iago/play", PLAY), peer="127.0.0.31", timeout=5)
            waited = time.monotonic() - started
        finally:
            for sock in held:
                sock.close()
    assert healthy.status == 200 and played.status == 200
    assert waited < 3, waited  # not the read timeout the held connections had


#: Three IPv6 clients: two in one /64, one in another (a unique-local prefix, on loopback for the test).
IPV6_PEERS = ("fd52:ef:0:1::1", "fd52:ef:0:1::2", "fd52:ef:0:2::1")


@pytest.fixture
def ipv6_peers() -> Any:
    """`IPV6_PEERS` added to the loopback interface (root: `ip -6 addr add`), removed afterwards."""
    if os.geteuid() != 0:
        pytest.skip("adding addresses to the loopback interface takes root")
    added = []
    try:
        for address in IPV6_PEERS:
            subprocess.run(["ip", "-6", "addr", "add", f"{address}/128", "dev", "lo", "nodad"], check=True,
                           capture_output=True, timeout=10)
            added.append(address)
        yield IPV6_PEERS
    finally:
        for address in added:
            subprocess.run(["ip", "-6", "addr", "del", f"{address}/128", "dev", "lo"], capture_output=True, timeout=10)


def test_ipv6_clients_are_one_client_a_64_prefix(ipv6_peers) -> None:
    """One IPv6 client holds a /64 (2^64 addresses), so a share by address would be no share: a client is
    its /64 (`REFEREE_PEER_IPV6_PREFIX`). Another address of the same /64 is refused once the first holds
    its connections; an address of another /64 is served."""
    first, neighbour, other = ipv6_peers
    play = request_bytes("POST", "/v1/games/iago/play", PLAY)
    with serve(host="::1", REFEREE_WORKERS="1", REFEREE_PEER_CONNECTIONS="4") as live:
        held = [connect(live, first, timeout=10) for _ in range(4)]
        try:
            time.sleep(0.3)  # all accepted
            refused = exchange(live, play, timeout=5, peer=neighbour)
            assert refused.status == 429 and problem_code(refused) == "too-many-requests"
            assert exchange(live, play, timeout=5, peer=other).status == 200
        finally:
            for sock in held:
                sock.close()
        assert exchange(live, play, timeout=5, peer=neighbour).status == 200  # its /64's connections given back


def test_a_trusted_proxys_connections_count_towards_the_spare_ones() -> None:
    """A trusted proxy's connections are in the worker's pool, never dropped (they speak for many clients),
    but they fill it: with 60 of a proxy's and 40 of one client's in a pool of 100, no slot was spare and a
    new client waited for one. Now the client holding the most loses an idle one, and the new one is served."""
    play = request_bytes("POST", "/v1/games/iago/play", PLAY)
    with serve(REFEREE_WORKERS="1", REFEREE_WORKER_CONNECTIONS="100", REFEREE_PEER_CONNECTIONS="40",
               REFEREE_TRUSTED_PROXIES="127.0.0.9") as live:
        held = [connect(live, "127.0.0.9", timeout=10) for _ in range(60)]
        held += [connect(live, "127.0.0.4", timeout=10) for _ in range(40)]
        try:
            time.sleep(0.5)  # all accepted: the pool is full
            # Served at once, not when the keep-alive timeout (5 s) frees a slot.
            assert exchange(live, play, timeout=2, peer="127.0.0.5").status == 200
            assert "dropped the longest idle connection" in live.log_text()
        finally:
            for sock in held:
                sock.close()
