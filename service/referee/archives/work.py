"""The work: a partition replayed chunk by chunk (one native call a chunk), its results written to its part
of a `DIR/` output or returned, with its counts and tally. The same task locally and on a Dask worker."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any, NamedTuple

import orjson

from referee._core import Tally  # a native tally, merged without leaving Rust
from referee.archives.lease import Fence, Lease
from referee.archives.outputs import whole_file
from referee.archives.sources import MAX_RECORD_BYTES, Partition, is_record, open_lines

__all__ = ["CHUNK_RECORDS", "COUNT_KEYS", "Counts", "Done", "Hashed", "Input", "Options", "Reading", "Target",
           "add_counts", "chunks", "merge", "number", "part_task", "replay_partition", "run_partition", "scan"]

#: Records per chunk (one native call): enough work to keep every core busy.
CHUNK_RECORDS = 20_000
#: At most this many bytes of records a chunk, so that a chunk's results stay a few tens of megabytes:
#: a record's result is about its size (a verdict and a position), and with every position a dozen to a
#: few dozen times its moves' bytes.
CHUNK_BYTES = {False: 16 << 20, True: 1 << 20}
COUNT_KEYS = ("records", "legal", "illegal", "errors", "agrees", "disagrees", "absent")

Counts = dict[str, int]  # records, legal, illegal, errors (not records), agrees, disagrees, absent (claims)
Input = dict[str, Any]  # a partition's records as read: `records` (how many) and the `sha256` of their bytes


class Options(NamedTuple):
    """What each result carries beyond its verdict, whether chunks are tallied, and the chunks' bounds."""

    keep: list[str]
    positions: bool
    tally: bool
    chunk: int
    name_sources: bool  # each result names its `source` (several sources, a glob or a directory)
    dataset: bool = False  # parts are Parquet, a row a ply (`--dataset`, referee.archives.dataset), not results
    max_record_bytes: int = MAX_RECORD_BYTES  # a longer record is its own error, never held (`open_lines`)


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


class Reading:
    """A partition's records read chunk by chunk (one native replay each), each chunk with its first record's
    number; smaller chunks when every position is written (`--positions`, `--dataset`). As it reads, it
    counts the records and hashes their bytes: `input()`, the partition's fingerprint as its task read it,
    which says whether another reading (a resumed run's, the end of this one's) read the same records."""

    def __init__(self, part: Partition, options: Options | None = None) -> None:
        self.part = part
        self.size = CHUNK_BYTES[options is not None and (options.positions or options.dataset)]
        self.records = options.chunk if options is not None else CHUNK_RECORDS
        self.bound = options.max_record_bytes if options is not None else MAX_RECORD_BYTES
        self.digest, self.count = hashlib.sha256(), 0

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        for first, data in chunks(open_lines(self.part, self.bound), self.records, self.size, self.part.first):
            self.digest.update(data)
            self.count += data.count(b"\n")
            yield first, data

    def input(self) -> Input:
        return {"records": self.count, "sha256": self.digest.hexdigest()}


def scan(part: Partition, options: Options) -> Input:
    """A partition's records counted and hashed where the data is, as its replay reads them (`Reading`, with
    the run's bound on a record)."""
    reading = Reading(part, options)
    for _ in reading:
        pass
    return reading.input()


def number(parts: list[Partition], run: Callable[[Callable, list], Iterable], options: Options,
           records: dict[tuple, int] | None = None) -> list[Partition]:
    """The partitions with the number of their first record: the records of the partitions before them in
    their source, as `records` says (by `Partition.key`) or counted by `run` (which maps a function over
    items, locally or on a cluster)."""
    records = dict(records or {})
    counted = [part for index, part in enumerate(parts)
               if index + 1 < len(parts) and parts[index + 1].first == 0 and part.key() not in records]
    records.update(zip((part.key() for part in counted), (done["records"] for done in run(functools.partial(scan, options=options), counted))))
    numbered, first = [], 1
    for part in parts:
        first = 1 if part.start == 0 else first
        numbered.append(replace(part, first=first))
        first += records.get(part.key(), 0)
    return numbered


def replay_partition(reading: Reading, options: Options) -> Iterator[tuple[bytes, Counts, Tally | None, int]]:
    """A partition's results chunk by chunk, each with its counts, tally and bytes of records."""
    from referee import _core

    part = reading.part
    name = b',"source":' + orjson.dumps(part.source) + b"}\n" if options.name_sources else None
    for first, data in reading:
        output, counts, tally = _core.replay_records(data, first, options.keep, options.positions, options.tally,
                                                     options.max_record_bytes)
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
    input: Input


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


class Target(NamedTuple):
    """Where a task writes its part of a `DIR/` output: `path`, the `owner` its partial file is named for,
    and the `fence` it checks before moving the part into place: on a cluster `lease.Fence`, which asks the
    store (a task may outlive its client); locally the run's `lease.Lease`, whose heartbeat has asked it."""

    path: str
    owner: str
    fence: Fence | Lease


def run_partition(part: Partition, options: Options, target: Target | None) -> Done:
    """One task, locally or on a Dask worker (which imports the installed package): replays a partition
    and writes its results to `target` (a part of a `DIR/` output), or returns them when there is none."""
    if options.dataset:
        assert target is not None
        return write_rows(part, options, target)
    counts: Counts = dict.fromkeys(COUNT_KEYS, 0)
    tally = None
    reading = Reading(part, options)
    kept = io.BytesIO()  # the results, when there is no part to write them to
    written = whole_file(target.path, owner=target.owner, fence=target.fence) if target is not None else None
    with written if written is not None else contextlib.nullcontext(kept) as file:
        out = Hashed(file)
        for output, chunk_counts, chunk_tally, _ in replay_partition(reading, options):
            out.write(output)
            counts, tally = add_counts(counts, chunk_counts), merge(tally, chunk_tally)
    return Done(kept.getvalue() if target is None else None, counts, tally, out.size, out.digest.hexdigest(), part.size,
                reading.input())


def write_rows(part: Partition, options: Options, target: Target) -> Done:
    """A partition's task with `--dataset`: a Parquet part at `target` (a row group a chunk), its rows the
    native replay's (`_core.replay_rows`), chunk by chunk as every partition is cut (`referee.archives.dataset`)."""
    import pyarrow.parquet as pq

    from referee import _core
    from referee.archives import dataset

    counts: Counts = dict.fromkeys(COUNT_KEYS, 0)
    part_tally, table_schema = None, dataset.schema()
    reading = Reading(part, options)
    with whole_file(target.path, owner=target.owner, fence=target.fence) as file:
        out = Hashed(file)
        with pq.ParquetWriter(out, table_schema, compression="zstd") as writer:
            for first, data in reading:
                columns, chunk_counts, chunk_tally = _core.replay_rows(data, first, options.tally, options.max_record_bytes)
                if columns["rows"]:
                    writer.write_table(dataset.table(part.source, columns, table_schema))
                counts, part_tally = add_counts(counts, chunk_counts), merge(part_tally, chunk_tally)
    return Done(None, counts, part_tally, out.size, out.digest.hexdigest(), part.size, reading.input())


def part_task(task: tuple[int, Partition, Target], options: Options) -> tuple[int, Done]:
    index, part, target = task
    return index, run_partition(part, options, target)
