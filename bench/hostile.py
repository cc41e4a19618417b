"""The `hostile` section of bench/run.py: what one client can take from a worker, measured from outside
against gunicorn with one worker (`REFEREE_WORKERS=1`), every game in every table:

- memory: a worker's resident memory after the requests that used to grow it (distinct largest boards,
  streamed answers, answers nobody reads), and the highest it reached in the section;
- event loop: while one client streams a costly batch of a game, `/healthz` and a `play` on connections
  of their own, one after the other: their latency, and whether the worker was killed; and `/healthz`
  while 4 clients draw a 790-byte state on the largest board (issue 39: p99 ≤ 100 ms, worst ≤ 250 ms);
- costly requests: the worker's CPU time for the costliest request found of each route and game (the
  states with the most legal moves in seeded random games, the longest game, the largest board, and the
  largest board described in few bytes, which runs inline but for its picture), per request and per KB
  sent; and the scrape of `/metrics` after varied requests;
- one client's share: while one peer holds 90 connections of a worker (bodies sent but for their last KB,
  headers only, bodies trickled), another peer's `/healthz` and `play` (statuses, latency), and how the
  hostile connections end (408 below the minimum upload rate, 429 past the peer's share) and when;
- readers of a long answer: an 8 MB streamed answer read steadily at rates above and below
  `REFEREE_MIN_READ_RATE`: whole above it, let go below;
- behind nginx: one peer's flood straight to gunicorn and through deploy/referee.nginx.conf;
- fair when full (bench/fairness.py): a light peer's `play` and `/healthz` while heavy peers from many
  addresses hold bodies, streams, the spool or connections of a worker; a flood of new connections from
  one address, straight to gunicorn and through nginx;
- thinking (bench/fairness.py): the same light peer and probe while one address keeps 8 searches at the
  service's most at once (issue 50: `play` p99 ≤ 250 ms, `/healthz` worst ≤ 250 ms).

Every row is a bound or a ratio, with the target of issue 30 (or 39, or 50) next to it (met / missed); nothing is asserted.
The live-server helpers are the tests' own (tests/helpers/live.py), the playouts the other sections' (samples.py)."""

from __future__ import annotations

import socket
import statistics
import threading
import time
from typing import Any, Callable, Collection

import orjson

import referee
from referee.http.offload import INLINE_BYTES

from helpers.hypnosia_boards import largest_board
from helpers.live import (
    connect, cpu_seconds, distinct_lines, exchange, healthz_latencies, read_answer, request_bytes, rss_bytes, send, serve,
    workers,
)

from fairness import bench_fairness, bench_thinking
from report import progress, table, verdict
from samples import GAMES, playout

__all__ = ["PARTS", "bench_hostile"]

MIB = 1024 * 1024
# The targets of issue 30.
BOARDS_GROWTH = 256 * MIB  # 128 distinct largest boards
STREAM_GROWTH = 128 * MIB  # one NDJSON batch, whatever its length
UNREAD_BYTES = 1 * MIB  # memory an answer nobody reads holds
WORST_LATENCY, P99_LATENCY = 0.250, 0.100  # /healthz and play while a batch streams
SCRAPE_CPU = 0.015  # a /metrics scrape
#: The bound this project sets itself on one request's CPU run on the event loop (bodies up to
#: referee.http.offload.INLINE_BYTES), and on the CPU of one request per KB sent beyond that.
INLINE_CPU = 0.025
CPU_PER_KB = 0.002


def row_bound(value: float, bound: float, text: str) -> str:
    return f"≤ {text}: met" if value <= bound else f"**≤ {text}: missed**"


def worker_of(server: Any) -> int:
    [pid] = workers(server)
    return pid


# ------------------------------------------------------------------------------------------ samples


class Costliest:
    """A game's costliest inputs found in `games` seeded random games: the state with the most legal
    moves (and one of them), and the longest game's moves."""

    def __init__(self, name: str, games: int) -> None:
        game = referee.game(name)
        self.name, self.widest, self.longest, width = name, None, [], -1
        for seed in range(1, games + 1):
            states, moves = playout(game, seed)
            if len(moves) > len(self.longest):
                self.longest = moves
            for state in states:
                legal = game.legal_moves(state)
                if len(legal) > width:
                    self.widest, self.move, width = state, legal[0], len(legal)
        self.width = width


# ------------------------------------------------------------------------------------------ memory


def boards_growth(keys: str | None) -> tuple[float, int]:
    """A worker's growth after 128 `new` requests of distinct largest boards; and its RSS after."""
    env = {"REFEREE_WORKERS": "1"} | ({"REFEREE_SEAL_KEYS": keys} if keys else {})
    with serve(**env) as live:
        worker = worker_of(live)
        send(live, "/v1/games/hypnosia/new", orjson.dumps({"options": {"board": largest_board(359)}}), timeout=600)
        before = rss_bytes(worker)
        for k in range(128):
            assert send(live, "/v1/games/hypnosia/new", orjson.dumps({"options": {"board": largest_board(k)}}), timeout=600).status == 200
        return rss_bytes(worker) - before, rss_bytes(worker)


def stream_growth(name: str) -> tuple[float, float, int]:
    """3 MB of `{}` lines to a game's batch: the answer ÷ the body, the worker's growth, its RSS after."""
    body = b"{}\n" * 1_000_000
    with serve(REFEREE_WORKERS="1") as live:
        worker = worker_of(live)
        before = rss_bytes(worker)
        answer = send(live, f"/v1/games/{name}/batch", body, "application/x-ndjson", timeout=600)
        assert answer.status == 200
        return len(answer.body) / len(body), rss_bytes(worker) - before, rss_bytes(worker)


