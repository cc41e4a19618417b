"""Prometheus metrics of all workers, kept in memory the workers share:
`referee_requests_total{endpoint, method, status}` counts answered requests, and
`referee_request_seconds{endpoint}` is the histogram of their latency.

prometheus_client's multiprocess mode wrote a file a worker and read every file of every worker that ever
ran on each scrape: once a thousand varied requests had filled its series, a scrape cost 18–56 ms of CPU,
and more as workers were recycled. Here every label has a closed set of values (the app's routes, the
methods, the statuses the service answers), so every count has a fixed place in one array of doubles,
made before the workers fork (`share`). Each worker adds only to its own slot of it (no lock: nothing else
writes there; a worker that replaces a dead one takes its slot and goes on from its counts, so counters
never go back), and a scrape sums the slots of the series that counted something."""

from __future__ import annotations

import mmap
from bisect import bisect_left
from typing import Iterable

from referee.codes import CODES

__all__ = ["CONTENT_TYPE", "METHODS", "STATUSES", "configure", "exposition", "observe", "share", "use_slot"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
#: Methods counted by name; any other is counted as `other`.
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "other")
#: Statuses counted by number; any other (none the service answers) as `other`.
STATUSES = tuple(sorted({200, 204} | {entry.status for entry in CODES.values()})) + ("other",)
#: Upper bounds of the latency buckets, in seconds (and +Inf).
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
#: Per endpoint: a count a bucket (the last +Inf), then the sum of the seconds.
HISTOGRAM = len(BUCKETS) + 2
#: The endpoint of a request no route matched.
UNMATCHED = "unmatched"


class Table:
    """Where each count lives: a slot a worker, each slot the counters of every (endpoint, method, status)
    and then the histogram of every endpoint; and, shared by all slots, a byte a counter that says
    whether any worker ever counted it."""

    def __init__(self, endpoints: Iterable[str], slots: int, shared: bool) -> None:
        self.endpoints = tuple(sorted(set(endpoints) | {UNMATCHED}))
        self.endpoint_index = {name: index for index, name in enumerate(self.endpoints)}
        self.method_index = {name: index for index, name in enumerate(METHODS)}
        self.status_index = {status: index for index, status in enumerate(STATUSES)}
        self.counters = len(self.endpoints) * len(METHODS) * len(STATUSES)
        self.slot_size = self.counters + len(self.endpoints) * HISTOGRAM
        self.slots = slots
        size = 8 * slots * self.slot_size + self.counters
        # An anonymous shared mapping is inherited by the forked workers; a private one serves one process.
        memory = mmap.mmap(-1, size, flags=mmap.MAP_SHARED if shared else mmap.MAP_PRIVATE)
        self.values = memoryview(memory)[: 8 * slots * self.slot_size].cast("d")
        self.used = memoryview(memory)[8 * slots * self.slot_size:]
        self.slot = 0

    def observe(self, endpoint: str, method: str, status: int, seconds: float) -> None:
        e = self.endpoint_index.get(endpoint, self.endpoint_index[UNMATCHED])
        s = self.status_index.get(status, len(STATUSES) - 1)
        counter = (e * len(METHODS) + self.method_index.get(method, len(METHODS) - 1)) * len(STATUSES) + s
        base = self.slot * self.slot_size
        self.values[base + counter] += 1
        self.used[counter] = 1
        histogram = base + self.counters + e * HISTOGRAM
        self.values[histogram + bisect_left(BUCKETS, seconds)] += 1
        self.values[histogram + HISTOGRAM - 1] += seconds

    def total(self, index: int) -> float:
        return sum(self.values[slot * self.slot_size + index] for slot in range(self.slots))

    def lines(self) -> Iterable[str]:
        yield "# HELP referee_requests_total Answered HTTP requests"
        yield "# TYPE referee_requests_total counter"
        used = bytes(self.used)
        counter = used.find(1)
        while counter >= 0:
            e, rest = divmod(counter, len(METHODS) * len(STATUSES))
            m, s = divmod(rest, len(STATUSES))
            labels = f'endpoint="{escape(self.endpoints[e])}",method="{METHODS[m]}",status="{STATUSES[s]}"'
            yield f"referee_requests_total{{{labels}}} {self.total(counter)}"
            counter = used.find(1, counter + 1)
        yield "# HELP referee_request_seconds Time to answer an HTTP request"
        yield "# TYPE referee_request_seconds histogram"
        for e, endpoint in enumerate(self.endpoints):
            first = self.counters + e * HISTOGRAM
            counts = [self.total(first + bucket) for bucket in range(HISTOGRAM - 1)]
            if not any(counts):
                continue
            label = f'endpoint="{escape(endpoint)}"'
            cumulative = 0.0
            for bound, count in zip((*map(repr, BUCKETS), "+Inf"), counts):
                cumulative += count
                yield f'referee_request_seconds_bucket{{{label},le="{bound}"}} {cumulative}'
            yield f"referee_request_seconds_count{{{label}}} {cumulative}"
            yield f"referee_request_seconds_sum{{{label}}} {self.total(first + HISTOGRAM - 1)}"


def escape(value: str) -> str:
    """A label value as the text format writes it."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


_endpoints: tuple[str, ...] = ()
_table: Table | None = None


def configure(endpoints: Iterable[str]) -> None:
    """The endpoints counted by name (the app's route patterns); any other counts as `unmatched`. A table
    already shared keeps its endpoints."""
    global _endpoints
    _endpoints = tuple(endpoints)


def share(slots: int) -> None:
    """Makes the table in memory that the processes forked after this call share, with a slot for each
    of `slots` workers at once (gunicorn's master, before it forks)."""
    global _table
    _table = Table(_endpoints, slots, shared=True)


def use_slot(slot: int) -> None:
    """The slot this worker adds to (given by the master: no two live workers share one)."""
    table().slot = slot


def table() -> Table:
    """The table: shared when the master made one, else this process's own (one slot)."""
    global _table
    if _table is None:
        _table = Table(_endpoints, 1, shared=False)
    return _table


def observe(endpoint: str, method: str, status: int, seconds: float) -> None:
    """Counts an answered request and its latency."""
    table().observe(endpoint, method, status, seconds)


def exposition() -> tuple[bytes, str]:
    return ("\n".join(table().lines()) + "\n").encode(), CONTENT_TYPE
