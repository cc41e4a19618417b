"""`referee validate`: sources planned, numbered and replayed into a stream or a `DIR/` output, locally or
on a Dask cluster, the same steps either way (the package's docstring says which)."""

from __future__ import annotations

import argparse
import contextlib
import glob
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import IO, Any, NamedTuple

import orjson
from tqdm import tqdm

from referee._core import Tally
from referee.archives.cluster import Cluster, local_map, scheduler_lost
from referee.archives.failures import OutputError, SourceError, Stop, Unreadable, Unusable
from referee.archives.lease import Lease
from referee.archives.manifest import FORMAT, changes, check_resumable, entries_of, resumed_entries
from referee.archives.outputs import (
    MANIFEST,
    SUCCESS,
    Directory,
    is_directory,
    plain_json,
    remove_partials_of,
    tally_of,
    whole_file,
)
from referee.archives.sources import RECORD_BYTES, Partition, Plan, is_url, plan
from referee.archives.work import (
    COUNT_KEYS,
    Counts,
    Input,
    Options,
    Reading,
    Target,
    add_counts,
    merge,
    number,
    part_task,
    replay_partition,
    run_partition,
    scan,
)

__all__ = ["validate"]

#: Bytes of a plain file a partition (a task, a part of a `DIR/` output): a few chunks, so that tasks are
#: long enough to be worth sending and short enough to spread over workers and to redo after a failure.
PART_BYTES = {False: 8 << 20, True: 1 << 20}
#: Seconds at least between two writes of a manifest as parts complete.
SAVE_SECONDS = 1.0


def engine_version() -> str:
    from referee import __version__

    return __version__


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
            "name_sources": options.name_sources, "dataset": options.dataset, "part_bytes": part_bytes,
            "max_record_bytes": options.max_record_bytes}


def resume_command(argv: list[str] | None) -> str:
    import shlex

    words = list(sys.argv[1:] if argv is None else argv)
    return "referee " + shlex.join(words + ([] if "--resume" in words else ["--resume"]))


class Run(NamedTuple):
    """What a run is given: the command's arguments and words (`argv`, to say how to resume), its options,
    partitions' size, and how tasks run (`run`: locally or on `cluster`)."""

    args: argparse.Namespace
    argv: list[str] | None
    options: Options
    part_bytes: int
    run: Callable
    cluster: Cluster | None

    def again(self, directory: Directory | None) -> str:
        """How to go on after the run stopped."""
        if directory is not None:
            return f"resume with: {resume_command(self.argv)}"
        return "run it again (with -o DIR/ a run can be resumed)"


def validate(args: argparse.Namespace, argv: list[str] | None = None) -> int:
    if args.jobs:
        os.environ["RAYON_NUM_THREADS"] = str(args.jobs)  # read when the native pool first starts
    if args.dataset is not None and (args.output != "-" or args.keep):
        raise Unusable("--dataset DIR/ is the run's output, with its own columns: no -o or --keep beside it")
    output = args.dataset if args.dataset is not None else args.output
    directory = Directory(output) if args.dataset is not None or is_directory(output) else None
    if args.resume and directory is None:
        raise Unusable("--resume finishes a run into a directory: -o DIR/ or --dataset DIR/")
    if args.dataset is not None:
        from referee.archives import dataset

        dataset.check_installed()
    part_bytes = args.part_bytes or PART_BYTES[args.positions or args.dataset is not None]
    options = Options(args.keep, args.positions, args.report is not None, args.chunk, names_sources(args.sources),
                      args.dataset is not None,
                      args.max_record_bytes or RECORD_BYTES[args.positions or args.dataset is not None])
    if args.scheduler and "-" in args.sources:
        raise Unusable("standard input cannot go to a cluster: its workers read the sources themselves")
    cluster = Cluster(args.scheduler) if args.scheduler else None
    given = Run(args, argv, options, part_bytes, cluster.map if cluster is not None else local_map, cluster)
    try:
        return judged(given, directory)
    except SourceError as error:
        if error.corrupt:
            raise Unreadable(str(error)) from None
        raise Stop(f"cannot read {error}; {given.again(directory)}") from None
    except OutputError as error:
        raise Stop(f"{error}; {given.again(directory)}") from None
    except Exception as error:
        if cluster is None or not scheduler_lost(error):
            raise
        raise Stop(f"the Dask scheduler at {cluster.address} was lost ({type(error).__name__}); "
                   f"{given.again(directory)}") from None
    finally:
        if cluster is not None:
            cluster.close()


