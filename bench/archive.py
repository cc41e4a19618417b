"""The `archive` section: `referee validate` on a generated archive of every game.

For every game, `referee validate` (as a subprocess, process start included) on an archive of 100,000
records (`--archive-games`), the same records plain (`game`, `seed`, `moves`, `id`) and as archives hold
them (metadata and the claimed result of a normal end, every claim agreeing), and with `--keep` and
`--report`, and `--positions`: records/s (best of `--repeat`, the runs of a game taking turns) and ×
plain's, by wall time and by CPU time (the command's, and on Dask also the workers' and the scheduler's,
which other work on the machine moves far less); locally and on a local Dask cluster when Dask is
installed. Claims and metadata must keep ≥ 0.90× plain records' rate (issue 32). The records are 2,000
distinct seeded random games played to the end (`--archive-distinct`; each record carries its seed, so
Hypnosia's rolls and Caesar!'s draws replay), repeated in turn, each record with its own `id`: playing
100,000 Hypnosia games through the Python API would take tens of minutes, and replaying a repeated record
costs the same as a new one (nothing is cached). `--archive-distinct 100000` makes every record distinct."""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import multiprocessing
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import referee

from report import number, progress, ratio, table, verdict
from samples import playout

__all__ = ["bench_archive", "bench_scale"]


@functools.cache
def default_game(name: str) -> referee.Game:
    return referee.game(name)


#: Players' names of the generated archives' metadata.
NAMES = ["Ann", "Bo", "Chidi", "Dana", "Eero", "Fatou", "Gus", "Hana", "Ivo", "Jun"]
#: Within this share of plain records' rate, records with claims and metadata meet their target (issue 32).
CLAIMS_TARGET = 0.90


def archive_record(task: tuple[str, int]) -> tuple[bytes, bytes]:
    """One game of an archive (without its id), plain and as an archive holds it: with metadata (event,
    date, players, ratings, ...) and its claimed result, a normal end. A seeded random game to its end.
    Runs in a worker process."""
    name, seed = task
    game, rng = default_game(name), random.Random(seed)
    states, moves = playout(game, seed)
    outcome = game.outcome(states[-1])
    plain = {"game": name, "seed": seed, "moves": moves}
    result = {"winner": outcome["winner"], "scores": outcome["scores"]}
    if "ranking" in outcome:
        result["ranking"] = outcome["ranking"]
    players = list(outcome["scores"])
    metadata = {"event": "Referee bench open", "site": "https://example.org/bench", "round": rng.randint(1, 9),
                "date": f"2026-{rng.randint(1, 12):02}-{rng.randint(1, 28):02}",
                "players": dict(zip(players, rng.sample(NAMES, len(players)))),
                "ratings": {player: rng.randint(900, 2400) for player in players}, "time_control": "600+5"}
    return orjson.dumps(plain), orjson.dumps(metadata | plain | {"result": result, "termination": "normal"})


@dataclass(frozen=True)
class Archive:
    """One game's generated archive: the same records plain and as archives hold them."""
    name: str
    plain: Path
    claimed: Path
    distinct: int
    plies: float


