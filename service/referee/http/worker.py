"""The gunicorn worker of the service: gevent's, so that a slow client costs a greenlet, not a worker.

Sync workers read a request's body inside the worker: five clients trickling bodies held all five
workers, and a slow honest upload was killed by the worker timeout. Under gevent a worker serves
thousands of connections at once; the engine's calls are short and CPU-bound, so they run between reads
without yielding, and the worker timeout only catches a worker whose loop is really stuck.

What only the worker can do:
- a silent or slow client is dropped: every read and write on a connection waits at most
  `REFEREE_READ_TIMEOUT` seconds, and within a request a body must arrive, and an answer be read, at
  least at a minimum rate (`REFEREE_MIN_UPLOAD_RATE`, `REFEREE_MIN_READ_RATE`) after a head start of
  `REFEREE_READ_TIMEOUT` seconds (`Paced`): the app answers 408 when the body stalls or crawls, and a
  client that reads its answer too slowly leaves one JSON log line with the request id, not a traceback;
- one client holds at most `REFEREE_PEER_CONNECTIONS` connections of a worker: past them a connection
  is answered 429 and closed before its request is read;
- errors that gunicorn answers before the app sees the request (a bad request line, bare CR or LF,
  oversized headers, Content-Length with chunked) are problem+json with a request id, like every other
  answer, instead of gunicorn's HTML page;
- what must be refused before gunicorn answers `100 Continue` or the app reads anything: a body declared
  larger than `REFEREE_MAX_BODY_BYTES` with `Expect: 100-continue` (413 at once, so the client never
  sends it; but a streamed batch, which the body limit does not bound), and an HTTP/1.1 request without
  `Host` (400, as RFC 9112 says).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import gc
import socket
import struct
import sys
import termios
import time
from functools import partial
from typing import Any, Callable, NamedTuple

import gevent
import orjson
from gunicorn import util as gunicorn_util
from gunicorn.http import errors as http_errors
from gunicorn.workers.base_async import AsyncWorker
from gevent.pool import Pool
from gevent.server import StreamServer
from gunicorn.workers.ggevent import GeventWorker

from referee.http import lifecycle, offload
from referee.http.body import BLOCK, PROBES, is_stream
from referee.http.budget import RETRY_AFTER_SECONDS, peer_of, plain_address
from referee.codes import CODES
from referee.http.observe import new_request_id
from referee.http.problems import PROBLEM_JSON, document, internal_error
from referee.http.settings import Settings, probe_address

__all__ = ["PROXY_READ_WINDOW", "Pace", "Paced", "RefereeWorker"]

#: gunicorn's parse errors, by the problem code that answers them (the first match wins).
PARSE_ERRORS: list[tuple[type[BaseException] | tuple[type[BaseException], ...], str]] = [
    # Header errors of the app's own answer, and a bad configuration, are ours, not the client's.
    ((http_errors.InvalidResponseHeader, http_errors.InvalidResponseHeaderName), "internal-error"),
    (http_errors.ConfigurationProblem, "internal-error"),
    (http_errors.LimitRequestLine, "request-line-too-long"),
    (http_errors.LimitRequestHeaders, "headers-too-large"),
    (http_errors.UnsupportedTransferCoding, "not-implemented"),
    (http_errors.ParseException, "malformed-http"),
]


def problem_code(error: BaseException) -> str | None:
    """The code of a request gunicorn could not parse; None for any other error (a bug)."""
    return next((code for kind, code in PARSE_ERRORS if isinstance(error, kind)), None)


def problem_answer(code: str, detail: str, request_id: str, extra_headers: str = "") -> bytes:
    """A whole HTTP/1.1 answer carrying one problem; the connection closes after it."""
    status, title, _ = CODES[code]
    body = orjson.dumps(document(code, detail, request_id))
    head = (
        f"HTTP/1.1 {status} {title}\r\nConnection: close\r\nContent-Type: {PROBLEM_JSON}\r\n"
        f"Content-Length: {len(body)}\r\nX-Content-Type-Options: nosniff\r\nX-Request-ID: {request_id}\r\n"
        f"{extra_headers}\r\n"
    )
    return head.encode("latin-1") + body


def header(req: Any, name: str) -> str | None:
    """A request header gunicorn parsed (`name` in capitals), the first if given twice."""
    return next((value for key, value in getattr(req, "headers", None) or [] if key == name), None)


def refusal_before_reading(req: Any, max_body_bytes: int) -> tuple[str, str] | None:
    """The problem of a request refused before gunicorn answers `100 Continue` or the app runs: its code
    and detail."""
    if req.version == (1, 1) and header(req, "HOST") is None:
        return "malformed-http", "an HTTP/1.1 request has a Host header (RFC 9112, section 3.2)"
    length = header(req, "CONTENT-LENGTH")
    if not getattr(req, "_expected_100_continue", False) or streamed(req):
        return None
    if length and length.isdigit() and int(length) > max_body_bytes:
        return "payload-too-large", f"the body is larger than {max_body_bytes} bytes (refused before 100 Continue)"
    return None


def streamed(req: Any) -> bool:
    """Whether the app will stream this request's body (`referee.http.body.is_stream`: one rule for both)."""
    path = gunicorn_util.unquote_to_wsgi_str(req.path or "")
    return is_stream({"PATH_INFO": path, "CONTENT_TYPE": header(req, "CONTENT-TYPE") or ""})