def unread_growth(name: str, clients: int) -> tuple[int, int, float, int]:
    """`clients` clients send 30,000 lines each to a game's batch and read nothing for 2 s: how many were
    admitted and refused (503), the worker's growth, and its RSS then."""
    body = request_bytes("POST", f"/v1/games/{name}/batch", b"{}\n" * 30_000, "application/x-ndjson")
    with serve(REFEREE_WORKERS="1") as live:
        worker = worker_of(live)
        before = rss_bytes(worker)
        sockets = [socket.create_connection((live.host, live.port), timeout=60) for _ in range(clients)]
        try:
            for sock in sockets:
                sock.sendall(body)
            time.sleep(2)
            grown, peak = rss_bytes(worker) - before, rss_bytes(worker)
            statuses = [read_answer(sock).status for sock in sockets]
        finally:
            for sock in sockets:
                sock.close()
    return statuses.count(200), statuses.count(503), grown, peak


def bench_memory() -> tuple[str, int]:
    rows, peaks = [], []
    for keys, label in ((None, "plain"), ("k1:" + "A" * 43, "sealed")):
        grown, peak = boards_growth(keys)
        peaks.append(peak)
        rows.append([f"128 distinct largest boards, `new` ({label})", "hypnosia", f"+{grown / MIB:.0f} MiB", "—",
                     row_bound(grown, BOARDS_GROWTH, "256 MiB")])
    for name in GAMES:
        ratio, grown, peak = stream_growth(name)
        peaks.append(peak)
        rows.append(["one NDJSON batch, 3 MB of `{}` lines", name, f"+{grown / MIB:.0f} MiB",
                     f"answer {ratio:.1f}× the body", row_bound(grown, STREAM_GROWTH, "128 MiB")])
    for name in GAMES:
        _, _, alone, _ = unread_growth(name, 1)
        admitted, busy, grown, peak = unread_growth(name, 40)
        peaks.append(peak)
        each = (grown - alone) / max(admitted - 1, 1)  # what each answer beyond the first holds
        rows.append(["40 clients × 30,000 lines, answers unread", name,
                     f"+{grown / MIB:.0f} MiB, {each / MIB:.2f} MiB an answer", f"{admitted} admitted, {busy} told 503",
                     row_bound(each, UNREAD_BYTES, "1 MiB an answer")])
    text = table(["what", "game", "worker grew", "also", "target"], rows)
    return text, max(peaks)


# ------------------------------------------------------------------------------------------ event loop


def costly_batch(name: str) -> bytes:
    """About 60 MB of a game's costliest batch items: Hypnosia's on 360 distinct largest boards (more
    than the board cache keeps), the others' from many seeded random games."""
    game = referee.game(name)
    if name == "hypnosia":
        lines = [orjson.dumps({"state": referee.game(name, options={"board": largest_board(k)}).new(seed=k),
                               "move": "roll"}) for k in range(360)]
    else:
        lines = []
        for seed in range(1, 41):
            states, moves = playout(game, seed)
            lines += [orjson.dumps({"state": state, "move": move}) for state, move in zip(states, moves)]
    body, size = [], 0
    while size < 60 * MIB:
        for line in lines:
            body.append(line + b"\n")
            size += len(line) + 1
    return b"".join(body)


def probe(server: Any, stop: threading.Event, latencies: list[float], play: bytes) -> None:
    while not stop.is_set():
        for raw in (b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n",
                    request_bytes("POST", "/v1/games/iago/play", play)):
            started = time.perf_counter()
            answer = exchange(server, raw, timeout=60)
            latencies.append(time.perf_counter() - started)
            assert answer.status == 200
        stop.wait(0.01)


def loop_row(name: str, play: bytes) -> list[str]:
    body = costly_batch(name)
    with serve(REFEREE_WORKERS="1") as live:
        stop, latencies = threading.Event(), []
        prober = threading.Thread(target=probe, args=(live, stop, latencies, play))
        prober.start()
        try:
            started = time.perf_counter()
            answer = send(live, f"/v1/games/{name}/batch", body, "application/x-ndjson", timeout=600)
            took = time.perf_counter() - started
        finally:
            stop.set()
            prober.join()
        killed = live.log_text().count("WORKER TIMEOUT")
    assert answer.status == 200
    p50, p99 = statistics.median(latencies), statistics.quantiles(latencies, n=100, method="inclusive")[98]
    worst = max(latencies)
    met = worst <= WORST_LATENCY and p99 <= P99_LATENCY and killed == 0
    target = "≤ 250 ms worst, 100 ms p99, none killed"
    return [name, f"{len(body) / MIB:.0f} MB, {took:.1f} s", str(len(latencies)), f"{p50 * 1000:.1f} ms",
            f"{p99 * 1000:.1f} ms", f"{worst * 1000:.1f} ms", str(killed), verdict(target, met)]


def bench_loop() -> str:
    iago = referee.game("iago")
    play = orjson.dumps({"state": iago.new(), "move": "e4"})
    rows = [loop_row(name, play) for name in GAMES]
    return table(["game streamed", "batch", "probes", "p50", "p99", "worst", "workers killed", "target"], rows)


# ------------------------------------------------------------------------------------------ costly requests


def cpu_per_request(server: Any, raw: bytes, repeat: int) -> float:
    """The worker's CPU seconds per request, the request sent `repeat` times (each answer read)."""
    worker = worker_of(server)
    before = cpu_seconds(worker)
    for _ in range(repeat):
        answer = exchange(server, raw, timeout=600)
        assert answer.status < 500, answer.body[:300]
    return (cpu_seconds(worker) - before) / repeat


