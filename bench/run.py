#!/usr/bin/env python3
"""Referee benchmarks: measures everything in one run on this machine and prints a Markdown report.
Every section covers every game (Iago, Isaac, Hypnosia, Caesar!) with one row a game, and compares it
with a baseline of the same run: the game's Python reference model, Iago, or a trivial Flask app.

    python bench/run.py                               # the default sections, every game
    python bench/run.py --only core,embedding         # some sections
    python bench/run.py --games-list iago,caesar      # some games (the "× Iago" columns need iago)
    python bench/run.py --out bench/results/latest.md # also write the report to a file (git-ignored)

Sections (the default runs the first five):
    core       perft and random playouts of every game: the Rust engine against its Python reference model
    embedding  per-call cost of the Python API on mid-game states, and the batch calls, × Iago's
    http       gunicorn + wrk: every game's play and validate against a trivial Flask app reading the same
               body under the same config, at full load and at 70% of it
    batch      NDJSON batches over HTTP, end to end: one of 10,000 items, and a long stream, per game
    slow       64 clients trickling bodies at a byte a second: /healthz and every game's play meanwhile
    archive    `referee validate` on a generated archive of random games of each game (--archive-games), plain
               and with metadata and claims, --keep and --report, --positions; locally and on a Dask cluster
    scale      `referee validate` into `-o DIR/` on a ~60 MB archive of each game (--scale-mb), locally and on a
               Dask cluster of the same cores in turn: records/s, and the bytes the client read
    soak       every game's play at full load in turn, --soak-seconds (600) in all: errors, restarts, memory
    seals      play with seals (REFEREE_SEAL_KEYS, keyed chance) and opaque states (REFEREE_OPAQUE_STATES)
               against without, every game: in process and over HTTP
    hostile    what one client can take from a worker (bench/hostile.py): memory after the requests that
               grew it, /healthz and play while a costly batch streams, the costliest request of each route;
               fair when full (bench/fairness.py): a light peer while heavy ones hold, or one address's searches
               think (part `thinking`); --hostile-parts picks parts
    worst-archives  `referee validate` on the worst archive of each format (bench/worst_archives.py): one 2 GiB
               line in plain, .gz, .bz2, .xz, .zst; records just under --max-record-bytes; windows refused: peak memory
    handles    native position handles (bench/handles.py): random playouts from Python against OpenSpiel's
               Othello and Backgammon, rollouts in Rust against perft, the adapters' overhead
    dist       what `make dist` built (bench/dist.py): each wheel's size, and `import referee`'s time from the wheel
    bots       the engine's opponent (bench/bots.py): simulations a second, the engine against random moves, the
               Python MCTSBot and OpenSpiel's MCTS at equal time a move, and its levels 1-8 by Elo

Each section is a module of its own beside this one (core.py, embedding.py, http_load.py, batch.py,
slow.py, archive.py (archive and scale), soak.py, seals.py, hostile.py and fairness.py, handles.py, bots.py), whose
docstring says what its numbers mean; they share samples.py (playouts and mid-game samples), served.py
(gunicorn, wrk), timing.py and report.py, and the tests' live-server helpers (tests/helpers/live.py).
(`games`, the old section of Isaac, Hypnosia and Caesar! against their models, is now part of `core` and
still accepted as its name.) The targets of issue 13 are printed next to the numbers they judge (met /
missed); nothing is asserted. Run it with a release build of `referee` installed (see bench/README.md),
not an editable debug build.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import platform
import shlex
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The sections import the tests' live-server helpers (tests/helpers/live.py) and boards, as the tests do.
sys.path.insert(1, str(ROOT / "tests"))

import referee  # noqa: E402

from archive import bench_archive, bench_scale  # noqa: E402
from batch import bench_http_batch, bench_stream  # noqa: E402
from bots import add_options as add_bots_options, bench_bots  # noqa: E402
from core import bench_core  # noqa: E402
from dist import bench_dist  # noqa: E402
from embedding import bench_embedding  # noqa: E402
from handles import bench_handles  # noqa: E402
from hostile import PARTS as HOSTILE_PARTS, bench_hostile  # noqa: E402
from http_load import bench_wrk  # noqa: E402
from report import progress  # noqa: E402
from samples import GAMES, Sample, sample_games  # noqa: E402
from seals import bench_seals  # noqa: E402
from served import BENCH, server, write_bodies  # noqa: E402
from slow import bench_slow  # noqa: E402
from soak import bench_soak  # noqa: E402
from worst_archives import bench_worst_archives  # noqa: E402

SECTIONS = ("core", "embedding", "http", "batch", "slow", "archive", "scale", "soak", "seals", "hostile", "worst-archives", "handles",
            "dist", "bots")
DEFAULT_SECTIONS = SECTIONS[:5]
SAMPLED_SECTIONS = {"embedding", "http", "batch", "slow", "soak"}  # they need mid-game samples
SERVED_SECTIONS = {"http", "batch", "slow", "soak"}  # they share one server of the app


def served_sections(args: argparse.Namespace, games: dict[str, referee.Game], samples: dict[str, list[Sample]],
                    json_rates: dict[str, float]) -> str:
    """The sections that share one server of the app (http, batch, slow, soak), in that order; http also
    starts the trivial app."""
    bodies = {}
    if {"http", "slow", "soak"} & set(args.only):
        bodies = {name: write_bodies(game, samples[name], args.form) for name, game in games.items()}
    parts = []
    with contextlib.ExitStack() as servers:  # stops every server started here, whatever happens
        real = servers.enter_context(server(args.workers))
        if "http" in args.only:
            trivial = servers.enter_context(server(args.workers, "trivial_app:app", ("--pythonpath", str(BENCH))))
            parts.append(bench_wrk(args, real, trivial, bodies))
        if "batch" in args.only:
            parts.append(bench_http_batch(args, real, samples, json_rates))
            parts.append(bench_stream(args, real, samples))
        if "slow" in args.only:
            parts.append(bench_slow(args, real, bodies, samples))
        if "soak" in args.only:
            parts.append(bench_soak(args, real, bodies))
    return "\n\n".join(parts)


def command_output(*command: str) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return (done.stdout or done.stderr).strip() or "unknown"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def header(args: argparse.Namespace, started: datetime.datetime, load_at_start: tuple[float, ...]) -> str:
    commit = command_output("git", "-C", str(ROOT), "rev-parse", "--short", "HEAD")
    dirty = command_output("git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no")
    if dirty not in ("", "unknown"):
        commit += " (with uncommitted changes)"
    module = Path(referee.__file__).resolve()
    lines = [
        "# Referee benchmarks",
        "",
        f"- date: {started:%Y-%m-%d %H:%M} UTC (the run took "
        f"{(datetime.datetime.now(datetime.timezone.utc) - started).total_seconds():.0f} s)",
        f"- command: `{shlex.join([Path(sys.executable).name, *sys.argv])}`",
        f"- git commit: {commit}",
        f"- states travel as: {'JSON objects' if args.form == 'object' else 'position strings (the compact form)'}",
        f"- games: {', '.join(args.games_list)}; sections: {', '.join(args.only)}",
        f"- CPU: {cpu_model()}, {os.cpu_count()} cores; load average (1, 5, 15 min) at start: "
        f"{', '.join(f'{load:.2f}' for load in load_at_start)}, at end: "
        f"{', '.join(f'{load:.2f}' for load in os.getloadavg())}",
        f"- Python {platform.python_version()}, referee {referee.__version__} from `{module.parent}`",
    ]
    if "http" in args.only:
        lines.append(f"- {command_output('wrk', '-v').splitlines()[0]}")
    if ROOT / "service" in module.parents:
        lines.append("- **WARNING: referee is imported from the source tree (an editable, probably debug, build); "
                     "the numbers are not representative. Install a release wheel (bench/README.md).**")
    return "\n".join(lines)


def add_options(parser: argparse.ArgumentParser) -> None:
    core = parser.add_argument_group("core")
    core.add_argument("--engine-depth", type=int, default=5, help="Iago's engine perft depth (default: 5)")
    core.add_argument("--model-depth", type=int, default=3, help="Iago's model perft depth (default: 3)")
    core.add_argument("--perft-repeat", type=int, default=3, help="perft runs of each, best kept (default: 3)")
    core.add_argument("--games", type=int, default=100,
                      help="Iago engine random games a round; the other games play a tenth (default: 100)")
    core.add_argument("--model-games", type=int, default=10,
                      help="Iago model random games a round; the other games play a fifth (default: 10)")
    core.add_argument("--repeat", type=int, default=5,
                      help="rounds of random games, and passes of each embedding measure; best kept (default: 5)")
    embedding = parser.add_argument_group("embedding, batch, archive, soak")
    embedding.add_argument("--states", type=int, default=2000, help="mid-game states sampled a game (default: 2000)")
    embedding.add_argument("--form", choices=("object", "position"), default="object",
                           help="the form the sampled states travel in: JSON objects, or position strings, the "
                                "compact form (default: object)")
    embedding.add_argument("--batch-size", type=int, default=10_000, help="items in a batch (default: 10000)")
    embedding.add_argument("--batch-repeat", type=int, default=5, help="HTTP batch requests a game (default: 5)")
    embedding.add_argument("--json-batch-size", type=int, default=400_000,
                           help="items in the in-process JSON batches (default: 400000)")
    embedding.add_argument("--json-batch-mb", type=int, default=200,
                           help="at most this many MB of JSON in an in-process batch (default: 200)")
    embedding.add_argument("--stream-items", type=int, default=1_000_000,
                           help="items in the long NDJSON stream over HTTP (default: 1000000)")
    embedding.add_argument("--stream-mb", type=int, default=250,
                           help="at most this many MB in the long NDJSON stream (default: 250)")
    embedding.add_argument("--archive-games", type=int, default=100_000,
                           help="records in each game's archive (default: 100000)")
    embedding.add_argument("--archive-distinct", type=int, default=2000,
                           help="distinct random games in each archive, repeated to fill it (default: 2000)")
    embedding.add_argument("--scale-mb", type=int, default=60,
                           help="scale: megabytes of each game's plain archive (default: 60)")
    embedding.add_argument("--soak-seconds", type=int, default=600, help="seconds of the soak in all (default: 600)")
    web = parser.add_argument_group("http")
    web.add_argument("--duration", type=int, default=4, help="seconds of each wrk run (default: 4)")
    web.add_argument("--rounds", type=int, default=5, help="wrk runs per endpoint, taking turns (default: 5)")
    web.add_argument("--warmup", type=int, default=2, help="seconds of wrk warm-up before each run (default: 2)")
    web.add_argument("--threads", type=int, default=2, help="wrk threads (default: 2)")
    web.add_argument("--connections", type=int, default=32, help="wrk connections (default: 32)")
    web.add_argument("--tricklers", type=int, default=64, help="slow: trickling connections (default: 64)")
    web.add_argument("--trickle-seconds", type=int, default=35,
                     help="slow: seconds each trickled body takes, one byte a second (default: 35)")
    web.add_argument("--workers", type=int, help="gunicorn workers (default: the config's, 2 × cores + 1)")
    hostile = parser.add_argument_group("hostile")
    hostile.add_argument("--hostile-games", type=int, default=30,
                         help="seeded random games searched for each game's costliest inputs (default: 30)")
    hostile.add_argument("--hostile-parts", default=",".join(HOSTILE_PARTS),
                         help=f"comma-separated parts of the section to run (default: all: {','.join(HOSTILE_PARTS)})")
    parser.add_argument_group("worst-archives").add_argument(
        "--worst-gib", type=int, default=2, help="GiB of the one line of each worst archive (default: 2)")
    handles = parser.add_argument_group("handles")
    handles.add_argument("--handle-seconds", type=float, default=1.0,
                         help="CPU seconds a round of each handles measurement (default: 1)")
    handles.add_argument("--handle-rounds", type=int, default=5,
                         help="rounds of each handles measurement, the median reported (default: 5)")
    add_bots_options(parser)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=",".join(DEFAULT_SECTIONS),
                        help=f"comma-separated sections to run (default: {','.join(DEFAULT_SECTIONS)}; "
                             f"all: {','.join(SECTIONS)})")
    parser.add_argument("--games-list", default=",".join(GAMES),
                        help=f"comma-separated games every section covers (default: {','.join(GAMES)})")
    parser.add_argument("--out", type=Path, help="also write the Markdown report to this file")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random playouts (default: 1)")
    add_options(parser)
    args = parser.parse_args()
    only = ["core" if name.strip() == "games" else name.strip() for name in args.only.split(",") if name.strip()]
    args.only = list(dict.fromkeys(only))
    args.games_list = list(dict.fromkeys(name.strip() for name in args.games_list.split(",") if name.strip()))
    if unknown := set(args.only) - set(SECTIONS):
        parser.error(f"unknown sections {', '.join(sorted(unknown))}; known: {', '.join(SECTIONS)}")
    if unknown := set(args.games_list) - set(GAMES):
        parser.error(f"unknown games {', '.join(sorted(unknown))}; known: {', '.join(GAMES)}")
    if not args.games_list:
        parser.error("--games-list names no game")
    args.hostile_parts = [name.strip() for name in args.hostile_parts.split(",") if name.strip()]
    if unknown := set(args.hostile_parts) - set(HOSTILE_PARTS):
        parser.error(f"unknown hostile parts {', '.join(sorted(unknown))}; known: {', '.join(HOSTILE_PARTS)}")
    if args.batch_size > 10_000 and "batch" in args.only:
        parser.error("the service accepts at most 10,000 batch items (REFEREE_MAX_BATCH_ITEMS)")
    if args.trickle_seconds < 3 and "slow" in args.only:
        parser.error("--trickle-seconds must be at least 3")
    return args


def main() -> None:
    args = parse_args()
    # Ctrl-C (even when started in the background) and SIGTERM unwind the stack, so the `finally`
    # blocks stop the servers.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    started, load_at_start = datetime.datetime.now(datetime.timezone.utc), os.getloadavg()
    games = {name: referee.game(name) for name in args.games_list}
    samples = sample_games(args, games) if SAMPLED_SECTIONS & set(args.only) else {}
    parts, json_rates = [], {}
    if "core" in args.only:
        parts.append(bench_core(args))
    if "embedding" in args.only:
        text, json_rates = bench_embedding(args, games, samples)
        parts.append(text)
    if "archive" in args.only:
        with tempfile.TemporaryDirectory(prefix="referee-archive-") as workdir:
            parts.append(bench_archive(args, Path(workdir)))
    if "scale" in args.only:
        with tempfile.TemporaryDirectory(prefix="referee-scale-") as workdir:
            parts.append(bench_scale(args, Path(workdir)))
    if SERVED_SECTIONS & set(args.only):
        parts.append(served_sections(args, games, samples, json_rates))
    if "seals" in args.only:
        with tempfile.TemporaryDirectory(prefix="referee-seals-") as workdir:
            parts.append(bench_seals(args, Path(workdir)))
    if "hostile" in args.only:
        parts.append(bench_hostile(args.hostile_games, args.hostile_parts))
    if "worst-archives" in args.only:
        parts.append(bench_worst_archives(args))
    if "handles" in args.only:
        parts.append(bench_handles(args.handle_seconds, args.handle_rounds, tuple(args.games_list)))
    if "dist" in args.only:
        parts.append(bench_dist())
    if "bots" in args.only:
        parts.append(bench_bots(args, tuple(args.games_list)))
    report = "\n\n".join([header(args, started, load_at_start), *parts]) + "\n"
    print(report)
    if args.out:
        args.out.write_text(report)
        progress(f"report written to {args.out}")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        progress("interrupted; servers stopped")
        sys.exit(130)