def judged(given: Run, directory: Directory | None) -> int:
    """The run: results into a stream or `DIR/`, then the report, then (for `DIR/`) `_SUCCESS`, each durable
    before the next; the exit status of its verdicts."""
    from referee.archives import report

    args = given.args
    started = time.perf_counter()
    for path in (args.report, None if directory is not None else args.output):
        if path is not None:  # a file only this client writes: what killed runs left of it goes
            remove_partials_of(path)
    with contextlib.ExitStack() as held:
        lease = None
        if directory is not None:
            lease = held.enter_context(Lease(directory.url, resume_command(given.argv)).held())
            if given.cluster is not None:  # its tasks (a lost worker's twins, a failed run's) end before the lease
                held.callback(given.cluster.close)
        with contextlib.ExitStack() as reported:
            # The report opened first, so that one that cannot be written stops the run before the work.
            page = reported.enter_context(whole_file(args.report, "w")) if args.report is not None else None
            if directory is not None and lease is not None:
                counts, tally = into_directory(directory, given, lease)
            else:
                with whole_file(args.output) as target:
                    counts, tally = into_stream(target, given)
            elapsed = time.perf_counter() - started
            print(summary_line(counts, elapsed), file=sys.stderr)
            if page is not None:
                name = (args.sources[0] if len(args.sources) == 1 else f"{len(args.sources)} sources")
                name = "standard input" if name == "-" else os.path.basename(name.rstrip("/")) or name
                page.write(report.page(counts, (tally or Tally()).as_dict(), source=name, seconds=elapsed))
        if directory is not None and lease is not None:  # last, once the report is in place: the run is complete
            directory.write(SUCCESS, b"", lease.owner, lease)
    return 0 if counts["legal"] == counts["records"] and counts["disagrees"] == 0 else 1


def progress_bar(args: argparse.Namespace, parts: list[Partition]) -> tqdm:
    # Locally progress counts bytes of records as read, which a compressed file's size does not say.
    sizes = [part.size for part in parts if part.compression is None]
    total = sum(sizes) if len(sizes) == len(parts) and None not in sizes else None  # type: ignore[arg-type]
    show = args.progress if args.progress is not None else sys.stderr.isatty()
    return tqdm(total=total, unit="B", unit_scale=True, disable=not show, file=sys.stderr)


def into_stream(target: IO[bytes], given: Run) -> tuple[Counts, Tally | None]:
    """Results in order into one stream. Locally a partition is replayed chunk by chunk into it; on a
    cluster each task's results come back to the client (the scalable path is `-o DIR/`)."""
    planned = plan(given.args.sources, given.part_bytes)
    parts = number(planned.parts, given.run, given.options)
    counts, tally, inputs = dict.fromkeys(COUNT_KEYS, 0), None, {}
    started = time.perf_counter()
    with progress_bar(given.args, parts) as bar:
        for part, done in zip(parts, replayed(parts, given)):
            for output, part_counts, part_tally, read in done:
                target.write(output)
                counts, tally = add_counts(counts, part_counts), merge(tally, part_tally)
                bar.update(read or 0)
                rate = counts["records"] / max(time.perf_counter() - started, 1e-9)
                bar.set_postfix(records=counts["records"], rate=f"{rate:,.0f}/s")
            inputs[part.key()] = done.input()
    check_sources(given, planned, parts, inputs, None)
    return counts, tally


class Replayed:
    """A partition's results as they come (chunk by chunk locally, whole from a cluster's task), and what the
    replay read of it (`input`, once they have come)."""

    def __init__(self, chunks: Iterable[tuple[bytes, Counts, Tally | None, int | None]], input: Callable) -> None:
        self.chunks, self.input = chunks, input

    def __iter__(self) -> Iterator[tuple[bytes, Counts, Tally | None, int | None]]:
        return iter(self.chunks)


def replayed(parts: list[Partition], given: Run) -> Iterator[Replayed]:
    if given.cluster is not None:
        for result in given.cluster.map(run_partition, parts, given.options, None):
            yield Replayed([(result.output, result.counts, result.tally, result.read)], lambda r=result: r.input)
        return
    for part in parts:
        reading = Reading(part, given.options)
        yield Replayed(replay_partition(reading, given.options), reading.input)


