"""Hostile and odd clients against the live service (gunicorn with the project's config on loopback):
slow and silent clients, chunked and oversized bodies, broken NDJSON, requests gunicorn itself refuses,
odd methods, generators at their end. Every answer is a precise problem that reaches the client; no
worker is held or killed. Every loop here is bounded in count and time."""

from __future__ import annotations

import json
import re
import select
import socket
import threading
import time

import orjson
import pytest

import referee
from helpers.hypnosia_boards import ONE_CIRCLE, largest_board
from helpers.live import Answer, connect, exchange, get, held_back, read_answer, request_bytes, rss_bytes, send, serve, workers
from referee.codes import CODES

pytestmark = pytest.mark.live  # against a gunicorn of its own (tests/helpers/live.py)

BODY_LIMIT = 64 * 1024
READ_TIMEOUT = 2
WORKER_TIMEOUT = 4
SPOOL_LIMIT = 2 * 1024 * 1024
REPLAY_LIMIT = 100
IAGO = referee.game("iago")
START = IAGO.new()
PLAY = orjson.dumps({"state": START, "move": "e4"})


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    return dict(
        REFEREE_MAX_BODY_BYTES=str(BODY_LIMIT), REFEREE_READ_TIMEOUT=str(READ_TIMEOUT),
        REFEREE_TIMEOUT=str(WORKER_TIMEOUT), REFEREE_MAX_SPOOL_BYTES=str(SPOOL_LIMIT),
        REFEREE_MAX_REPLAY_MOVES=str(REPLAY_LIMIT),
        REFEREE_MIN_UPLOAD_RATE="1",  # the tricklers' byte a second keeps their bodies coming
    )


@pytest.fixture(scope="module", autouse=True)
def no_worker_lost(server):
    """After the module's tests: the shared server lost no worker to a timeout and booted no other."""
    yield
    log = server.log_text()
    assert "WORKER TIMEOUT" not in log and log.count("Booting worker") == 2, log[-3000:]


def assert_problem(answer: Answer, code: str, **facts) -> dict:
    """A problem+json answer with this code, its status, a request id, and these facts."""
    assert answer.status == CODES[code][0], (answer.status, answer.body[:300])
    assert answer.headers["content-type"] == "application/problem+json"
    assert re.fullmatch(r"[0-9a-f]{32}", answer.headers["x-request-id"])
    problem = json.loads(answer.body)
    assert problem["code"] == code and problem["status"] == answer.status
    assert problem["request_id"] == answer.headers["x-request-id"]
    assert {key: problem.get(key) for key in facts} == facts, problem
    return problem


def ndjson_lines(count: int, move: str = "e4") -> bytes:
    return (orjson.dumps({"state": START, "move": move}) + b"\n") * count


def lines_of(answer: Answer) -> list[dict]:
    assert answer.status == 200 and answer.headers["content-type"] == "application/x-ndjson"
    return [json.loads(line) for line in answer.body.splitlines()]


# ------------------------------------------------------------------ slow and silent clients


def test_trickling_clients_hold_no_worker_and_honest_slow_uploads_finish(server) -> None:
    """64 clients send `new` bodies at one byte a second, for longer than the worker timeout. While they
    are all still sending, /healthz and `play` answer at once, over and over; then every slow upload is
    answered in full, and no worker was killed (the fixture checks the log)."""
    body = b"{" + b" " * 6 + b"}"  # 8 bytes: 8 seconds at a byte a second, twice the worker timeout
    head = request_bytes("POST", "/v1/games/iago/new", body)[: -len(body)]
    tricklers = [socket.create_connection((server.host, server.port), timeout=30) for _ in range(64)]
    for sock in tricklers:
        sock.sendall(head)
    sent = 0
    stop = threading.Event()

    def trickle() -> None:
        nonlocal sent
        while sent < len(body) and not stop.is_set():
            for sock in tricklers:
                sock.sendall(body[sent:sent + 1])
            sent += 1
            stop.wait(1)

    thread = threading.Thread(target=trickle)
    thread.start()
    try:
        time.sleep(1.5)  # every trickler has started its body
        for _ in range(20):
            with socket.create_connection((server.host, server.port), timeout=2) as sock:
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
                assert read_answer(sock).status == 200
            played = exchange(server, request_bytes("POST", "/v1/games/iago/play", PLAY), timeout=2)
            assert played.status == 200 and json.loads(played.body)["position"]
        assert sent < len(body)  # all of that happened while every slow body was still coming
        thread.join(timeout=30)
        answers = [read_answer(sock) for sock in tricklers]
    finally:
        stop.set()
        thread.join(timeout=30)
        for sock in tricklers:
            sock.close()
    assert sent == len(body)
    assert all(answer.status == 200 and json.loads(answer.body)["state"] == START for answer in answers)