def write_archive(args: argparse.Namespace, name: str, workdir: Path) -> Archive:
    """--archive-games records of `name`: --archive-distinct seeded games (on every core), repeated in
    turn; each record has its number as `id`."""
    distinct = min(args.archive_distinct, args.archive_games)
    progress(f"archive: generating {distinct:,} random {name} games for {args.archive_games:,} records")
    tasks = [(name, args.seed + index) for index in range(distinct)]
    with multiprocessing.get_context("spawn").Pool(os.cpu_count()) as pool:  # spawn: no fork of rayon's threads
        records = pool.map(archive_record, tasks, chunksize=max(1, distinct // (8 * (os.cpu_count() or 1))))
    archive = Archive(name, workdir / f"{name}.jsonl", workdir / f"{name}-claimed.jsonl", distinct,
                      statistics.mean(len(orjson.loads(plain)["moves"]) for plain, _ in records))
    for path, form in ((archive.plain, 0), (archive.claimed, 1)):
        with open(path, "wb") as out:
            out.writelines(records[index % distinct][form][:-1] + b',"id":%d}\n' % index
                           for index in range(args.archive_games))
    with contextlib.suppress(ImportError):  # the archives extra: the plain archive as zstd compresses it
        import zstandard

        with open(archive.plain, "rb") as source, open(zst_of(archive.plain), "wb") as target:
            zstandard.ZstdCompressor(level=3, threads=-1).copy_stream(source, target)
    return archive


def zst_of(path: Path) -> Path:
    return path.with_name(path.name + ".zst")


#: The runs of each game's archive: which archive, and the options of `referee validate`.
ARCHIVE_RUNS = {
    "plain": ("plain", ()),
    "claims and metadata": ("claimed", ()),
    "+ --keep, --report": ("claimed", ("--keep", "players,date", "--report", "{workdir}/report.html")),
    "--positions": ("claimed", ("--positions",)),
    "plain `.zst`": ("plain.zst", ()),
    "plain, `-o DIR/`": ("plain", ("-o", "{workdir}/parts/")),
    "--dataset": ("claimed", ("--dataset", "{workdir}/dataset/")),
}
DASK_RUNS = ("plain", "claims and metadata", "--positions", "plain, `-o DIR/`")


def process_cpu(pids: list[int]) -> float:
    """CPU seconds (user and system) that running processes have used so far."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / os.sysconf("SC_CLK_TCK")


def children_cpu() -> float:
    """CPU seconds used by this process's children that have ended, and by this process (which holds a
    local Dask cluster's scheduler)."""
    ended, own = resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(resource.RUSAGE_SELF)
    return ended.ru_utime + ended.ru_stime + own.ru_utime + own.ru_stime


@dataclass
class ArchiveRun:
    """A run's best wall time and best CPU time (over the rounds), and the bytes of results it wrote."""
    seconds: float = float("inf")
    cpu: float = float("inf")
    size: int = 0


def validate_archive(path: Path, workdir: Path, options: tuple[str, ...], cluster: Any) -> tuple[float, float, int]:
    """One run of `referee validate` on an archive, as a subprocess (process start included): its wall
    time, the CPU time it took (the subprocess's, and a Dask cluster's workers' and scheduler's), and the
    bytes of results it wrote."""
    out = workdir / "out.jsonl"
    into = "--dataset" if "--dataset" in options else "-o"
    command = [sys.executable, "-m", "referee.cli", "validate", str(path), "--no-progress",
               *(["-o", str(out)] if into not in options else []), *(option.format(workdir=workdir) for option in options)]
    if into in options:  # results (or the data set) into a directory: its parts' bytes
        out = Path(options[options.index(into) + 1].format(workdir=workdir))
    workers = []
    if cluster is not None:
        command += ["--scheduler", cluster.scheduler_address]
        with cluster_client(cluster) as client:
            workers = list(client.run(os.getpid).values())
    cpu_before, workers_before = children_cpu(), process_cpu(workers)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600, check=False)
    seconds = time.perf_counter() - start
    cpu = children_cpu() - cpu_before + process_cpu(workers) - workers_before
    if done.returncode != 0:  # 1: a record illegal or a claim that disagrees, which a generated game never is
        raise RuntimeError(f"referee validate failed ({done.returncode}): {done.stderr[-500:]}")
    if out.is_dir():
        size = sum(part.stat().st_size for part in out.glob("part-*"))
        shutil.rmtree(out)
    else:
        size = out.stat().st_size
        out.unlink()
    return seconds, cpu, size


def cluster_client(cluster: Any) -> Any:
    from dask.distributed import Client

    return Client(cluster.scheduler_address)


def archive_rates(args: argparse.Namespace, archive: Archive, workdir: Path, runs: tuple[str, ...],
                  cluster: Any) -> dict[str, ArchiveRun]:
    """Each run's best wall time and best CPU time over --repeat rounds (the runs taking turns in each)."""
    runs = tuple(run for run in runs if (ARCHIVE_RUNS[run][0] != "plain.zst" or zst_of(archive.plain).exists())
                 and (run != "--dataset" or importlib.util.find_spec("pyarrow") is not None))
    best = {run: ArchiveRun() for run in runs}
    for _ in range(args.repeat):
        for run in runs:
            form, options = ARCHIVE_RUNS[run]
            path = {"plain": archive.plain, "claimed": archive.claimed, "plain.zst": zst_of(archive.plain)}[form]
            seconds, cpu, size = validate_archive(path, workdir, options, cluster)
            best[run] = ArchiveRun(min(best[run].seconds, seconds), min(best[run].cpu, cpu), size)
    return best


def archive_rows(args: argparse.Namespace, archive: Archive, runs: dict[str, ArchiveRun]) -> list[str]:
    """A game's row: records/s of each run by wall time, and × plain's, by wall time and by CPU time."""
    plain = runs["plain"]
    rate = {run: args.archive_games / measured.seconds for run, measured in runs.items()}

    def versus_plain(run: str) -> str:
        if run not in runs:
            return "—"
        by_cpu = plain.cpu / runs[run].cpu
        return f"{number(rate[run])} ({ratio(rate[run], rate['plain'])}; CPU {by_cpu:.2f}×)"

    claimed = "claims and metadata"
    met = rate[claimed] / rate["plain"] >= CLAIMS_TARGET
    return [archive.name, number(args.archive_games), f"{archive.plies:,.0f}",
            f"{archive.plain.stat().st_size / 1e6:,.0f} / {archive.claimed.stat().st_size / 1e6:,.0f}",
            f"{number(rate['plain'])} ({plain.cpu:,.1f} CPU s)", versus_plain(claimed),
            verdict(f"≥ {CLAIMS_TARGET:.2f}×", met), versus_plain("+ --keep, --report"), versus_plain("--positions"),
            f"{runs['--positions'].size / 1e6:,.0f}", versus_plain("plain `.zst`"), versus_plain("plain, `-o DIR/`"),
            versus_plain("--dataset"), f"{runs['--dataset'].size / 1e6:,.1f}" if "--dataset" in runs else "—"]


def bench_archive(args: argparse.Namespace, workdir: Path) -> str:
    archives = [write_archive(args, name, workdir) for name in args.games_list]
    local, dask = [], []
    for archive in archives:
        progress(f"archive: referee validate on {archive.name}, locally")
        local.append(archive_rows(args, archive, archive_rates(args, archive, workdir, tuple(ARCHIVE_RUNS), None)))
    cluster = dask_cluster()
    if cluster is not None:
        with cluster:
            for archive in archives:
                progress(f"archive: referee validate on {archive.name}, on a Dask cluster")
                dask.append(archive_rows(args, archive, archive_rates(args, archive, workdir, DASK_RUNS, cluster)))
    headers = ["game", "records", "plies/game", "MB plain / with claims", "plain records/s",
               "claims and metadata records/s", "target", "+ `--keep`, `--report`", "`--positions`",
               "MB of positions", "plain `.zst`", "plain, `-o DIR/`", "`--dataset`", "MB of data set"]
    text = [
        "## archive: `referee validate` on a generated archive",
        "",
        f"For each game, an archive of {number(args.archive_games)} records (`--archive-games`): "
        f"{number(min(args.archive_distinct, args.archive_games))} distinct seeded random games played to their end "
        "(`--archive-distinct`; each record carries its seed), repeated in turn, every record with its own `id`; "
        "the same records plain (`game`, `seed`, `moves`, `id`) and as archives hold them, with metadata (event, "
        "site, round, date, players' names and ratings, time control) and the claimed result of a normal end "
        "(winner, scores, Hypnosia's ranking: every claim agrees). Replayed by `python -m referee.cli validate "
        "archive.jsonl -o out.jsonl --no-progress` (whole command, process start included, best of "
        f"{args.repeat}, the runs of a game taking turns); every record legal and every claim agreeing "
        f"(exit status 0). Claims and metadata target ≥ {CLAIMS_TARGET:.2f}× plain records' rate (issue 32); "
        "`+ --keep, --report` keeps two fields and writes the report; `--positions` writes every position "
        "(its results' size in its own column); `plain .zst` reads the plain archive compressed by zstd (level 3), "
        "`plain, -o DIR/` writes it into a directory of parts with a manifest; `--dataset` writes the data set "
        "for learning (Parquet, a row a ply; pyarrow installed), its parts' size in its own column. Each cell: records/s by wall time (best round), × plain's, and "
        "*CPU* × plain's: plain's CPU seconds ÷ the run's (the command's, and on Dask also the workers' and the "
        "scheduler's; best round), which other work sharing the machine moves far less than wall time. The target "
        "is judged on records/s.",
        "",
        f"Locally, on {os.cpu_count()} cores:",
        "",
        table(headers, local),
    ]
    if dask:
        text += ["", "On a Dask cluster (`--scheduler`), as tests/archives/test_cli.py starts one: `LocalCluster` of 2 worker "
                 "processes with 1 thread each, on the same machine (each worker's native calls use every core):",
                 "", table(headers, dask)]
    else:
        text += ["", "Dask is not installed (`pip install '.[dask]'`): no run on a cluster."]
    return "\n".join(text)


def dask_cluster() -> Any:
    """A local Dask cluster as the tests start one, or None without Dask."""
    try:
        from dask.distributed import LocalCluster
    except ImportError:
        return None
    return LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)


