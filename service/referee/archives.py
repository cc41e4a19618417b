"""The pipeline of `referee validate SOURCE...`, locally or on a Dask cluster: the same steps either way.

1. **Sources** (paths, globs, directories, fsspec URLs, `-`) become *partitions*: a byte range of a plain
   file, cut at line ends, or a compressed file whole (compression from the name: `.gz`, `.bz2`, `.xz`,
   `.zst`). Nothing is read to cut them.
2. **Numbering**: a record's number is its line in its source (blank lines not counted); a partition
   that does not start its source needs the count of the records before it, which tasks count where the
   data is (`count_records`), so the client reads none of it.
3. **Work**: a task opens its own partition (`open_lines`), replays it chunk by chunk (`replay_partition`)
   and either writes its own part of a `DIR/` output (`write_part`) or returns its results; either way
   the client receives counts and a tally. On Dask nothing is scattered: a lost worker's tasks are
   recomputed from their descriptions.
4. **Outputs that cannot lie**: `-o FILE` and `--report` are written beside their path and renamed once
   the run is complete (`whole_file`); a `DIR/` output has a manifest saying which parts are complete
   and `_SUCCESS` last, and `--resume` redoes only the others.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import hashlib
import importlib.util
import io
import logging
import os
import secrets
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, replace
from itertools import islice
from typing import IO, Any, NamedTuple

import orjson
from tqdm import tqdm

from referee._core import Tally  # a native tally, merged without leaving Rust

__all__ = ["CHUNK_RECORDS", "COUNT_KEYS", "Done", "Hashed", "Options", "Partition", "Stop", "add_counts", "chunks", "merge",
           "partial_of", "partition_chunks", "plan", "run_partition", "validate", "whole_file"]

#: Records per chunk (one native call): enough work to keep every core busy.
CHUNK_RECORDS = 20_000
#: At most this many bytes of records a chunk, so that a chunk's results stay a few tens of megabytes:
#: a record's result is about its size (a verdict and a position), and with every position a dozen to a
#: few dozen times its moves' bytes.
CHUNK_BYTES = {False: 16 << 20, True: 1 << 20}
#: Bytes of a plain file a partition (a task, a part of a `DIR/` output): a few chunks, so that tasks are
#: long enough to be worth sending and short enough to spread over workers and to redo after a failure.
PART_BYTES = {False: 8 << 20, True: 1 << 20}
#: Compression by the source's name, as fsspec names it.
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zst": "zstd"}
MANIFEST = "_manifest.json"
SUCCESS = "_SUCCESS"
COUNT_KEYS = ("records", "legal", "illegal", "errors", "agrees", "disagrees", "absent")

Counts = dict[str, int]  # records, legal, illegal, errors (not records), agrees, disagrees, absent (claims)


class Stop(Exception):
    """A run that cannot go on, said in one line (no traceback)."""


class Options(NamedTuple):
    """What each result carries beyond its verdict, whether chunks are tallied, and the chunks' bounds."""

    keep: list[str]
    positions: bool
    tally: bool
    chunk: int
    name_sources: bool  # each result names its `source` (several sources, a glob or a directory)
    dataset: bool = False  # parts are Parquet, a row a ply (`--dataset`, referee.dataset), not results


@dataclass(frozen=True)
class Partition:
    """A unit of work: records `start` to `end` (bytes; None: to the end) of a source, `first` the number of
    its first record (0 until numbered). `url` is what is opened (`-`: standard input), `source` the name
    results and the manifest give it."""

    source: str
    url: str
    compression: str | None
    start: int
    end: int | None
    size: int | None  # bytes read from storage (compressed bytes), for progress
    first: int = 0

    def key(self) -> tuple:
        return self.source, self.compression, self.start, self.end


# --- 1. Sources into partitions ------------------------------------------------------------------------

def is_url(name: str) -> bool:
    return "://" in name


def compression_of(name: str) -> str | None:
    compression = COMPRESSIONS.get(os.path.splitext(name)[1].lower())
    if compression == "zstd" and importlib.util.find_spec("zstandard") is None:
        raise Stop(f"{name}: reading .zst needs zstandard: pip install 'referee[archives]'")
    return compression


