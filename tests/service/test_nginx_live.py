"""The reverse proxy shipped in deploy/referee.nginx.conf, run by Debian's `nginx` (which `make test`
installs when missing) on loopback in front of a live gunicorn: the routes answer through it, a slow
body reaches gunicorn whole, bodies are bounded as the service bounds them but streamed batches are not,
a steady reader of a stream above the service's minimum rate gets it whole and a slower one is let go, one
peer's flood and its requests in progress are limited while another peer is served, and the service is told
the peer and the request id. nginx runs as a plain subprocess (`-p` a temporary directory: its pid,
logs and temporary files), never as a system service. Without nginx the module is skipped on a
developer's machine and fails under CI (`CI` set). Every loop here is bounded in count and time."""

from __future__ import annotations

import contextlib
import io
import re
import socket
import threading
import time
from collections.abc import Iterator

import orjson
import pytest

import referee
from helpers.live import Answer, Server, connect, distinct_lines, exchange, read_answer, read_at, request_bytes, serve
from helpers.proxy import CONF, nginx, require_nginx
from referee.codes import CODES
from referee.http.settings import Settings

pytestmark = pytest.mark.live

READ_TIMEOUT = 2  # the test server's REFEREE_READ_TIMEOUT: short, so that a pause can outlast it
START = referee.game("iago").new()
PLAY = orjson.dumps({"state": START, "move": "e4"})
MIB = 1024 * 1024

require_nginx()


def post_bytes(path: str, body: bytes, content_type: str = "application/json", request_id: str = "", **options) -> bytes:
    extra = f"X-Request-ID: {request_id}\r\n" if request_id else ""
    return request_bytes("POST", path, body, content_type, extra=extra + options.pop("extra", ""), **options)


def assert_problem(answer: Answer, code: str) -> dict:
    """A problem+json answer of the service's table (`referee.codes`), its request id in header and body."""
    problem = orjson.loads(answer.body)
    assert answer.status == CODES[code].status == problem["status"], (answer.status, answer.body[:300])
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert problem["code"] == code and problem["type"] == f"urn:referee:problem:{code}"
    assert problem["title"] == CODES[code].title
    assert problem["request_id"] == answer.headers["x-request-id"]
    return problem


def assert_too_many(answer: Answer) -> None:
    """nginx's 429: problem+json with its request id and `Retry-After` (its title is the table's: below)."""
    problem = orjson.loads(answer.body)
    assert answer.status == problem["status"] == 429 and problem["code"] == "too-many-requests"
    assert answer.headers["content-type"] == "application/problem+json" and answer.headers["retry-after"] == "1"
    assert problem["request_id"] == answer.headers["x-request-id"]


def ndjson(count: int) -> bytes:
    return (PLAY + b"\n") * count


def logged_ids(server: Server) -> set[str]:
    """The request ids of gunicorn's access log: the requests that reached the service."""
    return set(re.findall(r'"request_id":"([^"]+)","method"', server.log_text()))


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    return {"REFEREE_READ_TIMEOUT": str(READ_TIMEOUT), "REFEREE_ACCESS_LOG": "1", "REFEREE_TRUSTED_PROXIES": "127.0.0.1"}


@pytest.fixture(scope="module")
def proxy(server: Server) -> Iterator[Server]:
    with nginx(server.port) as running:
        yield running


# ------------------------------------------------------------------ the routes, through the proxy


def test_the_routes_answer_through_the_proxy_as_they_do_directly(server, proxy) -> None:
    same = "same-id"  # so that the answers, problems included, compare byte for byte
    requests = [
        post_bytes("/v1/games/iago/play", PLAY, request_id=same),
        post_bytes("/v1/games/iago/new", b"{}", request_id=same),
        post_bytes("/v1/games/iago/batch", b"[%b,%b]" % (PLAY, PLAY), request_id=same),
        post_bytes("/v1/games/iago/batch", ndjson(3), "application/x-ndjson", same),
        post_bytes("/v1/games/iago/batch/ndjson?with_state=true", ndjson(3), "application/x-ndjson", same, chunked=True),
        post_bytes("/v1/games/iago/play", b'{"state":', request_id=same),
    ]
    for raw in requests:
        direct, proxied = exchange(server, raw), exchange(proxy, raw)
        assert (proxied.status, proxied.body) == (direct.status, direct.body), raw[:80]
        assert proxied.headers["content-type"] == direct.headers["content-type"]