def costly_requests(costliest: Costliest) -> dict[str, tuple[str, bytes]]:
    """The costliest request found of each POST route of a game: (what it is, body)."""
    name, state, move = costliest.name, costliest.widest, costliest.move
    player = referee.game(name).outcome(state)["to_move"] or referee.game(name).info()["players"][0]
    widest = f"the state with the most legal moves found ({costliest.width})"
    if name == "hypnosia":
        board_state = referee.game(name, options={"board": largest_board(0)}).new(seed=1)
        new = ("the largest board (distinct each time)", None)
        render = ("the largest board, legal moves marked", orjson.dumps({"state": board_state, "legal": True}))
    else:
        new = ("the default setup", b"{}")
        render = (widest + ", legal moves marked", orjson.dumps({"state": state, "legal": True}))
    items = [{"state": state, "move": move}] * 10_000
    batch = orjson.dumps(items)
    while len(batch) > 8 * MIB:
        items = items[: len(items) * 3 // 4]
        batch = orjson.dumps(items)
    return {
        "new": new,
        "legal-moves": (widest, orjson.dumps({"state": state})),
        "play": (widest, orjson.dumps({"state": state, "move": move})),
        "validate": (widest, orjson.dumps({"state": state, "move": move})),
        "replay": (f"the longest game found ({len(costliest.longest)} moves)",
                   orjson.dumps({"moves": costliest.longest, "seed": 1})),
        "view": (widest, orjson.dumps({"state": state, "player": player})),
        "render": render,
        "batch": (f"{len(items)} items of {widest.split(' (')[0]}", batch),
    }


def cost_rows(server: Any, costliest: Costliest) -> tuple[list[list[str]], float]:
    rows, inline_worst = [], 0.0
    for route, (what, body) in costly_requests(costliest).items():
        path = f"/v1/games/{costliest.name}/{route}"
        if body is None:  # a distinct largest board each time, so that none is compiled already
            worker, before, repeat = worker_of(server), cpu_seconds(worker_of(server)), 20
            for k in range(repeat):
                body = orjson.dumps({"options": {"board": largest_board(k + 100)}})
                assert send(server, path, body, timeout=600).status == 200
            cpu = (cpu_seconds(worker) - before) / repeat
        else:
            repeat = max(3, min(200, int(2e6 / max(len(body), 1))))
            cpu = cpu_per_request(server, request_bytes("POST", path, body), repeat)
        kb = len(body) / 1024
        inline = runs_inline(route, body)
        if inline:
            inline_worst = max(inline_worst, cpu)
        bound = cost_bound(route, inline, cpu, kb)
        rows.append([f"`{route}`", costliest.name, what, f"{kb:,.1f}", "inline" if inline else "pool",
                     f"{cpu * 1000:.2f}", f"{cpu * 1000 / kb:.3f}", bound])
    return rows, inline_worst


def get_rows(server: Any) -> list[list[str]]:
    rows = []
    for path in ["/v1/games", *(f"/v1/games/{name}" for name in GAMES), *(f"/play/{name}" for name in GAMES),
                 "/docs", "/openapi.yaml"]:
        cpu = cpu_per_request(server, f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode(), 100)
        rows.append([f"`GET {path}`", "—", "a page or description (built once)", "0", "inline",
                     f"{cpu * 1000:.2f}", "—", row_bound(cpu, INLINE_CPU, "25 ms")])
    # Fill the metrics' series with every route, method and status a client can reach, then scrape.
    methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "XYZ"]
    paths = [f"/v1/games/{name}/{route}" for name in (*GAMES, "nope")
             for route in ("", "/new", "/play", "/validate", "/batch", "/render", "/replay", "/legal-moves", "/view")]
    paths += ["/healthz", "/readyz", "/metrics", "/docs", "/nowhere", "/play/iago", "/openapi.yaml"]
    bodies = [b"", b"{", b"{}", b'{"state": 1}']
    for path in paths:
        for method in methods:
            for body in bodies:
                exchange(server, request_bytes(method, path, body), timeout=60)
    series = exchange(server, b"GET /metrics HTTP/1.1\r\nHost: bench\r\n\r\n").body.count(b"\nreferee_")
    cpu = cpu_per_request(server, b"GET /metrics HTTP/1.1\r\nHost: bench\r\n\r\n", 50)
    rows.append([f"`GET /metrics` after {len(paths) * len(methods) * len(bodies):,} varied requests", "—",
                 f"{series} series", "0", "inline", f"{cpu * 1000:.2f}", "—", row_bound(cpu, SCRAPE_CPU, "15 ms")])
    return rows


def cost_bound(route: str, inline: bool, cpu: float, kb: float) -> str:
    """A request's bound: 25 ms on the loop; on the pool, 2 ms a KB sent, but for a picture, whose cost
    its body's size does not bound (it is off the loop, which the pictures' loop row measures)."""
    if inline:
        return row_bound(cpu, INLINE_CPU, "25 ms inline")
    if route == "render":
        return "pool, whatever its size: off the loop"
    return row_bound(cpu / kb, CPU_PER_KB, "2 ms a KB")


def runs_inline(route: str, body: bytes) -> bool:
    """Whether a request's work runs on the event loop: a body up to INLINE_BYTES, but for `render`, which
    always runs on the pool (its pictures are drawn in Python: see referee.http.offload)."""
    return len(body) <= INLINE_BYTES and route != "render"


