"""What one worker holds at once, bounded in bytes: request bodies and answers in memory
(`REFEREE_WORKER_MEMORY_BYTES`), streamed answers in temporary files (`REFEREE_WORKER_SPOOL_BYTES`).

A gevent worker serves up to a thousand connections at once, and each may send a body of up to
`REFEREE_MAX_BODY_BYTES` or leave its answer unread: without a bound in bytes, a few clients take a
worker's memory or its disk. Each request holds what it takes from a budget (`Hold`) and gives it all
back when its answer is sent or abandoned; a request that would pass the budget is refused with 503
`service-busy` and a `Retry-After`. A budget holds only bytes received or made, never bytes a request
might need later: a connection that has sent nothing holds nothing.

One client must not take a whole budget: each hold is its peer's (`peer`), and a peer may hold at most
`peer_limit` bytes of a budget at once (`REFEREE_PEER_MEMORY_BYTES`); past it, its requests are refused
with 429 `too-many-requests` while other clients are still served. A worker's greenlets share one
thread, so no lock is needed."""

from __future__ import annotations

from referee.problems import Problem

__all__ = ["Budget", "Hold", "RETRY_AFTER_SECONDS", "busy", "peer_of"]

#: What a `service-busy` answer asks a client to wait before it retries.
RETRY_AFTER_SECONDS = 1


def busy(what: str, **extra: int) -> Problem:
    """The refusal of a request that would pass a budget (`extra`: its facts, e.g. a batch's `index`)."""
    return Problem("service-busy", f"this worker holds as many bytes of {what} as it may; retry later",
                   headers={"Retry-After": str(RETRY_AFTER_SECONDS)}, **extra)


def peer_busy(what: str) -> Problem:
    """The refusal of a request whose client holds its whole share of a budget."""
    return Problem("too-many-requests", f"this client holds as many bytes of {what} as one client may; retry "
                   "later, or with fewer requests at once", headers={"Retry-After": str(RETRY_AFTER_SECONDS)})


def peer_of(address: str, forwarded_for: str | None, trusted_proxies: frozenset[str]) -> str:
    """The client a connection or request is from: its socket's address; or, from a trusted proxy, the
    last address of `X-Forwarded-For` (the one the proxy wrote: earlier ones are the client's word)."""
    if address in trusted_proxies and forwarded_for:
        return forwarded_for.rsplit(",", 1)[-1].strip()
    return address


class Budget:
    """Bytes a worker may hold at once for one purpose, and how many it holds, in all and by peer."""

    def __init__(self, limit: int, what: str, peer_limit: int | None = None) -> None:
        self.limit = limit
        self.what = what
        self.peer_limit = limit if peer_limit is None else peer_limit
        self.held = 0
        self.held_by_peer: dict[str, int] = {}

    def hold(self, peer: str = "") -> Hold:
        return Hold(self, peer)


class Hold:
    """The bytes one request holds of a budget, for its peer."""

    def __init__(self, budget: Budget, peer: str = "") -> None:
        self.budget = budget
        self.peer = peer
        self.bytes = 0

    def take(self, size: int) -> None:
        """Takes `size` more bytes; or raises `too-many-requests` when they would pass the peer's share,
        `service-busy` when the budget cannot give them."""
        budget = self.budget
        peer_held = budget.held_by_peer.get(self.peer, 0)
        if peer_held + size > budget.peer_limit:
            raise peer_busy(budget.what)
        if budget.held + size > budget.limit:
            raise busy(budget.what)
        budget.held += size
        budget.held_by_peer[self.peer] = peer_held + size
        self.bytes += size

    def give(self, size: int) -> None:
        """Gives back `size` of the bytes held."""
        size = max(min(size, self.bytes), 0)
        budget = self.budget
        budget.held -= size
        self.bytes -= size
        left = budget.held_by_peer.get(self.peer, 0) - size
        if left > 0:
            budget.held_by_peer[self.peer] = left
        else:
            budget.held_by_peer.pop(self.peer, None)  # a peer that holds nothing is forgotten

    def release(self) -> None:
        self.give(self.bytes)