def hidden(name: str) -> bool:
    """Files a directory's listing skips, as Spark and Hadoop do (`_SUCCESS`, `_manifest.json`, `.x`), and
    those within such directories; `name` is relative to the directory listed."""
    return any(step.startswith(("_", ".")) and step != "." for step in name.replace(os.sep, "/").split("/"))


def local_files(name: str) -> list[tuple[str, str, int]]:
    """(name, absolute path, size) of each file a local path, glob or directory names, in name order."""
    if glob.has_magic(name):
        names = sorted(path for path in glob.glob(name, recursive=True) if os.path.isfile(path))
    elif os.path.isdir(name):
        names = sorted(os.path.join(root, file) for root, dirs, files in os.walk(name)
                       for file in files if not hidden(os.path.join(os.path.relpath(root, name), file)))
    else:
        names = [name]
    return [(path, os.path.abspath(path), os.path.getsize(path)) for path in names]


def remote_files(url: str) -> list[tuple[str, str, int]]:
    """(url, url, size) of each file an fsspec URL, glob or directory names, in name order."""
    from fsspec.core import url_to_fs

    fs, path = url_to_fs(url)
    if glob.has_magic(path):
        found = fs.glob(path, detail=True)
    elif fs.isdir(path):
        found = {name: info for name, info in fs.find(path, detail=True).items()
                 if not hidden(name[len(path.rstrip("/")) + 1:])}
    else:
        found = {path: fs.info(path)}
    files = [(fs.unstrip_protocol(name), info["size"]) for name, info in sorted(found.items())
             if info.get("type", "file") == "file"]
    if not files:
        raise FileNotFoundError(2, "no such file", url)
    return [(name, name, size) for name, size in files]


def plan(sources: list[str], part_bytes: int) -> list[Partition]:
    """The partitions of the sources, in order, not numbered yet."""
    parts = []
    for source in sources:
        if source == "-":
            parts.append(Partition("-", "-", None, 0, None, None, first=1))
            continue
        files = remote_files(source) if is_url(source) else local_files(source)
        if not files:
            raise FileNotFoundError(2, "no such file", source)
        for name, url, size in files:
            compression = compression_of(name)
            if compression is not None or size <= part_bytes:
                parts.append(Partition(name, url, compression, 0, None, size, first=1))
                continue
            for start in range(0, size, part_bytes):
                end = min(start + part_bytes, size)
                parts.append(Partition(name, url, None, start, end, end - start, first=1 if start == 0 else 0))
    return parts


@contextlib.contextmanager
def opened(part: Partition) -> Iterator[IO[bytes]]:
    """The partition's source, open (decompressed) as a buffered stream of lines."""
    if part.url == "-":
        yield sys.stdin.buffer
        return
    if not is_url(part.url):
        raw: IO[bytes] = open(part.url, "rb")  # the fastest reader of a local file
    else:
        import fsspec

        raw = fsspec.open(part.url, "rb").open()
    with raw, decompressed(raw, part.compression) as stream:
        yield stream


def decompressed(raw: IO[bytes], compression: str | None) -> IO[bytes]:
    """A stream's bytes decompressed, every member or frame (a file may hold several, as pigz, pbzip2 and
    zstd -T write them)."""
    if compression is None:
        return contextlib.nullcontext(raw)  # type: ignore[return-value]
    if compression == "zstd":
        import zstandard

        reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True, closefd=False)
        return io.BufferedReader(reader, 1 << 20)  # type: ignore[arg-type]
    import bz2
    import gzip
    import lzma

    opener = {"gzip": lambda: gzip.GzipFile(fileobj=raw, mode="rb"), "bz2": lambda: bz2.BZ2File(raw),
              "xz": lambda: lzma.LZMAFile(raw)}
    return opener[compression]()  # type: ignore[return-value]


def open_lines(part: Partition) -> Iterator[bytes]:
    """The lines of a partition: those starting within its range (the first one after `start` but at 0)."""
    with opened(part) as stream:
        if part.end is None:
            yield from stream
            return
        position = part.start
        if position > 0:
            stream.seek(position - 1)  # the byte before: a line end there means a line starts at `start`
            position += len(stream.readline()) - 1
        for line in stream:
            if position >= part.end:
                return
            position += len(line)
            yield line


def is_record(line: bytes) -> bool:
    """Whether a line is a record (numbered, replayed): any line but a blank one."""
    return bool(line.strip())


