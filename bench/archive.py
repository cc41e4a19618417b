"""The `archive` section: `referee validate` on a generated archive of every game.

For every game, `referee validate` (as a subprocess, process start included) on an archive of 100,000
records (`--archive-games`): records/s, best of 3, × Iago's. The records are 2,000 distinct seeded random
games played to the end (`--archive-distinct`; each record carries its seed, so Hypnosia's rolls and
Caesar!'s draws replay), repeated in turn, each record with its own `id`: playing 100,000 Hypnosia games
through the Python API would take tens of minutes, and replaying a repeated record costs the same as a
new one (nothing is cached). `--archive-distinct 100000` makes every record distinct."""

from __future__ import annotations

import argparse
import functools
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import orjson
import referee

from report import number, progress, ratio, table
from samples import REFERENCE, playout

__all__ = ["bench_archive"]


@functools.cache
def default_game(name: str) -> referee.Game:
    return referee.game(name)


def archive_record(task: tuple[str, int]) -> bytes:
    """One archive line (without its id): a seeded random game to its end. Runs in a worker process."""
    name, seed = task
    _, moves = playout(default_game(name), seed)
    return orjson.dumps({"game": name, "seed": seed, "moves": moves})


def write_archive(args: argparse.Namespace, name: str, path: Path) -> tuple[int, float]:
    """--archive-games records of `name`: --archive-distinct seeded games (on every core), repeated in
    turn; each record has its number as `id`. Returns the distinct games and their mean plies."""
    distinct = min(args.archive_distinct, args.archive_games)
    progress(f"archive: generating {distinct:,} random {name} games for {args.archive_games:,} records")
    tasks = [(name, args.seed + index) for index in range(distinct)]
    with multiprocessing.get_context("spawn").Pool(os.cpu_count()) as pool:  # spawn: no fork of rayon's threads
        records = pool.map(archive_record, tasks, chunksize=max(1, distinct // (8 * (os.cpu_count() or 1))))
    with open(path, "wb") as archive:
        archive.writelines(records[index % distinct][:-1] + b',"id":%d}\n' % index
                           for index in range(args.archive_games))
    return distinct, statistics.mean(len(orjson.loads(record)["moves"]) for record in records)


def validate_archive(args: argparse.Namespace, path: Path, workdir: Path) -> float:
    """Best wall time of `referee validate` on the archive (as a subprocess, process start included)."""
    runs = []
    for _ in range(min(args.repeat, 3)):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "referee.cli", "validate", str(path), "-o",
                               str(workdir / "out.jsonl"), "--no-progress"],
                              capture_output=True, text=True, timeout=3600, check=False)
        runs.append(time.perf_counter() - start)
        if done.returncode != 0:  # 1: some record is not legal, which a generated game never is
            raise RuntimeError(f"referee validate failed ({done.returncode}): {done.stderr[-500:]}")
    return min(runs)


def bench_archive(args: argparse.Namespace, workdir: Path) -> str:
    rows, rates = [], {}
    for name in args.games_list:
        path = workdir / f"{name}.jsonl"
        distinct, plies = write_archive(args, name, path)
        progress(f"archive: referee validate on {name}")
        best = validate_archive(args, path, workdir)
        rates[name] = args.archive_games / best
        rows.append([name, number(args.archive_games), number(distinct), f"{plies:,.0f}",
                     f"{path.stat().st_size / 1e6:,.0f}", f"{best:,.2f}", number(rates[name]),
                     ratio(rates[name], rates.get(REFERENCE))])
        path.unlink()
    return "\n".join([
        "## archive: `referee validate` on a generated archive",
        "",
        f"For each game, an archive of {number(args.archive_games)} records (`--archive-games`): "
        f"{number(min(args.archive_distinct, args.archive_games))} distinct seeded random games played to their end "
        "(`--archive-distinct`; each record carries its seed), repeated in turn, every record with its own `id`. "
        "Replayed by `python -m referee.cli validate archive.jsonl -o out.jsonl --no-progress` on "
        f"{os.cpu_count()} cores; whole command, process start included, best of {min(args.repeat, 3)}; every record "
        "replayed legal (exit status 0). *× Iago*: records/s ÷ Iago's.",
        "",
        table(["game", "records", "distinct games", "plies/game", "MB", "best s", "records/s", "× Iago"], rows),
    ])
