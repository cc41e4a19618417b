"""Searches, `POST /v1/games/{game}/suggest`: the engine's opponent, bounded like everything else a worker does.

- **Off the loop, on a few threads**: a search runs on the worker's pool (`referee.http.offload`), the GIL
  released while it thinks; at most `THINKERS` of the pool's `offload.THREADS` threads think at once, so
  pictures and big bodies find a thread (but for the moment a search ended for a lighter client takes to
  stop, at most 16 simulations: its thread is given to the other as it is told to stop).
- **Always a deadline**: a search thinks at most the request's `think_ms`, or the server's most
  (`REFEREE_MAX_THINK_MS`) when it gives none, and at most `REFEREE_MAX_SIMULATIONS` simulations; a request
  asking for more is 422 `over-budget` naming the bound (the engine checks: `Engine.search`'s
  `max_simulations`, `max_think_ms`).
- **The threads shared max-min, as the budgets are** (`referee.http.budget`): the searches thinking at once
  are a budget of `THINKERS`, each client's counted. When all are thinking, a request of a client that
  would think less than the client thinking the most ends that client's newest search (it stops at its
  next look; its request answers 503 `service-busy`, `paid`); else the request waits for a thread, at
  most `REFEREE_MAX_THINK_MS`, a freed thread going to the waiting client that thinks the least (then the
  one that waited longest), and past that 503 `service-busy`. A client may have at most `THINKERS`
  searches waiting: past it 429 `too-many-requests`.
- **Its tree is held memory**: the bytes its simulations may grow (`Settings.tree_bytes`, within
  `REFEREE_SEARCH_MEMORY_BYTES`) are taken from the worker's memory budget in the request's own hold while
  it thinks, so the rule of that budget holds too (the client holding the most pays, 429 past a client's
  share), and the search is told to keep its tree within them (its `memory`).
- **A client that goes away stops its search**: its connection is watched while the request waits and
  thinks; when the client closes it (or resets it) a waiting search leaves the queue at its next look
  (every `LOOK` seconds) and a thinking one stops at its next (every 16 simulations), and one log line
  says so. What it found is answered to no one.
- **A stopping worker ends it** (`referee.http.lifecycle`): 503 `service-unavailable` at once, the search
  stopped.

Each search that begins leaves a debug log line (its client, simulations, think time and tree's bytes).

A search's refusals for its request itself (a state the game refuses, `not-your-turn`, `over-budget`, ...)
come first, from the engine's one read of the request (`Engine.search`, which checks it and gives the search
to run), before the request waits for a thread: a request that would be refused never ends another client's
search."""

from __future__ import annotations

import contextlib
import itertools
import logging
import socket
import time
from dataclasses import dataclass, field
from typing import Any, Iterator

from referee import _core

from referee.http import lifecycle, offload
from referee.http.body import HOLD_KEY
from referee.http.budget import Budget, Hold, busy, peer_busy
from referee.http.problems import Problem
from referee.http.settings import Settings

__all__ = ["THINKERS", "Thinkers", "suggest"]

log = logging.getLogger("referee.http")

#: Searches a worker thinks at once (threads of its pool, `offload.THREADS`): the others are left to other work.
THINKERS = 2
#: How often a waiting search looks whether its client went away, in seconds.
LOOK = 0.05
#: What the budget of threads counts, as its refusals word it.
WHAT = "searches thinking at once"


@dataclass
class Waiter:
    """A request waiting for a thread to think on: its client, its place in the queue, its hold of the
    budget (one search once its turn comes) and the event that says it has come."""

    peer: str
    turn: int
    hold: Hold
    event: Any = field(default=None)