def count_records(part: Partition) -> int:
    """A partition's records, counted where the data is, as `chunks` numbers them."""
    return sum(1 for line in open_lines(part) if is_record(line))


def number(parts: list[Partition], run: Callable[[Callable, list], Iterable]) -> list[Partition]:
    """The partitions with the number of their first record: the records of the partitions before them in
    their source, counted by `run` (which maps a function over items, locally or on a cluster)."""
    counted = [part for index, part in enumerate(parts)
               if index + 1 < len(parts) and parts[index + 1].first == 0]
    counts = dict(zip((part.key() for part in counted), run(count_records, counted)))
    numbered, first = [], 1
    for part in parts:
        first = 1 if part.start == 0 else first
        numbered.append(replace(part, first=first))
        first += counts.get(part.key(), 0)
    return numbered


# --- 2. The work: a partition replayed ------------------------------------------------------------------

def chunks(lines: Iterable[bytes], records: int, size: int, first: int = 1) -> Iterator[tuple[int, bytes]]:
    """Chunks of whole lines, at most `records` lines and (but for a longer line) `size` bytes each, each
    with the number of its first record (`first` that of the first). The one chunker of every source
    (`open_lines` reads them all, whole or by range, plain or compressed) and of every output."""
    batch: list[bytes] = []
    length = 0
    for line in lines:
        if is_record(line):
            if batch and length + len(line) > size:
                yield first, b"".join(batch)
                first, batch, length = first + len(batch), [], 0
            batch.append(line if line.endswith(b"\n") else line + b"\n")
            length += len(batch[-1])
        if len(batch) == records:
            yield first, b"".join(batch)
            first, batch, length = first + len(batch), [], 0
    if batch:
        yield first, b"".join(batch)


def partition_chunks(part: Partition, options: Options) -> Iterator[tuple[int, bytes]]:
    """A partition's records chunk by chunk (one native replay each), each with its first record's number;
    smaller chunks when every position is written (`--positions`, `--dataset`)."""
    size = CHUNK_BYTES[options.positions or options.dataset]
    return chunks(open_lines(part), options.chunk, size, part.first)


def replay_partition(part: Partition, options: Options) -> Iterator[tuple[bytes, Counts, Tally | None, int]]:
    """A partition's results chunk by chunk, each with its counts, tally and bytes of records."""
    from referee import _core

    name = b',"source":' + orjson.dumps(part.source) + b"}\n" if options.name_sources else None
    for first, data in partition_chunks(part, options):
        output, counts, tally = _core.replay_records(data, first, options.keep, options.positions, options.tally)
        if name is not None:  # a result's last `}` is the one a line ends with (a JSON line has no raw \n)
            output = output.replace(b"}\n", name)
        yield output, counts, tally, len(data)


class Done(NamedTuple):
    """What a task returns: its results (None when it wrote them to its part), counts, tally, the part's
    bytes and checksum, and the bytes of its source it read (for progress)."""

    output: bytes | None
    counts: Counts
    tally: Tally | None
    size: int
    sha256: str
    read: int | None


def add_counts(total: Counts, counts: Counts) -> Counts:
    return {key: total.get(key, 0) + counts.get(key, 0) for key in COUNT_KEYS}


def merge(tally: Tally | None, part: Tally | None) -> Tally | None:
    """Two tallies as one, natively (`tally` is added to: a run's first tally is its own)."""
    if tally is None or part is None:
        return part if tally is None else tally
    tally.merge(part)
    return tally


class Hashed:
    """A binary file that counts and hashes what is written to it: a part's size and checksum, for the
    manifest (results, or a data set's Parquet, which pyarrow writes through it)."""

    def __init__(self, file: Any) -> None:
        self.file, self.digest, self.size = file, hashlib.sha256(), 0

    def write(self, data: Any) -> int:
        data = bytes(data)
        self.digest.update(data)
        self.size += len(data)
        return self.file.write(data)

    def tell(self) -> int:
        return self.size

    def flush(self) -> None:
        self.file.flush()

    @property
    def closed(self) -> bool:
        return self.file.closed

    def writable(self) -> bool:
        return True

    def close(self) -> None:  # the part's file is closed (and moved into place) by `whole_file`
        pass


