"""The `worst-archives` section: `referee validate` on the worst archive we can build in each format (the
hostile archives issue), with the default `--max-record-bytes`. Each holds one line of `--worst-gib` GiB
(2 by default) between two legal records: plain, `.gz`, `.bz2`, `.xz` with a 128 MiB dictionary and `.zst`
with a 128 MiB window (the most each decoder is given, every byte of it used). Then records just under the
bound in a `.zst` with a 128 MiB window: sixteen of 16 MiB of empty moves (the costliest record to replay
for its size); and, with `--positions` and with `--dataset` (bound 1 MiB), copies of a legal game just
under 1 MiB (six-player Hypnosia on a one-circle board, its moves chosen to keep pawns off the bridge and
out of the centre: about 85,000 plies, each a position written), more than the window holds. Last, the frames refused for the memory
they ask: a zstd window of 2 GiB, an xz dictionary of 1 GiB. Each row: the command's exit status, wall time and peak resident
memory (its own, `wait4`'s), against the issue's target of 512 MiB. The archives are built once, streaming,
and kept in bench/data/worst/ (git-ignored by its own .gitignore): building them takes a few minutes."""

from __future__ import annotations

import argparse
import bz2
import gzip
import lzma
import os
import shutil
import subprocess
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import IO

from report import progress, table, verdict

__all__ = ["bench_worst_archives"]

DATA = Path(__file__).resolve().parent / "data" / "worst"
LEGAL = b'{"game":"iago","moves":["e4"]}\n'
MIB = 1 << 20
#: The issue's target: a run's peak memory whatever the archive.
TARGET_MIB = 512
#: The largest window a compressed source may ask for (referee.archives.sources.WINDOW_BYTES).
WINDOW_LOG = 27


def zstd_writer(path: Path, window_log: int = WINDOW_LOG) -> IO[bytes]:
    """A zstd stream of unknown size (its window as asked, not shrunk to its content's) with long-distance
    matching, which fills the window."""
    import zstandard

    params = zstandard.ZstdCompressionParameters.from_level(3, window_log=window_log, enable_ldm=True)
    return zstandard.ZstdCompressor(compression_params=params).stream_writer(open(path, "wb"))  # type: ignore[return-value]


WRITERS: dict[str, Callable[[Path], IO[bytes]]] = {
    "": lambda path: open(path, "wb"),
    ".gz": lambda path: gzip.open(path, "wb", compresslevel=6),  # type: ignore[dict-item]
    ".bz2": lambda path: bz2.open(path, "wb", compresslevel=9),  # type: ignore[dict-item]
    ".xz": lambda path: lzma.open(path, "wb", filters=[{"id": lzma.FILTER_LZMA2, "preset": 0,  # type: ignore[dict-item]
                                                         "dict_size": 1 << WINDOW_LOG}]),
    ".zst": zstd_writer,
}