def test_a_client_silent_mid_body_gets_408_and_lets_go(server) -> None:
    with socket.create_connection((server.host, server.port), timeout=READ_TIMEOUT * 5) as sock:
        sock.sendall(request_bytes("POST", "/v1/games/iago/play", PLAY)[:-10])
        assert_problem(read_answer(sock), "request-timeout")
        assert sock.recv(1) == b""  # and the connection is closed


def test_a_silent_streamed_batch_gets_its_results_then_a_timeout_line(server) -> None:
    lines = ndjson_lines(3)
    head = (f"POST /v1/games/iago/batch HTTP/1.1\r\nHost: test\r\nContent-Type: application/x-ndjson\r\n"
            f"Content-Length: {len(lines) + 100}\r\n\r\n").encode()
    with socket.create_connection((server.host, server.port), timeout=READ_TIMEOUT * 5) as sock:
        sock.sendall(head + lines)
        answer = read_answer(sock)
    assert_problem(answer, "request-timeout")  # within the first chunk: a plain problem


# ------------------------------------------------------------------ bodies over the limit


ROUTE_BODIES = {
    "new": {},
    "legal-moves": {"state": START},
    "play": {"state": START, "move": "e4"},
    "validate": {"state": START, "move": "e4"},
    "view": {"state": START, "player": "black"},
    "render": {"state": START, "legal": True},
    "suggest": {"state": START, "level": 1},
    "replay": {"moves": ["e4"]},
    "batch": [{"state": START, "move": "e4"}],
}


@pytest.mark.parametrize("route", ROUTE_BODIES)
def test_a_chunked_body_over_the_limit_is_413_on_every_post_route(server, route) -> None:
    valid = orjson.dumps(ROUTE_BODIES[route])
    assert send(server, f"/v1/games/iago/{route}", valid, chunked=True).status == 200  # chunked is fine
    padded = valid + b" " * (BODY_LIMIT - len(valid) + 10) + b"garbage" * 1000
    assert_problem(send(server, f"/v1/games/iago/{route}", padded, chunked=True), "payload-too-large", limit=BODY_LIMIT)


@pytest.mark.parametrize("chunked", [False, True])
def test_a_refused_large_body_is_drained_so_a_client_that_sends_first_reads_the_413(server, chunked) -> None:
    """16 MB, far beyond what the socket buffers hold: without draining, the client's send fails or
    its read is reset."""
    huge = b"[" + b" " * (16 * 1024 * 1024) + b"]"
    assert_problem(send(server, "/v1/games/iago/play", huge, chunked=chunked), "payload-too-large")


def test_a_long_replay_is_refused_by_its_count(server) -> None:
    moves = orjson.dumps({"moves": ["e4"] * 5000})
    problem = assert_problem(send(server, "/v1/games/iago/replay", moves), "malformed-request")
    assert problem["errors"] == [{"field": "moves", "message": f"longer than {REPLAY_LIMIT}"}]


def test_a_replay_too_long_is_refused_before_its_moves_are_checked() -> None:
    """A million moves, none a string: the count is told, not a million errors about the moves."""
    from referee.http.app import create_app
    from referee.http.settings import Settings

    client = create_app(Settings(access_log=False, max_body_bytes=16 << 20, max_replay_moves=REPLAY_LIMIT)).test_client()
    answer = client.post("/v1/games/iago/replay", data=orjson.dumps({"moves": [1] * 1_000_000}),
                         content_type="application/json")
    assert answer.status_code == 400 and answer.json["errors"] == [{"field": "moves", "message": f"longer than {REPLAY_LIMIT}"}]


# ------------------------------------------------------------------ NDJSON batches that go wrong


def test_a_too_long_line_after_the_first_chunk_ends_a_complete_answer(server) -> None:
    good = ndjson_lines(12_000)  # about 3 MB
    long_line = b'{"pad": "' + b"x" * (2 * 1024 * 1024) + b'"}\n'
    *results, problem = lines_of(send(server, "/v1/games/iago/batch", good + long_line + good, "application/x-ndjson"))
    assert len(results) == 12_000 and all(result["legal"] for result in results)
    assert problem["code"] == "payload-too-large" and problem["line"] == 12_001


@pytest.mark.parametrize("chunked", [False, True])
def test_a_bad_line_after_the_first_chunk_ends_a_complete_answer(server, chunked) -> None:
    good = ndjson_lines(12_000)
    answer = send(server, "/v1/games/iago/batch", good + b"{bad\n" + good, "application/x-ndjson", chunked)
    *results, problem = lines_of(answer)
    assert len(results) == 12_000 and problem["code"] == "malformed-json" and problem["line"] == 12_001


def test_a_client_that_reads_while_it_sends_gets_the_whole_answer(server) -> None:
    good = ndjson_lines(12_000)
    body = good + b"{bad\n" + good * 4
    received: list[Answer] = []
    with socket.create_connection((server.host, server.port), timeout=30) as sock:
        reader = threading.Thread(target=lambda: received.append(read_answer(sock)))
        reader.start()
        sock.sendall(request_bytes("POST", "/v1/games/iago/batch", body, "application/x-ndjson"))
        reader.join(timeout=30)
    *results, problem = lines_of(received[0])
    assert len(results) == 12_000 and problem["code"] == "malformed-json" and problem["line"] == 12_001