def run_partition(part: Partition, options: Options, target: str | None) -> Done:
    """One task, locally or on a Dask worker (which imports the installed package): replays a partition
    and writes its results to `target` (a part of a `DIR/` output), or returns them when there is none."""
    if options.dataset:
        assert target is not None
        from referee import dataset

        return dataset.write_part(part, options, target)
    counts: Counts = dict.fromkeys(COUNT_KEYS, 0)
    tally = None
    kept = io.BytesIO()  # the results, when there is no part to write them to
    with whole_file(target) if target is not None else contextlib.nullcontext(kept) as file:
        out = Hashed(file)
        for output, chunk_counts, chunk_tally, _ in replay_partition(part, options):
            out.write(output)
            counts, tally = add_counts(counts, chunk_counts), merge(tally, chunk_tally)
    return Done(kept.getvalue() if target is None else None, counts, tally, out.size, out.digest.hexdigest(), part.size)


# --- 3. Outputs that cannot lie -------------------------------------------------------------------------

#: What names an attempt's file until it is whole: `.NAME.partial-<token>` beside it, the token the
#: attempt's own, the leading dot hiding it from readers of the directory (pyarrow, Spark, `hidden`).
PARTIAL = ".partial-"


def partial_of(target: str) -> str:
    """The name an attempt writes `target` under: its own, so that two attempts at one file (a killed
    client's task still running on a worker beside a resumed run's) never write into one another."""
    folder, slash, name = target.rpartition("/")
    return f"{folder}{slash}.{name}{PARTIAL}{secrets.token_hex(8)}"


def remove_partials(fs: Any, folder: str, name: str = "") -> None:
    """Removes the partial files killed attempts left in `folder` (of the file `name` only, when given):
    never a whole file, which is only ever moved into place."""
    with contextlib.suppress(FileNotFoundError):
        for path in fs.ls(folder, detail=False):
            base = path.rsplit("/", 1)[-1]
            if base.startswith(f".{name}{PARTIAL}" if name else ".") and PARTIAL in base:
                with contextlib.suppress(OSError):  # gone already (its attempt ended meanwhile)
                    fs.rm(path)


def is_device(path: str) -> bool:
    """Whether a local path is there and no regular file: a device or a pipe (`-o /dev/null`, a FIFO)."""
    return not is_url(path) and os.path.exists(path) and not os.path.isfile(path)


def remove_partials_of(path: str) -> None:
    """Removes what killed runs left of a file only the client writes (`-o FILE`, `--report`)."""
    if path == "-" or is_device(path):
        return
    import fsspec

    fs, target = fsspec.core.url_to_fs(path)
    folder, slash, name = target.rpartition("/")
    remove_partials(fs, folder or slash or ".", name)


@contextlib.contextmanager
def whole_file(path: str, mode: str = "wb") -> Iterator[IO]:
    """A file that appears at `path` only once complete, on a local disk or an object store alike: written
    to `.NAME.partial-<token>` beside it (`partial_of`) and moved to `PATH` when complete (a rename
    locally; on an object store, a copy once the upload has ended). Removed when the writing fails; a
    killed run leaves only its hidden partial file, which nothing reads and the next run removes. Two
    attempts at one file each move a whole file into place: the last one stays. A device or a pipe is
    written to as it is."""
    if path == "-":
        yield sys.stdout.buffer if "b" in mode else sys.stdout
        return
    if is_device(path):  # written straight to: a move would replace it
        with open(path, mode, encoding=None if "b" in mode else "utf-8") as file:
            yield file
        return
    import fsspec

    fs, target = fsspec.core.url_to_fs(path)
    partial = partial_of(target)
    try:
        file = fs.open(partial, mode, **({} if "b" in mode else {"encoding": "utf-8"}))
    except FileNotFoundError as error:
        raise FileNotFoundError(error.errno, error.strerror, path) from None
    try:
        with file:
            yield file
    except BaseException:
        with contextlib.suppress(OSError):
            fs.rm(partial)
        raise
    fs.mv(partial, target)


def is_directory(output: str) -> bool:
    return output.endswith("/") or (not is_url(output) and output != "-" and os.path.isdir(output))