def bench_costs(games: int) -> str:
    found = {}
    for name in GAMES:
        progress(f"hostile: searching {games} random {name} games for the costliest inputs")
        found[name] = Costliest(name, games)
    rows, inline_worst = [], 0.0
    with serve(REFEREE_WORKERS="1", REFEREE_MAX_REPLAY_MOVES="10000") as live:
        for name in GAMES:
            game_rows, worst = cost_rows(live, found[name])
            rows += game_rows
            inline_worst = max(inline_worst, worst)
        game_rows, worst = small_board_rows(live)
        rows += game_rows
        inline_worst = max(inline_worst, worst)
        rows += get_rows(live)
    headers = ["request", "game", "which", "KB sent", "runs", "CPU ms", "CPU ms a KB", "bound"]
    return table(headers, rows) + (
        f"\n\nThe most CPU one request held the event loop for (bodies up to {INLINE_BYTES // 1024} KiB run inline, "
        "but pictures, drawn on the pool whatever their size): "
        f"{inline_worst * 1000:.1f} ms ({row_bound(inline_worst, INLINE_CPU, '25 ms')}).")


# ------------------------------------------------------------------------------------------ one client's share


def hold_connections(server: Any, peer: str, big: int, streams: int, headers: int, tricklers: int) -> list[Any]:
    """`peer`'s connections that hold what they can: bodies of REFEREE_MAX_BODY_BYTES sent but for their
    last KB, streamed batches and `new`s that sent only their headers, bodies trickled later."""
    limit = 8 * MIB

    def opened(head: bytes, body: bytes = b"") -> Any:
        sock = connect(server, peer, timeout=120)
        sock.sendall(head + body)
        return sock

    json_head = "POST /v1/games/iago/{} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n"
    ndjson_head = ("POST /v1/games/iago/batch/ndjson HTTP/1.1\r\nHost: bench\r\nContent-Type: application/x-ndjson\r\n"
                   f"Content-Length: {10 * limit}\r\n\r\n").encode()
    return ([opened(json_head.format("replay", limit).encode(), b" " * (limit - 1024)) for _ in range(big)]
            + [opened(ndjson_head) for _ in range(streams)]
            + [opened(json_head.format("new", limit).encode()) for _ in range(headers)]
            + [opened(json_head.format("new", 100).encode()) for _ in range(tricklers)])


def timed_exchange(server: Any, peer: str, raw: bytes) -> tuple[float, int]:
    started = time.perf_counter()
    status = exchange(server, raw, timeout=60, peer=peer).status
    return time.perf_counter() - started, status


def bench_peers() -> str:
    """One peer (127.0.0.2) holds 90 connections of one worker (8 bodies of 8 MiB sent but for their last
    KB, 40 streamed batches and 30 `new`s that sent only headers, 12 bodies trickled a byte every 2 s);
    meanwhile another peer (127.0.0.3) sends /healthz and `play`, one after the other, 40 each: their
    statuses and latency; then how the hostile connections ended and after how long."""
    play = orjson.dumps({"state": referee.game("iago").new(), "move": "e4"})
    raws = {"/healthz": b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n",
            "play": request_bytes("POST", "/v1/games/iago/play", play)}
    with serve(REFEREE_WORKERS="1", REFEREE_READ_TIMEOUT="5") as live:
        held = hold_connections(live, "127.0.0.2", 8, 40, 30, 12)
        stop = threading.Event()

        def trickle() -> None:
            while not stop.wait(2):
                for sock in held[-12:]:
                    try:
                        sock.sendall(b" ")
                    except OSError:
                        pass

        thread = threading.Thread(target=trickle)
        thread.start()
        started = time.perf_counter()
        try:
            time.sleep(0.5)
            probes: dict[str, list[tuple[float, int]]] = {name: [] for name in raws}
            for _ in range(40):
                for name, raw in raws.items():
                    probes[name].append(timed_exchange(live, "127.0.0.3", raw))
            ends: dict[int, int] = {}
            for sock in held:
                try:
                    status = read_answer(sock).status
                except OSError:
                    status = 0
                ends[status] = ends.get(status, 0) + 1
            ended = time.perf_counter() - started
        finally:
            stop.set()
            thread.join()
            for sock in held:
                sock.close()
    rows = []
    for name, results in probes.items():
        latencies = [latency for latency, _ in results]
        statuses = sorted({status for _, status in results})
        p99 = statistics.quantiles(latencies, n=100, method="inclusive")[98]
        rows.append([f"{name} from another peer", ", ".join(map(str, statuses)),
                     f"{statistics.median(latencies) * 1000:.1f} ms", f"{p99 * 1000:.1f} ms",
                     f"{max(latencies) * 1000:.1f} ms", verdict("all 200", statuses == [200])])
    hostile = ", ".join(f"{count} × {status}" for status, count in sorted(ends.items()))
    rows.append(["the hostile peer's 90", hostile, "", "", f"all ended within {ended:.1f} s",
                 verdict("408 or 429, ended", set(ends) <= {408, 429})])
    return table(["requests", "statuses", "p50", "p99", "worst", "target"], rows)


def read_steadily(server: Any, raw: bytes, rate: float, limit: float) -> tuple[int, bool, float]:
    """A client reading an answer at `rate` bytes a second for at most `limit` seconds: bytes read,
    whether the answer came whole (its last chunk), and the seconds it took."""
    size, tail, started = 0, b"", time.monotonic()
    with socket.create_connection((server.host, server.port), timeout=30) as sock:
        sock.sendall(raw)
        while time.monotonic() - started < limit:
            try:
                part = sock.recv(65536)
            except OSError:
                break
            if not part:
                break
            size, tail = size + len(part), (tail + part)[-16:]
            time.sleep(max(0.0, size / rate - (time.monotonic() - started)))
    return size, tail.endswith(b"\r\n0\r\n\r\n"), time.monotonic() - started


