"""Outputs that cannot lie: a file appears at its path only once whole; a `DIR/` output holds one part a
partition, a manifest saying which are complete, and `_SUCCESS` last."""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from referee.archives.failures import OutputError, SourceError, Stop, Unusable, cause, is_store_error
from referee.archives.sources import is_url

__all__ = ["Directory", "MANIFEST", "SUCCESS", "client_owner", "is_directory", "is_local", "part_name",
           "partial_of", "plain_json", "process_start", "remove_partials_of", "sync_directory", "tally_of", "whole_file"]

MANIFEST = "_manifest.json"
SUCCESS = "_SUCCESS"

#: What names an attempt's file until it is whole: `.NAME.partial-<owner>-<token>` beside it, `owner` the run's
#: (its lease's, or `p<pid>` for a file only its client writes), the token the attempt's own, the leading dot
#: hiding it from readers of the directory (pyarrow, Spark, `hidden`).
PARTIAL = ".partial-"


def partial_of(target: str, owner: str) -> str:
    """The name an attempt writes `target` under: its own, so that two attempts at one file (a lost worker's
    and its replacement's) never write into one another."""
    folder, slash, name = target.rpartition("/")
    return f"{folder}{slash}.{name}{PARTIAL}{owner}-{secrets.token_hex(8)}"


def owner_of(partial: str) -> str:
    return partial.rsplit(PARTIAL, 1)[1].rsplit("-", 1)[0]


def client_owner() -> str:
    """The owner of the files only this process writes (`-o FILE`, `--report`)."""
    return f"p{os.getpid()}"


def remove_partials(fs: Any, folder: str, gone: Callable[[str], bool], name: str = "") -> None:
    """Removes the partial files in `folder` (of the file `name` only, when given) whose owner is `gone`:
    never a whole file, which is only ever moved into place, nor the attempt of a run still writing."""
    with contextlib.suppress(FileNotFoundError):
        for path in fs.ls(folder, detail=False):
            base = path.rsplit("/", 1)[-1]
            if base.startswith(f".{name}{PARTIAL}" if name else ".") and PARTIAL in base and gone(owner_of(base)):
                with contextlib.suppress(OSError):  # gone already (its attempt ended meanwhile)
                    fs.rm(path)


def process_gone(owner: str) -> bool:
    """Whether the process a client's partial file names has ended (on this machine)."""
    if not owner.startswith("p") or not owner[1:].isdigit():
        return True
    return process_start(int(owner[1:])) is None


def process_start(pid: int) -> str | None:
    """When process `pid` started (in clock ticks since boot): None when no such process runs. Told apart
    from a later process given the same id."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return file.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return ""


def is_device(path: str) -> bool:
    """Whether a local path is there and no regular file: a device or a pipe (`-o /dev/null`, a FIFO)."""
    return not is_url(path) and os.path.exists(path) and not os.path.isfile(path)


def remove_partials_of(path: str) -> None:
    """Removes what killed runs left of a file only the client writes (`-o FILE`, `--report`): the partial
    files of processes that have ended, never a running one's."""
    if path == "-" or is_device(path):
        return
    import fsspec

    fs, target = fsspec.core.url_to_fs(path)
    folder, slash, name = target.rpartition("/")
    try:
        remove_partials(fs, folder or slash or ".", process_gone, name)
    except Exception as error:
        if not is_store_error(error):
            raise
        raise output_error(path, error) from None


def is_local(fs: Any) -> bool:
    protocols = fs.protocol if isinstance(fs.protocol, tuple) else (fs.protocol,)
    return "file" in protocols or "local" in protocols