class Pace:
    """A minimum rate over a transfer, judged over a sliding window: by `deadline()`, `head_start` seconds
    after it began, and each byte moved earns `1 / rate` of a second more, but never more than `window`
    seconds ahead of the moment it moved. So a transfer that stalls ends at most `window` seconds after
    its last burst however fast it began (bytes sent fast first bought minutes: 8 MiB, 35 minutes, kept
    alive by a byte every 20 s), and a steady one above the rate never ends."""

    def __init__(self, head_start: float, rate: int, window: float | None = None) -> None:
        self.until = time.monotonic() + head_start
        self.rate = rate
        self.window = head_start if window is None else window
        self.moved = 0

    def advance(self, moved: int) -> None:
        """The transfer has moved `moved` bytes in all."""
        if moved > self.moved:
            self.until = min(self.until + (moved - self.moved) / self.rate, time.monotonic() + self.window)
            self.moved = moved

    def deadline(self) -> float:
        return self.until


def unsent_bytes(sock: socket.socket) -> int:
    """Bytes written to a socket that its peer has not taken yet (Linux's SIOCOUTQ; 0 where there is
    none): an answer's rate counts what the client took, not what the kernel buffers for it (megabytes,
    which would let a client that reads nothing hold its answer for as many seconds as it took)."""
    try:
        return struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0"))[0]
    except (OSError, ValueError):
        return 0


class Linger(NamedTuple):
    """How long, and how many bytes, a closing connection is read for what its client still sends."""

    seconds: float
    bytes: int