def test_faults_in_the_first_chunk_are_plain_problems_that_reach_the_client(server) -> None:
    rest = ndjson_lines(12_000)
    answer = send(server, "/v1/games/iago/batch", b"{bad\n" + rest, "application/x-ndjson")
    assert_problem(answer, "malformed-json", line=1)
    single = b'{"pad": "' + b"x" * (2 * 1024 * 1024) + b'"}\n'
    assert_problem(send(server, "/v1/games/iago/batch", single, "application/x-ndjson"), "payload-too-large", line=1)
    # A long line after line 1 cannot end within the first megabyte: line 1 is judged, then the problem.
    result, problem = lines_of(send(server, "/v1/games/iago/batch", ndjson_lines(1) + single + rest, "application/x-ndjson"))
    assert result == {"index": 0, "legal": True} and problem["code"] == "payload-too-large" and problem["line"] == 2


@pytest.mark.parametrize("path", ["/v1/games/iago/batch/ndjson", "/v1/games/iago/batch"])
@pytest.mark.parametrize("content_type", ["Application/X-NDJSON", "application/x-ndjson; charset=utf-8"])
def test_a_batch_streams_however_its_media_type_is_spelled(server, content_type, path) -> None:
    """The body reader and the route read the media type alike: a 3 MB batch, 48 times the body limit,
    streams in full under any spelling of NDJSON, sent whole before the answer is read, to the NDJSON
    batch's own path and to the JSON batch's (where clients sent NDJSON before it had its own)."""
    results = lines_of(send(server, path, ndjson_lines(12_000), content_type))
    assert len(results) == 12_000 and all(result["legal"] for result in results)
    assert [result["index"] for result in results] == list(range(12_000))


#: How clients write the JSON media type: the move routes take each alike.
JSON_SPELLINGS = ("application/json", "application/json; charset=utf-8", "Application/JSON")


def move_cases(name: str) -> list[tuple[str, bytes, int, dict]]:
    """(endpoint, body, status, what the answer is) of one game's moves: a legal move, a move that is no
    move, an envelope without its move and a body that is no JSON; what the answer is is the engine's
    answer, or the code of its refusal."""
    game = referee.game(name)
    state = game.new(seed=3)
    move = game.legal_moves(state)[0]
    legal, wrong = orjson.dumps({"state": state, "move": move}), orjson.dumps({"state": state, "move": "not a move"})
    no_move = orjson.dumps({"state": state})
    return [
        ("play", legal, 200, game.play(state, move)),
        ("validate", legal, 200, {"legal": True}),
        ("play", wrong, 422, {"code": "malformed-move"}),
        ("validate", wrong, 200, {"legal": False, "reason": game.validate(state, "not a move")["reason"]}),
        ("validate", no_move, 400, {"code": "malformed-request", "errors": [{"field": "move", "message": "Missing data for required field."}]}),
        ("play", b'{"state":', 400, {"code": "malformed-json"}),
    ]


@pytest.mark.parametrize("chunked", [False, True])
def test_moves_take_every_spelling_of_json_sent_whole_chunked_or_big(server, chunked) -> None:
    """`play` and `validate` of every game, each request sent whole before its answer is read, framed by
    its length or chunked: under every spelling of the JSON media type the answer is the engine's (its
    answer, or its refusal as a problem with the request id), and the same body padded past the size
    worked on off the event loop answers the same."""
    for name in referee.games():
        for endpoint, body, status, expected in move_cases(name):
            for padded in (body, b" " * 20_000 + body):
                for content_type in JSON_SPELLINGS:
                    answer = exchange(server, request_bytes("POST", f"/v1/games/{name}/{endpoint}", padded, content_type,
                                                            chunked, "X-Request-ID: one-id\r\n"))
                    where = (name, endpoint, body[:40], len(padded), content_type)
                    assert answer.status == status, (where, answer.body[:300])
                    assert answer.headers["content-length"] == str(len(answer.body))
                    assert answer.headers["x-request-id"] == "one-id" and answer.headers["connection"] == "keep-alive"
                    got = orjson.loads(answer.body)
                    if status == 200:
                        assert answer.headers["content-type"] == "application/json" and got == expected, where
                    else:
                        assert answer.headers["content-type"] == "application/problem+json", where
                        assert {key: got[key] for key in expected} == expected and got["request_id"] == "one-id", where


