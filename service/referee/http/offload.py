"""Work off the worker's event loop: a request whose work may cost more than a few milliseconds runs on a thread.

A gevent worker serves all its connections from one thread, so a request computing on that thread holds
every other connection: one batch of big Hypnosia boards kept `/healthz` waiting 4.8 s, a longer one got
its worker killed by the worker timeout, and four clients drawing a 790-byte state on the largest board
(each picture 30–230 ms of Python) kept it waiting a median of 1.2 s. So what decides where work runs is
what it will cost, and the route knows that best: a request's costly steps (parsing and checking its
body, the engine's call, drawing a picture) run on a small pool of real threads when the route says the
work is costly whatever its size (`costly`: a picture, drawn in Python, which for the largest board
takes longer than the 25 ms an inline request may hold the loop), when its body is larger than
`INLINE_BYTES`, and for every chunk of a streamed batch. The engine releases the GIL while it computes;
Python code on a thread gives it back every `SWITCH_SECONDS` (`RefereeWorker` sets it), so the loop goes
on serving the others. Small requests of the other routes, nearly all of them, run inline: handing work
to a thread costs about 25 µs of CPU, more than a whole `play` in the engine, and the costliest of them
found takes a few milliseconds (bench/results.md, section hostile). A search (`suggest`) always runs here,
at most `referee.http.thinking.THINKERS` of the threads at once. Outside a gevent worker (an app in
process, the tests) work runs where it is called.

An exception of the work is raised in the caller, as inline: the pool never sees it (it would print a
traceback to the log for every refusal of a big body)."""

from __future__ import annotations

from typing import Any, Callable, TypeVar

__all__ = ["INLINE_BYTES", "SWITCH_SECONDS", "THREADS", "run", "under_gevent"]

#: Bodies up to this size are worked on inline (but for costly routes): their most costly request (see
#: bench/results.md, section hostile) takes a few milliseconds of the loop.
INLINE_BYTES = 16 * 1024
#: Threads of a worker's pool: requests beyond them wait their turn without holding the loop.
THREADS = 4
#: How long Python code on one thread holds the GIL while another waits for it (CPython's default is
#: 5 ms): the loop waits for it each time it wakes while threads draw pictures.
SWITCH_SECONDS = 0.001

T = TypeVar("T")
_pool: Any = None


class _Raised:
    """What a call on the pool raised, carried back to its caller."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def run(call: Callable[..., T], *args: Any, size: int, costly: bool = False) -> T:
    """`call(*args)`, on the worker's pool when this is a gevent worker and the work may hold the loop:
    `costly` (the route says so, whatever the size) or `size` (the bytes of input it works on) over
    `INLINE_BYTES`; its exceptions are raised here."""
    if not (costly or size > INLINE_BYTES) or not under_gevent():
        return call(*args)
    outcome = _threads().apply(_caught, (call, args))
    if isinstance(outcome, _Raised):
        raise outcome.error
    return outcome


def _caught(call: Callable[..., T], args: tuple[Any, ...]) -> T | _Raised:
    try:
        return call(*args)
    except Exception as error:  # noqa: BLE001 - every error goes back to the caller, which handles it
        return _Raised(error)


def under_gevent() -> bool:
    """Whether this is a gevent worker (its sockets patched), not an app in process."""
    from gevent import monkey

    return monkey.is_module_patched("socket")


def _threads() -> Any:
    """The worker's pool, made on first use: in the worker process, after gunicorn forked it."""
    global _pool
    if _pool is None:
        from gevent.threadpool import ThreadPool

        _pool = ThreadPool(THREADS)
    return _pool
