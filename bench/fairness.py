"""Fair when full (part of the `hostile` section; bench/hostile.py runs it): while heavy peers from several
addresses hold what they can of a worker, a light peer's `play` and a probe's `/healthz`, each on new
connections from an address of its own. Every address is one of 127/8 (all loopback on Linux:
tests/helpers/live.py, `connect`), so the service counts each as a client. One fresh server a row
(`REFEREE_WORKERS=1`, the shipped defaults otherwise), one row a game: the heavy peers use the game's
routes, the light peer plays the game's own `play` and sends its own batch. A heavy peer holds: each of its
connections that ends (answered, or closed by the service) is opened again a second later (the
`Retry-After` the service answers), but in the rows "none reopened".

- bodies: 4 addresses × 3 connections, each an 8 MiB body (REFEREE_MAX_BODY_BYTES, declared) sent but for
  its last KB, to the game's `play`: two fill an address's share of the worker's memory (16 MiB), four
  addresses its 64 MiB but 8 KB;
- streams: 4 addresses × 20 streamed batches (`/batch/ndjson`, 64 MiB declared) held mid-body: the game's
  lines, 1 MiB but its last KB (the block the worker reads before it judges): 16 fill a share;
- spool: 5 streamed batches from one address, about 5 MB of the game's lines each, answered with their
  states (`?with_state=true`) and read at 5,000 B/s (above REFEREE_MIN_READ_RATE, 4,096): their results
  fill the worker's spool, lowered to 24 MiB (REFEREE_WORKER_SPOOL_BYTES, 1 GiB by default) to keep the
  run short;
- headers: 12 addresses × 100 connections (REFEREE_PEER_CONNECTIONS each: 1,200, past the worker's 1,000)
  that send only a `play`'s headers; once more with no dropped connection reopened;
- bodies on five workers: 6 addresses × 24 connections to Iago's `play` (each worker's 64 MiB is 4
  shares: 6 addresses want more); once more with none reopened. There the light peer plays every game in
  turn;
- thinking (issue 50's target; its own part, `--hostile-parts thinking`): 8 connections from one address, each a `suggest` at the service's most
  (`REFEREE_MAX_SIMULATIONS` simulations and `REFEREE_MAX_THINK_MS`, 20,000 and 5,000 ms by default) on a
  mid-game state of the game where its mover decides, each asked again a second after its answer: two
  think (a worker's threads for searches), two wait their turn, the rest are refused 429. Target: the light
  peer's requests all 200, its `play` p99 ≤ 250 ms, `/healthz` worst ≤ 250 ms.

Once the workers are done with what the heavy peers opened and sent (`settle`), for `WINDOW` seconds the
light peer (127.0.0.200) sends `play` every 10 ms and a 10-line streamed batch every 250 ms, and the probe
(127.0.0.201) `/healthz` every 10 ms: from a process of their own, so that the heavy peers' threads add
nothing to their latencies. Targets: the light peer's requests all 200 (a batch with all its results), its
`play` p99 ≤ 100 ms, `/healthz` worst ≤ 250 ms. Also the cores the workers and the heavy peers' process
used in the window, and how the heavy peers' connections ended: while held, from their first byte (503
`paid`: its peer held the most of a full budget and paid for another's request; 429, past its share;
`closed` without an answer: dropped to keep connections spare), and at the end, when the bench closes
their sending side (`held`: the worker still held the body or stream, and answers 400 for its end; 429: it
was refused past its share and the worker was draining its rest), or reads a slow reader's answer at once
(`whole`, or cut by its last line: `paid`, or `service-busy` when the spool is full of its own peer's
answers).

Then a flood of new connections from one address (2 processes × 16 threads, each connecting, sending a
`play` with `Connection: close` and reading its answer, again and again for 3 s), straight to gunicorn and
through nginx with deploy/referee.nginx.conf as shipped (started as the tests start it,
tests/helpers/proxy.py), while another address asks `/healthz` on a new connection every 20 ms through the
same front: the rates, the worker's cores, and `/healthz`'s p50 and worst. Nothing is asserted."""

