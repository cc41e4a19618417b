"""What one worker holds at once, bounded in bytes: request bodies and answers in memory
(`REFEREE_WORKER_MEMORY_BYTES`), streamed answers in temporary files (`REFEREE_WORKER_SPOOL_BYTES`).

A gevent worker serves up to a thousand connections at once, and each may send a body of up to
`REFEREE_MAX_BODY_BYTES` or leave its answer unread: without a bound in bytes, a few clients take a
worker's memory or its disk. Each request holds what it takes from a budget (`Hold`) and gives it all
back when its answer is sent or abandoned. A budget holds only bytes received or made, never bytes a
request might need later: a connection that has sent nothing holds nothing.

**When a budget is full, the peer holding the most pays** (max-min fairness, as in fair queuing): a
request that needs bytes the budget has not got ends the newest work of the peer that holds the most
(`Hold.end`: a body still arriving, a streamed answer; its client is told why and where to go on), as
long as that peer holds more than the requester would; never a peer holding less. Only when no heavier
peer has work that can be ended is the requester refused, 503 `service-busy` with a `Retry-After`. So a
peer that came first keeps no share it is not owed, and a light peer is served however many heavy ones
fill the budget. Besides, one peer may hold at most `peer_limit` bytes of a budget at once
(`REFEREE_PEER_MEMORY_BYTES`); past it its requests are refused with 429 `too-many-requests`. A worker's
greenlets share one thread, so no lock is needed."""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import Callable

from referee.http.problems import Problem

__all__ = ["Budget", "Hold", "RETRY_AFTER_SECONDS", "busy", "paid", "peer_busy", "peer_of", "plain_address"]

#: What a `service-busy` answer asks a client to wait before it retries.
RETRY_AFTER_SECONDS = 1


def busy(what: str, unit: str = "bytes of ", **extra: int) -> Problem:
    """The refusal of a request that would pass a budget (`extra`: its facts, e.g. a batch's `index`)."""
    return Problem("service-busy", f"this worker holds as many {unit}{what} as it may; retry later",
                   headers={"Retry-After": str(RETRY_AFTER_SECONDS)}, **extra)


def paid(what: str) -> Problem:
    """Why a request's work was ended: its client held the most of a full budget."""
    return Problem("service-busy", f"this worker's {what} are full and this client holds the most of them: its "
                   "newest request was ended for another client's; retry later, or with fewer requests at once",
                   headers={"Retry-After": str(RETRY_AFTER_SECONDS)})


def peer_busy(what: str, unit: str = "bytes of ") -> Problem:
    """The refusal of a request whose client holds its whole share of a budget."""
    return Problem("too-many-requests", f"this client holds as many {unit}{what} as one client may; retry "
                   "later, or with fewer requests at once", headers={"Retry-After": str(RETRY_AFTER_SECONDS)})


def peer_of(address: str, forwarded_for: str | None, trusted_proxies: frozenset[str], ipv6_prefix: int = 64) -> str:
    """The client a connection or request is from: its socket's address; or, from a trusted proxy, the
    last address of `X-Forwarded-For` (the one the proxy wrote: earlier ones are the client's word). An
    IPv6 client is its network of `ipv6_prefix` bits (a /64 by default: one client is given a whole /64,
    2^64 addresses, and would otherwise be as many peers as it likes)."""
    address = plain_address(address)
    if address in trusted_proxies and forwarded_for:
        address = plain_address(forwarded_for.rsplit(",", 1)[-1])
    if ":" not in address:
        return address
    try:
        ip = ipaddress.IPv6Address(address)
    except ValueError:
        return address
    if ip.ipv4_mapped is not None:  # an IPv4 client of a dual-stack socket
        return str(ip.ipv4_mapped)
    return str(ipaddress.IPv6Network((ip, ipv6_prefix), strict=False))


def plain_address(address: str) -> str:
    """An address as a client is known by: without brackets, port or zone (`[2001:db8::1]:443`,
    `1.2.3.4:5678`, `fe80::1%eth0`), an IPv4 client of a dual-stack socket (`::ffff:a.b.c.d`) as IPv4."""
    address = address.strip()
    if address.startswith("["):
        address = address[1:].split("]", 1)[0]
    elif address.count(":") == 1:  # IPv4 with a port
        address = address.split(":", 1)[0]
    address = address.split("%", 1)[0]
    with contextlib.suppress(ValueError):
        mapped = ipaddress.IPv6Address(address).ipv4_mapped
        if mapped is not None:
            return str(mapped)
    return address


class Budget:
    """Bytes a worker may hold at once for one purpose, and how many it holds, in all and by peer, with
    the holds of each peer (oldest first) whose work can be ended when the peer must pay. A budget of
    other units than bytes (the searches thinking at once: `referee.http.thinking`) says so in `unit`, as
    its refusals word it (`"bytes of "`, or `""` when `what` names the units)."""

    def __init__(self, limit: int, what: str, peer_limit: int | None = None, unit: str = "bytes of ") -> None:
        self.limit = limit
        self.what = what
        self.unit = unit
        self.peer_limit = limit if peer_limit is None else peer_limit
        self.held = 0
        self.held_by_peer: dict[str, int] = {}
        self.holds: dict[str, list[Hold]] = {}

    def hold(self, peer: str = "") -> Hold:
        return Hold(self, peer)

    def payer(self, taker: str, after: int) -> Hold | None:
        """The newest hold that can be ended of the peer holding the most, among the peers holding more
        than `after` (what the taking peer would hold after taking): none when no peer does."""
        heavier = sorted(((held, peer) for peer, held in self.held_by_peer.items() if peer != taker and held > after),
                         reverse=True)
        for _, peer in heavier:
            endable = [hold for hold in self.holds.get(peer, []) if hold.ender is not None]
            if endable:
                return endable[-1]
        return None


class Hold:
    """The bytes one request holds of a budget, for its peer. `ender`, while set, ends the request's work
    when its peer must pay (`end`): it is told the problem to answer with."""

    def __init__(self, budget: Budget, peer: str = "") -> None:
        self.budget = budget
        self.peer = peer
        self.bytes = 0
        self.ender: Callable[[Problem], None] | None = None
        self.ended: Problem | None = None

    def take(self, size: int) -> None:
        """Takes `size` more bytes, ending heavier peers' work while the budget cannot give them; or raises
        `too-many-requests` when they would pass the peer's share, `service-busy` when no heavier peer
        holds what can be ended (or this request's own work was ended)."""
        if size <= 0:  # nothing taken: never refused (an answer of unknown length, ended work's last steps)
            return
        if self.ended is not None:
            raise self.ended
        budget = self.budget
        peer_held = budget.held_by_peer.get(self.peer, 0)
        if peer_held + size > budget.peer_limit:
            raise peer_busy(budget.what, budget.unit)
        while budget.held + size > budget.limit:
            payer = budget.payer(self.peer, peer_held + size)
            if payer is None:
                raise busy(budget.what, budget.unit)
            payer.end(paid(budget.what))
        if self.bytes == 0:
            budget.holds.setdefault(self.peer, []).append(self)
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
        if self.bytes == 0:
            holds = budget.holds.get(self.peer, [])
            if self in holds:
                holds.remove(self)
            if not holds:
                budget.holds.pop(self.peer, None)

    def release(self) -> None:
        self.give(self.bytes)

    def end(self, problem: Problem) -> None:
        """Ends this request's work for a lighter peer's: its bytes given back at once, its `ender` told."""
        ender, self.ender, self.ended = self.ender, None, problem
        self.release()
        if ender is not None:
            ender(problem)
