"""Service configuration, read from environment variables only (documented in docs/operations.md)."""

from __future__ import annotations

import ipaddress
import multiprocessing
import os
import re
import socket
from dataclasses import dataclass, replace

from referee._core import DEFAULT_LEVEL, LEVELS, TREE_BYTES_PER_SIMULATION as ENGINE_TREE_BYTES, SealKeys

__all__ = ["MIN_REQUEST_BYTES", "MIN_SEARCH_MEMORY_BYTES", "SPOOL_MEMORY_BYTES", "SPOOL_ROOM_BYTES", "STREAM_CHUNK_BYTES",
           "TREE_BYTES_PER_SIMULATION", "Settings", "bind_address", "probe_address", "stream_memory_bytes"]

#: The smallest body and NDJSON line taken: room for one play request, or batch item, of any game's state
#: (Caesar!'s are the largest: up to about 4 KB in random games, 6 KB opaque; tests/service/test_settings.py
#: checks the openings). Smaller, a server would refuse every such request.
MIN_REQUEST_BYTES = 8 * 1024
#: Bytes read from a streamed batch before they are judged: large enough for the native batch to run
#: in parallel, small enough that memory stays flat however long the stream.
STREAM_CHUNK_BYTES = 1 << 20
#: Results of a streamed batch kept in memory before they move to a temporary file.
SPOOL_MEMORY_BYTES = 256 << 10
#: Room a new streamed batch needs in the worker's spool budget, or it is refused (503).
SPOOL_ROOM_BYTES = 8 << 20


#: What a search's tree may hold a simulation, at most (the engine's bound, rust_core/src/search.rs: a node and
#: its place in its parent's list of children). The bytes a search's tree holds are counted in the worker's
#: memory budget before it thinks, and the search is told to keep within them.
TREE_BYTES_PER_SIMULATION: int = ENGINE_TREE_BYTES
#: The smallest tree a search may hold (`REFEREE_SEARCH_MEMORY_BYTES`): room for the tree of 1,000 simulations (the
#: default level runs 200).
MIN_SEARCH_MEMORY_BYTES = 64 * 1024
#: The most a request may ask of a search, as the engine counts them (32-bit): simulations, milliseconds.
MAX_SEARCH_COUNT = 2**32 - 1


def stream_memory_bytes(max_line_bytes: int) -> int:
    """What a streamed batch holds in memory at most: a chunk read (and a line cut at its end), the
    results of one call, and its spool's part in memory."""
    return 2 * STREAM_CHUNK_BYTES + max_line_bytes + SPOOL_MEMORY_BYTES


#: The most any whole-number setting may be: the native engine takes sizes and counts as 64-bit numbers
#: (a larger board cache was a traceback at start, a larger batch limit a 500 on every batch).
MAX_INT = 2**63 - 1
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
YES, NO = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
#: gunicorn's TCP address: HOST:PORT, or [IPv6]:PORT.
TCP_ADDRESS = re.compile(r"(?:\[(?P<ipv6>[^\]]+)\]|(?P<host>[^:\[\]]+)):(?P<port>[0-9]{1,5})")

# Every check of a single variable lives in one of the readers below; each stops the process with one line
# naming the variable, the value and what is accepted (SystemExit: no traceback, exit status 1), whether
# gunicorn's config or an app made in-process reads it.


def _int(name: str, default: int, low: int = 1, why: str = "", high: int = MAX_INT) -> int:
    """The whole number set in `name` (from `low` to `high`; `why` says what `low` is for), or `default`
    when unset (every integer setting, gunicorn's included, is read here)."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise SystemExit(f"{name} must be a whole number, not {raw!r}") from None
    if value < low:
        raise SystemExit(f"{name} must be at least {low}{f' ({why})' if why else ''}, not {value}")
    if value > high:
        raise SystemExit(f"{name} must be at most {high}, not {value}")
    return value


def _bool(name: str, default: bool) -> bool:
    """Yes or no, in one of the spellings of YES or NO (any case), or `default` when unset: anything else
    is refused (`maybe` was taken as yes)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if raw.lower() not in YES + NO:
        raise SystemExit(f"{name} must be one of {', '.join(YES)} or {', '.join(NO)} (any case), not {raw!r}")
    return raw.lower() in YES