def bench_read_rate() -> str:
    """An 8 MB streamed answer (15,000 NDJSON results with their states) read steadily at a few rates,
    with `REFEREE_READ_TIMEOUT=1` and `REFEREE_MIN_READ_RATE=100000`: whole above the rate, let go below."""
    raw = request_bytes("POST", "/v1/games/iago/batch/ndjson?with_state=true", distinct_lines(15_000),
                        "application/x-ndjson")
    rows = []
    with serve(REFEREE_WORKERS="1", REFEREE_READ_TIMEOUT="1", REFEREE_MIN_READ_RATE="100000") as live:
        for rate in (1_000_000, 400_000, 50_000):
            size, whole, took = read_steadily(live, raw, rate, 40)
            above = rate > 100_000
            rows.append([f"{rate // 1000} KB/s", f"{size / 1e6:.2f} MB in {took:.1f} s", "whole" if whole else "cut",
                         verdict("whole" if above else "let go", whole == above)])
        let_go = live.log_text().count("stopped reading")
    rows.append(["readers let go (log lines)", str(let_go), "", verdict("1", let_go == 1)])
    return table(["reader", "received", "answer", "target"], rows)


# ------------------------------------------------------------------------------------------ the section


def timed(label: str, part: Callable[[], Any]) -> Any:
    progress(f"hostile: {label}")
    return part()


#: The parts of the section, in the order they run (`run.py --hostile-parts`).
PARTS = ("memory", "loop", "pictures", "costs", "proxy", "peers", "read-rate", "big-bodies", "fairness", "thinking")


def bench_hostile(search_games: int = 30, parts: Collection[str] = PARTS) -> str:
    runs: dict[str, tuple[str, Callable[[], Any]]] = {
        "memory": ("memory", bench_memory),
        "loop": ("event loop", bench_loop),
        "pictures": ("event loop while small costly pictures are drawn", bench_pictures_loop),
        "costs": ("costly requests", lambda: bench_costs(search_games)),
        "proxy": ("behind nginx", bench_proxy),
        "peers": ("one peer's share", bench_peers),
        "read-rate": ("readers' rate", bench_read_rate),
        "big-bodies": ("big bodies", bench_big_bodies),
        "fairness": ("fair when full, and a flood of new connections", bench_fairness),
        "thinking": ("one client's searches at the most", bench_thinking),
    }
    done = {name: timed(label, part) for name, (label, part) in runs.items() if name in parts}
    texts = ["## hostile: what one client can take (one worker, `REFEREE_WORKERS=1`)"]
    if "memory" in done:
        memory, peak = done["memory"]
        texts += [
            "### Memory (a worker's resident memory; one fresh server a row)",
            memory,
            f"The highest a worker's resident memory reached in these rows: {peak / MIB:.0f} MiB."]
    if "loop" in done:
        texts += [
            "### The event loop while one client streams a costly batch",
            "`/healthz` and an Iago `play` on connections of their own, one after the other, for as long as the "
            "batch takes (about 60 MB of each game's costliest items; Hypnosia's on 360 distinct largest boards).",
            done["loop"]]
    if "pictures" in done:
        texts += [
            "### The event loop while 4 clients draw pictures of the largest board",
            "Four clients each draw a 790-byte Hypnosia state on the largest board (8 circles of 360 spaces, "
            "one bridge a circle) over and over, while `/healthz` is asked on a connection of its own.",
            done["pictures"]]
    if "costs" in done:
        texts += [
            "### The costliest request of each route",
            "The worker's CPU time a request (its own process's user + system time over repeated requests, each "
            "answer read), for the costliest input found of each route: the state with the most legal moves in "
            "seeded random games, the longest game, the largest board.",
            done["costs"]]
    if "peers" in done:
        texts += [
            "### One client holding many connections (issue 39, item 1)",
            bench_peers.__doc__.split("\n\n")[0].replace("\n    ", " ") if bench_peers.__doc__ else "",
            done["peers"]]
    if "read-rate" in done:
        texts += [
            "### Readers of a long answer (issue 39, item 6)",
            bench_read_rate.__doc__.replace("\n    ", " ") if bench_read_rate.__doc__ else "",
            done["read-rate"]]
    if "proxy" in done:
        texts += [
            "### One peer's flood, straight to gunicorn and behind nginx (deploy/referee.nginx.conf)",
            "One peer floods `play` on 8 keep-alive connections for 3 s while another peer plays on a new connection "
            "every 20 ms (the clients are Python threads sharing one process: their latencies include their own "
            "waits).",
            done["proxy"]]
    if "big-bodies" in done:
        texts += [
            "### Big bodies: what reading them holds, and what they become",
            "Each route's worst 8 MB bodies found, each sent by 8 clients at once to a fresh worker (their last "
            "bytes held until the rest is read, then sent together): `/healthz` on another connection while the "
            "worker judges them, and over the whole exchange (receiving them too); the worker's peak memory.",
            done["big-bodies"]]
    if "fairness" in done:
        full, flood = done["fairness"]
        texts += [
            "### Fair when full: a light peer while heavy peers hold a worker (the fair-when-full issue, item 9)",
            FAIRNESS_INTRO,
            full,
            "### A flood of new connections from one address, straight to gunicorn and through nginx",
            FLOOD_INTRO,
            flood]
    if "thinking" in done:
        texts += [
            "### Thinking: one client's searches at the most beside a light peer (issue 50, item 2)",
            "One worker; from one address, 8 `suggest` at once at the service's most (20,000 simulations, 5 s), "
            "each asked again a second after its answer; the light peer's `play` every 10 ms and batch every "
            "250 ms, and `/healthz` from another address every 10 ms, for 4 s, from their own process.",
            done["thinking"]]
    return "\n\n".join(texts)