class Paced:
    """A client's socket whose every wait is bounded: by the timeout set on it (`REFEREE_READ_TIMEOUT`
    of silence) and, within a request, by the minimum rate of its body (`receiving`) and of its answer
    (`sending`, begun at the answer's first byte: the first send after the last read), each with
    `timeout` seconds of head start. gunicorn's body readers loop on `recv` until they
    have a whole block, so a rate can only be held here, a `recv` or `send` at a time; a wait past the
    rate's deadline raises `TimeoutError`, as silence does; an answer's rate counts the bytes the client
    took (`unsent_bytes`). Everything else is the socket's."""

    def __init__(self, sock: socket.socket, timeout: float, min_upload_rate: int, min_read_rate: int,
                 linger: Linger = Linger(0, 0), read_window: float | None = None) -> None:
        self.sock = sock
        self.read_window = timeout if read_window is None else read_window  # an answer's credit, at most
        self.linger = linger
        self.discarder: gevent.Greenlet | None = None  # reads what the client sends once the app reads no more
        self.timeout: float | None = timeout
        self.head_start = timeout
        self.min_upload_rate = min_upload_rate
        self.min_read_rate = min_read_rate
        self.receiving: Pace | None = None
        self.sending: Pace | None = None
        self.sent = 0  # bytes of the answer written to the socket
        self.moved_at = time.monotonic()  # when bytes last came or went (the longest idle is dropped first)
        self.dropped = False  # dropped to keep connections spare (`RefereeWorker.keep_spare`)
        self.queued_before = 0  # bytes of earlier answers still queued when this one began
        sock.settimeout(timeout)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sock, name)

    def start_request(self) -> None:
        self.receiving, self.sending = Pace(self.head_start, self.min_upload_rate), None

    def end_request(self) -> None:
        self.receiving = self.sending = None

    def settimeout(self, timeout: float | None) -> None:
        self.timeout = timeout
        self.sock.settimeout(timeout)

    def gettimeout(self) -> float | None:
        return self.timeout

    def setblocking(self, flag: bool) -> None:
        self.settimeout(None if flag else 0.0)

    def bound(self, pace: Pace | None, silence: bool) -> None:
        """Sets the socket's timeout for one wait: the time left to `pace`, and with `silence` at most its
        own. An answer's send is bounded by its rate alone: a steady reader frees the kernel's buffer in
        bursts (a full socket is writable again only once a third of its buffer is free: a megabyte or
        more), and a wait for one burst may be longer than any silence allowed, at any rate."""
        timeout = self.timeout
        if pace is not None and timeout != 0.0:
            left = pace.deadline() - time.monotonic()
            if left <= 0:
                raise TimeoutError("slower than the minimum rate")
            timeout = left if timeout is None or not silence else min(timeout, left)
        self.sock.settimeout(timeout)

    def recv(self, size: int, *flags: int) -> bytes:
        self.bound(self.receiving, silence=True)
        try:
            # A block at most: gunicorn reads ahead towards a body's end (up to its `max_body_chunk`, 1 MiB),
            # held what came uncounted and copied all it held again at each 64 KiB the app read (quadratic
            # in the read-ahead: heavy peers re-sending 8 MiB bodies took most of five workers' CPU).
            data = self.sock.recv(min(size, BLOCK), *flags)
        except TimeoutError:
            if self.receiving is None:  # silent between requests: closed as a client that left (not an error)
                return b""
            raise
        if data:
            self.moved_at = time.monotonic()
        if self.receiving is not None:
            self.receiving.advance(self.receiving.moved + len(data))
            self.sending = None  # still reading (after a `100 Continue`, say): the answer has not begun
        return data

    def send(self, data: Any, *flags: int) -> int:
        if self.receiving is not None and self.sending is None:  # the answer's first byte
            self.sending, self.sent = Pace(self.head_start, self.min_read_rate, self.read_window), 0
            # What a pipelining client left of its previous answer is still queued: not this answer's.
            self.queued_before = unsent_bytes(self.sock)
        pace = self.sending
        while True:
            if pace is not None:
                taken = max(0, self.sent - max(0, unsent_bytes(self.sock) - self.queued_before))
                if taken > pace.moved:
                    self.moved_at = time.monotonic()  # the client is reading: not idle
                pace.advance(taken)
            self.bound(pace, silence=False)
            try:
                sent = self.sock.send(data, *flags)
                break
            except TimeoutError:
                if pace is None:
                    raise
                # The deadline as it was: the client may have taken more since, which moves it on.
        if pace is not None:
            self.sent += sent
        self.moved_at = time.monotonic()
        return sent

    def sendall(self, data: Any, *flags: int) -> None:
        # A send at a time, so that each wait is bounded by the rate (sendall would wait for all of it).
        view = memoryview(data).cast("B")
        while view:
            view = view[self.send(view, *flags):]

    def discard_rest(self) -> None:
        """The app reads no more of this connection, which closes after the answer: from now on what the
        client sends is read and thrown away, while the answer is sent and until the client closes or the
        linger ends (`Linger`). Closed with bytes unread, a connection is reset, and a client that sends
        all of its body before it reads (curl, requests, http.client) loses the answer on its way."""
        if self.discarder is None:
            # On a socket of its own (the same connection): its waits, unlike the answer's, are the linger's.
            try:
                reader = self.sock.dup()
            except OSError:  # no descriptor left: the connection closes as it would have
                return
            self.discarder = gevent.spawn(discard, reader, self.linger)

    def close(self) -> None:
        """Closes the connection: if the client may still be sending, after the answer is sent (FIN) and
        what the client sends until it closes is thrown away, within the linger, so that it is not reset."""
        if self.discarder is None and unread_bytes(self.sock):
            self.discard_rest()
        if self.discarder is not None:
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_WR)
            self.discarder.join(self.linger.seconds)
            self.discarder.kill()
        self.sock.close()


