"""Service configuration, read from environment variables only (documented in docs/operations.md)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from referee._core import SealKeys

__all__ = ["Settings"]


def _int(name: str, default: int, low: int = 1) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SystemExit(f"{name} must be a whole number, not {raw!r}") from None
    if value < low:
        raise SystemExit(f"{name} must be at least {low}, not {value}")
    return value


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
    #: Seconds a connection may stay silent in the middle of a request (or not read its answer).
    read_timeout: int = 30
    #: Log level of the JSON logs.
    log_level: str = "INFO"
    #: One JSON log line per request.
    access_log: bool = True
    #: Seal keys: with them, every state answered is sealed and every state taken must carry a valid seal;
    #: chance games key their generators with them; the games they list as opaque answer encrypted states.
    seal_keys: SealKeys | None = None

    @classmethod
    def from_env(cls) -> Settings:
        settings = cls._read_env()
        if settings.worker_memory_bytes < 2 * settings.max_body_bytes:
            raise SystemExit(
                "REFEREE_WORKER_MEMORY_BYTES must be at least twice REFEREE_MAX_BODY_BYTES "
                f"({settings.worker_memory_bytes} < 2 × {settings.max_body_bytes}): a worker must hold "
                "the largest body and its answer at once")
        return settings

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
            read_timeout=_int("REFEREE_READ_TIMEOUT", cls.read_timeout),
            log_level=os.environ.get("REFEREE_LOG_LEVEL", cls.log_level).upper(),
            access_log=os.environ.get("REFEREE_ACCESS_LOG", "1") not in ("0", "false", "no"),
            seal_keys=_seal_keys("REFEREE_SEAL_KEYS", "REFEREE_OPAQUE_STATES"),
        )