class Directory:
    """A `DIR/` output (a local directory or a URL): one part a partition, `_manifest.json` saying which
    are complete (sources, ranges, counts, checksums, options, engine version), `_SUCCESS` last."""

    def __init__(self, url: str) -> None:
        from fsspec.core import url_to_fs

        self.url = url.rstrip("/") + "/"
        self.fs, self.root = url_to_fs(self.url)
        self.local = not is_url(url) or url.startswith("file://")

    def path(self, name: str) -> str:
        return self.url + name

    def exists(self, name: str) -> bool:
        return self.fs.exists(f"{self.root.rstrip('/')}/{name}")

    def read_manifest(self) -> dict[str, Any]:
        with self.fs.open(f"{self.root.rstrip('/')}/{MANIFEST}", "rb") as file:
            return orjson.loads(file.read())

    def write(self, name: str, data: bytes) -> None:
        with whole_file(self.path(name)) as file:
            file.write(data)

    def remove_partials(self) -> None:
        """Removes the partial files killed attempts left (a lost worker's, a killed run's)."""
        remove_partials(self.fs, self.root.rstrip("/"))

    def part_complete(self, entry: dict[str, Any]) -> bool:
        """A part the manifest says is complete, there with its size."""
        name = f"{self.root.rstrip('/')}/{entry['part']}"
        return entry.get("done") is not None and self.fs.exists(name) and self.fs.size(name) == entry["done"]["size"]


def part_name(index: int, dataset: bool = False) -> str:
    return f"part-{index:05}.{'parquet' if dataset else 'jsonl'}"


def plain_json(value: Any) -> Any:
    """A tally as JSON (its maps keyed by numbers become lists of pairs), `tally_of` reading it back."""
    if isinstance(value, dict):
        if all(isinstance(key, str) for key in value):
            return {key: plain_json(item) for key, item in value.items()}
        return {"__pairs__": [[key, plain_json(item)] for key, item in value.items()]}
    return [plain_json(item) for item in value] if isinstance(value, list) else value


def tally_of(value: Any) -> Any:
    if isinstance(value, dict):
        if "__pairs__" in value:
            return {key: tally_of(item) for key, item in value["__pairs__"]}
        return {key: tally_of(item) for key, item in value.items()}
    return [tally_of(item) for item in value] if isinstance(value, list) else value


def engine_version() -> str:
    from referee import __version__

    return __version__


# --- 4. The run -----------------------------------------------------------------------------------------

def local_map(function: Callable, items: list) -> Iterator:
    return map(function, items)


class Cluster:
    """A Dask client: maps functions over items as tasks, a bounded number in flight (memory stays flat),
    in order or as they complete. Tasks carry descriptions only; a lost worker's are recomputed."""

    def __init__(self, address: str) -> None:
        try:
            from dask.distributed import Client
        except ImportError:
            raise Stop("--scheduler needs Dask: pip install 'referee[dask]'") from None
        # The client's own log would print a traceback a retry while a lost scheduler is sought: the run
        # says what happened in one line instead (`validate`).
        self.levels = {name: logging.getLogger(name).level for name in list(logging.root.manager.loggerDict)
                       if name.split(".")[0] in ("distributed", "tornado", "asyncio")}
        for name in self.levels:
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)
        try:
            self.client = Client(address, timeout="10s")
        except (OSError, TimeoutError) as error:
            self.close()
            raise Stop(f"cannot reach the Dask scheduler at {address}: {error}") from None
        self.address = address

    def map(self, function: Callable, items: list, *args: Any, ordered: bool = True) -> Iterator:
        from dask.distributed import as_completed

        in_flight = max(2, 2 * sum(self.client.nthreads().values()))
        todo = iter(items)

        def submit(item: Any) -> Any:
            return self.client.submit(function, item, *args, pure=False, retries=2)

        pending = deque(submit(item) for item in islice(todo, in_flight))
        if ordered:
            while pending:
                result = pending.popleft().result()
                pending.extend(submit(item) for item in islice(todo, 1))
                yield result
            return
        running = as_completed(pending)
        for future in running:
            result = future.result()
            for item in islice(todo, 1):
                running.add(submit(item))
            yield result

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close(timeout=2)
        for name, level in self.levels.items():
            logging.getLogger(name).setLevel(level)


def scheduler_lost(error: BaseException) -> bool:
    from concurrent.futures import CancelledError

    try:
        from distributed.comm import CommClosedError
    except ImportError:
        return False
    return isinstance(error, (CancelledError, CommClosedError, ConnectionError, TimeoutError))


