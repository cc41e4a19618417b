"""Hostile and odd clients against the live service (gunicorn with the project's config on loopback):
slow and silent clients, chunked and oversized bodies, broken NDJSON, requests gunicorn itself refuses,
odd methods, generators at their end. Every answer is a precise problem that reaches the client; no
worker is held or killed. Every loop here is bounded in count and time."""

from __future__ import annotations

import json
import re
import socket
import threading
import time

import orjson
import pytest

import referee
from live import Answer, exchange, get, read_answer, request_bytes, serve
from referee.codes import CODES

BODY_LIMIT = 64 * 1024
READ_TIMEOUT = 2
WORKER_TIMEOUT = 4
SPOOL_LIMIT = 2 * 1024 * 1024
REPLAY_LIMIT = 100
IAGO = referee.game("iago")
START = IAGO.new()
PLAY = orjson.dumps({"state": START, "move": "e4"})


@pytest.fixture(scope="module")
def server():
    with serve(
        REFEREE_MAX_BODY_BYTES=str(BODY_LIMIT), REFEREE_READ_TIMEOUT=str(READ_TIMEOUT),
        REFEREE_TIMEOUT=str(WORKER_TIMEOUT), REFEREE_MAX_SPOOL_BYTES=str(SPOOL_LIMIT),
        REFEREE_MAX_REPLAY_MOVES=str(REPLAY_LIMIT),
    ) as live:
        yield live
        log = live.log_text()
        assert "WORKER TIMEOUT" not in log and log.count("Booting worker") == 2, log[-3000:]


def post(server, path: str, body: bytes, content_type: str = "application/json", chunked: bool = False) -> Answer:
    return exchange(server, request_bytes("POST", path, body, content_type, chunked))


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
    "replay": {"moves": ["e4"]},
    "batch": [{"state": START, "move": "e4"}],
}


@pytest.mark.parametrize("route", ROUTE_BODIES)
def test_a_chunked_body_over_the_limit_is_413_on_every_post_route(server, route) -> None:
    valid = orjson.dumps(ROUTE_BODIES[route])
    assert post(server, f"/v1/games/iago/{route}", valid, chunked=True).status == 200  # chunked is fine
    padded = valid + b" " * (BODY_LIMIT - len(valid) + 10) + b"garbage" * 1000
    assert_problem(post(server, f"/v1/games/iago/{route}", padded, chunked=True), "payload-too-large", limit=BODY_LIMIT)


@pytest.mark.parametrize("chunked", [False, True])
def test_a_refused_large_body_is_drained_so_a_client_that_sends_first_reads_the_413(server, chunked) -> None:
    """16 MB, far beyond what the socket buffers hold: without draining, the client's send fails or
    its read is reset."""
    huge = b"[" + b" " * (16 * 1024 * 1024) + b"]"
    assert_problem(post(server, "/v1/games/iago/play", huge, chunked=chunked), "payload-too-large")


def test_a_long_replay_is_refused_by_its_count(server) -> None:
    moves = orjson.dumps({"moves": ["e4"] * 5000})
    problem = assert_problem(post(server, "/v1/games/iago/replay", moves), "malformed-request")
    assert problem["errors"] == [{"field": "moves", "message": f"longer than {REPLAY_LIMIT}"}]


def test_a_replay_too_long_is_refused_before_its_moves_are_checked(monkeypatch) -> None:
    """A million moves: the count is checked first, not after the schema has looked at every move."""
    from referee import api
    from referee.app import create_app
    from referee.settings import Settings

    def schema_must_not_run(*args, **kwargs):
        raise AssertionError("the schema checked the moves of a replay over the limit")

    monkeypatch.setattr(api._replay_request, "load", schema_must_not_run)
    client = create_app(Settings(access_log=False, max_body_bytes=16 << 20, max_replay_moves=REPLAY_LIMIT)).test_client()
    answer = client.post("/v1/games/iago/replay", data=orjson.dumps({"moves": ["e4"] * 1_000_000}),
                         content_type="application/json")
    assert answer.status_code == 400 and answer.json["errors"] == [{"field": "moves", "message": f"longer than {REPLAY_LIMIT}"}]


# ------------------------------------------------------------------ NDJSON batches that go wrong


def test_a_too_long_line_after_the_first_chunk_ends_a_complete_answer(server) -> None:
    good = ndjson_lines(12_000)  # about 3 MB
    long_line = b'{"pad": "' + b"x" * (2 * 1024 * 1024) + b'"}\n'
    *results, problem = lines_of(post(server, "/v1/games/iago/batch", good + long_line + good, "application/x-ndjson"))
    assert len(results) == 12_000 and all(result["legal"] for result in results)
    assert problem["code"] == "payload-too-large" and problem["line"] == 12_001


