"""What one worker holds at once, bounded in bytes: request bodies and answers in memory
(`REFEREE_WORKER_MEMORY_BYTES`), streamed answers in temporary files (`REFEREE_WORKER_SPOOL_BYTES`).

A gevent worker serves up to a thousand connections at once, and each may send a body of up to
`REFEREE_MAX_BODY_BYTES` or leave its answer unread: without a bound in bytes, a few clients take a
worker's memory or its disk. Each request holds what it takes from a budget (`Hold`) and gives it all
back when its answer is sent or abandoned; a request that would pass the budget is refused with 503
`service-busy` and a `Retry-After`. A worker's greenlets share one thread, so no lock is needed."""

from __future__ import annotations

from referee.problems import Problem

__all__ = ["Budget", "Hold", "RETRY_AFTER_SECONDS", "busy"]

#: What a `service-busy` answer asks a client to wait before it retries.
RETRY_AFTER_SECONDS = 1


def busy(what: str, **extra: int) -> Problem:
    """The refusal of a request that would pass a budget (`extra`: its facts, e.g. a batch's `index`)."""
    return Problem("service-busy", f"this worker holds as many bytes of {what} as it may; retry later",
                   headers={"Retry-After": str(RETRY_AFTER_SECONDS)}, **extra)


class Budget:
    """Bytes a worker may hold at once for one purpose, and how many it holds."""

    def __init__(self, limit: int, what: str) -> None:
        self.limit = limit
        self.what = what
        self.held = 0

    def hold(self) -> Hold:
        return Hold(self)


class Hold:
    """The bytes one request holds of a budget."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.bytes = 0

    def take(self, size: int) -> None:
        """Takes `size` more bytes, or raises `service-busy` when the budget cannot give them."""
        if self.budget.held + size > self.budget.limit:
            raise busy(self.budget.what)
        self.budget.held += size
        self.bytes += size

    def give(self, size: int) -> None:
        """Gives back `size` of the bytes held."""
        size = min(size, self.bytes)
        self.budget.held -= size
        self.bytes -= size

    def release(self) -> None:
        self.give(self.bytes)