def summary_line(counts: Counts, elapsed: float) -> str:
    rate = counts["records"] / max(elapsed, 1e-9)
    return (f"{counts['records']} records: {counts['legal']} legal, {counts['illegal']} illegal, "
            f"{counts['errors']} not records; claims: {counts['agrees']} agree, {counts['disagrees']} disagree, "
            f"{counts['absent']} absent; in {elapsed:.1f} s ({rate:,.0f} records/s)")


def names_sources(sources: list[str]) -> bool:
    """Results name their source unless the command names one file (or `-`)."""
    if len(sources) != 1 or sources[0] == "-":
        return len(sources) != 1
    name = sources[0]
    return glob.has_magic(name.split("://", 1)[-1]) or is_directory(name) or (
        is_url(name) and name.endswith("/"))


def manifest_options(args: argparse.Namespace, options: Options, part_bytes: int) -> dict[str, Any]:
    return {"keep": options.keep, "positions": options.positions, "tally": options.tally, "chunk": options.chunk,
            "name_sources": options.name_sources, "dataset": options.dataset, "part_bytes": part_bytes}


def resume_command(argv: list[str] | None) -> str:
    import shlex

    words = list(sys.argv[1:] if argv is None else argv)
    return "referee " + shlex.join(words + ([] if "--resume" in words else ["--resume"]))


def validate(args: argparse.Namespace, argv: list[str] | None = None) -> int:
    from referee import report

    if args.jobs:
        os.environ["RAYON_NUM_THREADS"] = str(args.jobs)  # read when the native pool first starts
    if args.dataset is not None and (args.output != "-" or args.keep):
        raise Stop("--dataset DIR/ is the run's output, with its own columns: no -o or --keep beside it")
    output = args.dataset if args.dataset is not None else args.output
    directory = Directory(output) if args.dataset is not None or is_directory(output) else None
    if args.resume and directory is None:
        raise Stop("--resume finishes a run into a directory: -o DIR/ or --dataset DIR/")
    if args.dataset is not None:
        from referee import dataset

        dataset.check_installed()
    part_bytes = args.part_bytes or PART_BYTES[args.positions or args.dataset is not None]
    options = Options(args.keep, args.positions, args.report is not None, args.chunk, names_sources(args.sources),
                      args.dataset is not None)
    if args.scheduler and "-" in args.sources:
        raise Stop("standard input cannot go to a cluster: its workers read the sources themselves")
    cluster = Cluster(args.scheduler) if args.scheduler else None
    run = cluster.map if cluster is not None else local_map
    started = time.perf_counter()
    try:
        with contextlib.ExitStack() as stack:
            # Opened first, so that a report that cannot be written stops the run before the work, not after.
            for path in (args.report, None if directory is not None else args.output):
                if path is not None:  # a file only this client writes: what killed runs left of it goes
                    remove_partials_of(path)
            page = stack.enter_context(whole_file(args.report, "w")) if args.report is not None else None
            if directory is not None:
                counts, tally = into_directory(directory, args, options, part_bytes, run, cluster)
            else:
                target = stack.enter_context(whole_file(args.output))
                counts, tally = into_stream(target, args, options, part_bytes, run, cluster)
            elapsed = time.perf_counter() - started
            print(summary_line(counts, elapsed), file=sys.stderr)
            if page is not None:
                name = (args.sources[0] if len(args.sources) == 1 else f"{len(args.sources)} sources")
                name = "standard input" if name == "-" else os.path.basename(name.rstrip("/")) or name
                page.write(report.page(counts, (tally or Tally()).as_dict(), source=name, seconds=elapsed))
    except Exception as error:
        if cluster is None or not scheduler_lost(error):
            raise
        again = (f"resume with: {resume_command(argv)}" if directory is not None
                 else "run it again (with -o DIR/ a run can be resumed)")
        raise Stop(f"the Dask scheduler at {cluster.address} was lost ({type(error).__name__}); {again}") from None
    finally:
        if cluster is not None:
            cluster.close()
    return 0 if counts["legal"] == counts["records"] and counts["disagrees"] == 0 else 1


def progress_bar(args: argparse.Namespace, parts: list[Partition]) -> tqdm:
    # Locally progress counts bytes of records as read, which a compressed file's size does not say.
    sizes = [part.size for part in parts if part.compression is None]
    total = sum(sizes) if len(sizes) == len(parts) and None not in sizes else None  # type: ignore[arg-type]
    show = args.progress if args.progress is not None else sys.stderr.isatty()
    return tqdm(total=total, unit="B", unit_scale=True, disable=not show, file=sys.stderr)


