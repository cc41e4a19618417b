"""Service configuration, read from environment variables only (documented in docs/operations.md)."""

from __future__ import annotations

import ipaddress
import multiprocessing
import os
from dataclasses import dataclass, replace

from referee._core import SealKeys

__all__ = ["Settings"]


def _int(name: str, default: int, low: int = 1) -> int:
    """The whole number set in `name` (at least `low`), or `default` when unset; else the process stops
    with a message naming the variable (every integer setting, gunicorn's included, is read here)."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise SystemExit(f"{name} must be a whole number, not {raw!r}") from None
    if value < low:
        raise SystemExit(f"{name} must be at least {low}, not {value}")
    return value


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
    #: Most bytes of request bodies and answers one client (`peer_of`) holds in a worker's memory at once
    #: (429 past it). Unset: a quarter of `worker_memory_bytes`, but at least what one request may need.
    peer_memory_bytes: int = 16 * 1024 * 1024
    #: Most connections one client holds in a worker at once (429 and closed past it).
    peer_connections: int = 100
    #: Addresses of reverse proxies whose `X-Forwarded-For` (its last address) names the client.
    trusted_proxies: frozenset[str] = frozenset()
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
    #: gunicorn's (read in `referee.gunicorn_conf`): worker processes, connections a worker serves at once,
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
        settings.check()
        return settings

    def one_request(self) -> int:
        """The most bytes one request may hold in memory: the largest body and its answer, or a streamed
        batch's chunk, a line cut at its end and its results in memory."""
        from referee.api import stream_memory_bytes  # here: the API needs the settings' module loaded first

        return max(2 * self.max_body_bytes, stream_memory_bytes(self.max_line_bytes))

    def check(self) -> None:
        """Settings checked together: each allowed request must be possible on an idle worker, and for a
        client holding nothing else; else the process stops, naming the variables."""
        from referee.api import SPOOL_ROOM_BYTES, stream_memory_bytes

        one_body = 2 * self.max_body_bytes  # the largest body and its answer, held at once
        one_stream = stream_memory_bytes(self.max_line_bytes)
        needs = [
            ("REFEREE_WORKER_MEMORY_BYTES", self.worker_memory_bytes, one_body,
             "twice REFEREE_MAX_BODY_BYTES: a worker must hold the largest body and its answer at once"),
            ("REFEREE_WORKER_MEMORY_BYTES", self.worker_memory_bytes, one_stream,
             "what one streamed batch holds with REFEREE_MAX_LINE_BYTES (a chunk read, a line cut at its end, "
             "the results in memory)"),
            ("REFEREE_PEER_MEMORY_BYTES", self.peer_memory_bytes, self.one_request(),
             "what one request may hold: twice REFEREE_MAX_BODY_BYTES, and a streamed batch's need"),
            ("REFEREE_WORKER_SPOOL_BYTES", self.worker_spool_bytes, SPOOL_ROOM_BYTES,
             "the room a streamed batch needs to start"),
        ]
        for name, value, need, why in needs:
            if value < need:
                raise SystemExit(f"{name} must be at least {need} ({why}), not {value}")
        if self.peer_memory_bytes > self.worker_memory_bytes:
            raise SystemExit(f"REFEREE_PEER_MEMORY_BYTES must be at most REFEREE_WORKER_MEMORY_BYTES "
                             f"({self.worker_memory_bytes}), not {self.peer_memory_bytes}")
        if self.peer_connections > self.worker_connections:
            raise SystemExit(f"REFEREE_PEER_CONNECTIONS must be at most REFEREE_WORKER_CONNECTIONS "
                             f"({self.worker_connections}), not {self.peer_connections}")

    @classmethod
    def _read_env(cls) -> Settings:
        return cls(
            max_body_bytes=_int("REFEREE_MAX_BODY_BYTES", cls.max_body_bytes),
            max_batch_items=_int("REFEREE_MAX_BATCH_ITEMS", cls.max_batch_items),
            max_stream_items=_int("REFEREE_MAX_STREAM_ITEMS", cls.max_stream_items),
            max_line_bytes=_int("REFEREE_MAX_LINE_BYTES", cls.max_line_bytes),
            max_replay_moves=_int("REFEREE_MAX_REPLAY_MOVES", cls.max_replay_moves),
            max_drain_bytes=_int("REFEREE_MAX_DRAIN_BYTES", cls.max_drain_bytes, low=0),
            max_spool_bytes=_int("REFEREE_MAX_SPOOL_BYTES", cls.max_spool_bytes),
            worker_memory_bytes=_int("REFEREE_WORKER_MEMORY_BYTES", cls.worker_memory_bytes),
            worker_spool_bytes=_int("REFEREE_WORKER_SPOOL_BYTES", cls.worker_spool_bytes),
            board_cache_bytes=_int("REFEREE_BOARD_CACHE_BYTES", cls.board_cache_bytes, low=0),
            peer_memory_bytes=_int("REFEREE_PEER_MEMORY_BYTES", cls.peer_memory_bytes),
            peer_connections=_int("REFEREE_PEER_CONNECTIONS", cls.peer_connections),
            trusted_proxies=_trusted_proxies("REFEREE_TRUSTED_PROXIES"),
            read_timeout=_int("REFEREE_READ_TIMEOUT", cls.read_timeout),
            min_upload_rate=_int("REFEREE_MIN_UPLOAD_RATE", cls.min_upload_rate),
            min_read_rate=_int("REFEREE_MIN_READ_RATE", cls.min_read_rate),
            log_level=os.environ.get("REFEREE_LOG_LEVEL", cls.log_level).upper(),
            access_log=os.environ.get("REFEREE_ACCESS_LOG", "1") not in ("0", "false", "no"),
            seal_keys=_seal_keys("REFEREE_SEAL_KEYS", "REFEREE_OPAQUE_STATES"),
            workers=_int("REFEREE_WORKERS", cls.workers),
            worker_connections=_int("REFEREE_WORKER_CONNECTIONS", cls.worker_connections),
            timeout=_int("REFEREE_TIMEOUT", cls.timeout),
            graceful_timeout=_int("REFEREE_GRACEFUL_TIMEOUT", cls.graceful_timeout, low=0),
            keepalive=_int("REFEREE_KEEPALIVE", cls.keepalive, low=0),
            max_requests=_int("REFEREE_MAX_REQUESTS", cls.max_requests, low=0),
        )
