"""What the served sections (http, batch, slow, soak, seals) share: gunicorn on loopback through the
tests' own live-server helpers (tests/helpers/live.py), the wrk bodies, wrk runs and their rows.

- the **wrk bodies** `bench/bodies/<game>-play.json` and `<game>-validate.json` are the sample of the
  first sampled game nearest its middle: its state with its legal move, and with its refused move.
  Each run rewrites them (deterministic for a given engine and `--seed`).
- wrk drives each target with `bench/post.lua`, which POSTs a body file (its second argument: a pause
  between the requests of a connection, for the paced runs).

Every server runs on a free **127.0.0.1** port in a process group of its own but in the benchmark's
session (see tests/helpers/live.py), and is stopped (SIGTERM and 15 s to finish, then SIGKILL to its group) when
its section ends, fails, or the script gets Ctrl-C or SIGTERM."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import referee
from helpers.live import Server, rss_bytes, send, serve, workers

from report import number, progress, ratio
from samples import Sample

__all__ = ["BENCH", "Bodies", "Server", "check_answer", "check_game", "game_targets", "http_columns", "paced_wrk",
           "server", "worker_kib", "write_bodies", "wrk", "wrk_rounds"]

BENCH = Path(__file__).resolve().parent
BODIES = BENCH / "bodies"


@dataclass(frozen=True)
class Bodies:
    """One game's request bodies (bench/bodies/<game>-{play,validate}.json): a mid-game state with a legal
    move, and the same state with a move the rules refuse (`rule` says which rule)."""
    game: str
    play: Path
    validate: Path
    ply: int
    plies: int
    rule: str


def write_bodies(game: referee.Game, samples: list[Sample], form: str) -> Bodies:
    """The bodies of the first sampled game's sample nearest to its middle (deterministic for a given engine
    and seed)."""
    first = [sample for sample in samples if sample.seed == samples[0].seed]
    sample = min(first, key=lambda found: abs(found.ply - found.plies / 2))
    reason = game.validate(sample.state, sample.illegal)["reason"]
    BODIES.mkdir(exist_ok=True)
    suffix = "" if form == "object" else f"-{form}"
    play, validate = BODIES / f"{game.name}-play{suffix}.json", BODIES / f"{game.name}-validate{suffix}.json"
    play.write_text(json.dumps({"state": sample.state, "move": sample.legal}) + "\n")
    validate.write_text(json.dumps({"state": sample.state, "move": sample.illegal}) + "\n")
    return Bodies(game.name, play, validate, sample.ply, sample.plies, reason.get("rule") or reason["code"])


@contextlib.contextmanager
def server(workers: int | None, app: str = "referee.http.app:create_app()", options: tuple[str, ...] = (),
           env: dict[str, str] | None = None) -> Iterator[Server]:
    """Serves `app` with the project's gunicorn config on a free loopback port, `workers` workers (the
    config's default, 2 × cores + 1, when None), no access log, and `env` (e.g. a setting to compare)."""
    count = workers or 2 * (os.cpu_count() or 1) + 1
    progress(f"http: starting {app}")
    try:
        with serve(app, options, grace=15, REFEREE_WORKERS=str(count), REFEREE_GRACEFUL_TIMEOUT="5",
                   **(env or {})) as live:
            yield live
    finally:
        progress(f"http: stopped {app}")


def check_answer(server: Server, path: str, body: Path, expect: Callable[[dict], bool]) -> dict:
    answer = send(server, path, body.read_bytes(), timeout=60)
    data = json.loads(answer.body)
    if answer.status != 200 or not expect(data):
        raise RuntimeError(f"POST {path} with {body.name} answered {answer.status}: {answer.body[:500]!r}")
    return data


def check_game(server: Server, bodies: Bodies) -> None:
    """The server answers the game's play body with a state and its validate body with `legal: false`."""
    check_answer(server, f"/v1/games/{bodies.game}/play", bodies.play, lambda data: "state" in data)
    check_answer(server, f"/v1/games/{bodies.game}/validate", bodies.validate,
                 lambda data: data.get("legal") is False)