def test_the_request_id_passes_through_and_one_is_made_when_missing(server, proxy) -> None:
    given = exchange(proxy, post_bytes("/v1/games/iago/play", PLAY, request_id="client-id-1"))
    assert given.status == 200 and given.headers["x-request-id"] == "client-id-1"
    made = exchange(proxy, post_bytes("/v1/games/iago/play", PLAY))
    replaced = exchange(proxy, post_bytes("/v1/games/iago/play", PLAY, request_id="not a sane id"))
    for answer in (made, replaced):
        assert answer.status == 200 and re.fullmatch(r"[0-9a-f]{32}", answer.headers["x-request-id"])
    # One X-Request-ID in each answer, and the service logged the same ids: nginx's, when it made one.
    assert {"client-id-1", made.headers["x-request-id"], replaced.headers["x-request-id"]} <= logged_ids(server)


def test_nginx_refusals_are_the_services_problems(server, proxy) -> None:
    assert_problem(exchange(proxy, b"GARBAGE\r\n\r\n"), "malformed-http")
    long_line = b"GET /" + b"x" * 9000 + b" HTTP/1.1\r\nHost: test\r\n\r\n"
    assert_problem(exchange(proxy, long_line), "request-line-too-long")


# ------------------------------------------------------------------ bodies


def test_a_trickled_body_reaches_gunicorn_whole(server, proxy) -> None:
    """A body with a pause longer than the service's read timeout in its middle: sent to gunicorn, the
    pause is a 408; through nginx, which reads the whole body before it passes it on, gunicorn receives
    it at once and answers it."""
    raw = post_bytes("/v1/games/iago/play", PLAY)
    answers = []
    for target in (server, proxy):
        with connect(target, timeout=READ_TIMEOUT * 5) as sock:
            sock.sendall(raw[:-20])
            time.sleep(READ_TIMEOUT + 1)
            with contextlib.suppress(OSError):  # gunicorn may have answered and closed by now
                sock.sendall(raw[-20:])
            answers.append(read_answer(sock))
    direct, proxied = answers
    assert_problem(direct, "request-timeout")
    assert proxied.status == 200 and orjson.loads(proxied.body)["position"]


def test_single_bodies_are_bounded_as_the_service_bounds_them_and_streams_are_not(server, proxy) -> None:
    """A `play` of exactly REFEREE_MAX_BODY_BYTES (the default, as shipped) is played; a byte more is
    refused by nginx, before it reaches the service. A streamed batch of more than that, with
    `Expect: 100-continue` as curl sends it, is invited and judged whole, on both of its paths."""
    limit = Settings().max_body_bytes
    at_limit = PLAY + b" " * (limit - len(PLAY))
    assert exchange(proxy, post_bytes("/v1/games/iago/play", at_limit)).status == 200
    over = exchange(proxy, post_bytes("/v1/games/iago/play", at_limit + b" ", request_id="over-the-limit"))
    assert_problem(over, "payload-too-large")
    assert "over-the-limit" not in logged_ids(server)
    lines = limit // len(PLAY) + 1000
    for path, spelling in [("/v1/games/iago/batch/ndjson", "application/x-ndjson"),
                           ("/v1/games/iago/batch", "Application/X-NDJSON; charset=utf-8")]:
        raw = post_bytes(path, ndjson(lines), spelling, extra="Expect: 100-continue\r\n")
        head, body = raw.split(b"\r\n\r\n", 1)
        with connect(proxy, timeout=30) as sock:
            sock.sendall(head + b"\r\n\r\n")
            reader = sock.makefile("rb")
            assert read_answer(sock, reader).status == 100
            sock.sendall(body)
            answer = read_answer(sock, reader)
        assert len(body) > limit and answer.status == 200, answer.body[:300]
        assert answer.body.count(b'"legal":true') == lines