def test_moves_refuse_what_they_do_not_take_and_keep_the_connection(server) -> None:
    """The move routes' refusals reach a client that sends its whole body first, and the connection
    serves the next request: another media type or none (415), an empty body, an unknown game, a method
    they do not take; a path with its leading slash doubled is no route (404), as on every route."""
    play = "/v1/games/iago/play"
    untyped = f"POST {play} HTTP/1.1\r\nHost: test\r\nContent-Length: {len(PLAY)}\r\n\r\n".encode() + PLAY
    refusals = [
        (request_bytes("POST", play, PLAY, "text/plain"), "unsupported-media-type", {"accepted": ["application/json"]}),
        (untyped, "unsupported-media-type", {"detail": "the body must be application/json, not untyped"}),
        (request_bytes("POST", play, b""), "malformed-json", {"detail": "the body is empty"}),
        (request_bytes("POST", play, b"\r\n  ", chunked=True), "malformed-json", {"detail": "the body is empty"}),
        (request_bytes("POST", "/v1/games/chess/validate", PLAY, "text/plain"), "unknown-game", {"known": referee.games()}),
        (request_bytes("PUT", play, PLAY), "method-not-allowed", {"detail": f"PUT is not allowed on {play}"}),
    ]
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        reader = sock.makefile("rb")
        for raw, code, facts in refusals:
            sock.sendall(raw)
            answer = read_answer(sock, reader)
            assert_problem(answer, code, **facts)
            if code == "method-not-allowed":
                assert set(answer.headers["allow"].split(", ")) == {"POST", "OPTIONS"}
            sock.sendall(request_bytes("POST", play, PLAY))
            played = read_answer(sock, reader)
            assert played.status == 200 and orjson.loads(played.body)["state"] == IAGO.play(START, "e4")["state"]
    for doubled in ("/" + play, "//healthz", "//v1/games"):
        method = "POST" if doubled.endswith("play") else "GET"
        assert_problem(exchange(server, request_bytes(method, doubled, PLAY)), "not-found", detail=f"no resource at {doubled}")


def test_the_results_of_a_streamed_batch_are_bounded(server) -> None:
    """`{}` lines answer ~100 times their size in errors: the spool stops at its limit with a problem."""
    answer = send(server, "/v1/games/iago/batch", b"{}\n" * 100_000, "application/x-ndjson")
    *results, problem = lines_of(answer)
    assert len(answer.body) < SPOOL_LIMIT + 1000
    assert problem["code"] == "payload-too-large" and problem["index"] == len(results) > 0
    assert [result["index"] for result in results] == list(range(len(results)))


# ------------------------------------------------------------------ what gunicorn answers itself


