"""Whether this worker is stopping, and the streamed batches and searches it ends when it does.

On SIGTERM gunicorn stops a worker gracefully: it accepts nothing more and lets the requests in hand
finish within `REFEREE_GRACEFUL_TIMEOUT` seconds, then kills it. A streamed batch still being read (a
long upload, a client trickling its lines) does not finish: it was cut mid-line after its 200, and its
client could not tell where. So a worker that stops (its signal handler, or gunicorn recycling it after
`REFEREE_MAX_REQUESTS`: whatever sets its `alive` false) calls `stop`: every stream being read is ended
where it waits (a `Problem` thrown into it, as a budget ends a body) and ends its answer with a
`service-unavailable` problem line naming the first item not judged; the connection then closes, long
before the graceful timeout, and the client sends the rest again from that index. What the client still
sends is thrown away meanwhile (`referee.http.worker.Paced.discard_rest`): a connection closed with bytes
unread is reset, which destroyed the answer of a client that sends all of its body before it reads. A
search thinking or waiting to think (`referee.http.thinking`) is ended the same way: its request answers
503 `service-unavailable` at once (another instance may take it), and its search stops at its next look."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

import gevent

from referee.http.problems import Problem

__all__ = ["reading", "stop", "stopping"]

#: Set once the worker is told to stop.
stopping = False
#: The greenlets reading a stream, or thinking.
_reading: set[Any] = set()


def stop() -> None:
    """Marks the worker stopping and ends the reading of every stream (from a signal handler, or the
    greenlet that recycles the worker, which reads no stream then)."""
    global stopping
    stopping = True
    for reader in list(_reading):
        if reader is not gevent.getcurrent():
            gevent.kill(reader, Problem("service-unavailable", "the service is stopping"))  # not waited for


@contextlib.contextmanager
def reading(sock: Any) -> Iterator[None]:
    """While a stream is read, or a search thinks (for the client of `sock`, None outside gunicorn): ended
    when the worker stops."""
    if sock is None:
        yield
        return
    reader = gevent.getcurrent()
    _reading.add(reader)
    try:
        yield
    finally:
        _reading.discard(reader)
        if stopping:  # a kill still on its way lands here, not in the answer
            with contextlib.suppress(Problem):
                gevent.sleep(0)