class Thinkers:
    """The threads of a worker that think, shared by its clients (see the module's doc)."""

    def __init__(self, threads: int = THINKERS) -> None:
        self.budget = Budget(threads, WHAT, unit="")
        self.waiting: list[Waiter] = []
        self.turns = itertools.count()

    def admit(self, peer: str, stop: _core.Stop, wait: float) -> Hold:
        """A thread to think on, for a search of `peer` that `stop` ends: its hold of the budget (one),
        endable while it thinks (the search stopped, the request told why: `Hold.ended`). When every thread
        thinks and no client thinks more than `peer` would, it waits its turn at most `wait` seconds."""
        hold = self.budget.hold(peer)
        hold.ender = lambda problem: stop.set()
        try:
            hold.take(1)  # a thread, of a heavier client's if need be
            return hold
        except Problem as refused:
            if refused.code != "service-busy":
                raise
        if sum(waiter.peer == peer for waiter in self.waiting) >= self.budget.limit:
            raise peer_busy("searches waiting to think", unit="")
        from gevent.event import Event

        waiter = Waiter(peer, next(self.turns), hold, Event())
        self.waiting.append(waiter)
        try:
            # Woken by its turn; else it looks every LOOK seconds whether its client went away (`stop`).
            deadline = time.monotonic() + wait
            while not waiter.event.wait(min(LOOK, max(deadline - time.monotonic(), 0))):
                if stop.is_set() or time.monotonic() >= deadline:
                    raise busy(WHAT, unit="")
            return hold  # its turn came: `release` took it out of the queue
        except BaseException:
            if waiter in self.waiting:
                self.waiting.remove(waiter)
            self.release(hold)  # a turn given as it gave up (killed) goes to the next
            raise

    def release(self, hold: Hold) -> None:
        """Gives a search's thread back, to the waiting client that thinks the least (then the one that
        waited longest)."""
        hold.ender = None
        hold.release()
        budget = self.budget
        while self.waiting and budget.held < budget.limit:
            waiter = min(self.waiting, key=lambda one: (budget.held_by_peer.get(one.peer, 0), one.turn))
            self.waiting.remove(waiter)
            waiter.hold.take(1)  # never refused: the budget has room, and a client's share is the whole
            waiter.event.set()


@dataclass
class Gone:
    """Whether the client of a search closed its connection."""

    gone: bool = False


def watch(sock: Any, stop: _core.Stop, gone: Gone) -> None:
    """Waits until the client's connection has something to read: the client closed it (or reset it), so
    the search stops; or it sent more (a pipelined request), and is still there."""
    from gevent.socket import wait_read

    try:
        wait_read(sock.fileno())
        if sock.recv(1, socket.MSG_PEEK):
            return
    except OSError:
        pass
    gone.gone = True
    stop.set()


@contextlib.contextmanager
def watched(environ: dict[str, Any], stop: _core.Stop) -> Iterator[Gone]:
    """While a search waits and thinks: its client's connection watched (under gunicorn's gevent worker);
    when the client goes away, `stop` is raised."""
    gone = Gone()
    sock = environ.get("gunicorn.socket")
    sock = getattr(sock, "sock", sock)  # a `referee.http.worker.Paced` wraps the socket
    if sock is None or not offload.under_gevent():
        yield gone
        return
    import gevent

    watcher = gevent.spawn(watch, sock, stop, gone)
    try:
        yield gone
    finally:
        watcher.kill()


def suggest(engine: _core.Engine, body: dict[str, Any], settings: Settings, thinkers: Thinkers,
            environ: dict[str, Any]) -> dict[str, Any]:
    """A request's suggestion, thought on the pool within the server's bounds and its client's shares (see
    the module's doc); the problem of what the engine refuses, or of a search ended before its end."""
    if lifecycle.stopping:
        raise Problem("service-unavailable", "the service is stopping; send the request again")
    memory: Hold = environ[HOLD_KEY]  # the request's hold of the worker's memory: its body, and the tree
    think = settings.max_think_ms if body.get("think_ms") is None else body["think_ms"]
    asked: dict[str, Any] = {"level": body.get("level"), "simulations": body.get("simulations"), "think_ms": think,
             "seed": body.get("seed"), "max_simulations": settings.max_simulations,
             "max_think_ms": settings.max_think_ms}
    # What the engine would refuse is refused here, before the request waits for a thread or ends another's.
    search = offload.run(lambda: engine.search(body["state"], body.get("player"), body.get("secret"), **asked),
                         size=int(environ.get("CONTENT_LENGTH") or 0))  # a big state read off the loop
    simulations = search.simulations
    tree = settings.tree_bytes(simulations)
    stop = _core.Stop()
    slot, taken = None, 0
    try:
        with lifecycle.reading(environ.get("gunicorn.socket")), watched(environ, stop) as gone:
            slot = thinkers.admit(memory.peer, stop, settings.max_think_ms / 1000)
            memory.take(tree)
            taken = tree
            memory.ender = lambda problem: stop.set()
            log.debug("a search begins: %d simulations at most, %d ms", simulations, think, extra={"fields": {
                "peer": memory.peer, "simulations": simulations, "think_ms": think, "tree_bytes": tree}})
            suggestion = offload.run(lambda: search.run(memory=tree, stop=stop), size=0, costly=True)
    finally:
        stop.set()  # however it ended (a kill while it thinks), the search stops
        memory.ender = None
        memory.give(taken)
        if slot is not None:
            thinkers.release(slot)
    for ended in (slot.ended, memory.ended):
        if ended is not None:
            raise ended
    if gone.gone:
        log.info("the client went away: its search stopped after %d of %d simulations",
                 suggestion["simulations"], simulations,
                 extra={"fields": {"simulations": suggestion["simulations"], "asked": simulations}})
    return suggestion