def discard(sock: socket.socket, linger: Linger) -> None:
    """Reads and throws away what a client sends on `sock` until it closes, within `linger`; then closes it."""
    until, left = time.monotonic() + linger.seconds, linger.bytes
    try:
        while left > 0 and (wait := until - time.monotonic()) > 0:
            sock.settimeout(wait)
            if not (data := sock.recv(min(BLOCK, left))):
                return
            left -= len(data)
    except OSError:  # the client gone, or the linger over
        pass
    finally:
        sock.close()


def unread_bytes(sock: socket.socket) -> int:
    """Bytes the client sent that the worker has not read (Linux's FIONREAD; 0 where there is none)."""
    try:
        return struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.FIONREAD, b"\0\0\0\0"))[0]
    except (OSError, ValueError):
        return 0


#: How far ahead an answer to a trusted proxy may earn credit at the minimum read rate: a proxy that does not
#: buffer streamed answers (deploy/referee.nginx.conf) reads them a third of its client socket's buffer at a
#: time, at the minimum rate up to 341 s apart; its own `send_timeout` (360 s) lets go of a client that stops.
PROXY_READ_WINDOW = 360.0
#: Freed bytes the allocator may keep in its heaps before they are given back to the system.
KEPT_FREE_BYTES = 16 * 1024 * 1024
#: How often the allocator's freed bytes are looked at (`give_back_memory`).
GIVE_BACK_SECONDS = 1.0
#: Connections open at once that make a burst, whose end is followed by a collection of cycles.
BURST_CONNECTIONS = 32


class MallInfo2(ctypes.Structure):
    """glibc's `struct mallinfo2` (glibc 2.33 and later): what the allocator holds, in bytes."""

    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


def give_back_memory(open_connections: Callable[[], int]) -> None:
    """Every `GIVE_BACK_SECONDS`: once a burst of connections has ended (half of the most open since the
    last time gone, the most at least `BURST_CONNECTIONS`), collects the garbage its requests left in
    reference cycles (an exception raised from a local holds its frames): an idle worker's collector never
    runs, and 600 closed streams left 72 MiB of it. Then, once the C library holds more than
    `KEPT_FREE_BYTES` freed, gives them back to the system: glibc keeps what is freed in its heaps (600
    streams from 6 clients: 179 MiB stayed; 56 MiB a second after they closed, in about 1 ms of the loop,
    30 ms at most). Nothing is given back where the C library is not glibc."""
    libc: Any = None
    with contextlib.suppress(OSError, AttributeError):  # a C library without them: nothing given back
        found = ctypes.CDLL(None)  # the process's own symbols: its C library's among them
        found.mallinfo2.restype, _ = MallInfo2, found.malloc_trim
        libc = found
    most = 0
    while True:
        gevent.sleep(GIVE_BACK_SECONDS)
        now = open_connections()
        most = max(most, now)
        if most >= BURST_CONNECTIONS and now <= most // 2:
            gc.collect()
            most = now
        if libc is not None and libc.mallinfo2().fordblks > KEPT_FREE_BYTES:
            libc.malloc_trim(0)


#: Connections of the probes' listener a worker serves at once (its own pool: kubelets, load balancers).
PROBE_CONNECTIONS = 32
#: Connection slots a worker keeps free: when fewer are, the client holding the most connections loses its
#: longest idle one (max-min, as the budgets), so that a new client is always accepted.
SPARE_CONNECTIONS = 8


def listens_at(listener: socket.socket, address: Any) -> bool:
    """Whether a listener is bound at a configured address (gunicorn's: a path, or a host and a port, the
    host a name or an address): gevent's sockets, which replace gunicorn's, no longer say."""
    if address is None or isinstance(address, str):
        return address is not None and listener.getsockname() == address
    host, port = address
    bound = listener.getsockname()
    if bound[1] != port:
        return False
    try:
        resolved = {info[4][0] for info in socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM)}
    except OSError:
        return False
    return bound[0] in resolved