def test_a_silent_stream_gets_the_services_own_answer_through_the_proxy(proxy) -> None:
    """A streamed batch whose client goes silent before its last bytes: nginx passes the stream on as it
    comes and waits longer than the service, so the service's answer reaches the client: the results of
    the lines it read, then a `request-timeout` line."""
    lines = ndjson(30_000)  # about 3 MB: some chunks judged before the silence
    declared = b"Content-Length: %d" % (len(lines) + 100)
    head = post_bytes("/v1/games/iago/batch", b"", "application/x-ndjson").replace(b"Content-Length: 0", declared)
    with connect(proxy, timeout=READ_TIMEOUT * 10) as sock:
        sock.sendall(head + lines)
        answer = read_answer(sock)
    assert answer.status == 200 and answer.headers["content-type"] == "application/x-ndjson"
    *results, last = [orjson.loads(line) for line in answer.body.splitlines()]
    assert results and results == [{"index": index, "legal": True} for index in range(len(results))]
    assert last["code"] == "request-timeout" and last["status"] == 408

# ------------------------------------------------------------------ reading answers: the minimum rate


def test_a_steady_reader_above_the_minimum_rate_gets_its_stream_through_the_proxy_and_a_slower_one_is_let_go() -> None:
    """Streamed answers of megabytes, read through nginx (which passes them on as they come) at the
    service's minimum rate scaled up, so that a test lasts seconds, not hours: a steady reader at 1.5 times
    the rate gets its whole answer; one at a tenth of it is let go by the service once the kernels' buffers
    between them are full (its JSON line), and nginx then ends its answer without the last chunk, after
    what it had. That nginx does not cut a steady reader at the service's real rate (4 KB/s, where one
    wait for a write may last minutes) is `send_timeout`'s bound, checked with the others below."""
    rate = 400_000
    lines = distinct_lines(20_000)  # 11 MB of results: more than the kernels buffer on loopback (about 8)
    steady_lines = b"".join(lines.splitlines(keepends=True)[:10_000])  # 5.6 MB
    path = "/v1/games/iago/batch/ndjson?with_state=true"
    read: dict[str, tuple[bytes, bool]] = {}
    env = {"REFEREE_READ_TIMEOUT": "2", "REFEREE_MIN_READ_RATE": str(rate), "REFEREE_TRUSTED_PROXIES": "127.0.0.1"}
    with serve(**env) as live, nginx(live.port) as proxy:

        def steady() -> None:
            with connect(proxy, peer="127.0.0.7") as sock:
                sock.sendall(post_bytes(path, steady_lines, "application/x-ndjson", "steady-reader"))
                read["steady"] = read_at(sock, rate * 1.5, 30)

        def slow() -> None:
            with socket.socket() as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
                sock.settimeout(30)
                sock.bind(("127.0.0.8", 0))
                sock.connect((proxy.host, proxy.port))
                sock.sendall(post_bytes(path, lines, "application/x-ndjson", "slow-reader"))
                started = time.monotonic()
                first, _ = read_at(sock, rate / 10, 20, until=lambda: "slow-reader" in live.log_text())
                read["let go after"] = b"%.1f" % (time.monotonic() - started), False
                rest, closed = read_at(sock, 1e9, 20)  # what the kernels and nginx still held, then the end
                read["slow"] = first + rest, closed

        readers = [threading.Thread(target=steady), threading.Thread(target=slow)]
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join(timeout=60)
        log = live.log_text()
    answer, _ = read["steady"]
    assert answer.endswith(b"\r\n0\r\n\r\n"), (len(answer), answer[-200:])  # the last chunk: whole
    results = read_answer(None, io.BytesIO(answer)).body.splitlines()
    assert len(results) == 10_000 and orjson.loads(results[-1])["index"] == 9_999 and len(answer) > 5_000_000
    assert "steady-reader" not in log
    [line] = [orjson.loads(line) for line in log.splitlines() if "slow-reader" in line]
    assert "stopped reading" in line["message"]
    cut, closed = read["slow"]
    assert closed and not cut.endswith(b"\r\n0\r\n\r\n") and cut.count(b'"index":') < 20_000, len(cut)
    print(f"slow reader let go after {read['let go after'][0].decode()} s, its answer ended after {len(cut)} bytes")