def _log_level(name: str, default: str) -> str:
    """A level of LOG_LEVELS (any case), or `default` when unset (another was a traceback from logging)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if raw.upper() not in LOG_LEVELS:
        raise SystemExit(f"{name} must be one of {', '.join(LOG_LEVELS)} (any case), not {raw!r}")
    return raw.upper()


def bind_address(name: str = "REFEREE_BIND", default: str = "127.0.0.1:8000") -> str:
    """The address `name` sets (see `an_address`), or `default`."""
    return an_address(name, default) or default


def probe_address() -> str | None:
    """`REFEREE_PROBE_BIND`: a listener of its own for `/healthz` and `/readyz` (and `/metrics`), whose
    connections no other client can take; None when unset."""
    return an_address("REFEREE_PROBE_BIND", "")


def an_address(name: str, default: str) -> str | None:
    """gunicorn's `bind` (read by gunicorn_conf alone): HOST:PORT of this machine ([HOST]:PORT for IPv6), or
    unix:PATH in a directory that exists. gunicorn's own errors for a bad one named only the address, or
    were a traceback. A port in use is left to gunicorn, which retries it (a restart's overlap)."""
    raw = os.environ.get(name, "").strip() or default
    if not raw:
        return None
    accepted = ("HOST:PORT (an address or name of this machine, [HOST]:PORT for IPv6, a port up to 65535) "
                "or unix:PATH")
    if raw.startswith("unix:"):
        path = raw.removeprefix("unix:")
        if not path or not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise SystemExit(f"{name} must be {accepted}, with PATH in a directory that exists, not {raw!r}")
        return raw
    match = TCP_ADDRESS.fullmatch(raw)
    if match is None or int(match["port"]) > 65535:
        raise SystemExit(f"{name} must be {accepted}, not {raw!r}")
    # Bound on a free port, so that only the address is tried: one that is not this machine's, or a name
    # that does not resolve, fails here as it would in gunicorn.
    family = socket.AF_INET6 if match["ipv6"] else socket.AF_INET
    try:
        with socket.socket(family) as probe:
            probe.bind((match["ipv6"] or match["host"], 0))
    except (OSError, ValueError) as error:  # ValueError: a name that cannot be encoded
        cause = getattr(error, "strerror", None) or error
        raise SystemExit(f"{name} must be {accepted}, not {raw!r}: {cause}") from None
    return raw


def _trusted_proxies(name: str) -> frozenset[str]:
    """Addresses of the proxies whose `X-Forwarded-For` names the client (comma-separated IPs)."""
    addresses = [address.strip() for address in os.environ.get(name, "").split(",") if address.strip()]
    for address in addresses:
        try:
            ipaddress.ip_address(address)
        except ValueError:
            raise SystemExit(f"{name} must list IP addresses, separated by commas, not {address!r}") from None
    return frozenset(addresses)


def _seal_keys(name: str, opaque_name: str) -> SealKeys | None:
    """Seal keys, `id:SECRET,...`: unset means no seals; set but empty or malformed stops the service
    (an empty value is more likely a secret that failed to reach the process than a wish for no seals).
    `opaque_name` lists the games whose states are answered encrypted (comma-separated); it needs keys."""
    raw = os.environ.get(name)
    opaque = [game.strip() for game in os.environ.get(opaque_name, "").split(",") if game.strip()]
    if raw is None:
        if opaque:
            raise SystemExit(f"{opaque_name} needs {name}: opaque states are encrypted with the seal keys")
        return None
    try:
        return SealKeys(raw, opaque)
    except ValueError as error:
        if str(error).startswith("opaque states"):
            raise SystemExit(f"{opaque_name} is malformed: {error}") from None
        raise SystemExit(f"{name} is malformed: {error} (unset it to run without seals)") from None


@dataclass(frozen=True)
class Settings:
    """Every setting of the service, with its default; `from_env` reads and checks them."""

    #: Largest request body accepted; larger bodies get 413.
    max_body_bytes: int = 8 * 1024 * 1024
    #: Most items in one batch request.
    max_batch_items: int = 10_000
    #: Most items in one streamed (NDJSON) batch request.
    max_stream_items: int = 10_000_000
    #: Longest line of a streamed (NDJSON) batch request.
    max_line_bytes: int = 1024 * 1024
    #: Most moves in one replay request.
    max_replay_moves: int = 10_000
    #: Most bytes of a refused body read and discarded, so that the refusal reaches the client.
    max_drain_bytes: int = 256 * 1024 * 1024
    #: Most bytes of results a streamed batch answers (they wait in a temporary file).
    max_spool_bytes: int = 256 * 1024 * 1024
    #: Most bytes of request bodies and answers one worker holds in memory at once (503 past it).
    worker_memory_bytes: int = 64 * 1024 * 1024
    #: Most bytes of streamed answers one worker keeps in temporary files at once (503 past it).
    worker_spool_bytes: int = 1024 * 1024 * 1024
    #: Most bytes of compiled Hypnosia boards a process keeps.
    board_cache_bytes: int = 64 * 1024 * 1024
    #: Most simulations one `suggest` may ask for (a level's, or its own); more is 422 `over-budget`.
    max_simulations: int = 20_000
    #: Longest one `suggest` may think, in milliseconds, and how long one thinks that asks for no time (a
    #: search always has a deadline); more is 422 `over-budget`. Unset: 5 s, or the worker timeout if shorter.
    max_think_ms: int = 5_000
    #: Most bytes one search's tree may hold (less when its simulations need less: `tree_bytes`), counted in
    #: the worker's memory budget while it thinks.
    search_memory_bytes: int = 64 * 1024 * 1024
    #: Most bytes of request bodies and answers one client (`peer_of`) holds in a worker's memory at once
    #: (429 past it). Unset: a quarter of `worker_memory_bytes`, but at least what one request may need.
    peer_memory_bytes: int = 16 * 1024 * 1024
    #: Most connections one client holds in a worker at once (429 and closed past it).
    peer_connections: int = 100
    #: Addresses of reverse proxies whose `X-Forwarded-For` (its last address) names the client.
    trusted_proxies: frozenset[str] = frozenset()
    #: Bits of an IPv6 address that name one client (`peer_of`): a /64 by default, what one client is given.
    peer_ipv6_prefix: int = 64
    #: Seconds a connection may stay silent in the middle of a request (or not read its answer); also the
    #: head start of the minimum rates below.
    read_timeout: int = 30
    #: Slowest a request body may arrive, in bytes a second on average, after `read_timeout` seconds of
    #: head start (408 past it).
    min_upload_rate: int = 4096
    #: Slowest a client may read its answer, in bytes a second on average, after `read_timeout` seconds
    #: of head start (the connection closes past it).
    min_read_rate: int = 4096
    #: Log level of the JSON logs.
    log_level: str = "INFO"
    #: One JSON log line per request.
    access_log: bool = True
    #: Seal keys: with them, every state answered is sealed and every state taken must carry a valid seal;
    #: chance games key their generators with them; the games they list as opaque answer encrypted states.
    seal_keys: SealKeys | None = None
    #: gunicorn's (read in `referee.http.gunicorn_conf`): worker processes, connections a worker serves at once,
    #: seconds a stuck worker lives, seconds to finish on SIGTERM, seconds an idle connection stays open,
    #: requests before a worker is recycled (0: never).
    workers: int = multiprocessing.cpu_count() * 2 + 1
    worker_connections: int = 1000
    timeout: int = 30
    graceful_timeout: int = 30
    keepalive: int = 5
    max_requests: int = 0

    @classmethod
    def from_env(cls) -> Settings:
        settings = cls._read_env()
        if not os.environ.get("REFEREE_PEER_MEMORY_BYTES", "").strip():
            share = min(settings.worker_memory_bytes, max(settings.worker_memory_bytes // 4, settings.one_request()))
            settings = replace(settings, peer_memory_bytes=share)
        if not os.environ.get("REFEREE_PEER_CONNECTIONS", "").strip():  # fewer when a worker serves fewer
            settings = replace(settings, peer_connections=min(settings.peer_connections, settings.worker_connections))
        if not os.environ.get("REFEREE_MAX_THINK_MS", "").strip():  # shorter when the worker timeout is
            settings = replace(settings, max_think_ms=min(settings.max_think_ms, 1000 * settings.timeout))
        settings.check()
        return settings

    def one_request(self) -> int:
        """The most bytes one request may hold in memory: the largest body and its answer, a streamed
        batch's chunk, a line cut at its end and its results in memory, or the largest body and the largest
        search's tree."""
        return max(2 * self.max_body_bytes, stream_memory_bytes(self.max_line_bytes), self.one_search())

    def tree_bytes(self, simulations: int) -> int:
        """The bytes a search of `simulations` may hold in its tree: what that many simulations can grow,
        within `search_memory_bytes`. The worker's memory budget counts them while it thinks, and the
        search keeps within them (its `memory`)."""
        return min(self.search_memory_bytes, (max(simulations, 1) + 1) * TREE_BYTES_PER_SIMULATION)

    def one_search(self) -> int:
        """What the largest search allowed holds in memory: its body, at most the largest, and its tree."""
        return self.max_body_bytes + self.tree_bytes(self.max_simulations)

    def check(self) -> None:
        """Settings checked together: each allowed request must be possible on an idle worker, and for a
        client holding nothing else; else the process stops, naming the variables."""
        one_body = 2 * self.max_body_bytes  # the largest body and its answer, held at once
        one_stream = stream_memory_bytes(self.max_line_bytes)
        needs = [
            ("REFEREE_WORKER_MEMORY_BYTES", self.worker_memory_bytes, one_body,
             "twice REFEREE_MAX_BODY_BYTES: a worker must hold the largest body and its answer at once"),
            ("REFEREE_WORKER_MEMORY_BYTES", self.worker_memory_bytes, one_stream,
             "what one streamed batch holds with REFEREE_MAX_LINE_BYTES (a chunk read, a line cut at its end, "
             "the results in memory)"),
            ("REFEREE_WORKER_MEMORY_BYTES", self.worker_memory_bytes, self.one_search(),
             "what the largest search holds: REFEREE_MAX_BODY_BYTES and the tree of REFEREE_MAX_SIMULATIONS "
             "simulations within REFEREE_SEARCH_MEMORY_BYTES"),
            ("REFEREE_PEER_MEMORY_BYTES", self.peer_memory_bytes, self.one_request(),
             "what one request may hold: twice REFEREE_MAX_BODY_BYTES, a streamed batch's need, and the "
             "largest search's body and tree"),
            ("REFEREE_WORKER_SPOOL_BYTES", self.worker_spool_bytes, SPOOL_ROOM_BYTES,
             "the room a streamed batch needs to start"),
        ]
        for name, value, need, why in needs:
            if value < need:
                raise SystemExit(f"{name} must be at least {need} ({why}), not {value}")
        if self.peer_memory_bytes > self.worker_memory_bytes:
            raise SystemExit(f"REFEREE_PEER_MEMORY_BYTES must be at most REFEREE_WORKER_MEMORY_BYTES "
                             f"({self.worker_memory_bytes}), not {self.peer_memory_bytes}")
        if self.max_think_ms > 1000 * self.timeout:
            raise SystemExit(f"REFEREE_MAX_THINK_MS must be at most REFEREE_TIMEOUT's {self.timeout} s in ms "
                             f"({1000 * self.timeout}: no request may need longer than the worker timeout), "
                             f"not {self.max_think_ms}")
        if self.peer_connections > self.worker_connections:
            raise SystemExit(f"REFEREE_PEER_CONNECTIONS must be at most REFEREE_WORKER_CONNECTIONS "
                             f"({self.worker_connections}), not {self.peer_connections}")

    @classmethod
    def _read_env(cls) -> Settings:
        return cls(
            max_body_bytes=_int("REFEREE_MAX_BODY_BYTES", cls.max_body_bytes, MIN_REQUEST_BYTES,
                                "room for one play request of any game's state"),
            max_batch_items=_int("REFEREE_MAX_BATCH_ITEMS", cls.max_batch_items),
            max_stream_items=_int("REFEREE_MAX_STREAM_ITEMS", cls.max_stream_items),
            max_line_bytes=_int("REFEREE_MAX_LINE_BYTES", cls.max_line_bytes, MIN_REQUEST_BYTES,
                                "room for one batch item of any game's state"),
            max_replay_moves=_int("REFEREE_MAX_REPLAY_MOVES", cls.max_replay_moves),
            max_drain_bytes=_int("REFEREE_MAX_DRAIN_BYTES", cls.max_drain_bytes, low=0),
            max_spool_bytes=_int("REFEREE_MAX_SPOOL_BYTES", cls.max_spool_bytes, SPOOL_MEMORY_BYTES,
                                 "the results a streamed batch keeps in memory before it needs a file; "
                                 "less would cut answers short that cost no disk"),
            worker_memory_bytes=_int("REFEREE_WORKER_MEMORY_BYTES", cls.worker_memory_bytes),
            worker_spool_bytes=_int("REFEREE_WORKER_SPOOL_BYTES", cls.worker_spool_bytes),
            board_cache_bytes=_int("REFEREE_BOARD_CACHE_BYTES", cls.board_cache_bytes, low=0),
            max_simulations=_int("REFEREE_MAX_SIMULATIONS", cls.max_simulations, LEVELS[DEFAULT_LEVEL - 1],
                                 f"the default level's ({DEFAULT_LEVEL}): a request naming no level or simulations "
                                 "must be possible", high=MAX_SEARCH_COUNT),
            max_think_ms=_int("REFEREE_MAX_THINK_MS", cls.max_think_ms, high=MAX_SEARCH_COUNT),
            search_memory_bytes=_int("REFEREE_SEARCH_MEMORY_BYTES", cls.search_memory_bytes, MIN_SEARCH_MEMORY_BYTES,
                                     "room for the tree of 1,000 simulations"),
            peer_memory_bytes=_int("REFEREE_PEER_MEMORY_BYTES", cls.peer_memory_bytes),
            peer_connections=_int("REFEREE_PEER_CONNECTIONS", cls.peer_connections),
            trusted_proxies=_trusted_proxies("REFEREE_TRUSTED_PROXIES"),
            peer_ipv6_prefix=_int("REFEREE_PEER_IPV6_PREFIX", cls.peer_ipv6_prefix, high=128),
            read_timeout=_int("REFEREE_READ_TIMEOUT", cls.read_timeout),
            min_upload_rate=_int("REFEREE_MIN_UPLOAD_RATE", cls.min_upload_rate),
            min_read_rate=_int("REFEREE_MIN_READ_RATE", cls.min_read_rate),
            log_level=_log_level("REFEREE_LOG_LEVEL", cls.log_level),
            access_log=_bool("REFEREE_ACCESS_LOG", cls.access_log),
            seal_keys=_seal_keys("REFEREE_SEAL_KEYS", "REFEREE_OPAQUE_STATES"),
            workers=_int("REFEREE_WORKERS", cls.workers),
            # gevent's pool takes a C int: past it, every worker failed at boot, for ever.
            worker_connections=_int("REFEREE_WORKER_CONNECTIONS", cls.worker_connections, high=2**31 - 1),
            timeout=_int("REFEREE_TIMEOUT", cls.timeout),
            graceful_timeout=_int("REFEREE_GRACEFUL_TIMEOUT", cls.graceful_timeout, low=0),
            keepalive=_int("REFEREE_KEEPALIVE", cls.keepalive, low=0),
            max_requests=_int("REFEREE_MAX_REQUESTS", cls.max_requests, low=0),
        )
