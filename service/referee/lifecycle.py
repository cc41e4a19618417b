"""Whether this worker is stopping, and the streamed batches it wakes when it does.

On SIGTERM gunicorn stops a worker gracefully: it accepts nothing more and lets the requests in hand
finish within `REFEREE_GRACEFUL_TIMEOUT` seconds, then kills it. A streamed batch still being read (a
long upload, a client trickling its lines) does not finish: it was cut mid-line after its 200, and its
client could not tell where. So a worker that stops (its signal handler, or gunicorn recycling it after
`REFEREE_MAX_REQUESTS`: whatever sets its `alive` false) calls `stop`: every stream being read stops
reading at once (its socket's reading side is shut, which wakes a read waiting for the client) and ends
its answer with a `service-unavailable` problem line naming the first item not judged; the connection
then closes, long before the graceful timeout, and the client sends the rest again from that index.
A connection closed with bytes of the client unread is reset, which loses the end of the answer still
on its way: so once the answer is sent, what the client sent meanwhile is read and discarded."""

from __future__ import annotations

import contextlib
import socket
from typing import Any, Iterator

__all__ = ["discard_unread", "reading", "stop", "stopping"]

#: Set once the worker is told to stop.
stopping = False
#: The client sockets of the streams being read.
_reading: set[Any] = set()


def stop() -> None:
    """Marks the worker stopping and wakes every stream being read (called from a signal handler)."""
    global stopping
    stopping = True
    for sock in list(_reading):
        with contextlib.suppress(OSError):  # the client may be gone already
            sock.shutdown(socket.SHUT_RD)


@contextlib.contextmanager
def reading(sock: Any) -> Iterator[None]:
    """While a stream is read from `sock` (None outside gunicorn): woken when the worker stops."""
    if sock is None:
        yield
        return
    _reading.add(sock)
    try:
        yield
    finally:
        _reading.discard(sock)


#: Most bytes read and discarded at the end of an answer (a client still sending fast is not waited for).
DISCARD_BYTES = 4 << 20


def discard_unread(sock: Any) -> None:
    """Reads and discards what the client has sent and the worker has not read, without waiting (a
    timeout of 0: under gevent a socket with a timeout waits for data even with MSG_DONTWAIT)."""
    if sock is None:
        return
    timeout, left = sock.gettimeout(), DISCARD_BYTES
    sock.settimeout(0.0)
    try:
        with contextlib.suppress(OSError):  # nothing more to read (BlockingIOError), or the client gone
            while left > 0 and (data := sock.recv(min(1 << 16, left))):
                left -= len(data)
    finally:
        with contextlib.suppress(OSError):
            sock.settimeout(timeout)
