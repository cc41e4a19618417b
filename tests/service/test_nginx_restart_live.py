"""Restarts behind the shipped nginx (deploy/referee.nginx.conf) lose no request. Two gunicorn instances
behind one nginx whose upstream lists both (the shipped file's second `server` line, uncommented) are
restarted one after the other (SIGTERM, wait, start again on the same port) while clients keep sending
`play` and `validate`; one worker of the shipped single-instance upstream is killed (`kill -9`) under load.
Every answer must be the one expected: judging is pure, so nginx sends a POST again when its connection
fails (`proxy_next_upstream ... non_idempotent`). Each client's requests come from addresses of their own
(any of 127/8), so that the per-peer limits are never met. Every loop here is bounded in time."""

from __future__ import annotations

import collections
import contextlib
import os
import re
import signal
import threading
import time

import orjson
import pytest

import referee
from helpers.live import Server, exchange, request_bytes, serve, workers
from helpers.proxy import nginx, require_nginx

pytestmark = pytest.mark.live

START = referee.game("iago").new()
#: Requests and the status each must be answered with, whoever answers them.
EXPECTED = [
    (request_bytes("POST", "/v1/games/iago/play", orjson.dumps({"state": START, "move": "e4"})), 200),
    (request_bytes("POST", "/v1/games/iago/validate", orjson.dumps({"state": START, "move": "a1"})), 200),
    (request_bytes("POST", "/v1/games/iago/play", orjson.dumps({"state": START, "move": "a1"})), 422),
]
ENV = {"REFEREE_TRUSTED_PROXIES": "127.0.0.1"}
CLIENTS = 4

require_nginx()


class Load:
    """`CLIENTS` threads sending the requests of EXPECTED in turn through `proxy`, a connection each, until
    stopped: each answer's status (or error) counted, `expected` when it is the one expected."""

    def __init__(self, proxy: Server) -> None:
        self.proxy = proxy
        self.stopping = threading.Event()
        self.counts: collections.Counter[str] = collections.Counter()
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.client, args=(index,), daemon=True) for index in range(CLIENTS)]

    def client(self, index: int) -> None:
        sent = 0
        while not self.stopping.is_set():
            raw, status = EXPECTED[sent % len(EXPECTED)]
            peer = f"127.{20 + index}.{sent // 250 % 250}.{sent % 250 + 1}"  # far below a peer's 100 a second
            try:
                got = exchange(self.proxy, raw, timeout=10, peer=peer).status
                outcome = "expected" if got == status else f"{got} for {status}"
            except OSError as error:
                outcome = type(error).__name__
            with self.lock:
                self.counts[outcome] += 1
            sent += 1

    def __enter__(self) -> Load:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=15)

    def answered(self) -> int:
        with self.lock:
            return sum(self.counts.values())

    def go_on(self, answers: int, limit: float = 10) -> None:
        """Waits until `answers` more came (within `limit` seconds): load between the steps."""
        target, deadline = self.answered() + answers, time.monotonic() + limit
        while self.answered() < target and time.monotonic() < deadline:
            time.sleep(0.05)


def upstream_errors(proxy: Server) -> collections.Counter[str]:
    """nginx's errors with its upstreams, by kind (each a try that failed and was sent again, or not)."""
    kinds = re.findall(r"\[(?:error|warn)\] .*?\*\d+ (.*?) while", proxy.log_text())
    return collections.Counter(re.sub(r"\(\d+: ", "(", kind) for kind in kinds)


def test_a_rolling_restart_of_two_instances_loses_no_request() -> None:
    """Before the retries (and with the servers marked failed on an error, nginx's default), 5,248 of 7,445
    were 502: 5 POSTs reset as the first instance stopped, then all while the second restarted within
    fail_timeout of the first's failure ("no live upstreams")."""
    with contextlib.ExitStack() as stack:
        first = stack.enter_context(serve(**ENV))
        second = stack.enter_context(serve(**ENV))
        proxy = stack.enter_context(nginx(first.port, ("# server 127.0.0.1:8001", f"server 127.0.0.1:{second.port}")))
        with Load(proxy) as load:
            load.go_on(200)
            while_down = []
            for server in (first, second):
                before = load.answered()
                server.process.send_signal(signal.SIGTERM)
                server.process.wait(timeout=40)  # it finishes what it has
                while_down.append(load.answered() - before)
                stack.enter_context(serve(port=server.port, **ENV))  # on its port again
                load.go_on(200)
        errors = upstream_errors(proxy)
    print(f"answers: {dict(load.counts)}; while each was down: {while_down}; upstream errors: {dict(errors)}")
    assert all(answers > 20 for answers in while_down), while_down  # the load went on while each was down
    assert errors["connect() failed (Connection refused)"] > 0  # sent to a stopped server, then to the other
    assert load.counts["expected"] == sum(load.counts.values()), load.counts


def test_a_worker_killed_under_load_loses_no_request() -> None:
    """The shipped single-instance upstream: the requests on the killed worker's connections are sent
    again to the same server, on another connection (a kept-alive connection that fails is retried)."""
    with serve(**ENV) as live, nginx(live.port) as proxy:
        with Load(proxy) as load:
            load.go_on(300)
            killed = workers(live)[0]
            os.kill(killed, signal.SIGKILL)
            deadline = time.monotonic() + 10
            while (killed in workers(live) or len(workers(live)) < 2) and time.monotonic() < deadline:
                time.sleep(0.05)  # until gunicorn has replaced it
            load.go_on(300)
        errors = upstream_errors(proxy)
    print(f"answers: {dict(load.counts)}; upstream errors: {dict(errors)}")
    assert load.counts["expected"] == sum(load.counts.values()), load.counts
