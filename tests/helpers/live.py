"""The service as `make serve` runs it: gunicorn with the project's config on a free loopback port, and
raw-socket clients that behave as real ones do (send a whole body before reading, trickle, go silent).
The live tests and the benchmarks (bench/) share these helpers."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

GUNICORN = Path(sys.executable).with_name("gunicorn")
APP = "referee.http.app:create_app()"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def get(url: str, timeout: float = 5) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


@dataclass
class Server:
    host: str
    port: int
    process: subprocess.Popen
    log: Path

    @property
    def base(self) -> str:
        return f"http://[{self.host}]:{self.port}" if ":" in self.host else f"http://{self.host}:{self.port}"

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@contextlib.contextmanager
def serve(app: str = APP, options: tuple[str, ...] = (), grace: float = 0, host: str = "127.0.0.1",
          port: int = 0, **env: str) -> Iterator[Server]:
    """gunicorn serving `app` (which answers `/readyz`) at `host` with the project's config, more gunicorn
    `options` and these REFEREE_* settings (2 workers, no access log unless given), on `port` when given (a
    restarted server on its old one), else a free one; stopped on exit: SIGTERM and up to `grace` seconds
    to finish, then SIGKILL to the server's whole process group."""
    port = port or free_port()
    bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    settings = {"REFEREE_WORKERS": "2", "REFEREE_ACCESS_LOG": "0"} | env | {"REFEREE_BIND": bind}
    full_env = os.environ | settings
    full_env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    with tempfile.TemporaryDirectory(prefix="referee-live-") as workdir:
        log = Path(workdir) / "gunicorn.log"
        # A process group of its own (to kill it whole), not a session: with the kernel's autogroup
        # scheduling a new session is a scheduling group of its own, which starved some of the
        # benchmark's connections for up to 1.5 s at full load (a p99 of ~1 s, against ~0.1 s in wrk's
        # own group).
        with open(log, "wb") as out:
            process = subprocess.Popen(
                [str(GUNICORN), "-c", "python:referee.http.gunicorn_conf", *options, app],
                env=full_env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=workdir,
                process_group=0,
            )
        server = Server(host, port, process, log)
        try:
            wait_ready(server)
            yield server
        finally:
            stop(process, grace)


def stop(process: subprocess.Popen, grace: float) -> None:
    """SIGTERM to the gunicorn master and `grace` seconds to stop (none: straight on), then SIGKILL to its
    process group (it leads its own), workers included."""
    if grace and process.poll() is None:
        process.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=grace)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)