class RefereeWorker(GeventWorker):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        settings = Settings.from_env()
        probe = probe_address()
        self.probe_address = gunicorn_util.parse_address(probe) if probe else None
        self.probe_names: set[Any] = set()  # the probes' listener's address, once `run` has found it
        #: The open connections of the service's listener, by peer (`Paced`: each knows when it last moved).
        self.open_by_peer: dict[str, list[Paced]] = {}
        self.proxied = 0  # open connections of trusted proxies (in the same pool, not a client's)
        self.read_timeout = settings.read_timeout
        self.max_body_bytes = settings.max_body_bytes
        self.min_upload_rate = settings.min_upload_rate
        self.min_read_rate = settings.min_read_rate
        self.peer_connections = settings.peer_connections
        self.trusted_proxies = settings.trusted_proxies
        self.ipv6_prefix = settings.peer_ipv6_prefix
        # A closing connection is read until its client closes, within the read timeout and before the
        # graceful timeout ends (a stopping worker waits for it), and at most as many bytes as are drained.
        self.linger = Linger(max(1, min(settings.read_timeout, settings.graceful_timeout - 2)), settings.max_drain_bytes)

    def init_process(self) -> None:
        # Python code on the pool's threads gives the GIL back sooner, so the loop waits less for it.
        sys.setswitchinterval(offload.SWITCH_SECONDS)
        try:
            super().init_process()  # serves until the worker stops
        finally:
            # What the master froze (gunicorn_conf.pre_fork) is freed while the modules are whole: freed at
            # the interpreter's end, a log handler among it printed a traceback on every SIGTERM.
            gc.unfreeze()
            gc.collect()

    @property
    def alive(self) -> bool:
        return self._alive

    @alive.setter
    def alive(self, alive: bool) -> None:
        # However the worker comes to stop (SIGTERM, recycled by REFEREE_MAX_REQUESTS, its parent gone),
        # open streams end with a problem line before the graceful timeout ends.
        self._alive = alive
        if not alive:
            lifecycle.stop()

    def handle_quit(self, sig: int, frame: Any) -> None:
        lifecycle.stop()
        super().handle_quit(sig, frame)

    def run(self) -> None:
        # The probes' listener gets a pool of its own, outside gunicorn's (one pool a listener, each
        # `worker_connections` large, which one client's connections could fill).
        listeners: list[Any] = self.sockets  # type: ignore[has-type]
        probes = [sock for sock in listeners if listens_at(sock, self.probe_address)]
        self.probe_names = {sock.getsockname() for sock in probes}
        if self.probe_address is not None and not probes:  # else the probes' port would serve the whole API
            self.log.error("REFEREE_PROBE_BIND %s is none of this worker's listeners", self.probe_address)
            raise SystemExit(3)  # gunicorn's worker boot error: the server stops, saying why
        self.sockets = [sock for sock in listeners if sock not in probes]
        gevent.spawn(give_back_memory, self.open_connections)
        for sock in probes:
            sock.setblocking(1)
            StreamServer(sock, handle=partial(self.handle, sock), spawn=Pool(PROBE_CONNECTIONS)).start()
        super().run()

    def is_probe_listener(self, listener: Any) -> bool:
        """Whether a listener (or the name of one, as gunicorn gives requests theirs) is the probes'."""
        return (listener if isinstance(listener, (tuple, str)) else listener.getsockname()) in self.probe_names

    def handle(self, listener: Any, client: socket.socket, addr: Any) -> None:
        address = plain_address(str(addr[0]) if isinstance(addr, tuple) and addr else str(addr))
        if self.is_probe_listener(listener):
            return self.serve_connection(listener, client, addr)
        if address in self.trusted_proxies:  # it speaks for many clients: never dropped, but it fills the pool
            self.proxied += 1
            self.keep_spare(None)
            paced = Paced(client, self.read_timeout, self.min_upload_rate, self.min_read_rate, self.linger,
                          PROXY_READ_WINDOW)
            try:
                return self.serve_connection(listener, client, addr, paced)
            finally:
                self.proxied -= 1
        peer = peer_of(address, None, frozenset(), self.ipv6_prefix)
        held = self.open_by_peer.setdefault(peer, [])
        if len(held) >= self.peer_connections:
            return self.refuse_connection(client, peer)
        paced = Paced(client, self.read_timeout, self.min_upload_rate, self.min_read_rate, self.linger)
        held.append(paced)
        self.keep_spare(paced)
        try:
            return self.serve_connection(listener, client, addr, paced)
        finally:
            held.remove(paced)
            if not held:
                del self.open_by_peer[peer]

    def open_connections(self) -> int:
        return self.proxied + sum(map(len, self.open_by_peer.values()))

    def keep_spare(self, new: Paced | None) -> None:
        """When fewer than `spare` slots are free, the client holding the most connections (the new one's
        own, if it does) loses its longest idle one, between requests first, so that a light client always
        finds a slot: a full pool accepts nothing, and a probe or a light client would wait for a heavy
        one's to end."""
        spare = min(SPARE_CONNECTIONS, self.worker_connections // 10)
        held = self.open_connections()
        if not spare or not self.open_by_peer or held <= self.worker_connections - spare:
            return
        heaviest = max(self.open_by_peer, key=lambda other: len(self.open_by_peer[other]))
        idle = [paced for paced in self.open_by_peer[heaviest] if paced is not new and not paced.dropped]
        if not idle:
            return
        dropped = min(idle, key=lambda paced: (paced.receiving is not None, paced.moved_at))
        dropped.dropped = True
        self.log.info("dropped the longest idle connection of the client holding the most of this worker's")
        with contextlib.suppress(OSError):
            dropped.sock.shutdown(socket.SHUT_RDWR)

    def serve_connection(self, listener: Any, client: socket.socket, addr: Any, paced: Paced | None = None) -> None:
        # GeventWorker.handle would make the socket blocking without a limit; this one bounds each read
        # and write instead (`Paced`), so a client that goes silent or crawls lets go of its connection.
        paced = paced or Paced(client, self.read_timeout, self.min_upload_rate, self.min_read_rate, self.linger)
        AsyncWorker.handle(self, listener, paced, addr)

    def refuse_connection(self, client: socket.socket, peer: str) -> None:
        """A connection past its peer's share: 429 before its request is read, and closed (gracefully, so
        that the answer is not lost to a reset over the unread request)."""
        request_id = new_request_id("")
        self.log.info("refused a connection: its client holds %s connections of this worker", self.peer_connections,
                      extra={"fields": {"request_id": request_id, "peer": peer}})
        client.settimeout(self.read_timeout)
        self.send_problem(client, "too-many-requests",
                          f"this client holds {self.peer_connections} connections of this worker, as many as one "
                          "client may; retry when one is closed", request_id, f"Retry-After: {RETRY_AFTER_SECONDS}\r\n")
        gunicorn_util.close_graceful(client, timeout=0.5)

    def handle_request(self, listener_name: Any, req: Any, sock: socket.socket, addr: Any) -> bool:
        # The request id is chosen here, so that what happens outside the app is logged with it: the
        # app takes a valid `X-Request-ID` as it is.
        request_id = new_request_id(header(req, "X-REQUEST-ID") or "")
        req.headers = [(key, value) for key, value in req.headers if key != "X-REQUEST-ID"]
        req.headers.append(("X-REQUEST-ID", request_id))
        refusal = refusal_before_reading(req, self.max_body_bytes)
        if refusal is None and self.is_probe_listener(listener_name) and (req.path or "") not in PROBES:
            refusal = "not-found", "the probes' listener answers /healthz, /readyz and /metrics alone"
        if refusal is not None:
            self.log.info("refused a request before reading it", extra={"fields": {"request_id": request_id}})
            self.send_problem(sock, *refusal, request_id)
            raise StopIteration()  # the connection closes
        paced = sock if isinstance(sock, Paced) else None
        if paced is not None:
            paced.start_request()  # the rates' clocks start with each request
        try:
            return super().handle_request(listener_name, req, sock, addr)
        except TimeoutError:
            self.log.info("the client stopped reading its answer for %s seconds, or read it slower than %s bytes a "
                          "second; connection closed", self.read_timeout, self.min_read_rate,
                          extra={"fields": {"request_id": request_id}})
            raise StopIteration() from None
        finally:
            if paced is not None:
                paced.end_request()

    def send_problem(self, sock: socket.socket, code: str, detail: str, request_id: str,
                     extra_headers: str = "") -> None:
        try:
            sock.sendall(problem_answer(code, detail, request_id, extra_headers))
        except OSError:
            self.log.debug("could not send the problem of request %s", request_id)

    def handle_error(self, req: Any, client: socket.socket, addr: Any, exc: BaseException) -> None:
        code = problem_code(exc)
        request_id = new_request_id(header(req, "X-REQUEST-ID") or "")
        if code is None or code == "internal-error":
            problem = internal_error(self.log, "error handling a request", request_id)
            code, detail = problem.code, problem.detail
        else:
            self.log.info("refused a request gunicorn could not parse: %s", exc,
                          extra={"fields": {"request_id": request_id}})
            detail = str(exc) or type(exc).__name__
        self.send_problem(client, code, detail, request_id)