from __future__ import annotations

import collections
import io
import json
import os
import re
import selectors
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

import orjson

import referee

from helpers.live import Server, connect, cpu_seconds, exchange, read_answer, request_bytes, serve, workers

from report import progress, table, verdict
from samples import GAMES, playout

__all__ = ["bench_fairness", "bench_thinking"]

ROOT = Path(__file__).resolve().parent.parent

MIB = 1024 * 1024
LIGHT, PROBE = "127.0.0.200", "127.0.0.201"
SPOOL_PEER = "127.0.4.1"
#: Seconds the light peer and the probe are measured a row, once the heavy peers hold.
WINDOW = 4.0
#: What the service's refusals ask (`Retry-After: 1`): a heavy peer opens an ended connection again after it.
RETRY_AFTER = 1.0
PLAY_PAUSE, BATCH_PAUSE, PROBE_PAUSE = 0.010, 0.250, 0.010
P99, WORST = 0.100, 0.250
#: The light peer's `play` p99 the thinking rows must keep (issue 50: "another address's `play` p99 ≤ 250 ms").
THINKING_P99 = 0.250
#: The thinking rows' heavy peer: its searches at once, from one address.
THINKERS_PEER, SEARCHES = "127.0.6.1", 8
BODY_BYTES = 8 * MIB  # REFEREE_MAX_BODY_BYTES's default
SPOOL_BYTES = 24 * MIB
SPOOL_BODY_BYTES = 5_000_000
READ_RATE = 5000
HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n"
FLOOD_SECONDS, FLOOD_PROCESSES, FLOOD_THREADS = 3.0, 2, 16
FLOODER_PEER = "127.0.0.2"


# ------------------------------------------------------------------------------------------ material


class Material:
    """A game's requests: the light peer's `play` (a mid-game state of a seeded random game and its move)
    and 10-line streamed batch, and lines of its random games to fill the heavy peers' streams."""

    def __init__(self, name: str) -> None:
        game = referee.game(name)
        self.name = name
        lines: list[bytes] = []
        for seed in range(1, 21):
            states, moves = playout(game, seed)
            if seed == 1:
                middle = len(moves) // 2
                self.play = request_bytes("POST", f"/v1/games/{name}/play",
                                          orjson.dumps({"state": states[middle], "move": moves[middle]}))
            lines += [orjson.dumps({"state": state, "move": move}) + b"\n" for state, move in zip(states, moves)]
        self.batch = request_bytes("POST", f"/v1/games/{name}/batch/ndjson", b"".join(lines[:10]),
                                   "application/x-ndjson")
        self.lines = lines

    def filled(self, size: int) -> bytes:
        """The game's lines, repeated, up to `size` bytes (whole lines)."""
        parts, total = [], 0
        while True:
            for line in self.lines:
                if total + len(line) > size:
                    return b"".join(parts)
                parts.append(line)
                total += len(line)


# ------------------------------------------------------------------------------------------ the heavy peers


def ended_as(sock: socket.socket, reader: Any = None) -> str:
    """How a heavy connection ended: its answer's status (503 `paid` when its peer held the most), or
    `closed` when the service closed it without an answer."""
    try:
        answer = read_answer(sock, reader)
    except (OSError, ValueError, IndexError):
        return "closed"
    if answer.status == 503 and b"holds the most" in answer.body:
        return "503 paid"
    return str(answer.status)