FAIRNESS_INTRO = (
    "One fresh server a row (one worker; five in the last two rows), the shipped settings but a spool of 24 MiB "
    "(`REFEREE_WORKER_SPOOL_BYTES`) in the spool rows. Heavy peers, each address of 127/8 a client: bodies of "
    "8 MiB sent but for their last KB; streamed batches held mid-body after 1 MiB of the game's lines; 5 streamed "
    "batches from one address, with their states, their answers read at 5,000 B/s; connections that send only a "
    "`play`'s headers. Each connection that ends is opened again a second later (the service's `Retry-After`), "
    "but in the rows \"none reopened\". Once the workers are done with what was opened and sent, for 4 s a light "
    "peer sends the game's `play` every 10 ms and a 10-line streamed batch every 250 ms, and a probe from another "
    "address `/healthz` every 10 ms (new connections, from a process of their own). The heavy peers' ends: "
    "while held (`503 paid`: its peer held the most of a full budget; `closed`: dropped to keep connections "
    "spare), then when the bench lets go (`held`: the worker still held it whole; 429: refused past its share, "
    "its rest being drained; a slow reader's answer `whole` or `cut`); cores: what the workers and the heavy "
    "peers' process used in the window.")
FLOOD_INTRO = (
    "One address (2 processes × 16 threads) opens a new connection for each `play` (`Connection: close`) for "
    "3 s, while another address asks `/healthz` on a new connection every 20 ms through the same front; one "
    "worker; nginx as deploy/referee.nginx.conf ships it.")


# ------------------------------------------------------------------------------------------ behind nginx

#: How long one peer floods, on how many keep-alive connections of its own.
FLOOD_SECONDS, FLOOD_CONNECTIONS = 3.0, 8


def flood(server: Any, raw: bytes, stop: threading.Event, statuses: list[int]) -> None:
    """One connection of the flooding peer (127.0.0.2): `raw` again and again, each answer read (a new
    connection when one is closed)."""
    sock = None
    while not stop.is_set():
        try:
            if sock is None:
                sock = connect(server, "127.0.0.2", timeout=30)
                reader = sock.makefile("rb")
            sock.sendall(raw)
            answer = read_answer(sock, reader)
        except OSError:
            sock = sock.close() if sock else None
            continue
        statuses.append(answer.status)
        if answer.headers.get("connection") == "close":
            sock = sock.close()
    if sock is not None:
        sock.close()


def other_peer(server: Any, raw: bytes, stop: threading.Event, latencies: list[float], statuses: list[int]) -> None:
    """Another peer (127.0.0.3): a `play` on a new connection every 20 ms, timed."""
    while not stop.is_set():
        started = time.perf_counter()
        statuses.append(exchange(server, raw, peer="127.0.0.3").status)
        latencies.append(time.perf_counter() - started)
        stop.wait(0.02)


def flood_row(label: str, server: Any, raw: bytes) -> list[str]:
    stop, statuses, other, latencies = threading.Event(), [], [], []
    threads = [threading.Thread(target=flood, args=(server, raw, stop, statuses)) for _ in range(FLOOD_CONNECTIONS)]
    threads.append(threading.Thread(target=other_peer, args=(server, raw, stop, latencies, other)))
    for thread in threads:
        thread.start()
    time.sleep(FLOOD_SECONDS)
    stop.set()
    for thread in threads:
        thread.join()
    served, refused = statuses.count(200), statuses.count(429)
    p50, p99 = statistics.median(latencies), statistics.quantiles(latencies, n=100, method="inclusive")[98]
    # The shipped limits: the first request, a burst of 200 more, then 100 a second.
    bound = (1 + 200 + 100 * FLOOD_SECONDS) / FLOOD_SECONDS
    met = None if label.startswith("gunicorn") else served / FLOOD_SECONDS <= bound and other.count(200) == len(other)
    return [label, f"{len(statuses) / FLOOD_SECONDS:,.0f}/s", f"{served / FLOOD_SECONDS:,.0f}/s",
            f"{refused / FLOOD_SECONDS:,.0f}/s", f"{other.count(200)} of {len(other)}", f"{p50 * 1000:.1f} ms",
            f"{p99 * 1000:.1f} ms", f"{max(latencies) * 1000:.1f} ms",
            verdict(f"flooder served ≤ {bound:.0f}/s, the other peer always", met)]


def bench_proxy() -> str:
    """One peer floods `play` on 8 connections for 3 s, straight to gunicorn and through nginx with
    deploy/referee.nginx.conf as shipped, while another peer plays every 20 ms."""
    from helpers.proxy import NGINX, nginx

    if not NGINX:
        return "nginx is not installed here (`make nginx` installs Debian's): no rows."
    play = orjson.dumps({"state": referee.game("iago").new(), "move": "e4"})
    raw = request_bytes("POST", "/v1/games/iago/play", play)
    with serve(REFEREE_WORKERS="1", REFEREE_TRUSTED_PROXIES="127.0.0.1") as live:
        rows = [flood_row("gunicorn alone", live, raw)]
        with nginx(live.port) as proxied:
            rows.append(flood_row("behind nginx", proxied, raw))
    return table(["one peer floods", "sent", "served", "429", "other peer served", "its p50", "its p99",
                  "its worst", "target"], rows)


# ------------------------------------------------------------------ small bodies of costly work


def small_largest_board(k: int = 0, bridges: int = 1) -> dict:
    """The largest board (8 circles of 360 spaces) in few bytes: `bridges` a circle. A state on it with one
    bridge a circle is under 1 KB, under INLINE_BYTES: what its body's size says of its cost is wrong."""
    links = [{"from": [c, i], "to": "centre" if c == 7 else [c + 1, i]} for c in range(8) for i in range(bridges)]
    return {"circles": [360] * 8, "entries": [(k + 60 * s) % 360 for s in range(6)], "bridges": links,
            "centre_points": [5, 4, 3, 2, 1], "home_length": 4}


