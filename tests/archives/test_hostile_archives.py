"""Archives that try to exhaust `referee validate` (the hostile archives issue): a record far longer than
`--max-record-bytes` in every format, sources that are no regular files, globs through links to their own
directory, compressed streams that ask for too much memory or are cut short. Each run is the real command in
a process of its own, its peak memory that process's own (`PEAK`), each bounded by a timeout."""

from __future__ import annotations

import bz2
import glob
import gzip
import io
import json
import lzma
import os
import signal
import subprocess
import sys
import tempfile
import threading
import zlib
from pathlib import Path
from typing import IO, NamedTuple

import pytest

LEGAL = b'{"game":"iago","moves":["e4"]}\n'
#: The bound the runs give (`--max-record-bytes`), and the long record's length: 64 times it.
BOUND = 1 << 20
LONG_BYTES = 64 << 20
#: A run's peak resident memory at most, whatever the archive: a 64 MiB line held whole, with the copies
#: a chunk and its replay make of it, would take several times its size.
PEAK_MIB = 128
TOO_LONG = f"the record is longer than {BOUND} bytes, the bound (--max-record-bytes)"


class Ran(NamedTuple):
    status: int
    output: bytes
    errors: list[str]  # standard error's lines
    peak_mib: float  # the process's own peak resident memory

    def results(self) -> list[dict]:
        return [json.loads(line) for line in self.output.splitlines()]


#: Runs a command and writes its peak resident memory (KiB) to the file its first argument names. The
#: command's own: `wait4` would give a child of the test process the test process's peak too (what its memory
#: was when the child was forked counts as the child's), so the command is this small process's child.
PEAK = ("import os, subprocess, sys; child = subprocess.Popen(sys.argv[2:]); _, status, usage = os.wait4(child.pid, 0); "
        "open(sys.argv[1], 'w').write(str(usage.ru_maxrss)); sys.exit(os.waitstatus_to_exitcode(status))")


def validate(*args: str, timeout: float = 120) -> Ran:
    """`referee validate ARGS --no-progress` as a process of its own: its exit status, standard output and
    error, and its own peak memory (`PEAK`); killed, with its launcher, past `timeout`."""
    command = [sys.executable, "-m", "referee.cli", "validate", *args, "--no-progress"]
    with tempfile.TemporaryDirectory() as folder:
        peak, out, err = (Path(folder) / name for name in ("peak", "out", "err"))
        with open(out, "wb") as stdout, open(err, "wb") as stderr:
            process = subprocess.Popen([sys.executable, "-c", PEAK, str(peak), *command], stdin=subprocess.DEVNULL,
                                       stdout=stdout, stderr=stderr, start_new_session=True)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                pytest.fail(f"referee validate {' '.join(args)} did not end within {timeout} s")
        return Ran(process.returncode, out.read_bytes(), err.read_text().splitlines(), int(peak.read_text()) / 1024)


def opener(path: Path) -> IO[bytes]:
    """A file written compressed as its name says, streaming."""
    import zstandard

    ending = path.suffix
    if ending == ".gz":
        return gzip.open(path, "wb", compresslevel=1)  # type: ignore[return-value]
    if ending == ".bz2":
        return bz2.open(path, "wb", compresslevel=1)  # type: ignore[return-value]
    if ending == ".xz":
        return lzma.open(path, "wb", preset=0)  # type: ignore[return-value]
    if ending == ".zst":
        return zstandard.open(path, "wb")  # type: ignore[return-value]
    return open(path, "wb")