class Holders:
    """Heavy connections, `each` a peer, held: `opener(peer)` opens one (and sends what it holds); when one
    ends (answered, or closed by the service) its peer opens another RETRY_AFTER later (with `reopen`). What
    each ended with is tallied while they hold (`during`) and when the bench lets go (`finish`)."""

    def __init__(self, opener: Callable[[str], socket.socket], peers: list[str], each: int,
                 reopen: bool = True) -> None:
        self.opener, self.reopen = opener, reopen
        self.selector = selectors.DefaultSelector()
        self.lock = threading.Lock()
        self.during: collections.Counter[str] = collections.Counter()
        self.opened = 0
        self.holding = True
        self.timers: list[threading.Timer] = []
        self.stop = threading.Event()
        starters = [threading.Thread(target=self.open_many, args=(peer, each)) for peer in peers]
        for starter in starters:
            starter.start()
        for starter in starters:
            starter.join()
        self.watcher = threading.Thread(target=self.watch)
        self.watcher.start()

    def open_many(self, peer: str, count: int) -> None:
        for _ in range(count):
            self.open(peer)

    def open(self, peer: str) -> None:
        if not self.holding:
            return
        try:
            sock = self.opener(peer)
        except OSError:
            with self.lock:
                self.during["not opened"] += 1
            return
        with self.lock:
            self.opened += 1
            self.selector.register(sock, selectors.EVENT_READ, peer)

    def watch(self) -> None:
        while not self.stop.is_set():
            for key, _ in self.selector.select(0.05):
                with self.lock:
                    self.selector.unregister(key.fileobj)
                sock = key.fileobj
                sock.settimeout(10)
                end = ended_as(sock)
                sock.close()
                with self.lock:
                    self.during[end] += 1
                    if self.holding and self.reopen:
                        timer = threading.Timer(RETRY_AFTER, self.open, (key.data,))
                        self.timers.append(timer)
                        timer.start()

    def finish(self, answers: bool) -> collections.Counter[str]:
        """Stops holding: with `answers`, each connection still open closes its sending side and its answer
        is read; else each is closed. What they ended with."""
        with self.lock:
            self.holding = False
            timers = list(self.timers)
        for timer in timers:
            timer.cancel()
            if timer.is_alive():
                timer.join()
        self.stop.set()
        self.watcher.join()
        socks = [key.fileobj for key in self.selector.get_map().values()]
        at_end: collections.Counter[str] = collections.Counter()
        for sock in socks:
            if answers:
                try:
                    sock.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
        for sock in socks:
            if answers:
                sock.settimeout(15)
                end = ended_as(sock)
                at_end["held" if end == "400" else end] += 1
            else:
                at_end["held"] += 1
            sock.close()
        self.selector.close()
        return at_end


def body_opener(server: Server, material: Material) -> Callable[[str], socket.socket]:
    """An 8 MiB body declared to the game's `play`, sent but for its last KB."""
    raw = request_bytes("POST", f"/v1/games/{material.name}/play", b" " * BODY_BYTES)[:-1024]
    return lambda peer: opened(server, peer, raw)


def stream_opener(server: Server, material: Material) -> Callable[[str], socket.socket]:
    """A streamed batch of 64 MiB declared, the game's lines sent up to 1 MiB but its last KB."""
    head = (f"POST /v1/games/{material.name}/batch/ndjson HTTP/1.1\r\nHost: bench\r\n"
            f"Content-Type: application/x-ndjson\r\nContent-Length: {64 * MIB}\r\n\r\n").encode()
    lines = material.filled(2 * MIB)[: MIB - 1024]
    return lambda peer: opened(server, peer, head + lines)


def headers_opener(server: Server, material: Material) -> Callable[[str], socket.socket]:
    """Only the headers of a `play` of 1,000 bytes."""
    head = (f"POST /v1/games/{material.name}/play HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
            "Content-Length: 1000\r\n\r\n").encode()
    return lambda peer: opened(server, peer, head)