def small_board_bodies(bridges: int, players: int) -> dict[str, bytes]:
    """A request of each POST route on a small description of the largest board."""
    board = small_largest_board(0, bridges)
    game = referee.game("hypnosia", options={"board": board, "players": players})
    state = game.new(seed=1)
    setup = {"options": {"board": board, "players": players}, "seed": 1}
    return {
        "new": orjson.dumps(setup),
        "legal-moves": orjson.dumps({"state": state}),
        "play": orjson.dumps({"state": state, "move": "roll"}),
        "validate": orjson.dumps({"state": state, "move": "roll"}),
        "replay": orjson.dumps(setup | {"moves": ["roll"]}),
        "view": orjson.dumps({"state": state, "player": game.outcome(state)["to_move"]}),
        "render": orjson.dumps({"state": state, "legal": True}),
        "batch": orjson.dumps([{"state": state, "move": "roll"}] * 10),
    }


def small_board_rows(server: Any) -> tuple[list[list[str]], float]:
    """The CPU of each route on the largest board described in few bytes (2 and 6 players; one and 40
    bridges a circle): inline ones within 25 ms."""
    rows, inline_worst = [], 0.0
    for bridges, players in ((1, 2), (1, 6), (40, 2)):
        for route, body in small_board_bodies(bridges, players).items():
            repeat = 10 if route == "render" else 50
            cpu = cpu_per_request(server, request_bytes("POST", f"/v1/games/hypnosia/{route}", body), repeat)
            inline = runs_inline(route, body)
            if inline:
                inline_worst = max(inline_worst, cpu)
            kb = len(body) / 1024
            bound = cost_bound(route, inline, cpu, kb)
            rows.append([f"`{route}`", "hypnosia", f"the largest board in {len(body):,} bytes ({players} players, "
                         f"{bridges} bridge{'s' if bridges > 1 else ''} a circle)", f"{kb:,.1f}",
                         "inline" if inline else "pool", f"{cpu * 1000:.2f}", f"{cpu * 1000 / kb:.3f}", bound])
    return rows, inline_worst


def picture_client(server: Any, raw: bytes, stop: threading.Event, drawn: list[float]) -> None:
    with socket.create_connection((server.host, server.port), timeout=60) as sock:
        reader = sock.makefile("rb")
        while not stop.is_set():
            started = time.perf_counter()
            sock.sendall(raw)
            assert read_answer(sock, reader).status == 200
            drawn.append(time.perf_counter() - started)


def bench_pictures_loop(clients: int = 4, seconds: float = 10) -> str:
    """`/healthz` on a connection of its own while `clients` draw a 790-byte state on the largest board:
    its latency (target: p99 ≤ 100 ms, worst ≤ 250 ms), and the pictures drawn."""
    state = referee.game("hypnosia", options={"board": small_largest_board()}).new(seed=1)
    body = orjson.dumps({"state": state, "legal": True})
    raw = request_bytes("POST", "/v1/games/hypnosia/render", body)
    with serve(REFEREE_WORKERS="1") as live:
        stop, drawn, latencies = threading.Event(), [], []
        threads = [threading.Thread(target=picture_client, args=(live, raw, stop, drawn)) for _ in range(clients)]
        for thread in threads:
            thread.start()
        try:
            time.sleep(0.5)
            deadline = time.monotonic() + seconds
            healthz_latencies(live, lambda: time.monotonic() > deadline, latencies, timeout=60)
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=60)
    p50, p99 = statistics.median(latencies), statistics.quantiles(latencies, n=100, method="inclusive")[98]
    worst = max(latencies)
    target = "≤ 100 ms p99, 250 ms worst"
    pictures = f"{len(drawn) / seconds:.1f}/s, median {statistics.median(drawn) * 1000:.0f} ms"
    row = [f"{clients} × `render`, {len(body)} bytes", pictures,
           str(len(latencies)), f"{p50 * 1000:.1f} ms", f"{p99 * 1000:.1f} ms", f"{worst * 1000:.1f} ms",
           verdict(target, p99 <= P99_LATENCY and worst <= WORST_LATENCY)]
    return table(["clients drawing", "pictures", "probes", "p50", "p99", "worst", "target"], [row])


# ------------------------------------------------------------------------------------------ big bodies

#: Issue 39's targets while 8 clients send 8 MB bodies: `/healthz` on another connection, and the
#: worker's memory with the worst bodies (docs/operations.md, "Memory is budgeted in bytes").
BIG_CLIENTS = 8
BIG_BODY_BYTES = 8 * MIB - 4096  # just under REFEREE_MAX_BODY_BYTES's default
BIG_P99, BIG_WORST = 0.100, 0.250
MEMORY_CEILING = 250 * MIB


def filled(head: bytes, units: Any, tail: bytes) -> bytes:
    """`head`, then units from the iterator `units` joined by commas up to BIG_BODY_BYTES, then `tail`."""
    parts, size = [head], len(head) + len(tail)
    for unit in units:
        if size + len(unit) + 1 > BIG_BODY_BYTES:
            break
        parts.append(unit if len(parts) == 1 else b"," + unit)
        size += len(unit) + 1
    return b"".join(parts) + tail


def repeated(unit: bytes) -> Any:
    while True:
        yield unit


def distinct_keys() -> Any:
    key = 0
    while True:
        yield b'"%x":0' % key
        key += 1