def post(server: Server, path: str, body: Any, content_type: str = "application/json") -> tuple[int, Any]:
    """A POST of `body` (bytes, or a value sent as JSON): the status and the decoded answer (a list of
    lines for an NDJSON batch answered 200)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    answer = send(server, path, data, content_type)
    if content_type == "application/x-ndjson" and answer.status == 200:
        return answer.status, [json.loads(line) for line in answer.body.splitlines()]
    return answer.status, json.loads(answer.body)


def send(server: Server, path: str, body: bytes, content_type: str = "application/json", chunked: bool = False,
         timeout: float = 30) -> Answer:
    """A POST of these bytes (in chunks, when `chunked`) on a connection of its own: the whole answer."""
    return exchange(server, request_bytes("POST", path, body, content_type, chunked), timeout=timeout)


def wait_ready(server: Server) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError("gunicorn exited: " + server.log_text()[-2000:])
        try:
            if get(f"{server.base}/readyz")[0] == 200:
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("gunicorn did not become ready: " + server.log_text()[-2000:])


def workers(server: Server) -> list[int]:
    """The pids of the server's workers (the children of gunicorn's master)."""
    children = Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children").read_text()
    return [int(pid) for pid in children.split()]


def rss_bytes(pid: int, field: str = "VmRSS") -> int:
    """A process's resident memory (`VmHWM`: the most it has held)."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith(field + ":"))) * 1024


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used (user and system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


def read_answer(sock: socket.socket, reader: Any = None, head: bool = False) -> Answer:
    """One HTTP/1.1 answer (Content-Length or chunked framing, none for 1xx, 204 and 304 or to a HEAD
    request, or up to the close); `reader`: the socket's file, when more answers are to be read from it."""
    reader = reader or sock.makefile("rb")
    status_line = reader.readline()
    if not status_line:
        raise ConnectionError("the server closed the connection without an answer")
    status = int(status_line.split()[1])
    headers = {}
    while (line := reader.readline()) not in (b"\r\n", b"\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    if head or status < 200 or status in (204, 304):
        body = b""
    elif "content-length" in headers:
        body = reader.read(int(headers["content-length"]))
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        parts = []
        while (size := int(reader.readline().split(b";")[0], 16)) > 0:
            parts.append(reader.read(size))
            reader.readline()
        reader.readline()
        body = b"".join(parts)
    else:
        body = reader.read()
    return Answer(status, headers, body)


def read_at(sock: socket.socket, rate: float, limit: float, until: Any = lambda: False) -> tuple[bytes, bool]:
    """Reads all it can at `rate` bytes a second for at most `limit` seconds (or `until` it is true): what
    it read, and whether the connection was closed."""
    parts, size, started = [], 0, time.monotonic()
    while time.monotonic() - started < limit and not until():
        try:
            part = sock.recv(16384)
        except OSError:
            return b"".join(parts), True
        if not part:
            return b"".join(parts), True
        parts.append(part)
        size += len(part)
        time.sleep(max(0.0, size / rate - (time.monotonic() - started)))
    return b"".join(parts), False


def connect(server: Server, peer: str | None = None, timeout: float = 30) -> socket.socket:
    """A connection to the server; from `peer` when given: any address of 127/8 (all loopback on Linux),
    another client as the service counts clients (each has its share of a worker)."""
    return socket.create_connection((server.host, server.port), timeout=timeout,
                                    source_address=(peer, 0) if peer else None)


def exchange(server: Server, raw: bytes, timeout: float = 30, peer: str | None = None) -> Answer:
    """Sends a whole raw request, then reads the answer, as most clients do (from `peer`, when given)."""
    with connect(server, peer, timeout) as sock:
        sock.sendall(raw)
        return read_answer(sock, head=raw.startswith(b"HEAD "))


def healthz_latencies(server: Server, until: Any, latencies: list[float], timeout: float = 30,
                      sent: list[float] | None = None) -> None:
    """`/healthz` on a connection of its own, again and again (10 ms apart) until `until()` is true (a
    `threading.Event`'s `is_set`, a deadline): each answer's latency kept (and, in `sent`, when it was
    asked: `time.perf_counter()`). Anything but 200 fails."""
    while not until():
        started = time.perf_counter()
        assert exchange(server, b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n", timeout=timeout).status == 200
        latencies.append(time.perf_counter() - started)
        if sent is not None:
            sent.append(started)
        time.sleep(0.01)


def held_back(latencies: list[float]) -> bool:
    """Whether probes were held back by what a test does: more than one of them a second or more, or any
    3 s (bounds loose enough for a loaded 2-core machine; what was fixed held them for seconds on end)."""
    return not latencies or sorted(latencies)[-2:][0] >= 1.0 or max(latencies) >= 3.0


def distinct_lines(count: int) -> bytes:
    """`count` NDJSON items of distinct Iago states and moves met in seeded random games: their results
    differ (none is answered `same_as` another), each with its state about 550 bytes."""
    import random

    import orjson

    import referee

    game, rng, lines = referee.game("iago"), random.Random(1), {}
    while len(lines) < count:
        state = game.new()
        for _ in range(40):
            moves = game.legal_moves(state)
            if not moves:
                break
            move = rng.choice(moves)
            lines[orjson.dumps({"state": state, "move": move})] = None
            state = game.play(state, move)["state"]
    return b"\n".join(list(lines)[:count]) + b"\n"


def request_bytes(method: str, path: str, body: bytes = b"", content_type: str = "application/json",
                  chunked: bool = False, extra: str = "") -> bytes:
    """A raw HTTP/1.1 request; a chunked one sends its body in chunks of 64 KiB."""
    head = f"{method} {path} HTTP/1.1\r\nHost: test\r\nContent-Type: {content_type}\r\n{extra}"
    if not chunked:
        return f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body
    pieces = [body[i:i + 65536] for i in range(0, len(body), 65536)]
    framed = b"".join(b"%x\r\n%b\r\n" % (len(piece), piece) for piece in pieces)
    return f"{head}Transfer-Encoding: chunked\r\n\r\n".encode() + framed + b"0\r\n\r\n"