def long_line(out: IO[bytes], size: int) -> None:
    """Two legal records around one line of `size` bytes, written a megabyte at a time."""
    out.write(LEGAL + b'{"game":"iago","moves":["e4"],"id":"')
    block = b"a" * MIB
    for _ in range(size // MIB):
        out.write(block)
    out.write(b'"}\n' + LEGAL)


def under_the_bound(out: IO[bytes], records: int = 16) -> None:
    """Records just under the default bound, each 16 MiB of empty moves (5.6 million of them)."""
    from referee.archives.sources import MAX_RECORD_BYTES

    head, tail = b'{"game":"iago","moves":[""', b"]}\n"
    moves = (MAX_RECORD_BYTES - len(head) - len(tail)) // 3
    block = b',""' * (MIB // 3)
    for _ in range(records):
        out.write(head)
        for _ in range(moves // (MIB // 3)):
            out.write(block)
        out.write(b',""' * (moves % (MIB // 3)) + tail)


def long_game() -> bytes:
    """A legal six-player Hypnosia record just under the bound with `--positions`, a ply a dozen bytes:
    on a circle of 40 spaces with one bridge to the centre, each move chosen among a dozen legal ones to
    leave the fewest pawns on the bridge, in the centre or captured (a game that does not end)."""
    import random

    import orjson
    import referee
    from referee.archives.sources import RECORD_BYTES

    board = {"circles": [40], "entries": [0, 7, 14, 21, 28, 35], "bridges": [{"from": [0, 39], "to": "centre"}],
             "centre_points": [5, 4, 3, 2, 1], "home_length": 4}
    options = {"players": 6, "board": board}
    game, rng = referee.game("hypnosia", None, options), random.Random(1)

    def ended(state: dict) -> int:
        return sum(pawn == "0.39" or pawn.startswith("c") for pawns in state["pawns"].values() for pawn in pawns)

    state, moves, size = game.new(seed=3), [], 0
    while size < RECORD_BYTES[True] - 1000:
        legal = game.legal_moves(state)
        if not legal:
            raise RuntimeError(f"the long game ended after {len(moves)} plies")
        rng.shuffle(legal)
        _, _, move, state = min((ended(after := game.play(state, move)["state"]), index, move, after)
                                for index, move in enumerate(legal[:12]))
        moves.append(move)
        size += len(move) + 4
    record = orjson.dumps({"game": "hypnosia", "options": options, "seed": 3, "moves": moves}) + b"\n"
    assert len(record) <= RECORD_BYTES[True], len(record)
    return record


def built(name: str, write: Callable[[Path], None]) -> Path:
    """An archive of the cache, built once (under a temporary name, moved into place when whole)."""
    DATA.mkdir(parents=True, exist_ok=True)
    (DATA / ".gitignore").write_text("*\n")
    path = DATA / name
    if not path.exists():
        progress(f"worst-archives: building {name}")
        partial = path.with_name(f".{name}.partial")
        write(partial)
        partial.rename(path)
    return path


def line_archive(ending: str, gib: int) -> Path:
    def write(path: Path) -> None:
        with WRITERS[ending](path) as out:
            long_line(out, gib << 30)

    return built(f"line-{gib}gib.jsonl{ending}", write)


def bound_archive() -> Path:
    def write(path: Path) -> None:
        with zstd_writer(path) as out:
            under_the_bound(out)

    return built("under-the-bound.jsonl.zst", write)


def game_archive() -> Path:
    def write(path: Path) -> None:
        record = long_game()
        with zstd_writer(path) as out:
            for _ in range((1 << WINDOW_LOG) // len(record) + 16):  # more than the window: every byte of it used
                out.write(record)

    from referee.archives.sources import RECORD_BYTES

    return built(f"long-game-{RECORD_BYTES[True]}.jsonl.zst", write)


def window_archive() -> Path:
    """A zstd frame asking for a 2 GiB window (`zstd --long=31`)."""
    def write(path: Path) -> None:
        with zstd_writer(path, 31) as out:
            out.write(LEGAL * 10)

    return built("window-2gib.jsonl.zst", write)


def dictionary_archive() -> Path:
    """An .xz stream whose block asks for a 1 GiB dictionary (its header's byte rewritten, its check mended)."""
    def write(path: Path) -> None:
        data = lzma.compress(LEGAL * 10)
        size = (data[12] + 1) * 4
        header = bytearray(data[12:12 + size])
        header[header.index(b"\x21\x01") + 2] = 36
        header[-4:] = zlib.crc32(header[:-4]).to_bytes(4, "little")
        path.write_bytes(data[:12] + header + data[12 + size:])

    return built("dictionary-1gib.jsonl.xz", write)


#: Runs a command and writes its peak resident memory (KiB) to the file its first argument names: the
#: command's own (a child of this process, `wait4` would count this process's memory when it was forked too).
PEAK = ("import os, subprocess, sys; child = subprocess.Popen(sys.argv[2:]); _, status, usage = os.wait4(child.pid, 0); "
        "open(sys.argv[1], 'w').write(str(usage.ru_maxrss)); sys.exit(os.waitstatus_to_exitcode(status))")


def measured(path: Path, *options: str) -> tuple[int, float, float, str]:
    """`referee validate PATH -o /dev/null` as a process of its own: exit status, wall seconds, peak MiB
    (its own), and the last line of its standard error."""
    output = [] if "--dataset" in options else ["-o", os.devnull]
    command = [sys.executable, "-m", "referee.cli", "validate", str(path), *output, "--no-progress", *options]
    shutil.rmtree(DATA / "dataset", ignore_errors=True)
    peak, err = DATA / ".peak", DATA / ".stderr"
    with open(err, "wb") as stderr:
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", PEAK, str(peak), *command], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=stderr, check=False)
        seconds = time.perf_counter() - start
    lines = err.read_text(errors="replace").splitlines()
    return done.returncode, seconds, int(peak.read_text()) / 1024, lines[-1] if lines else ""


def bench_worst_archives(args: argparse.Namespace) -> str:
    gib = args.worst_gib
    runs: list[tuple[str, Path, tuple[str, ...]]] = [
        (f"one {gib} GiB line, plain", line_archive("", gib), ()),
        (f"one {gib} GiB line, `.gz`", line_archive(".gz", gib), ()),
        (f"one {gib} GiB line, `.bz2`", line_archive(".bz2", gib), ()),
        (f"one {gib} GiB line, `.xz` (128 MiB dictionary)", line_archive(".xz", gib), ()),
        (f"one {gib} GiB line, `.zst` (128 MiB window)", line_archive(".zst", gib), ()),
        ("16 records of 16 MiB - 1, `.zst` (128 MiB window)", bound_archive(), ()),
        ("legal games just under 1 MiB, `.zst` (128 MiB window), `--positions`", game_archive(), ("--positions",)),
        ("the same, `--dataset`", game_archive(), ("--dataset", str(DATA / "dataset") + "/")),
        ("a zstd frame asking for a 2 GiB window", window_archive(), ()),
        ("an xz block asking for a 1 GiB dictionary", dictionary_archive(), ()),
    ]
    rows = []
    for name, path, options in runs:
        progress(f"worst-archives: {name}")
        status, seconds, peak, said = measured(path, *options)
        rows.append([name, f"{path.stat().st_size:,}", str(status), f"{seconds:,.1f}", f"{peak:,.0f}",
                     verdict(f"≤ {TARGET_MIB} MiB", peak <= TARGET_MIB), said.replace("|", "\\|")])
    return "\n".join([
        "## worst-archives: the worst archive of each format, with the default `--max-record-bytes`",
        "",
        f"`python -m referee.cli validate ARCHIVE -o /dev/null --no-progress` on {os.cpu_count()} cores, one run each: "
        "exit status (1: a record is an error; 5: the source is refused, in one line), wall time, and the peak "
        "resident memory of the process (`wait4`).",
        "",
        table(["archive", "bytes", "status", "seconds", "peak MiB", "target", "last line of stderr"], rows),
    ])
