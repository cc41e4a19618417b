"""Work off the worker's event loop: a request whose work grows with its input runs on a thread.

A gevent worker serves all its connections from one thread, so a request computing on that thread holds
every other connection: one batch of big Hypnosia boards kept `/healthz` waiting 4.8 s, and a longer one
got its worker killed by the worker timeout. So a request's costly steps (parsing and checking its body,
the engine's call, drawing a picture) run on a small pool of real threads when its body is larger than
`INLINE_BYTES`, and every chunk of a streamed batch does; the engine releases the GIL while it computes,
and Python code on a thread gives the GIL back every few milliseconds, so the loop goes on serving the
others. Small requests, nearly all of them, run inline: handing work to a thread costs about 25 µs of
CPU, more than a whole `play` in the engine. Outside a gevent worker (an app in process, the tests) work
runs where it is called."""

from __future__ import annotations

from typing import Any, Callable, TypeVar

__all__ = ["INLINE_BYTES", "THREADS", "run"]

#: Bodies up to this size are worked on inline: their most costly request (see bench/README.md, section
#: hostile) takes a few milliseconds of the loop.
INLINE_BYTES = 16 * 1024
#: Threads of a worker's pool: requests beyond them wait their turn without holding the loop.
THREADS = 4

T = TypeVar("T")
_pool: Any = None


def run(call: Callable[..., T], *args: Any, size: int) -> T:
    """`call(*args)`, on the worker's pool when `size` (the bytes of input it works on) is over
    `INLINE_BYTES` and this is a gevent worker; its exceptions are raised here."""
    if size <= INLINE_BYTES or not _under_gevent():
        return call(*args)
    return _threads().apply(call, args)


def _under_gevent() -> bool:
    from gevent import monkey

    return monkey.is_module_patched("socket")


def _threads() -> Any:
    """The worker's pool, made on first use: in the worker process, after gunicorn forked it."""
    global _pool
    if _pool is None:
        from gevent.threadpool import ThreadPool

        _pool = ThreadPool(THREADS)
    return _pool