@pytest.mark.parametrize("chunked", [False, True])
def test_a_bad_line_after_the_first_chunk_ends_a_complete_answer(server, chunked) -> None:
    good = ndjson_lines(12_000)
    answer = post(server, "/v1/games/iago/batch", good + b"{bad\n" + good, "application/x-ndjson", chunked)
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
    answer = post(server, "/v1/games/iago/batch", b"{bad\n" + rest, "application/x-ndjson")
    assert_problem(answer, "malformed-json", line=1)
    single = b'{"pad": "' + b"x" * (2 * 1024 * 1024) + b'"}\n'
    assert_problem(post(server, "/v1/games/iago/batch", single, "application/x-ndjson"), "payload-too-large", line=1)
    # A long line after line 1 cannot end within the first megabyte: line 1 is judged, then the problem.
    result, problem = lines_of(post(server, "/v1/games/iago/batch", ndjson_lines(1) + single + rest, "application/x-ndjson"))
    assert result == {"index": 0, "legal": True} and problem["code"] == "payload-too-large" and problem["line"] == 2


@pytest.mark.parametrize("path", ["/v1/games/iago/batch/ndjson", "/v1/games/iago/batch"])
@pytest.mark.parametrize("content_type", ["Application/X-NDJSON", "application/x-ndjson; charset=utf-8"])
def test_a_batch_streams_however_its_media_type_is_spelled(server, content_type, path) -> None:
    """The body reader and the route read the media type alike: a 3 MB batch, 48 times the body limit,
    streams in full under any spelling of NDJSON, sent whole before the answer is read, to the NDJSON
    batch's own path and to the JSON batch's (where clients sent NDJSON before it had its own)."""
    results = lines_of(post(server, path, ndjson_lines(12_000), content_type))
    assert len(results) == 12_000 and all(result["legal"] for result in results)
    assert [result["index"] for result in results] == list(range(12_000))


@pytest.mark.parametrize("chunked", [False, True])
def test_moves_are_answered_alike_however_json_is_spelled(server, chunked) -> None:
    """`play` and `validate` of every game: a plain request is answered before Flask's dispatch, any
    other spelling of the media type by the Flask views; from the live server both give the same
    status, headers and body, each request sent whole before its answer is read, framed by its length
    or chunked."""
    for name in referee.games():
        game = referee.game(name)
        state = game.new(seed=3)
        envelope = {"state": state, "move": game.legal_moves(state)[0]}
        bodies = [orjson.dumps(envelope), orjson.dumps(envelope | {"move": "not a move"}),
                  orjson.dumps({"state": state}), b'{"state":']
        for endpoint in ("play", "validate"):
            for body in bodies:
                answers = [
                    exchange(server, request_bytes("POST", f"/v1/games/{name}/{endpoint}", body, content_type,
                                                   chunked, "X-Request-ID: one-id\r\n"))
                    for content_type in ("application/json", "application/json; charset=utf-8")
                ]
                seen = {(answer.status, answer.body, *(answer.headers.get(header) for header in (
                    "content-type", "content-length", "x-request-id", "connection"))) for answer in answers}
                assert len(seen) == 1, (name, endpoint, body[:60], seen)
            legal = exchange(server, request_bytes("POST", f"/v1/games/{name}/{endpoint}", bodies[0]))
            assert legal.status == 200 and orjson.loads(legal.body).get("legal", True) is True


def test_the_results_of_a_streamed_batch_are_bounded(server) -> None:
    """`{}` lines answer ~100 times their size in errors: the spool stops at its limit with a problem."""
    answer = post(server, "/v1/games/iago/batch", b"{}\n" * 100_000, "application/x-ndjson")
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
    labels = re.findall(r'^referee_request_seconds_count\{endpoint="([^"]*)",method="([^"]*)"', text.decode(), re.M)
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
    answer = post(server, f"/v1/games/{game}/play", orjson.dumps({"state": state, "move": move}))
    assert_problem(answer, "invalid-state", field="rng.word_pos")


def test_an_isaac_piece_listed_twice_is_named_so(server) -> None:
    isaac = referee.game("isaac")
    state = isaac.play(isaac.new(), "a1-c1")["state"]
    state["pieces"]["black"] = state["pieces"]["black"] * 2
    problem = assert_problem(post(server, "/v1/games/isaac/legal-moves", orjson.dumps({"state": state})), "invalid-state")
    assert "listed twice" in problem["detail"] and problem["field"] == "pieces.black[1]"
