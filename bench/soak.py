"""The `soak` section: wrk on every game's `play` at full load in turn, `--soak-seconds` (600) in all: errors
per game, workers restarted (worker pids before and after), and each worker's resident memory at the
start and the end."""

from __future__ import annotations

import argparse

from report import number, progress, table
from served import Bodies, Server, worker_kib, wrk

__all__ = ["bench_soak"]


def bench_soak(args: argparse.Namespace, server: Server, bodies: dict[str, Bodies]) -> str:
    seconds = max(1, args.soak_seconds // len(bodies))
    urls = {name: server.base + f"/v1/games/{name}/play" for name in bodies}
    for name, game_bodies in bodies.items():  # warm: every worker has served every game
        wrk(args, urls[name], game_bodies.play, 2)
    before = worker_kib(server)
    results = {}
    for name, game_bodies in bodies.items():
        progress(f"soak: {name} play at full load for {seconds} s")
        results[name] = wrk(args, urls[name], game_bodies.play, seconds)
    after = worker_kib(server)
    rows = [[name, number(result["requests"]), number(result["rps"]), f"{result['p50_us'] / 1000:,.2f}",
             f"{result['p99_us'] / 1000:,.2f}", number(result["errors"])] for name, result in results.items()]
    memory = [[str(pid), f"{rss / 1024:,.1f}", f"{after[pid] / 1024:,.1f}" if pid in after else "restarted"]
              for pid, rss in before.items()]
    restarted = len(set(before) - set(after))
    return "\n".join([
        "## soak: play at full load, every game in turn",
        "",
        f"`wrk -t{args.threads} -c{args.connections} -d{seconds}s` on each game's `POST /v1/games/<game>/play` in "
        f"turn ({args.soak_seconds} s in all), after a 2 s warm-up of each: "
        f"**{sum(result['errors'] for result in results.values())} errors**, **{restarted} workers restarted**.",
        "",
        table(["game", "requests", "requests/s", "p50 ms", "p99 ms", "errors"], rows),
        "",
        "Worker resident memory (VmRSS) at the start and the end:",
        "",
        table(["worker pid", "start MiB", "end MiB"], memory),
    ])