def write_long_line(out: IO[bytes], size: int, head: bytes = b'{"game":"iago","moves":["e4"],"id":"') -> None:
    """A record of `size` bytes and more, written a megabyte at a time (never one bytes object of its size)."""
    out.write(head)
    block = b"a" * (1 << 20)
    for _ in range(size // len(block)):
        out.write(block)
    out.write(b'"}\n')


def hostile_archive(path: Path) -> Path:
    """Records 1, 2, 4 and 6 legal; 3 a 64 MiB record; 5 one whose first megabytes are blank (a record all
    the same); between them a blank line and a blank line of 3 MiB (no records)."""
    with opener(path) as out:
        out.write(LEGAL * 2)
        write_long_line(out, LONG_BYTES)
        out.write(b"\n" + LEGAL)
        out.write(b" " * (BOUND + 10) + LEGAL)
        out.write(b" " * (3 << 20) + b"\n")
        out.write(LEGAL)
    return path


@pytest.mark.parametrize("ending", ["", ".gz", ".bz2", ".xz", ".zst"])
def test_a_record_longer_than_the_bound_is_its_own_error_and_the_run_goes_on(tmp_path, ending) -> None:
    if ending == ".zst":
        pytest.importorskip("zstandard")
    path = hostile_archive(tmp_path / f"records.jsonl{ending}")
    # Partitions of 5 MB: a plain file's fall inside the long record, and are numbered past it.
    ran = validate(str(path), "--max-record-bytes", str(BOUND), "--part-bytes", "5000000")
    results = ran.results()
    assert ran.status == 1, ran.errors
    assert [result["record"] for result in results] == [1, 2, 3, 4, 5, 6]
    assert [result.get("error", {}).get("detail") for result in results] == [None, None, TOO_LONG, None, TOO_LONG, None]
    assert [result.get("legal") for result in results] == [True, True, None, True, None, True]
    assert ran.errors[-1].startswith("6 records: 4 legal, 0 illegal, 2 not records")
    assert ran.peak_mib < PEAK_MIB, f"{ran.peak_mib:.0f} MiB"


def test_a_record_of_a_million_moves_is_read_under_the_default_bound(tmp_path) -> None:
    """About 6 MB: replayed (an illegal ply once the game is over), not refused for its length."""
    path = tmp_path / "long-game.jsonl"
    with open(path, "wb") as out:
        out.write(b'{"game": "iago", "moves": ["e4"' + b', "e4"' * 999_999 + b"]}\n")
    assert path.stat().st_size > 6_000_000
    ran = validate(str(path))
    [result] = ran.results()
    assert "error" not in result and result["legal"] is False and result["ply"] == 1, result


def test_a_data_set_s_record_longer_than_the_bound_gives_no_row_and_counts_as_an_error(tmp_path) -> None:
    pytest.importorskip("pyarrow")
    path = tmp_path / "records.jsonl"
    with open(path, "wb") as out:
        out.write(LEGAL)
        write_long_line(out, 4 * BOUND)
        out.write(LEGAL)
    ran = validate(str(path), "--max-record-bytes", str(BOUND), "--dataset", f"{tmp_path / 'dataset'}/")
    manifest = json.loads((tmp_path / "dataset" / "_manifest.json").read_bytes())
    assert ran.status == 1 and (manifest["counts"]["records"], manifest["counts"]["errors"]) == (3, 1)


def test_every_member_and_frame_of_a_compressed_source_is_read(tmp_path) -> None:
    """pigz, pbzip2, `cat a.xz b.xz` and `zstd -T` write several members, streams or frames: each is read."""
    zstandard = pytest.importorskip("zstandard")
    pieces = [LEGAL * 3, LEGAL * 2, LEGAL * 4]
    streamed = io.BytesIO()  # a frame of unknown size, written as a stream
    with zstandard.ZstdCompressor(write_checksum=True).stream_writer(streamed, closefd=False) as writer:
        writer.write(pieces[2])
    skippable = (0x184D2A50).to_bytes(4, "little") + (3).to_bytes(4, "little") + b"abc"
    sources = {
        "gz": b"".join(gzip.compress(piece) for piece in pieces),
        "bz2": b"".join(bz2.compress(piece) for piece in pieces),
        "xz": b"".join(lzma.compress(piece) for piece in pieces),
        "zst": b"".join(zstandard.ZstdCompressor().compress(piece) for piece in pieces[:2]) + skippable
        + streamed.getvalue(),
    }
    for ending, data in sources.items():
        (tmp_path / f"records.jsonl.{ending}").write_bytes(data)
        ran = validate(str(tmp_path / f"records.jsonl.{ending}"))
        assert ran.status == 0 and [result["record"] for result in ran.results()] == list(range(1, 10)), ran.errors


def test_a_directory_takes_its_regular_files_and_says_what_it_skips(tmp_path) -> None:
    """A FIFO (no writer: opening it would wait for ever) and a link to /dev/zero (an endless line) are
    skipped with a line each; a link to a directory is not followed; the run ends."""
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.jsonl").write_bytes(LEGAL * 2)
    (folder / "sub" / "c.jsonl").write_bytes(LEGAL)
    os.mkfifo(folder / "fifo.jsonl")
    (folder / "zero.jsonl").symlink_to("/dev/zero")
    (folder / "sub" / "up").symlink_to("..")
    ran = validate(str(folder), timeout=60)
    assert ran.status == 0
    assert ran.errors[:-1] == [f"referee: skipped {folder}/fifo.jsonl: a FIFO (not a regular file)",
                               f"referee: skipped {folder}/sub/up: a symbolic link to a directory (not followed)",
                               f"referee: skipped {folder}/zero.jsonl: a symbolic link to a character device "
                               "(not a regular file)"]
    assert [result["source"] for result in ran.results()] == [f"{folder}/a.jsonl"] * 2 + [f"{folder}/sub/c.jsonl"]


def test_a_glob_through_two_links_to_its_own_directory_ends_taking_each_file_once(tmp_path) -> None:
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.jsonl").write_bytes(LEGAL * 2)
    (folder / "sub" / "b.jsonl").write_bytes(LEGAL)
    (folder / "again").symlink_to(".")
    (folder / "sub" / "again").symlink_to(".")
    ran = validate(f"{folder}/**/*.jsonl", timeout=60)
    assert ran.status == 0
    assert ran.errors[:-1] == [f"referee: skipped {folder}/again: a symbolic link to a directory (not followed)",
                               f"referee: skipped {folder}/sub/again: a symbolic link to a directory (not followed)"]
    assert [result["source"] for result in ran.results()] == [f"{folder}/a.jsonl"] * 2 + [f"{folder}/sub/b.jsonl"]


def test_a_glob_without_links_names_what_glob_names(tmp_path, monkeypatch) -> None:
    """The walker that replaced glob.glob(recursive=True) keeps its rules: `*` within a name, never a leading
    dot; `**` any depth of directories not hidden; files only, in name order (and each once: glob gives a
    file twice for `**/**`)."""
    from referee.archives.sources import local_files

    monkeypatch.chdir(tmp_path)
    for name in ["r.jsonl", ".dot.jsonl", "_u/u.jsonl", "a/a.jsonl", "a/b/c.jsonl", "a/b/.c.jsonl", ".h/h.jsonl",
                 ".h/x/y.jsonl", "a/.hb/z.jsonl", "a/b/d.txt"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(LEGAL)
    for pattern in ["**/*.jsonl", "*", "**", "*/*.jsonl", "a/**/c.jsonl", ".h/*.jsonl", ".h/**/*.jsonl",
                    "**/.c.jsonl", "*/b/*", "**/b/**", "[a_]/*.jsonl", "a/b/?.jsonl", ".*/*.jsonl", "**/**/*.jsonl",
                    f"{tmp_path}/**/*.txt", "a*/**"]:
        expected = sorted({path for path in glob.glob(pattern, recursive=True) if os.path.isfile(path)})
        assert [file.name for file in local_files(pattern)] == expected, pattern


def window_frame(path: Path) -> tuple[Path, str]:
    """A zstd frame asking for a 2 GiB window (as `zstd --long=31` writes one): streamed, so that its
    window is not shrunk to its content's size."""
    import zstandard

    params = zstandard.ZstdCompressionParameters(window_log=31, enable_ldm=True)
    data = io.BytesIO()
    with zstandard.ZstdCompressor(compression_params=params).stream_writer(data, closefd=False) as writer:
        writer.write(LEGAL * 10)
    assert zstandard.get_frame_parameters(data.getvalue()).window_size == 2 << 30
    path.write_bytes(data.getvalue())
    return path, "its .zst data needs a window over 128 MiB to decompress (the most referee gives)"


def xz_dictionary(path: Path) -> tuple[Path, str]:
    """An .xz stream whose block asks for a 1 GiB dictionary (its header's byte rewritten, its check mended)."""
    data = lzma.compress(LEGAL * 10)
    size = (data[12] + 1) * 4  # the block header, after the stream's
    header = bytearray(data[12:12 + size])
    header[header.index(b"\x21\x01") + 2] = 36  # LZMA2's dictionary: 2 ** (36 // 2 + 12) bytes
    header[-4:] = zlib.crc32(header[:-4]).to_bytes(4, "little")
    path.write_bytes(data[:12] + header + data[12 + size:])
    return path, "its .xz data needs a window over 128 MiB to decompress (the most referee gives)"


def truncated(path: Path) -> tuple[Path, str]:
    if path.suffix == ".zst":
        import zstandard

        data = zstandard.ZstdCompressor().compress(LEGAL * 1000)
    else:
        data = gzip.compress(LEGAL * 1000)
    path.write_bytes(data[:len(data) // 2])
    return path, f"its {path.suffix} data is cut short (the file is truncated)"


def not_bz2(path: Path) -> tuple[Path, str]:
    path.write_bytes(b"BZh9" + b"not bzip2 data at all")
    return path, "not valid .bz2 data (OSError: Invalid data stream)"


@pytest.mark.parametrize(("make", "name"), [(window_frame, "window.jsonl.zst"), (xz_dictionary, "dictionary.jsonl.xz"),
                                            (truncated, "cut.jsonl.gz"), (truncated, "cut.jsonl.zst"),
                                            (not_bz2, "not.jsonl.bz2")])
def test_a_source_that_cannot_be_read_ends_the_run_in_one_line_naming_it(tmp_path, make, name) -> None:
    if name.endswith(".zst"):
        pytest.importorskip("zstandard")
    path, cause = make(tmp_path / name)
    ran = validate(str(path))
    assert ran.status == 5  # a source that cannot be read as an archive: its own status (docs/archives.md)
    assert ran.errors == [f"referee: {path}: {cause}"]


def test_a_fifo_named_is_read_as_a_stream(tmp_path) -> None:
    """A source named that is no regular file (a FIFO, `<(...)`, /dev/stdin) is read once as it comes."""
    fifo = tmp_path / "records.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(LEGAL * 3), daemon=True)
    writer.start()
    ran = validate(str(fifo), timeout=60)
    writer.join(10)
    assert ran.status == 0 and [result["record"] for result in ran.results()] == [1, 2, 3], ran.errors


def test_a_file_growing_while_it_is_read_is_read_as_planned(tmp_path) -> None:
    """Its partitions read no further than its size when planned: its last line, cut there, as if the file
    ended there (a writer appending meanwhile adds nothing to this run)."""
    from referee.archives.sources import open_lines, plan

    path = tmp_path / "records.jsonl"
    path.write_bytes(LEGAL * 5 + LEGAL[:10])
    for part_bytes in (1 << 20, 2 * len(LEGAL) + 3):
        parts = plan([str(path)], part_bytes).parts
        with open(path, "ab") as out:
            out.write(LEGAL[10:] + LEGAL * 5)
        assert [line for part in parts for line in open_lines(part)] == [LEGAL] * 5 + [LEGAL[:10]]
        path.write_bytes(LEGAL * 5 + LEGAL[:10])


def test_a_line_is_held_to_the_bound_and_counts_as_the_record_it_is() -> None:
    """`read_lines` holds no more than the bound and two bytes of a line, whatever its length; a line of
    the bound and its "\\r\\n" is whole; a long line counts as a record exactly when it is one, whatever
    the bound (so records are numbered the same by any reader)."""
    from referee.archives.sources import is_record, read_lines

    lines = [LEGAL, b"x" * 100 + b"\r\n", b"y" * 5000 + b"\n", b" " * 3000 + b"z\n", b" " * 4000 + b"\n", b"\n", b"tail"]
    data = b"".join(lines)
    for bound in (100, 1000, 1 << 20):
        read = list(read_lines(io.BufferedReader(io.BytesIO(data), 1 << 20), bound))  # type: ignore[arg-type]
        assert all(len(line) <= bound + 2 for line in read)
        assert [is_record(line) for line in read] == [is_record(line) for line in lines]
        assert read[1] == lines[1]  # 100 bytes and "\r\n": within a bound of 100
        assert read[2] == (b"y" * (bound + 2) if bound < 5000 else lines[2])


def test_partitions_cut_through_long_lines_read_what_one_reading_reads(tmp_path) -> None:
    """However a plain file is cut, its partitions give the lines of one reading, long ones cut short alike
    (each partition reads its own range: one starting inside a long line drops it no further than its end)."""
    from referee.archives.sources import open_lines, plan

    path = tmp_path / "records.jsonl"
    path.write_bytes(b"".join([LEGAL, b"a" * 5000 + b"\n", b" " * 3000 + b"b" * 10 + b"\n", b" " * 4000 + b"\n", LEGAL,
                               b"c" * 2500 + b"\r\n", LEGAL * 3, b" " * 1500 + b"\n", b"d" * 20000]))
    whole = list(open_lines(plan([str(path)], 1 << 30).parts[0], 1000))
    assert [len(line) for line in whole] == [len(LEGAL), 1002, 1002, 1, len(LEGAL), 1002] + [len(LEGAL)] * 3 + [1, 1002]
    for part_bytes in (97, 1000, 1001, 1002, 4096, 7000):
        parts = plan([str(path)], part_bytes).parts
        assert [line for part in parts for line in open_lines(part, 1000)] == whole, part_bytes