def into_stream(target: IO[bytes], args: argparse.Namespace, options: Options, part_bytes: int,
                run: Callable, cluster: Cluster | None) -> tuple[Counts, Tally | None]:
    """Results in order into one stream. Locally a partition is replayed chunk by chunk into it; on a
    cluster each task's results come back to the client (the scalable path is `-o DIR/`)."""
    parts = number(plan(args.sources, part_bytes), run)
    counts, tally = dict.fromkeys(COUNT_KEYS, 0), None
    started = time.perf_counter()
    with progress_bar(args, parts) as bar:
        if cluster is not None:
            done = ((result.output, result.counts, result.tally, result.read)
                    for result in cluster.map(run_partition, parts, options, None))
        else:
            done = (chunk for part in parts for chunk in replay_partition(part, options))
        for output, part_counts, part_tally, read in done:
            target.write(output)
            counts, tally = add_counts(counts, part_counts), merge(tally, part_tally)
            bar.update(read or 0)
            rate = counts["records"] / max(time.perf_counter() - started, 1e-9)
            bar.set_postfix(records=counts["records"], rate=f"{rate:,.0f}/s")
    return counts, tally


def into_directory(directory: Directory, args: argparse.Namespace, options: Options, part_bytes: int,
                   run: Callable, cluster: Cluster | None) -> tuple[Counts, Tally | None]:
    """One part a partition, each written by its task; the manifest rewritten as each completes, so that
    `--resume` redoes only the parts not complete; `_SUCCESS` last."""
    settings = manifest_options(args, options, part_bytes)
    parts = plan(args.sources, part_bytes)
    if directory.exists(MANIFEST):
        if not args.resume:
            raise Stop(f"{directory.url} holds a run already: add --resume to finish it, or write elsewhere")
        manifest = directory.read_manifest()
        if manifest["engine"] != engine_version():  # its parts would not be those of one run
            raise Stop(f"{directory.url} was written by referee {manifest['engine']}, not {engine_version()}: "
                       "write elsewhere, or remove it to start over")
        if manifest["options"] != settings:
            raise Stop(f"{directory.url} was written with other options: {manifest['options']}")
        if [tuple(entry["partition"][key] for key in ("source", "compression", "start", "end"))
                for entry in manifest["parts"]] != [part.key() for part in parts]:
            raise Stop(f"{directory.url} was written from other sources (or they changed): {manifest['sources']}")
        entries = manifest["parts"]
    else:
        directory.fs.makedirs(directory.root, exist_ok=True)
        entries = [{"part": part_name(index, options.dataset), "partition": asdict(part), "done": None}
                   for index, part in enumerate(number(parts, run))]
        manifest = {"engine": engine_version(), "sources": args.sources, "options": settings, "parts": entries}
        directory.write(MANIFEST, orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
    directory.remove_partials()  # a killed run's, never complete: its parts are redone under new names
    todo = [index for index, entry in enumerate(entries) if not directory.part_complete(entry)]
    tasks = [(index, Partition(**entries[index]["partition"]), directory.path(entries[index]["part"])) for index in todo]
    with progress_bar(args, [task[1] for task in tasks]) as bar:
        mapped = (cluster.map(part_task, tasks, options, ordered=False) if cluster is not None
                  else run(lambda task: part_task(task, options), tasks))
        for index, done in mapped:
            entries[index]["done"] = {"counts": done.counts, "size": done.size, "sha256": done.sha256,
                                      "tally": plain_json(done.tally and done.tally.as_dict())}
            directory.write(MANIFEST, orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
            bar.update(done.read or 0)
    directory.remove_partials()  # a lost worker's attempts: every part is whole now
    counts, tally = dict.fromkeys(COUNT_KEYS, 0), None
    for entry in entries:
        counts = add_counts(counts, entry["done"]["counts"])
        part_tally = entry["done"]["tally"]
        tally = merge(tally, None if part_tally is None else Tally.from_dict(tally_of(part_tally)))
    manifest["counts"] = counts
    directory.write(MANIFEST, orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
    directory.write(SUCCESS, b"")
    return counts, tally


def part_task(task: tuple[int, Partition, str], options: Options) -> tuple[int, Done]:
    index, part, target = task
    return index, run_partition(part, options, target)