# --- scale: the cluster against local on an archive of tens of megabytes (issue 40) -------------------

#: Runs `referee validate` as the CLI does, after importing what the run imports (the modules' files are
#: not the archive's bytes), and says on its last line of standard error the bytes the process read
#: (/proc/self/io `rchar`: files and sockets alike) from then to its exit: the archive's bytes the client
#: read, and what it received from the cluster.
MEASURED_CLI = """
import atexit, sys
import fsspec.core, referee.archives, referee.cli, referee.archives.report
fsspec.core.url_to_fs(".")  # fsspec's registry, read from every package's entry points
if "--scheduler" in sys.argv:
    import dask.distributed
def rchar():
    return int(dict(line.split(": ") for line in open("/proc/self/io").read().splitlines())["rchar"])
before = rchar()
atexit.register(lambda: print(f"rchar {rchar() - before}", file=sys.stderr))
sys.exit(referee.cli.main(sys.argv[1:]))
"""


@dataclass
class ScaleRun:
    """The best round of a run: the command's wall time, the run's own (the summary line's: after
    imports and the cluster's connection), and the bytes the client read meanwhile."""
    seconds: float = float("inf")
    run_seconds: float = float("inf")
    read: int = 0


def scale_run(path: Path, workdir: Path, cluster: Any) -> tuple[float, float, int]:
    out = workdir / "parts"
    command = [sys.executable, "-c", MEASURED_CLI, "validate", str(path), "--no-progress", "-o", f"{out}/",
               *(["--scheduler", cluster.scheduler_address] if cluster is not None else [])]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600, check=False)
    seconds = time.perf_counter() - start
    shutil.rmtree(out, ignore_errors=True)
    if done.returncode != 0:
        raise RuntimeError(f"referee validate failed ({done.returncode}): {done.stderr[-500:]}")
    lines = done.stderr.splitlines()
    records = int(lines[-2].split()[0])  # the summary line: "N records: ...; in S s (R records/s)"
    rate = float(lines[-2].rsplit("(", 1)[1].split()[0].replace(",", ""))
    return seconds, records / rate, int(lines[-1].split()[1])