# ------------------------------------------------------------------ per-peer limits


def test_a_flood_from_one_peer_is_limited_before_it_arrives_while_another_peer_is_served(server) -> None:
    """As shipped but with a rate of one request a minute, so that no token comes back during the test
    and the count is exact whatever the machine's speed: a peer gets its burst of 200 and one more, then
    429 (problem+json, `Retry-After`), and those never reach the service; another peer is served."""
    with nginx(server.port, ("rate=100r/s", "rate=1r/m")) as proxy:
        answers = [exchange(proxy, post_bytes("/v1/games/iago/play", PLAY, request_id=f"flood-{index}"), peer="127.0.0.2")
                   for index in range(220)]
        other = exchange(proxy, post_bytes("/v1/games/iago/play", PLAY), peer="127.0.0.3")
        again = exchange(proxy, post_bytes("/v1/games/iago/play", PLAY), peer="127.0.0.2")
    assert [answer.status for answer in answers] == [200] * 201 + [429] * 19
    assert other.status == 200 and again.status == 429
    for answer in answers[201:] + [again]:
        assert_too_many(answer)
    reached = {name for name in logged_ids(server) if name.startswith("flood-")}
    assert reached == {f"flood-{index}" for index in range(201)}


def test_requests_in_progress_are_limited_per_peer(server, proxy) -> None:
    """16 requests of one peer whose bodies are still coming: a 17th of that peer is refused at once; a
    request of another peer is served; then the 16 are answered. Each held request asks `Expect:
    100-continue`, which nginx answers once the request is counted (its body is read after the limits),
    so that the 17th is sent only then, however slow the machine."""
    raw = post_bytes("/v1/games/iago/play", PLAY)
    head, body = post_bytes("/v1/games/iago/play", PLAY, extra="Expect: 100-continue\r\n").split(b"\r\n\r\n", 1)
    held = [connect(proxy, peer="127.0.0.4") for _ in range(16)]
    try:
        readers = [sock.makefile("rb") for sock in held]
        for sock in held:
            sock.sendall(head + b"\r\n\r\n")
        assert [read_answer(sock, reader).status for sock, reader in zip(held, readers)] == [100] * 16
        refused = exchange(proxy, raw, peer="127.0.0.4")
        served = exchange(proxy, raw, peer="127.0.0.5")
        for sock in held:
            sock.sendall(body)
        answers = [read_answer(sock, reader) for sock, reader in zip(held, readers)]
    finally:
        for sock in held:
            sock.close()
    assert_too_many(refused)
    assert served.status == 200
    assert [answer.status for answer in answers] == [200] * 16


# ------------------------------------------------------------------ what the service is told


