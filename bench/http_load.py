"""The `http` section: gunicorn with the project's config, the app against a trivial Flask app, driven by wrk.

(This module is not named `http`, which would hide the standard library's package.)

gunicorn runs with `-c python:referee.http.gunicorn_conf` on loopback, `REFEREE_ACCESS_LOG=0` and the
config's worker count unless `--workers`, started twice: once with the real app
(`referee.http.app:create_app()`), once with `bench/trivial_app.py` (one POST route that reads the body and
answers `{"legal":true}`); both run during the section, the idle one using no CPU. Each game has three
wrk targets: the trivial app with the game's play body (so each game's baseline reads the same
request), `POST /v1/games/<game>/play` with the play body, `POST /v1/games/<game>/validate` with the
validate body (answer 200 `{"legal": false, "reason": ...}`; the table names the rule). wrk (`-t2 -c32
-d4s --latency`, after a 2 s warm-up of each target, 5 rounds in which all 12 targets take turns, so
that a burst of load from elsewhere hits them alike) drives each with `bench/post.lua`. Then each game's
`play` and `validate` is paced at 70 % of the maximum it just reached (post.lua's pause between the
requests of a connection, calibrated from the run before) for its latency at that load.

*requests/s* is wrk's completed requests ÷ duration over the rounds; *× trivial* is the ratio to the
trivial app with the same game's body (the share of the framework-only throughput that the real app
keeps), with the 0.85× target; *p50* is the median of the rounds' p50 latency, *p99* the worst round's;
*errors* counts non-2xx answers, socket errors and timeouts (must be 0). wrk runs on the same 2 cores as
the servers, so absolute numbers are lower than with a separate client.

A section that compares servers or settings per game (such as play with and without a feature) is a
short function on the same helpers (served.py): start each server with `server(..., env={...})`, merge
`game_targets(server, bodies[game], label=...)` for every game and server, run `wrk_rounds`, and make
the rows with `http_columns`."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from report import number, progress, table, verdict
from served import Bodies, Server, check_answer, check_game, game_targets, http_columns, paced_wrk, wrk_rounds

__all__ = ["bench_wrk"]

HTTP_TARGET = 0.85  # issue 13: every game's play and validate requests/s ÷ the trivial app's


def paced_rows(args: argparse.Namespace, server: Server, bodies: dict[str, Bodies],
               results: dict[Any, dict[str, Any]]) -> list[list[str]]:
    """Every game's play and validate at 70% of the maximum each just reached."""
    rows = []
    for name, game_bodies in bodies.items():
        for endpoint, body in (("play", game_bodies.play), ("validate", game_bodies.validate)):
            target = 0.7 * results[name, endpoint]["rps"]
            progress(f"http: {name} {endpoint} paced at 70% of its maximum ({target:,.0f} requests/s)")
            paced = paced_wrk(args, server.base + f"/v1/games/{name}/{endpoint}", body, target)
            rows.append([name, f"`{endpoint}`", number(target), *http_columns(paced, results[name, "trivial"])])
    return rows


def bench_wrk(args: argparse.Namespace, real: Server, trivial: Server, bodies: dict[str, Bodies]) -> str:
    targets: dict[tuple[str, str], tuple[str, Path]] = {}
    for game_bodies in bodies.values():
        check_game(real, game_bodies)
        check_answer(trivial, "/trivial", game_bodies.play, lambda data: data == {"legal": True})
        targets |= game_targets(real, game_bodies, trivial)
    results = wrk_rounds(args, targets)
    rows = []
    for name, endpoint in targets:
        baseline = results[name, "trivial"]
        label = {"trivial": "trivial app (`POST /trivial`, the play body)", "play": "`play`",
                 "validate": f"`validate` (refused by `{bodies[name].rule}`)"}[endpoint]
        target = "baseline" if endpoint == "trivial" else verdict(
            f"≥ {HTTP_TARGET}×", results[name, endpoint]["rps"] >= HTTP_TARGET * baseline["rps"])
        columns = http_columns(results[name, endpoint], baseline)
        rows.append([name, label, *columns[:2], target, *columns[2:]])
    paced = paced_rows(args, real, bodies, results)
    sizes = ", ".join(f"{name} {game_bodies.play.stat().st_size:,} bytes (ply {game_bodies.ply} of "
                      f"{game_bodies.plies})" for name, game_bodies in bodies.items())
    workers = args.workers or f"the config's default, {2 * (os.cpu_count() or 1) + 1}"
    return "\n".join([
        "## http: gunicorn + Flask, driven by wrk",
        "",
        f"gunicorn `-c python:referee.http.gunicorn_conf` on 127.0.0.1 ({workers} workers, `REFEREE_ACCESS_LOG=0`), "
        f"once with the app, once with `bench/trivial_app.py`. `wrk -t{args.threads} -c{args.connections} "
        f"-d{args.duration}s --latency`, {args.rounds} rounds in which all {len(targets)} targets take turns, after a "
        f"{args.warmup} s warm-up each, on the same machine as the servers (wrk takes CPU from them). Bodies: "
        "`bench/bodies/<game>-play.json`, the state halfway through a seeded random game and a legal move (also "
        "sent to the trivial app, so that each game's baseline reads the same request), and "
        f"`bench/bodies/<game>-validate.json`, the same state and a refused move; play bodies: {sizes}. "
        "*× trivial*: requests/s ÷ the trivial app's with the same game's body; target: every game's `play` "
        f"and `validate` ≥ {HTTP_TARGET}×. The app answers these requests beside Flask, without its dispatch "
        "(`referee.http.moves`), which the trivial app goes through, so it can pass 1×. p50: median over "
        "the rounds, p99: worst round. Errors: non-2xx answers, socket errors and timeouts.",
        "",
        table(["game", "endpoint", "requests/s", "× trivial", "target", "p50 ms", "p99 ms", "bytes/answer",
               "errors"], rows),
        "",
        f"Each endpoint paced at about 70% of the maximum it just reached (one {args.duration} s run, after "
        "calibrating the pause between requests of a connection); *× trivial* here compares rates, not capacities.",
        "",
        table(["game", "endpoint", "requests/s asked", "requests/s", "× trivial", "p50 ms", "p99 ms",
               "bytes/answer", "errors"], paced),
    ])