def sync_directory(path: str) -> None:
    """Makes a local directory's entries durable (a file created, renamed or removed in it)."""
    descriptor = os.open(path or ".", os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


@contextlib.contextmanager
def whole_file(path: str, mode: str = "wb", owner: str | None = None, fence: Any = None) -> Iterator[Any]:
    """A file that appears at `path` only once complete and durable, on a local disk or an object store
    alike: written to `.NAME.partial-<owner>-<token>` beside it (`partial_of`), and when complete flushed,
    fsync'ed, moved to `PATH` and its directory fsync'ed (locally; on an object store an object is durable
    once its upload has ended, and the move is a copy). Removed when the writing fails; a killed run leaves
    only its hidden partial file, which nothing reads and a later run removes. `fence`, when given, is
    checked just before the move (`lease.Fence`: the run still holds the directory). Two attempts at one file
    each move a whole file into place: the last one stays. A device or a pipe is written to as it is. A
    failure to write is an `OutputError` naming the path."""
    if path == "-":
        yield Unshortened(sys.stdout.buffer) if "b" in mode else sys.stdout
        return
    if is_device(path):  # written straight to: a move would replace it
        with open(path, mode, encoding=None if "b" in mode else "utf-8") as file:
            yield Unshortened(file) if "b" in mode else file
        return
    import fsspec

    fs, target = fsspec.core.url_to_fs(path)
    partial = partial_of(target, owner or client_owner())
    local = is_local(fs)
    try:
        file = (open(partial, mode, encoding=None if "b" in mode else "utf-8") if local
                else fs.open(partial, mode, **({} if "b" in mode else {"encoding": "utf-8"})))
    except FileNotFoundError:
        raise FileNotFoundError(2, "no such directory", path) from None
    except Exception as error:
        raise output_error(path, error) from None
    within: BaseException | None = None  # the writer's own failure (a source unreadable): passed on as it is
    guarded = Guarded(file, path)
    try:
        with file:
            try:
                yield guarded
            except BaseException as error:
                within = error
                raise
            file.flush()
            if local:
                os.fsync(file.fileno())
        if not local and not guarded.written:  # an empty file is no upload to some stores (s3fs): made here
            fs.pipe_file(partial, b"")
        if fence is not None:
            fence.check()
        if local:
            os.replace(partial, target)
            sync_directory(os.path.dirname(target))
        else:
            fs.invalidate_cache(partial)  # a listing cached before the upload ended would hide it
            fs.mv(partial, target)
    except BaseException as error:
        with contextlib.suppress(Exception):
            fs.rm(partial)
        # The store's failure, even when closing the file raised it in place of the writer's own.
        if error is not within and is_store_error(error):
            raise output_error(path, error) from None
        raise


class Unshortened:
    """A stream (a pipe, a device) written to whole: a buffered write to a pipe returns short when a signal cuts
    it (SIGPIPE, its reader gone: `| head`), and the rest was lost unsaid, the run ending as if complete.
    Written again, the rest goes or its failure is raised (`BrokenPipeError`, which ends the command quietly)."""

    def __init__(self, file: Any) -> None:
        self.file = file

    def write(self, data: Any) -> int:
        rest = memoryview(data).cast("B")
        while rest:
            rest = rest[self.file.write(rest):]
        return len(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.file, name)


class Guarded:
    """A file whose failures to write (a full disk, a store unreachable: a write, or a flush that uploads)
    are `OutputError`s naming its path."""

    def __init__(self, file: Any, path: str) -> None:
        self.file, self.path, self.written = file, path, 0

    def write(self, data: Any) -> int:
        self.written += len(data)
        return self.guarded(self.file.write, data)

    def flush(self) -> None:
        self.guarded(self.file.flush)

    def guarded(self, call: Callable[..., Any], *args: Any) -> Any:
        try:
            return call(*args)
        except Exception as error:
            if not is_store_error(error):
                raise
            raise output_error(self.path, error) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.file, name)


def output_error(path: str, error: BaseException) -> BaseException:
    return error if isinstance(error, (Stop, SourceError, OutputError)) else OutputError(path, cause(error))


def is_directory(output: str) -> bool:
    return output.endswith("/") or (not is_url(output) and output != "-" and os.path.isdir(output))


class Directory:
    """A `DIR/` output (a local directory or a URL): one part a partition, `_manifest.json` saying which
    are complete (sources, ranges, counts, checksums, options, engine version), `_SUCCESS` last, and the
    lease of the run writing it (`lease.Lease`). Every failure to reach it is an `OutputError`."""

    def __init__(self, url: str) -> None:
        from fsspec.core import url_to_fs

        self.url = url.rstrip("/") + "/"
        self.fs, self.root = url_to_fs(self.url)
        self.base = self.root.rstrip("/")
        self.local = is_local(self.fs)

    def path(self, name: str) -> str:
        return self.url + name

    @contextlib.contextmanager
    def reached(self, name: str = "") -> Iterator[None]:
        """Any failure of the store within the block, said as one naming the directory (or its file)."""
        try:
            yield
        except Exception as error:
            if isinstance(error, FileNotFoundError) or not is_store_error(error):
                raise
            raise output_error(self.path(name), error) from None

    def makedirs(self) -> None:
        with self.reached():
            self.fs.makedirs(self.base, exist_ok=True)

    def exists(self, name: str) -> bool:
        with self.reached(name):
            return self.fs.exists(f"{self.base}/{name}")

    def read_manifest(self) -> Any:
        with self.reached(MANIFEST):
            data = self.fs.cat_file(f"{self.base}/{MANIFEST}")
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError as error:
            raise Unusable(f"{self.path(MANIFEST)} is no manifest ({error}): write elsewhere, or remove it") from None

    def write(self, name: str, data: bytes, owner: str, fence: Any = None) -> None:
        with whole_file(self.path(name), owner=owner, fence=fence) as file:
            file.write(data)

    def remove(self, name: str) -> None:
        """Removes a file durably (`_SUCCESS`, before a run that changes the parts)."""
        with self.reached(name):
            if self.fs.exists(f"{self.base}/{name}"):
                self.fs.rm(f"{self.base}/{name}")
                if self.local:
                    sync_directory(self.base)

    def tidy(self, parts: set[str], owner: str | None) -> None:
        """Leaves the directory holding only what a run of this manifest writes: removes the partial files of
        runs other than `owner`'s (the lease says they are gone: killed runs, orphaned tasks; every run's,
        `owner` None, once every part is whole: a lost worker's attempts too), and parts the manifest no
        longer names (a resumed run of sources that changed)."""
        with self.reached():
            remove_partials(self.fs, self.base, lambda other: other != owner)
            for path in self.fs.ls(self.base, detail=False):
                name = path.rsplit("/", 1)[-1]
                if name.startswith("part-") and name not in parts:
                    self.fs.rm(path)


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