@contextlib.contextmanager
def recording_upstream() -> Iterator[tuple[int, list[dict[str, str]]]]:
    """An upstream that answers every request `200 {}` and records its headers (lower-case names) with
    its body under `body`: what the service would be told."""
    seen: list[dict[str, str]] = []
    listener = socket.create_server(("127.0.0.1", 0))

    def answer(conn: socket.socket) -> None:
        with conn, conn.makefile("rb") as reader:
            while reader.readline() not in (b"", b"\r\n"):  # a request line
                headers = {}
                while (field := reader.readline()) not in (b"", b"\r\n"):
                    name, _, value = field.decode("latin-1").partition(":")
                    headers.setdefault(name.strip().lower(), value.strip())
                headers["body"] = reader.read(int(headers.get("content-length", 0))).decode()
                seen.append(headers)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")

    def accept() -> None:
        with contextlib.suppress(OSError):
            while True:
                threading.Thread(target=answer, args=(listener.accept()[0],), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield listener.getsockname()[1], seen
    finally:
        listener.close()


def test_the_service_is_told_the_peer_the_host_and_the_request_id() -> None:
    """X-Forwarded-For is the peer nginx sees, whatever the client claimed (overwritten, so that its last
    address is the real peer); Host and a sane X-Request-ID pass; a chunked body arrives whole, with its
    length; `Expect` stays between the client and nginx."""
    with recording_upstream() as (port, seen), nginx(port) as proxy:
        extra = "X-Forwarded-For: 6.6.6.6\r\nHost: referee.example\r\nExpect: 100-continue\r\n"
        raw = post_bytes("/v1/games/iago/play", PLAY, request_id="told-1", chunked=True, extra=extra)
        raw = raw.replace(b"Host: test\r\n", b"")
        head, body = raw.split(b"\r\n\r\n", 1)
        with connect(proxy, peer="127.0.0.6") as sock:
            sock.sendall(head + b"\r\n\r\n")
            reader = sock.makefile("rb")
            assert read_answer(sock, reader).status == 100
            sock.sendall(body)
            assert read_answer(sock, reader).status == 200
    [told] = seen
    assert told["x-forwarded-for"] == "127.0.0.6"
    assert told["host"] == "referee.example" and told["x-request-id"] == "told-1"
    assert told["body"] == PLAY.decode() and told["content-length"] == str(len(PLAY))
    assert "expect" not in told and "transfer-encoding" not in told


# ------------------------------------------------------------------ the numbers agree with the service's


def directives(text: str, name: str) -> list[str]:
    return re.findall(rf"^\s*{name}\s+([^;]+);", text, flags=re.MULTILINE)


def seconds(value: str) -> int:
    assert value.endswith("s"), value
    return int(value[:-1])


def test_the_proxys_bounds_agree_with_the_services_defaults() -> None:
    """The shipped numbers against the service's defaults: a changed default fails here until the proxy
    follows it. Single bodies: the same size limit and read timeout; streams: no size limit, and a longer
    read timeout than the service's (its own answer to a silent stream comes first); answers: a write may
    wait as long as a steady reader at the minimum rate takes to free a third of a socket's largest buffer;
    connections to gunicorn closed before gunicorn closes them."""
    from referee.http import gunicorn_conf

    text, settings = CONF.read_text(), Settings()
    assert directives(text, "client_max_body_size") == [f"{settings.max_body_bytes // MIB}m", "0"]
    assert settings.max_body_bytes % MIB == 0 and str(settings.max_body_bytes) in text  # nginx's 413 says it
    body_timeouts = [seconds(value) for value in directives(text, "client_body_timeout")]
    assert body_timeouts[0] == settings.read_timeout < body_timeouts[1]
    # A steady reader at the minimum rate frees a third of a full socket's buffer (4 MiB at most, Linux's
    # tcp_wmem) between two writes of nginx: send_timeout lets it, and not much longer.
    [send_timeout] = [seconds(value) for value in directives(text, "send_timeout")]
    assert 4 * MIB / 3 / settings.min_read_rate <= send_timeout <= 4 * MIB / 3 / settings.min_read_rate + 60
    assert [seconds(value) for value in directives(text, "client_header_timeout")] == [gunicorn_conf.keepalive]
    idle = [seconds(value) for value in directives(text, "keepalive_timeout")]
    assert idle == [gunicorn_conf.keepalive - 1, gunicorn_conf.keepalive]  # upstream's, then the clients'
    assert directives(text, "proxy_request_buffering") == ["on", "off"]
    assert directives(text, "proxy_buffering") == ["off"]  # a stream's answer: the service spools it
    assert directives(text, "proxy_set_header") == [
        'Connection ""', "Host $host", "X-Forwarded-For $remote_addr", "X-Request-ID $referee_request_id"]


def test_the_proxys_problems_are_the_services_codes() -> None:
    """Every problem nginx answers itself is a code of the service's table, with its status and title."""
    bodies = re.findall(r"return (\d+) '(\{.*\})\\n';", CONF.read_text())
    assert len(bodies) == 4
    for status, body in bodies:
        problem = orjson.loads(body.replace("$referee_request_id", "id"))
        code = problem["code"]
        if code == "too-many-requests" and code not in CODES:
            pytest.skip("the service's own 429 comes with REFEREE_TRUSTED_PROXIES (issue 39, item 1)")
        assert (int(status), problem["status"], problem["title"]) == (CODES[code].status,) * 2 + (CODES[code].title,)
        assert problem["type"] == f"urn:referee:problem:{code}"