def big_bodies() -> dict[str, list[tuple[str, bytes]]]:
    """The worst 8 MB bodies found for each route (Iago's): where each reads most, values that become the
    most objects a byte (`{}`, `0`), objects of the most keys (what the check for keys given twice keeps),
    strings that become the widest (ASCII with one character outside the BMP, 4 bytes a character); and
    for `new`, the most commitments a body read as objects may have, each checked by the schema."""
    wide = b'"' + b"a" * (BIG_BODY_BYTES - 64) + "😀".encode() + b'"'
    state = {
        "{} repeated": filled(b'{"player":"black","move":"e4","state":[', repeated(b"{}"), b"]}"),
        "0 repeated": filled(b'{"player":"black","move":"e4","state":[', repeated(b"0"), b"]}"),
        "distinct keys": filled(b'{"player":"black","move":"e4","state":{', distinct_keys(), b"}}"),
        "a wide string": b'{"player":"black","move":"e4","state":%b}' % wide,
    }
    replay = {
        "metadata {} repeated": filled(b'{"moves":["e4"],"metadata":[', repeated(b"{}"), b"]}"),
        "metadata of distinct keys": filled(b'{"moves":["e4"],"metadata":{', distinct_keys(), b"}}"),
        "metadata a wide string": b'{"moves":["e4"],"metadata":%b}' % wide,
        "10,000 long moves": filled(b'{"moves":[', repeated(b'"' + b"m" * 800 + b'"'), b"]}"),
    }
    new = {
        "options {} repeated": filled(b'{"options":[', repeated(b"{}"), b"]}"),
        "options of distinct keys": filled(b'{"options":{', distinct_keys(), b"}}"),
        "a wide variant": b'{"variant":%b}' % wide,
        # the most a body may become as objects (4 MiB estimated), each one a commitment to check
        "28,000 commitments": b'{"commitments":{%b}}' % b",".join(b'"%x":0' % key for key in range(28_000)),
    }
    batch = {
        "{} items": filled(b"[", repeated(b"{}"), b"]"),
        "an item of distinct keys": filled(b'[{"move":"e4","state":{', distinct_keys(), b"}}]"),
    }
    routes = {"replay": replay, "new": new, "batch": batch}
    routes |= {route: state for route in ("legal-moves", "view", "render", "play", "validate")}
    return {route: list(bodies.items()) for route, bodies in routes.items()}


def send_at_once(server: Any, raw: bytes, clients: int) -> tuple[list[Any], float]:
    """`clients` connections send `raw` but its last byte, then (once the worker has read the rest) the
    last bytes all at once: their answers, and when the last bytes were sent. From then on the worker
    only judges: what it costs to receive the bodies is before."""
    socks = [connect(server, f"127.0.0.{10 + index}", timeout=600) for index in range(clients)]  # as many clients
    try:
        senders = [threading.Thread(target=sock.sendall, args=(raw[:-1],)) for sock in socks]
        for sender in senders:
            sender.start()
        for sender in senders:
            sender.join()
        time.sleep(0.5)  # the worker reads what it was sent
        judged = time.perf_counter()
        for sock in socks:
            sock.sendall(raw[-1:])
        return [read_answer(sock) for sock in socks], judged
    finally:
        for sock in socks:
            sock.close()


def big_body_row(route: str, bodies: list[tuple[str, bytes]]) -> list[str]:
    """One fresh worker: each body sent by BIG_CLIENTS clients at once, one body after the other, while
    `/healthz` is probed; the statuses, the probe's latencies (all of them, and those sent while the
    worker judged the bodies: after their last bytes), the worker's peak memory."""
    statuses: dict[int, int] = {}
    judging: list[tuple[float, float]] = []  # from the last bytes to the last answer of each body
    with serve(REFEREE_WORKERS="1") as live:
        worker = worker_of(live)
        rested = rss_bytes(worker)
        stop, latencies, sent = threading.Event(), [], []
        prober = threading.Thread(target=healthz_latencies, args=(live, stop.is_set, latencies, 60, sent))
        prober.start()
        try:
            for _, body in bodies:
                raw = request_bytes("POST", f"/v1/games/iago/{route}", body)
                answers, judged = send_at_once(live, raw, BIG_CLIENTS)
                judging.append((judged, time.perf_counter()))
                for answer in answers:
                    statuses[answer.status] = statuses.get(answer.status, 0) + 1
        finally:
            stop.set()
            prober.join()
        peak = rss_bytes(worker, "VmHWM")
    during = [took for asked, took in zip(sent, latencies) if any(start <= asked <= end for start, end in judging)]
    answered = ", ".join(f"{count} × {status}" for status, count in sorted(statuses.items()))
    return [route, "; ".join(name for name, _ in bodies), answered, *latency_cells(during),
            *latency_cells(latencies)[1:3],
            f"{rested / MIB:.0f} → {peak / MIB:.0f} MiB", verdict("≤ 250 MiB", peak <= MEMORY_CEILING)]


def latency_cells(latencies: list[float]) -> list[str]:
    """The probes' count, p99 and worst, and the verdict on the targets."""
    p99 = statistics.quantiles(latencies, n=100, method="inclusive")[98] if len(latencies) > 1 else max(latencies)
    worst = max(latencies)
    met = p99 <= BIG_P99 and worst <= BIG_WORST
    return [str(len(latencies)), f"{p99 * 1000:.1f} ms", f"{worst * 1000:.1f} ms",
            verdict("≤ 100 ms p99, 250 ms worst", met)]


def bench_big_bodies() -> str:
    """Issue 39 (items 2 and 4): `/healthz` while 8 clients send 8 MB bodies to each route, and the worker's
    peak memory with the worst bodies found for it."""
    rows = [big_body_row(route, bodies) for route, bodies in big_bodies().items()]
    return table(["route", "bodies (8 MB, 8 clients each)", "answers", "probes while judged", "/healthz p99",
                  "worst", "target", "p99 while received too", "worst", "worker memory (rest → peak)", "target"],
                 rows)