def scale_archive(args: argparse.Namespace, name: str, workdir: Path) -> tuple[Archive, int]:
    """An archive of about --scale-mb megabytes of plain records, and its records."""
    sample = write_archive(argparse.Namespace(archive_games=args.archive_distinct, archive_distinct=args.archive_distinct,
                                              seed=args.seed), name, workdir)
    records = int(args.scale_mb * 1e6 * args.archive_distinct / sample.plain.stat().st_size)
    return write_archive(argparse.Namespace(archive_games=records, archive_distinct=args.archive_distinct,
                                            seed=args.seed), name, workdir), records


def bench_scale(args: argparse.Namespace, workdir: Path) -> str:
    cluster = dask_cluster()
    if cluster is None:
        return "## scale\n\nDask is not installed (`pip install '.[dask]'`): no run on a cluster."
    rows = []
    with cluster:
        for name in args.games_list:
            archive, records = scale_archive(args, name, workdir)
            progress(f"scale: {name}, {records:,} records, locally and on the cluster in turn")
            best = {"local": ScaleRun(), "cluster": ScaleRun()}
            for _ in range(args.repeat):
                for where, on in (("local", None), ("cluster", cluster)):
                    seconds, run_seconds, read = scale_run(archive.plain, workdir, on)
                    kept = best[where]
                    best[where] = ScaleRun(min(kept.seconds, seconds), min(kept.run_seconds, run_seconds),
                                           read if kept.read == 0 else min(kept.read, read))
            size = archive.plain.stat().st_size
            local, remote = best["local"], best["cluster"]
            rows.append([name, number(records), f"{size / 1e6:,.0f}",
                         f"{number(records / local.seconds)} / {number(records / local.run_seconds)}",
                         f"{number(records / remote.seconds)} / {number(records / remote.run_seconds)}",
                         f"{local.seconds / remote.seconds:.2f}× / {local.run_seconds / remote.run_seconds:.2f}×",
                         f"{100 * local.read / size:.1f}% / {100 * remote.read / size:.2f}%"])
    headers = ["game", "records", "MB", "local records/s: command / run", "cluster records/s: command / run",
               "cluster × local: command / run", "bytes the client read ÷ the archive's: local / cluster"]
    return "\n".join([
        "## scale: the cluster against local on an archive of tens of megabytes",
        "",
        f"For each game, a plain archive of about {args.scale_mb} MB (`--scale-mb`; "
        f"{number(args.archive_distinct)} distinct seeded games repeated) into `-o DIR/`, locally and on a Dask "
        "`LocalCluster` of 2 worker processes with 1 thread each on the same cores, taking turns, best of "
        f"{args.repeat}. *command*: the whole command's wall time (process start and imports included: Dask's "
        "client takes a second or two to import); *run*: the run's own time, as its summary line says (from "
        "the sources' planning to `_SUCCESS`). The bytes the client read are `rchar` of /proc/self/io from "
        "after its imports to its exit: files and sockets alike, so on the cluster the counts and tallies "
        "received and the scheduler's messages.",
        "",
        table(headers, rows),
    ])
