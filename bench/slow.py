"""The `slow` section: clients that trickle their bodies.

64 connections (`--tricklers`) each send a `POST /v1/games/<game>/new` body (the games in turn) at one
byte a second for 35 s (`--trickle-seconds`, longer than the 30 s worker timeout), while one client a
game uploads a 1,000-item NDJSON batch spread over the same time. Meanwhile `/healthz` and every game's
`play` are sent one after the other, each on a fresh connection, and timed from connect to the last
byte (p50, p99, max); the same probe runs for 5 s before the tricklers start, for the quiet rows.
Afterwards the section reports how many trickled bodies and which slow uploads were answered 200, and
how many workers were restarted (worker pids before and after)."""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import time

from helpers.live import exchange, read_answer, request_bytes, workers

from report import number, progress, table
from samples import Sample, batch_items, ndjson
from served import Bodies, Server

__all__ = ["bench_slow"]

HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n"


def timed_request(server: Server, raw: bytes) -> tuple[float, int]:
    """Seconds to send a raw request on a fresh connection and read the whole answer, and its status."""
    start = time.perf_counter()
    status = exchange(server, raw, timeout=10).status
    return time.perf_counter() - start, status


def read_status(sock: socket.socket) -> int:
    """The status of the answer on `sock`, 0 when the server closed it without one."""
    try:
        return read_answer(sock).status
    except (ConnectionError, OSError):
        return 0


def latency_row(name: str, samples: list[tuple[float, int]]) -> list[str]:
    seconds = sorted(elapsed for elapsed, _ in samples)
    errors = sum(status != 200 for _, status in samples)
    p99 = seconds[min(len(seconds) - 1, int(len(seconds) * 0.99))]
    return [name, number(len(samples)), f"{statistics.median(seconds) * 1000:,.2f}", f"{p99 * 1000:,.2f}",
            f"{seconds[-1] * 1000:,.2f}", number(errors)]


def probe_latencies(server: Server, plays: dict[str, bytes], seconds: float) -> dict[str, list[tuple[float, int]]]:
    """`/healthz` and every game's `play` (raw requests), one after the other on fresh connections, for
    `seconds`."""
    samples: dict[str, list[tuple[float, int]]] = {"healthz": [], **{name: [] for name in plays}}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        samples["healthz"].append(timed_request(server, HEALTHZ))
        for name, raw in plays.items():
            samples[name].append(timed_request(server, raw))
        time.sleep(0.02)
    return samples


def trickle(args: argparse.Namespace, server: Server, uploads: dict[str, bytes], plays: dict[str, bytes]
            ) -> tuple[dict[str, list[tuple[float, int]]], int, dict[str, int]]:
    """--tricklers connections (the i-th posting `new` to the i-th game, in turn) send a body at one byte a
    second, and one slow NDJSON upload a game is spread over the same time, while `/healthz` and the plays
    are probed. Returns the probes, how many trickled bodies were answered 200, and each upload's status."""
    body = b"{" + b" " * (args.trickle_seconds - 2) + b"}"
    names = list(uploads)
    heads = [request_bytes("POST", f"/v1/games/{names[index % len(names)]}/new", body)[:-len(body)]
             for index in range(args.tricklers)]
    address, timeout = (server.host, server.port), args.trickle_seconds + 30
    tricklers = [socket.create_connection(address, timeout=timeout) for _ in heads]
    slow = {name: socket.create_connection(address, timeout=timeout) for name in names}
    loaded: dict[str, list[tuple[float, int]]] = {"healthz": [], **{name: [] for name in plays}}
    try:
        for sock, head in zip(tricklers, heads):
            sock.sendall(head)
        for name, sock in slow.items():
            raw = request_bytes("POST", f"/v1/games/{name}/batch", uploads[name], "application/x-ndjson")
            sock.sendall(raw[:-len(uploads[name])])
        for second in range(len(body)):
            started = time.monotonic()
            for sock in tricklers:
                sock.sendall(body[second:second + 1])
            for name, sock in slow.items():
                per_second = len(uploads[name]) // (len(body) - 1) + 1
                sock.sendall(uploads[name][second * per_second:(second + 1) * per_second])
            for key, found in probe_latencies(server, plays, max(0.0, 1 - (time.monotonic() - started))).items():
                loaded[key].extend(found)
        answered = sum(read_status(sock) == 200 for sock in tricklers)
        statuses = {name: read_status(sock) for name, sock in slow.items()}
    finally:
        for sock in [*tricklers, *slow.values()]:
            sock.close()
    return loaded, answered, statuses


def bench_slow(args: argparse.Namespace, server: Server, bodies: dict[str, Bodies],
               samples: dict[str, list[Sample]]) -> str:
    """Trickling clients for longer than the worker timeout, and an honest slow upload a game; meanwhile
    /healthz and every game's play are timed."""
    plays = {name: request_bytes("POST", f"/v1/games/{name}/play", game_bodies.play.read_bytes())
             for name, game_bodies in bodies.items()}
    probe_latencies(server, plays, 1)  # warm-up: every worker has answered every probe
    quiet = probe_latencies(server, plays, 5)
    uploads = {name: ndjson(batch_items(samples[name], 1000)) for name in bodies}
    before = set(workers(server))
    progress(f"slow: {args.tricklers} connections trickling bodies at 1 byte/s for {args.trickle_seconds} s")
    loaded, answered, statuses = trickle(args, server, uploads, plays)
    restarted = len(before - set(workers(server)))
    rows = []
    for when, probes in (("quiet", quiet), (f"{args.tricklers} tricklers", loaded)):
        rows.append(latency_row(f"`GET /healthz`, {when}", probes["healthz"]))
        rows += [latency_row(f"`POST {name}/play`, {when}", probes[name]) for name in plays]
    upload_text = ", ".join(f"{name} ({len(uploads[name]) / 1e6:.2f} MB) **{status}**" for name, status in statuses.items())
    return "\n".join([
        "## slow: clients that trickle their bodies",
        "",
        f"{args.tricklers} connections send a {args.trickle_seconds}-byte `POST /v1/games/<game>/new` body (the games in "
        f"turn) at one byte a second ({args.trickle_seconds} s; the worker timeout is "
        f"{os.environ.get('REFEREE_TIMEOUT', '30')} s), and one client a game uploads a 1,000-item NDJSON batch "
        "spread over the same time. Meanwhile `/healthz` and every game's `play` are sent one after the other, "
        "each on a fresh connection, and timed from connect to the last byte; the quiet rows are the same probe "
        f"for 5 s before. Afterwards: **{answered} of {args.tricklers} trickled bodies answered 200**, the slow "
        f"uploads answered: {upload_text}; **{restarted} workers restarted**.",
        "",
        table(["probe", "requests", "p50 ms", "p99 ms", "max ms", "errors"], rows),
    ])