def into_directory(directory: Directory, given: Run, lease: Lease) -> tuple[Counts, Tally | None]:
    """One part a partition, each written by its task; the manifest rewritten (durably) as parts complete,
    so that `--resume` redoes only the parts not complete; `_SUCCESS` is the caller's, after the report."""
    planned = plan(given.args.sources, given.part_bytes)
    manifest = {"format": FORMAT, "engine": engine_version(), "sources": given.args.sources,
                "options": manifest_options(given.args, given.options, given.part_bytes), "files": planned.files,
                "parts": entries_to_do(directory, given, planned, manifest_options(given.args, given.options,
                                                                                   given.part_bytes))}
    entries = manifest["parts"]
    saved = Saved(directory, manifest, lease)
    directory.remove(SUCCESS)  # not complete while parts are written (a resumed run of changed sources)
    saved.save()
    directory.tidy({entry["part"] for entry in entries}, lease.owner)
    fence = lease.fence if given.cluster is not None else lease  # a task may outlive its client on a cluster
    tasks = [(index, Partition(**entry["partition"]), Target(directory.path(entry["part"]), lease.owner, fence))
             for index, entry in enumerate(entries) if entry["done"] is None]
    with progress_bar(given.args, [task[1] for task in tasks]) as bar:
        mapped = (given.cluster.map(part_task, tasks, given.options, ordered=False) if given.cluster is not None
                  else given.run(lambda task: part_task(task, given.options), tasks))
        for index, done in mapped:
            entries[index]["done"] = {"counts": done.counts, "size": done.size, "sha256": done.sha256,
                                      "input": done.input, "tally": plain_json(done.tally and done.tally.as_dict())}
            saved.save(soon=True)
            bar.update(done.read or 0)
    directory.tidy({entry["part"] for entry in entries}, None)  # lost workers' attempts: every part is whole
    parts = [Partition(**entry["partition"]) for entry in entries]
    check_sources(given, planned, parts, {part.key(): entry["done"]["input"] for part, entry in zip(parts, entries)},
                  directory)
    counts, tally = dict.fromkeys(COUNT_KEYS, 0), None
    for entry in entries:
        counts = add_counts(counts, entry["done"]["counts"])
        part_tally = entry["done"]["tally"]
        tally = merge(tally, None if part_tally is None else Tally.from_dict(tally_of(part_tally)))
    manifest["counts"] = counts
    saved.save()
    return counts, tally


def entries_to_do(directory: Directory, given: Run, planned: Plan, settings: dict[str, Any]) -> list[dict[str, Any]]:
    """The manifest's parts: a new run's, all to do; a resumed run's, those kept done (`resumed_entries`)."""
    if not directory.exists(MANIFEST):
        directory.makedirs()
        return entries_of(number(planned.parts, given.run, given.options), given.options.dataset)
    if not given.args.resume:
        raise Unusable(f"{directory.url} holds a run already: add --resume to finish it, or write elsewhere")
    old = directory.read_manifest()
    check_resumable(old, engine_version(), settings, directory.url)
    streams = [part.source for part in planned.parts if part.url == "-" or "stream" in planned.files.get(part.source, {})]
    if streams:
        raise Unusable(f"{streams[0]} is a stream (standard input, a pipe): read once, it cannot be compared "
                       "with what the run read; run it again into a new directory")
    return resumed_entries(old, planned, given.run, directory, given.options)


class Saved:
    """The manifest written durably: at once (`save()`), or as parts complete at most once a `SAVE_SECONDS`
    (`save(soon=True)`): a manifest of a thousand parts rewritten at each would write it a thousand times.
    A kill loses only the record of parts completed since, which a resume redoes."""

    def __init__(self, directory: Directory, manifest: dict[str, Any], lease: Lease) -> None:
        self.directory, self.manifest, self.lease, self.last = directory, manifest, lease, 0.0

    def save(self, soon: bool = False) -> None:
        if soon and time.monotonic() - self.last < SAVE_SECONDS:
            return
        self.directory.write(MANIFEST, orjson.dumps(self.manifest, option=orjson.OPT_INDENT_2), self.lease.owner,
                             self.lease)
        self.last = time.monotonic()


def check_sources(given: Run, planned: Plan, parts: list[Partition], inputs: dict[tuple, Input],
                  directory: Directory | None) -> None:
    """Refuses to finish a run whose parts could be of two versions of a source: each partition's records
    must be as many as its numbering says, and a file that changed since it was planned must read now as its
    tasks read it (a file that only grew does: it is read as far as its size when planned)."""
    for part, after in zip(parts, parts[1:]):
        if after.source == part.source and after.start != 0 and after.first - part.first != inputs[part.key()]["records"]:
            raise Stop(f"{part.source} changed while the run read it (its records moved); {given.again(directory)}")
    try:
        now = plan(given.args.sources, given.part_bytes).files
    except FileNotFoundError:
        now = {}
    streams = {name for name, fingerprint in planned.files.items() if "stream" in fingerprint}
    changed = {name: what for name, what in changes(planned.files, now).items() if name not in streams}
    reread = [part for part in parts if part.source in changed]
    for part, read in zip(reread, given.run(partial(scan, options=given.options), reread)):
        if read != inputs[part.key()]:
            raise Stop(f"{part.source} changed while the run read it ({changed[part.source]}), so its results could "
                       f"mix two versions; {given.again(directory)}")
    for name, what in changed.items():
        print(f"referee: {name}: {what} while the run read it; it was read as it was when the run began",
              file=sys.stderr)