RAW_FAULTS = {
    "a bad request line": (b"GARBAGE\r\n\r\n", "malformed-http"),
    "a bare LF": (b"GET /healthz HTTP/1.1\nHost: test\n\n", "malformed-http"),
    "a bare CR in a header": (b"GET /healthz HTTP/1.1\r\nHost: test\r\nX-A: a\rb\r\n\r\n", "malformed-http"),
    "Content-Length with chunked": (
        b"POST /v1/games/iago/new HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", "malformed-http"),
    "a broken chunk size": (
        b"POST /v1/games/iago/new HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", "malformed-http"),
    "a request line too long": (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: test\r\n\r\n", "request-line-too-long"),
    "a header too large": (b"GET /healthz HTTP/1.1\r\nHost: test\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n",
                           "headers-too-large"),
    "too many headers": (b"GET /healthz HTTP/1.1\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(120)) + b"\r\n",
                         "headers-too-large"),
    "a gzipped body that is not chunked last": (
        b"POST /v1/games/iago/new HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: gzip\r\n\r\n", "malformed-http"),
    "an unknown transfer coding": (
        b"POST /v1/games/iago/new HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: br\r\n\r\n", "not-implemented"),
    "a gzipped chunked body": (
        b"POST /v1/games/iago/new HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", "not-implemented"),
}


@pytest.mark.parametrize("fault", RAW_FAULTS)
def test_requests_gunicorn_refuses_get_a_problem_with_a_request_id(server, fault) -> None:
    raw, code = RAW_FAULTS[fault]
    assert_problem(exchange(server, raw), code)


def test_any_method_and_any_path_count_under_bounded_labels(server) -> None:
    for index in range(12):
        exchange(server, f"ZZPROBE{index} /healthz HTTP/1.1\r\nHost: test\r\n\r\n".encode())
        exchange(server, f"GET /nowhere/{index} HTTP/1.1\r\nHost: test\r\n\r\n".encode())
    status, text = get(f"{server.base}/metrics")
    assert status == 200
    labels = re.findall(r'^referee_requests_total\{endpoint="([^"]*)",method="([^"]*)"', text.decode(), re.M)
    methods = {method for _, method in labels}
    assert "other" in methods and methods <= {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"}
    endpoints = {endpoint for endpoint, _ in labels}
    assert "unmatched" in endpoints and not any(endpoint.startswith("/nowhere") for endpoint in endpoints)


# ------------------------------------------------------------------ states at the edges


@pytest.mark.parametrize(("game", "move"), [("hypnosia", "roll"), ("caesar", None)])
@pytest.mark.parametrize("word_pos", [2**64 - 1, 2**64 - 2, 2**48 + 1])
def test_a_generator_at_its_end_is_an_invalid_state(server, game, move, word_pos) -> None:
    engine = referee.game(game)
    state = engine.new(seed=3)
    move = move or engine.legal_moves(state)[0]
    state["rng"]["word_pos"] = word_pos
    answer = send(server, f"/v1/games/{game}/play", orjson.dumps({"state": state, "move": move}))
    assert_problem(answer, "invalid-state", field="rng.word_pos")


# ------------------------------------------------------------------ what one client can take

MIB = 1024 * 1024


def largest_board_state(k: int = 0) -> dict:
    return referee.game("hypnosia", options={"board": largest_board(k)}).new(seed=k)


def test_distinct_largest_boards_grow_a_worker_by_a_bounded_amount() -> None:
    """128 `new` requests, each with a different board of 8 × 360 spaces and a bridge on every space
    (~85 KB of JSON): compiled boards are cached by bytes, each small (this grew a worker by 1.2 GiB)."""
    with serve(REFEREE_WORKERS="1") as live:
        [worker] = workers(live)
        assert send(live, "/v1/games/hypnosia/new", orjson.dumps({"options": {"board": largest_board(359)}})).status == 200
        before = rss_bytes(worker)
        for k in range(128):
            answer = send(live, "/v1/games/hypnosia/new", orjson.dumps({"options": {"board": largest_board(k)}}))
            assert answer.status == 200 and orjson.loads(answer.body)["state"]["options"]["board"]["entries"][0] == k
        grown = rss_bytes(worker) - before
    assert grown <= 256 * MIB, f"the worker grew by {grown / MIB:.0f} MiB"


def costly_lines(count: int) -> bytes:
    """NDJSON items on up to 360 different largest boards in turn, each ~90 KB: each board compiled (up
    to 360 are more than the cache keeps, so that a longer batch compiles them again): seconds of work."""
    boards = min(count, 360)
    states = [orjson.dumps({"state": largest_board_state(k), "move": "roll"}) + b"\n" for k in range(boards)]
    return b"".join(states[index % len(states)] for index in range(count))


def probe(server, stop: threading.Event, latencies: list[float]) -> None:
    """`/healthz` and a `play` on connections of their own, one after the other, until `stop`."""
    while not stop.is_set():
        started = time.perf_counter()
        with socket.create_connection((server.host, server.port), timeout=30) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
            assert read_answer(sock).status == 200
        assert exchange(server, request_bytes("POST", "/v1/games/iago/play", PLAY)).status == 200
        latencies.append(time.perf_counter() - started)
        stop.wait(0.02)


def test_a_long_costly_batch_holds_neither_the_event_loop_nor_the_worker() -> None:
    """One worker, a worker timeout of 2 s, and a batch of costly items that takes the engine longer: `/healthz` and `play` on other connections keep answering at once while it is judged (the
    bench measures how fast: section hostile), and the worker is not killed."""
    body = costly_lines(200)  # ~17 MB of 200 distinct largest boards, each compiled: tens of seconds
    with serve(REFEREE_WORKERS="1", REFEREE_TIMEOUT="2") as live:
        stop, latencies = threading.Event(), []
        prober = threading.Thread(target=probe, args=(live, stop, latencies))
        prober.start()
        try:
            started = time.perf_counter()
            raw = request_bytes("POST", "/v1/games/hypnosia/batch", body, "application/x-ndjson")
            answer = exchange(live, raw, timeout=180)  # a few seconds alone; longer on a busy machine
            took = time.perf_counter() - started
        finally:
            stop.set()
            prober.join(timeout=30)
        log = live.log_text()
    results = lines_of(answer)
    assert len(results) == 200 and all(result["legal"] for result in results)
    assert took > 2, "the batch should outlast the worker timeout"
    assert "WORKER TIMEOUT" not in log and log.count("Booting worker") == 1, log[-2000:]
    assert len(latencies) > 10 and not held_back(latencies), latencies


def test_items_that_fail_alike_answer_a_few_bytes_each_and_memory_stays_flat() -> None:
    """3 MB of `{}` lines: each item's error was 276 bytes (the answer 92 times the body, the worker
    +650 MiB). Repeated results are written `{"index", "same_as"}`; the worker grows by at most 128 MiB."""
    body = b"{}\n" * 1_000_000
    with serve(REFEREE_WORKERS="1") as live:
        [worker] = workers(live)
        before = rss_bytes(worker)
        answer = send(live, "/v1/games/iago/batch", body, "application/x-ndjson")
        grown = rss_bytes(worker) - before
    results = lines_of(answer)
    assert len(results) == 1_000_000 and len(answer.body) <= 40 * len(results)
    error, full = results[0]["error"], 0
    assert error["code"] == "malformed-request"
    for index, result in enumerate(results):
        if "same_as" in result:
            assert result == {"index": index, "same_as": full}
        else:
            assert result == {"index": index, "error": error}
            full = index
    assert grown <= 128 * MIB, f"the worker grew by {grown / MIB:.0f} MiB"


def wait_answered(clients: list[socket.socket], timeout: float) -> None:
    """Waits until the server has started answering every client (its first bytes can be read), at most
    `timeout` seconds: a streamed batch is read and judged whole before its answer starts, so then no
    batch is being judged any more, however slow the machine."""
    deadline = time.monotonic() + timeout
    waiting = set(clients)
    while waiting and time.monotonic() < deadline:
        readable, _, _ = select.select(list(waiting), [], [], max(0.0, deadline - time.monotonic()))
        waiting -= set(readable)
    assert not waiting, f"{len(waiting)} of {len(clients)} clients got no answer within {timeout} s"


def test_answers_nobody_reads_hold_a_bounded_memory_and_extra_batches_are_told_to_retry() -> None:
    """40 clients send 29,000 lines each and read nothing (each answer was 8 MB, kept in memory: just
    under the spool's old threshold): the worker's memory budget admits what it can hold, and each answer
    waiting holds at most a megabyte of the worker's memory (beyond 8 MiB that the first costly request
    takes: threads, buffers); the others get 503 `service-busy` with `Retry-After`."""
    body = request_bytes("POST", "/v1/games/iago/batch", b"{}\n" * 29_000, "application/x-ndjson")
    with serve(REFEREE_WORKERS="1") as live:
        [worker] = workers(live)
        before = rss_bytes(worker)
        clients = [socket.create_connection((live.host, live.port), timeout=30) for _ in range(40)]
        try:
            for sock in clients:
                sock.sendall(body)
            wait_answered(clients, timeout=60)  # every batch judged (or refused) and its answer waiting
            grown = rss_bytes(worker) - before
            answers = [read_answer(sock) for sock in clients]
        finally:
            for sock in clients:
                sock.close()
    busy = [answer for answer in answers if answer.status == 503]
    admitted = len(answers) - len(busy)
    assert grown <= (8 + admitted) * MIB, f"the worker grew by {grown / MIB:.0f} MiB for {admitted} answers"
    assert len(busy) < len(answers) and all(len(lines_of(a)) == 29_000 for a in answers if a.status == 200)
    for answer in busy:
        assert_problem(answer, "service-busy")
        assert answer.headers["retry-after"] == "1"


def test_a_full_spool_makes_its_heaviest_client_pay_never_a_lighter_one() -> None:
    """A worker's streamed answers wait in temporary files within REFEREE_WORKER_SPOOL_BYTES. While one
    client leaves a 15 MB answer unread, its own new batch is refused (429 `too-many-requests`: the
    heaviest client's newest work pays), another client's batch goes through, and the heavy answer pays for it: it
    ends with a problem line saying from which item to send again. Before, every new batch of every
    client was refused for as long as the first client held its answer (a spool budget had no share)."""
    caesar = referee.game("caesar")
    states = [caesar.new(seed=seed) for seed in range(5000)]
    big = b"".join(orjson.dumps({"state": state, "move": caesar.legal_moves(state)[0]}) + b"\n" for state in states)
    small = request_bytes("POST", "/v1/games/iago/batch", ndjson_lines(10), "application/x-ndjson")
    with serve(REFEREE_WORKERS="1", REFEREE_WORKER_SPOOL_BYTES=str(20 * MIB)) as live:
        with connect(live, "127.0.0.2") as holder:
            holder.sendall(request_bytes("POST", "/v1/games/caesar/batch?with_state=true", big, "application/x-ndjson"))
            time.sleep(2)  # judged and spooled, its answer unread
            its_own = exchange(live, small, peer="127.0.0.2")
            another = exchange(live, small, peer="127.0.0.3")
            held = read_answer(holder)
    assert_problem(its_own, "too-many-requests")
    assert its_own.headers["retry-after"] == "1"
    assert another.status == 200 and len(lines_of(another)) == 10
    lines = lines_of(held)
    assert 0 < len(lines) < 5000
    *results, last = lines
    assert last["code"] == "service-busy" and last["index"] == len(results) and "holds the most" in last["detail"]
    assert all("valid" in result or "legal" in result for result in results)


# ------------------------------------------------------------------ one rule on every route


def doubled_board(state: dict) -> bytes:
    """A state's JSON with its `board` given twice, a forged one first and the issued one last."""
    text = orjson.dumps(state)
    forged = orjson.dumps(["B" * len(row) for row in state["board"]])
    return text.replace(b'"board":', b'"board":' + forged + b',"board":', 1)


@pytest.mark.parametrize("keys", [False, True])
def test_a_key_given_twice_is_refused_alike_by_every_route(keys) -> None:
    env = {"REFEREE_SEAL_KEYS": "k1:" + "A" * 43} if keys else {}
    with serve(**env) as live:
        state = orjson.loads(send(live, "/v1/games/iago/new", b"{}").body)["state"]
        doubled = doubled_board(state)
        bodies = {
            "play": b'{"state":%b,"move":"e4"}' % doubled,
            "validate": b'{"state":%b,"move":"e4"}' % doubled,
            "legal-moves": b'{"state":%b}' % doubled,
            "view": b'{"state":%b,"player":"black"}' % doubled,
            "render": b'{"state":%b}' % doubled,
            "suggest": b'{"state":%b,"level":1}' % doubled,
            "batch": b'[{"state":%b,"move":"e4"}]' % doubled,
        }
        for route, body in bodies.items():
            problem = assert_problem(send(live, f"/v1/games/iago/{route}", body), "malformed-json")
            assert problem["detail"].endswith("duplicate key at state.board"), (route, problem)
            assert send(live, f"/v1/games/iago/{route}", body.replace(doubled, orjson.dumps(state))).status == 200
        line = b'{"state":%b,"move":"e4"}\n' % doubled
        problem = assert_problem(send(live, "/v1/games/iago/batch", line, "application/x-ndjson"), "malformed-json", line=1)
        assert problem["detail"].endswith("duplicate key at state.board")
        twice = send(live, "/v1/games/iago/replay", b'{"moves":["e4"],"moves":["e6"]}')
        assert assert_problem(twice, "malformed-json")["detail"].endswith("duplicate key at moves")


@pytest.mark.parametrize(("changed", "says"), [
    (b'"home_length":1e400', "number out of range"),
    (b'"home_length":4,"home_length":4', "duplicate key at state.options.board.home_length"),
])
def test_a_board_kept_as_text_is_checked_as_json_on_every_move_route(server, changed, says) -> None:
    """A Hypnosia board travels in the state and is kept as the text given, read later: one that is not
    JSON in full, or gives a key twice, is `malformed-json` on play, validate and batches, never a 500
    (a number out of range was one, and the whole batch's)."""
    new = orjson.dumps({"options": {"board": ONE_CIRCLE}, "seed": 3})
    state = orjson.loads(send(server, "/v1/games/hypnosia/new", new).body)["state"]
    item = orjson.dumps({"state": state, "move": "roll"})
    bad = item.replace(b'"home_length":4', changed, 1)
    assert bad != item
    for route, wrap, media, facts in [
        ("play", b"%b", "application/json", {}), ("validate", b"%b", "application/json", {}),
        ("batch", b"[%b]", "application/json", {}), ("batch", b"%b\n", "application/x-ndjson", {"line": 1}),
    ]:
        assert send(server, f"/v1/games/hypnosia/{route}", wrap % item, media).status == 200
        problem = assert_problem(send(server, f"/v1/games/hypnosia/{route}", wrap % bad, media), "malformed-json",
                                 **facts)
        assert says in problem["detail"], (route, problem)


# ------------------------------------------------------------------ requests that cost far more than they send


def test_metrics_series_stay_within_their_closed_labels_and_sum_every_worker(server) -> None:
    """Varied requests (any method, path and outcome) add no label value beyond the routes, methods and
    statuses the service knows; every worker's requests are counted once."""
    _, text = get(f"{server.base}/metrics")
    before = sum(float(line.rsplit(" ", 1)[1]) for line in text.decode().splitlines()
                 if line.startswith("referee_requests_total{"))
    sent = 0
    for index in range(300):
        method = ["GET", "POST", "DELETE", f"XY{index}", "OPTIONS"][index % 5]
        path = ["/healthz", f"/v1/games/g{index}/play", "/v1/games/iago/play", f"/x/{index}", "/docs"][index // 5 % 5]
        exchange(server, f"{method} {path} HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n".encode())
        sent += 1
    _, text = get(f"{server.base}/metrics")
    series = [line for line in text.decode().splitlines() if line.startswith("referee_requests_total{")]
    after = sum(float(line.rsplit(" ", 1)[1]) for line in series)
    assert after - before == sent + 1  # and the first scrape itself
    from referee.http.api import engines
    from referee.http.app import create_app
    from referee.http.metrics import METHODS, STATUSES
    from referee.http.moves import MoveRoutes

    routes = {rule.rule for rule in create_app().url_map.iter_rules()} | {*MoveRoutes(engines()).labels, "unmatched"}
    for line in series:
        endpoint, method, status = re.fullmatch(
            r'referee_requests_total\{endpoint="([^"]*)",method="([^"]*)",status="([^"]*)"\} [0-9.]+', line).groups()
        assert endpoint in routes and method in METHODS and status in {str(s) for s in STATUSES}


def test_costly_pictures_at_once_do_not_hold_healthz() -> None:
    """40 renders of the largest board sent at once (each tens of milliseconds of drawing) to one
    worker: `/healthz` keeps answering while they are drawn, and every picture comes."""
    body = orjson.dumps({"state": largest_board_state(), "legal": True})
    with serve(REFEREE_WORKERS="1") as live:
        clients = [socket.create_connection((live.host, live.port), timeout=60) for _ in range(40)]
        stop, latencies = threading.Event(), []
        prober = threading.Thread(target=probe, args=(live, stop, latencies))
        try:
            for sock in clients:
                sock.sendall(request_bytes("POST", "/v1/games/hypnosia/render", body))
            prober.start()
            answers = [read_answer(sock) for sock in clients]
        finally:
            stop.set()
            prober.join(timeout=30) if prober.is_alive() else None
            for sock in clients:
                sock.close()
    assert all(answer.status == 200 and answer.body.startswith(b"<svg") for answer in answers)
    assert not held_back(latencies), latencies


# ------------------------------------------------------------------ HTTP at its edges


def test_a_doubled_slash_is_not_found_never_a_redirect_to_the_clients_host(server) -> None:
    raw = request_bytes("POST", "/v1//games/iago/play", PLAY).replace(b"Host: test", b"Host: evil.example")
    answer = exchange(server, raw)
    assert_problem(answer, "not-found")
    assert "location" not in answer.headers


def test_a_body_declared_too_large_with_expect_100_continue_is_refused_before_it_is_sent(server) -> None:
    head = (f"POST /v1/games/iago/play HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            f"Content-Length: {BODY_LIMIT + 1}\r\nExpect: 100-continue\r\n\r\n").encode()
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        sock.sendall(head)
        answer = read_answer(sock)  # the first answer: no 100 Continue before it
    assert_problem(answer, "payload-too-large")
    within = request_bytes("POST", "/v1/games/iago/play", PLAY, extra="Expect: 100-continue\r\n")
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        sock.sendall(within)
        reader = sock.makefile("rb")
        assert read_answer(sock, reader).status == 100
        assert read_answer(sock, reader).status == 200


def test_http_1_1_without_host_is_a_bad_request(server) -> None:
    assert_problem(exchange(server, b"GET /healthz HTTP/1.1\r\n\r\n"), "malformed-http")
    assert exchange(server, b"GET /healthz HTTP/1.0\r\n\r\n").status == 200  # HTTP/1.0 has no Host


def test_options_answers_the_allowed_methods_without_a_body(server) -> None:
    answer = exchange(server, b"OPTIONS /v1/games/iago/play HTTP/1.1\r\nHost: test\r\n\r\n")
    assert answer.status == 204 and answer.body == b"" and "content-type" not in answer.headers
    assert set(answer.headers["allow"].split(", ")) == {"POST", "OPTIONS"}
    assert_problem(exchange(server, b"OPTIONS /nowhere HTTP/1.1\r\nHost: test\r\n\r\n"), "not-found")


@pytest.mark.parametrize("path", ["/play/iago", "/play/caesar", "/docs"])
def test_pages_carry_a_strict_policy_and_every_answer_nosniff(server, path) -> None:
    page = exchange(server, f"GET {path} HTTP/1.1\r\nHost: test\r\n\r\n".encode())
    assert page.status == 200 and page.headers["x-content-type-options"] == "nosniff"
    policy = dict(part.strip().split(" ", 1) for part in page.headers["content-security-policy"].split(";"))
    assert policy["default-src"] == "'none'" and policy["frame-ancestors"] == "'none'"
    assert "unsafe" not in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY" and page.headers["referrer-policy"] == "no-referrer"
    assert exchange(server, f"GET {path} HTTP/1.1\r\nHost: test\r\n\r\n".encode()).body == page.body  # built once
    for answer in (exchange(server, b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n"), send(server, "/v1/games/iago/play", PLAY),
                   exchange(server, b"GARBAGE\r\n\r\n"), send(server, "/v1/games/iago/render", orjson.dumps({"state": START}))):
        assert answer.headers["x-content-type-options"] == "nosniff"


def test_a_client_that_never_reads_its_answer_leaves_one_json_log_line() -> None:
    """A 12 MB answer nobody reads: after the read timeout the connection closes, and the log has one
    JSON line with the request id (it had a 45-line traceback)."""
    items = b"[" + b",".join([orjson.dumps({"state": START, "move": "e4"})] * 10_000) + b"]"
    # A high minimum read rate: the bytes the client's kernel took count as read, and lets them go at once.
    with serve(REFEREE_READ_TIMEOUT="2", REFEREE_WORKERS="1", REFEREE_MIN_READ_RATE="1000000") as live:
        with socket.create_connection((live.host, live.port), timeout=30) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.sendall(request_bytes("POST", "/v1/games/iago/batch?with_state=true", items,
                                       extra="X-Request-ID: never-read-1\r\n"))
            time.sleep(5)
        log = live.log_text()
    assert "Traceback" not in log
    [line] = [json.loads(line) for line in log.splitlines() if "never-read-1" in line]
    assert line["request_id"] == "never-read-1" and "stopped reading" in line["message"]