def search_opener(server: Server, material: Material) -> Callable[[str], socket.socket]:
    """A `suggest` at the service's most (its defaults: `Settings`), sent whole: its answer comes when the search
    has thought (or at once, refused)."""
    from referee.http.settings import Settings

    most = Settings()
    game = referee.game(material.name)
    states, _ = playout(game, 1)
    state = next(state for state in states[len(states) // 2:] if game.legal_moves(state) not in ([], ["roll"]))
    body = orjson.dumps({"state": state, "simulations": most.max_simulations, "think_ms": most.max_think_ms})
    raw = request_bytes("POST", f"/v1/games/{material.name}/suggest", body)
    return lambda peer: opened(server, peer, raw)


def opened(server: Server, peer: str, raw: bytes) -> socket.socket:
    sock = connect(server, peer, timeout=30)
    try:
        sock.sendall(raw)
    except OSError:
        pass  # ended while it sent (its peer paid): its answer, or its close, is read as any end
    return sock


class Joined(io.RawIOBase):
    """What a slow reader has read already, then the rest of its socket."""

    def __init__(self, head: bytes, sock: socket.socket) -> None:
        self.head, self.sock = memoryview(head), sock

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.head:
            size = min(len(buffer), len(self.head))
            buffer[:size] = self.head[:size]
            self.head = self.head[size:]
            return size
        return self.sock.recv_into(buffer)


class SlowReaders:
    """`count` streamed batches from one peer, each sent whole, their answers read at READ_RATE bytes a
    second; an answer that ends (refused) is asked again RETRY_AFTER later. `finish` reads the rest of
    each at once and says how it ended: whole, or cut by its last line."""

    def __init__(self, server: Server, peer: str, raw: bytes, count: int) -> None:
        self.server, self.peer, self.raw = server, peer, raw
        self.fast, self.lock = threading.Event(), threading.Lock()
        self.during: collections.Counter[str] = collections.Counter()
        self.at_end: collections.Counter[str] = collections.Counter()
        self.started = threading.Semaphore(0)
        self.opened = 0
        self.threads = [threading.Thread(target=self.stream) for _ in range(count)]
        for thread in self.threads:
            thread.start()
        deadline = time.monotonic() + 20  # until every answer has begun: the spool filled
        for _ in range(count):
            self.started.acquire(timeout=max(0.0, deadline - time.monotonic()))

    def stream(self) -> None:
        first = True
        while True:
            ended, end = self.one(first)
            first = False
            with self.lock:
                (self.during if ended else self.at_end)[end] += 1
            if not ended or self.fast.wait(RETRY_AFTER):
                return

    def one(self, first: bool) -> tuple[bool, str]:
        """One batch: whether it ended while read slowly, and how it ended."""
        with self.lock:
            self.opened += 1
        with connect(self.server, self.peer, timeout=30) as sock:
            try:
                sock.sendall(self.raw)
            except OSError:
                pass
            data, began = bytearray(), time.monotonic()
            while not self.fast.is_set():
                allowed = int(READ_RATE * (time.monotonic() - began)) - len(data)
                if allowed < 1024:
                    self.fast.wait(0.05)
                    continue
                try:
                    part = sock.recv(min(allowed, 16384))
                except OSError:
                    part = b""
                if not part:
                    break
                if not data and first:
                    self.started.release()
                data += part
                if data.startswith(b"HTTP/1.1 ") and not data.startswith(b"HTTP/1.1 200"):
                    break  # refused: read it whole at once
            ended = not self.fast.is_set()
            sock.settimeout(30)
            try:
                answer = read_answer(sock, io.BufferedReader(Joined(bytes(data), sock)))
            except (OSError, ValueError, IndexError):
                return ended, "closed"
        if answer.status != 200:
            return ended, "503 paid" if b"holds the most" in answer.body else str(answer.status)
        last = orjson.loads(answer.body.rsplit(b"\n", 2)[-2]) if answer.body.strip() else {}
        if "code" not in last:
            return ended, "whole"
        return ended, "cut: paid" if "holds the most" in last.get("detail", "") else f"cut: {last['code']}"

    def finish(self) -> collections.Counter[str]:
        self.fast.set()
        for thread in self.threads:
            thread.join(60)
        return self.at_end


# ------------------------------------------------------------------------------------------ the light peer


def timed_loop(server: Server, raws: list[bytes], peer: str, pause: float, stop: threading.Event,
               results: list[tuple[float, str]], check: Callable[[Any], str] | None = None) -> None:
    """Requests on a new connection each, `raws` in turn, `pause` apart, until `stop`: each one's latency
    and status (`check` may say more of an answer)."""
    turn = 0
    while not stop.is_set():
        started = time.perf_counter()
        try:
            answer = exchange(server, raws[turn % len(raws)], timeout=30, peer=peer)
            status = check(answer) if check else str(answer.status)
        except OSError as error:
            status = type(error).__name__
        results.append((time.perf_counter() - started, status))
        turn += 1
        stop.wait(pause)


def whole_batch(answer: Any) -> str:
    """A light batch's status: 200 only when all of its 10 results came, none a problem."""
    if answer.status != 200:
        return str(answer.status)
    lines = [orjson.loads(line) for line in answer.body.splitlines()]
    return "200" if len(lines) == 10 and not any("code" in line for line in lines) else "200 cut"


def settle(server: Server, most: float = 3.0) -> None:
    """Waits until the workers are done with what the heavy peers opened and sent (their CPU below a tenth of
    a core over 0.2 s), at most `most` seconds: the window measures them holding, not arriving."""
    pids, deadline = workers(server), time.monotonic() + most
    while time.monotonic() < deadline:
        before = sum(map(cpu_seconds, pids))
        time.sleep(0.2)
        if sum(map(cpu_seconds, pids)) - before < 0.02 * len(pids):
            return


def measure(server: Server, plays: list[bytes], batches: list[bytes]) -> dict[str, list[tuple[float, str]]]:
    """The light peer's `play`s and batches and the probe's `/healthz`, for WINDOW seconds, from a process of
    their own (`light_peer`): in this one the heavy peers' threads would hold the interpreter's lock, and
    their waits would be counted as the service's."""
    config = {"host": server.host, "port": server.port, "plays": [raw.decode("latin-1") for raw in plays],
              "batches": [raw.decode("latin-1") for raw in batches]}
    path = os.pathsep.join(filter(None, [str(ROOT / "tests"), os.environ.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, __file__], input=json.dumps(config).encode(), capture_output=True,
                          env=os.environ | {"PYTHONPATH": path}, timeout=WINDOW + 120, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the light peer's process failed: {done.stderr.decode(errors='replace')[-2000:]}")
    return {name: [(latency, status) for latency, status in results]
            for name, results in json.loads(done.stdout).items()}


def light_peer() -> None:
    """The light peer's process: the config on stdin, the results (each request's latency and status, by
    kind) on stdout."""
    config = json.load(sys.stdin)
    server = Server(config["host"], config["port"], None, None)  # type: ignore[arg-type]  # no process of its own
    plays, batches = [[raw.encode("latin-1") for raw in config[name]] for name in ("plays", "batches")]
    stop = threading.Event()
    results: dict[str, list[tuple[float, str]]] = {"play": [], "batch": [], "healthz": []}
    threads = [
        threading.Thread(target=timed_loop, args=(server, plays, LIGHT, PLAY_PAUSE, stop, results["play"])),
        threading.Thread(target=timed_loop, args=(server, batches, LIGHT, BATCH_PAUSE, stop, results["batch"],
                                                  whole_batch)),
        threading.Thread(target=timed_loop, args=(server, [HEALTHZ], PROBE, PROBE_PAUSE, stop, results["healthz"])),
    ]
    for thread in threads:
        thread.start()
    time.sleep(WINDOW)
    stop.set()
    for thread in threads:
        thread.join()
    json.dump(results, sys.stdout)


# ------------------------------------------------------------------------------------------ rows


def counted(counts: collections.Counter[str]) -> str:
    return ", ".join(f"{count} × {what}" for what, count in counts.most_common()) or "none"


def p99(latencies: list[float]) -> float:
    return statistics.quantiles(latencies, n=100, method="inclusive")[98] if len(latencies) > 1 else max(latencies)


def row(what: str, game: str, heavy: str, window: Window, opened: int, during: collections.Counter[str],
        at_end: collections.Counter[str], p99_bound: float = P99) -> list[str]:
    results = window.results
    plays = [latency for latency, _ in results["play"]]
    probes = [latency for latency, _ in results["healthz"]]
    statuses = {name: collections.Counter(status for _, status in results[name]) for name in results}
    light = "; ".join(f"{name} {counted(statuses[name])}" for name in ("play", "batch"))
    if set(statuses["healthz"]) != {"200"}:
        light += f"; /healthz {counted(statuses['healthz'])}"
    all_200 = all(set(statuses[name]) == {"200"} for name in statuses)
    p99_play, worst_probe = p99(plays), max(probes)
    met = all_200 and p99_play <= p99_bound and worst_probe <= WORST
    ends = f"{opened} opened; while held: {counted(during)}; at the end: {counted(at_end)}"
    return [what, game, heavy, light, f"{statistics.median(plays) * 1000:.1f} ms", f"{p99_play * 1000:.1f} ms",
            f"{max(plays) * 1000:.0f} ms", f"{worst_probe * 1000:.1f} ms", ends,
            f"{window.workers:.2f} / {window.heavy:.2f}",
            verdict(f"all 200, `play` p99 ≤ {p99_bound * 1000:.0f} ms, `/healthz` worst ≤ 250 ms", met)]


class Window:
    """The light peer's results over the window (`measure`), and the cores the server's workers and this
    process (the heavy peers) used meanwhile."""

    def __init__(self, server: Server, plays: list[bytes], batches: list[bytes]) -> None:
        pids = workers(server)
        started, busy, own = time.monotonic(), sum(map(cpu_seconds, pids)), time.process_time()
        self.results = measure(server, plays, batches)
        took = time.monotonic() - started
        self.workers = (sum(map(cpu_seconds, pids)) - busy) / took
        self.heavy = (time.process_time() - own) / took


def holders_row(what: str, heavy: str, opener: Callable[[Server, Material], Callable[[str], socket.socket]],
                peers: list[str], each: int, materials: list[Material], answers: bool, workers: int = 1,
                reopen: bool = True, p99_bound: float = P99) -> list[str]:
    game = materials[0].name if len(materials) == 1 else "every game in turn"
    progress(f"hostile: fair when full: {what}, {game}")
    with serve(REFEREE_WORKERS=str(workers)) as live:
        holders = Holders(opener(live, materials[0]), peers, each, reopen)
        settle(live)
        window = Window(live, [m.play for m in materials], [m.batch for m in materials])
        at_end = holders.finish(answers)
    return row(what, game, heavy, window, holders.opened, holders.during, at_end, p99_bound)


def spool_row(material: Material) -> list[str]:
    progress(f"hostile: fair when full: spool, {material.name}")
    body = material.filled(SPOOL_BODY_BYTES)
    raw = request_bytes("POST", f"/v1/games/{material.name}/batch/ndjson?with_state=true", body, "application/x-ndjson")
    with serve(REFEREE_WORKERS="1", REFEREE_WORKER_SPOOL_BYTES=str(SPOOL_BYTES)) as live:
        readers = SlowReaders(live, SPOOL_PEER, raw, 5)
        settle(live)
        window = Window(live, [material.play], [material.batch])
        at_end = readers.finish()
    return row("spool: answers read at 5,000 B/s, spool 24 MiB", material.name, "5 × 1 address", window,
               readers.opened, readers.during, at_end)


def addresses(prefix: str, count: int) -> list[str]:
    return [f"{prefix}.{n}" for n in range(1, count + 1)]


def bench_full() -> str:
    materials = {name: Material(name) for name in GAMES}
    every = list(materials.values())
    rows = []
    for name in GAMES:
        rows.append(holders_row("bodies: 8 MiB, all but the last KB", "3 × 4 addresses", body_opener,
                                addresses("127.0.1", 4), 3, [materials[name]], True))
    for name in GAMES:
        rows.append(holders_row("streams: held mid-body, 1 MiB sent", "20 × 4 addresses", stream_opener,
                                addresses("127.0.2", 4), 20, [materials[name]], True))
    for name in GAMES:
        rows.append(spool_row(materials[name]))
    for name in GAMES:
        rows.append(holders_row("headers only", "100 × 12 addresses", headers_opener, addresses("127.0.3", 12), 100,
                                [materials[name]], False))
    rows.append(holders_row("headers only, none reopened", "100 × 12 addresses", headers_opener,
                            addresses("127.0.3", 12), 100, every, False, reopen=False))
    rows.append(holders_row("bodies, five workers", "24 × 6 addresses", body_opener, addresses("127.0.5", 6), 24,
                            every, True, workers=5))
    rows.append(holders_row("bodies, five workers, none reopened", "24 × 6 addresses", body_opener,
                            addresses("127.0.5", 6), 24, every, True, workers=5, reopen=False))
    return table(["heavy peers hold", "game", "connections", "light peer's requests", "`play` p50", "p99", "worst",
                  "`/healthz` worst", "heavy peers' connections ended", "cores: workers / heavy peers", "target"],
                 rows)


def thinking_rows(materials: dict[str, Material]) -> list[list[str]]:
    """Issue 50's target, a row a game: one worker, SEARCHES searches at the most at once from one address,
    beside the light peer and the probe."""
    return [holders_row("thinking: `suggest` at the most (20,000 simulations, 5 s)", f"{SEARCHES} × 1 address",
                        search_opener, [THINKERS_PEER], SEARCHES, [materials[name]], True, p99_bound=THINKING_P99)
            for name in GAMES]


def bench_thinking() -> str:
    """The thinking rows alone (`run.py --only hostile --hostile-parts thinking`)."""
    materials = {name: Material(name) for name in GAMES}
    return table(["heavy peers hold", "game", "connections", "light peer's requests", "`play` p50", "p99", "worst",
                  "`/healthz` worst", "heavy peers' connections ended", "cores: workers / heavy peers", "target"],
                 thinking_rows(materials))


# ------------------------------------------------------------------------------------------ a flood of connections

#: One address opening new connections, a request each, as fast as it can: a process of its own, so that
#: its threads do not share the measuring process's interpreter lock.
FLOODER = r"""
import collections, json, socket, sys, threading, time
host, port, peer, seconds, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
raw = sys.stdin.buffer.read()
counts, lock = collections.Counter(), threading.Lock()
def flood():
    mine, deadline = collections.Counter(), time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=10, source_address=(peer, 0)) as sock:
                sock.sendall(raw)
                answer = b""
                while part := sock.recv(65536):
                    answer += part
            status = answer.split(b" ", 2)[1].decode() if answer.startswith(b"HTTP/") else "closed"
        except OSError as error:
            status = type(error).__name__
        mine[status] += 1
    with lock:
        counts.update(mine)
workers = [threading.Thread(target=flood) for _ in range(threads)]
started = time.monotonic()
for worker in workers:
    worker.start()
for worker in workers:
    worker.join()
print(json.dumps({"counts": counts, "seconds": time.monotonic() - started}))
"""


def flood_row(label: str, front: Server, gunicorn: Server, raw: bytes, bound: str,
              limits: tuple[int, int] | None) -> list[str]:
    """FLOOD_PROCESSES flooders of one address, and `/healthz` from another every 20 ms, through `front`."""
    progress(f"hostile: a flood of new connections, {label}")
    flooders = [subprocess.Popen([sys.executable, "-c", FLOODER, front.host, str(front.port), FLOODER_PEER,
                                  str(FLOOD_SECONDS), str(FLOOD_THREADS)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE)
                for _ in range(FLOOD_PROCESSES)]
    stop, probes = threading.Event(), []
    pids = workers(gunicorn)
    busy = sum(map(cpu_seconds, pids))

    def probe() -> None:
        if not stop.wait(0.3):  # the flood has begun
            timed_loop(front, [HEALTHZ], "127.0.0.3", 0.020, stop, probes)

    prober = threading.Thread(target=probe)
    prober.start()
    try:
        for flooder in flooders:  # all at once: each waits for its request before it floods
            assert flooder.stdin is not None
            flooder.stdin.write(raw)
            flooder.stdin.close()
        outs = [json.loads(flooder.stdout.read()) for flooder in flooders if flooder.stdout is not None]
    finally:
        stop.set()
        prober.join()
        for flooder in flooders:
            if flooder.poll() is None:
                flooder.kill()
                flooder.wait()
    seconds = max(out["seconds"] for out in outs)
    cores = (sum(map(cpu_seconds, pids)) - busy) / seconds
    counts = sum((collections.Counter(out["counts"]) for out in outs), collections.Counter())
    latencies = [latency for latency, _ in probes]
    statuses = collections.Counter(status for _, status in probes)
    opened, served, refused = sum(counts.values()), counts["200"], counts["429"]
    others = counts - collections.Counter({"200": served, "429": refused})
    worst = max(latencies)
    goal, met = "`/healthz` all 200, worst ≤ 250 ms", None
    if limits is not None:
        rate, burst = limits
        most = 1 + burst + rate * seconds  # the first request, the burst at once, then the rate
        goal += f"; flooder served ≤ {most / seconds:.0f}/s"
        met = worst <= WORST and set(statuses) == {"200"} and served <= most
    return [label, f"{opened / seconds:,.0f}/s", f"{served / seconds:,.0f}/s",
            f"{refused / seconds:,.0f}/s" + (f" ({counted(others)})" if others else ""), f"{cores:.2f}",
            counted(statuses), f"{statistics.median(latencies) * 1000:.1f} ms", f"{worst * 1000:.1f} ms", bound,
            verdict(goal, met)]


def nginx_limits() -> tuple[str, tuple[int, int] | None]:
    """The per-peer limits of deploy/referee.nginx.conf as it is now: what they say, and `limit_req`'s rate
    a second and burst."""
    from helpers.proxy import CONF

    text = CONF.read_text()
    rate = re.search(r"limit_req_zone\s[^;]*rate=(\d+)r/s", text)
    burst = re.search(r"limit_req\s[^;]*burst=(\d+)", text)
    conn = re.search(r"limit_conn\s+\S+\s+(\d+);", text)
    if not rate:
        return "no `limit_req` in deploy/referee.nginx.conf", None
    limits = int(rate.group(1)), int(burst.group(1)) if burst else 0
    said = f"`limit_req` {limits[0]} r/s, burst {limits[1]}, a peer"
    if conn:
        said += f" (`limit_conn` {conn.group(1)} bounds its requests at once)"
    return said, limits


def bench_flood() -> str:
    from helpers.proxy import NGINX, nginx

    play = orjson.dumps({"state": referee.game("iago").new(), "move": "e4"})
    raw = request_bytes("POST", "/v1/games/iago/play", play, extra="Connection: close\r\n")
    with serve(REFEREE_WORKERS="1", REFEREE_TRUSTED_PROXIES="127.0.0.1") as live:
        rows = [flood_row("straight to gunicorn", live, live, raw, "nothing in the service: left to the proxy", None)]
        if NGINX:
            bound, limits = nginx_limits()
            with nginx(live.port) as proxied:
                rows.append(flood_row("through nginx", proxied, live, raw, bound, limits))
    text = table(["one address floods new connections", "opened", "answered 200", "refused 429", "worker's cores",
                  "`/healthz` from another address", "p50", "worst", "bounded by", "target"], rows)
    if not NGINX:
        text += "\n\nnginx is not installed here (`make nginx` installs Debian's): no row behind it."
    return text


def bench_fairness() -> tuple[str, str]:
    """The two tables: fair when full, and the flood of new connections."""
    return bench_full(), bench_flood()


if __name__ == "__main__":
    light_peer()