def worker_kib(server: Server, field: str = "VmRSS") -> dict[int, int]:
    """The server's workers: pid -> resident memory in KiB (`VmHWM`: the most each has held)."""
    return {pid: rss_bytes(pid, field) // 1024 for pid in workers(server)}


def wrk(args: argparse.Namespace, url: str, body: Path, duration: int, delay_ms: str = "0") -> dict[str, Any]:
    command = ["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{duration}s", "--timeout", "5s",
               "--latency", "-s", str(BENCH / "post.lua"), url, "--", str(body), delay_ms]
    done = subprocess.run(command, capture_output=True, text=True, timeout=duration + 60, check=False)
    for line in done.stdout.splitlines():
        if line.startswith("WRK_JSON "):
            result = json.loads(line.removeprefix("WRK_JSON "))
            result["rps"] = result["requests"] / (result["duration_us"] / 1e6)
            result["bytes_per_answer"] = result["bytes"] / max(result["requests"], 1)
            result["errors"] = sum(result[key] for key in
                                   ("connect_errors", "read_errors", "write_errors", "status_errors", "timeouts"))
            return result
    raise RuntimeError(f"wrk failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")


def wrk_rounds(args: argparse.Namespace, targets: dict[Any, tuple[str, Path]]) -> dict[Any, dict[str, Any]]:
    """wrk on every (url, body) target: a warm-up, then `--rounds` runs of `--duration` seconds each, the
    targets taking turns so that load from elsewhere on the machine hits them alike. Requests/s over
    all rounds, median of the rounds' p50, worst of their p99."""
    for url, body in targets.values():
        if args.warmup:
            wrk(args, url, body, args.warmup)
    runs: dict[Any, list[dict[str, Any]]] = {key: [] for key in targets}
    for round_ in range(args.rounds):
        progress(f"http: wrk round {round_ + 1} of {args.rounds} ({len(targets)} targets)")
        for key, (url, body) in targets.items():
            runs[key].append(wrk(args, url, body, args.duration))
    merged = {}
    for key, results in runs.items():
        requests = sum(result["requests"] for result in results)
        merged[key] = {
            "rps": requests / (sum(result["duration_us"] for result in results) / 1e6),
            "p50_us": statistics.median(result["p50_us"] for result in results),
            "p99_us": max(result["p99_us"] for result in results),
            "bytes_per_answer": sum(result["bytes"] for result in results) / max(requests, 1),
            "errors": sum(result["errors"] for result in results),
        }
    return merged


def game_targets(server: Server, bodies: Bodies, trivial: Server | None = None,
                 label: str = "") -> dict[tuple[str, str], tuple[str, Path]]:
    """wrk targets of one game on one server, keyed (game, endpoint + label): its `play` and `validate`,
    and the trivial app reading the same play body when `trivial` is given. Any section that compares
    servers or settings per game merges these (a different `label` per server) and runs `wrk_rounds`."""
    targets = {}
    if trivial is not None:
        targets[bodies.game, "trivial" + label] = (trivial.base + "/trivial", bodies.play)
    for endpoint, body in (("play", bodies.play), ("validate", bodies.validate)):
        targets[bodies.game, endpoint + label] = (server.base + f"/v1/games/{bodies.game}/{endpoint}", body)
    return targets


def http_columns(result: dict[str, Any], baseline: dict[str, Any]) -> list[str]:
    """requests/s, × the baseline's, p50 ms, p99 ms, bytes/answer, errors."""
    return [number(result["rps"]), ratio(result["rps"], baseline["rps"]), f"{result['p50_us'] / 1000:,.2f}",
            f"{result['p99_us'] / 1000:,.2f}", number(result["bytes_per_answer"]), number(result["errors"])]


def paced_wrk(args: argparse.Namespace, url: str, body: Path, rate: float) -> dict[str, Any]:
    """wrk holding about `rate` requests/s: each connection waits between requests (post.lua's second
    argument); the wait is corrected from each run, since a request's own time adds to it."""
    delay_ms = args.connections / rate * 1000
    result: dict[str, Any] = {}
    for _ in range(3):
        result = wrk(args, url, body, args.duration, f"{delay_ms:.3f}")
        cycle_ms = args.connections / result["rps"] * 1000  # delay + time of a request, per connection
        delay_ms = max(delay_ms - (cycle_ms - args.connections / rate * 1000), 0.0)
    return result
