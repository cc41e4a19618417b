"""Sources into partitions: paths, globs, directories, fsspec URLs and `-` become byte ranges of plain files
(cut at line ends) or compressed files whole, numbered by the records before them; and a partition's lines,
read where its task runs."""

from __future__ import annotations

import contextlib
import fnmatch
import glob
import importlib.util
import io
import os
import stat
import sys
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import IO, Any, NamedTuple

from referee.archives.failures import SourceError, Unusable, cause, is_store_error

__all__ = ["Found", "MAX_RECORD_BYTES", "Partition", "Plan", "RECORD_BYTES", "is_record", "is_url", "local_files",
           "open_lines", "plan", "read_lines"]

#: Compression by the source's name, as fsspec names it.
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zst": "zstd"}
#: The longest record read (`--max-record-bytes`), its line end aside, by whether every position is written
#: (`--positions`, `--dataset`): a longer one is its own error, never held whole. A record of a million moves
#: is 6-7 MB; replaying one of 16 MiB (5.6 million empty moves) takes about 200 MiB, which keeps a run within
#: 512 MiB beside a zstd window of `WINDOW_BYTES`. Every position of a legal record is 16 to 70 times its
#: bytes (a long Hypnosia game of six players: a 2 MB record took 177 MiB with `--positions`, 253 MiB with
#: `--dataset`, 547 MiB for many of them through a 128 MiB zstd window), so 1 MiB then (as `CHUNK_BYTES`).
RECORD_BYTES = {False: 16 << 20, True: 1 << 20}
MAX_RECORD_BYTES = RECORD_BYTES[False]
#: The largest window a compressed source may ask for (zstd's window, xz's dictionary): zstd's own
#: default limit; `xz -9` uses 64 MiB. A frame asking for more (`zstd --long=31`) is refused.
WINDOW_BYTES = 128 << 20
#: An xz decoder's memory at most: its dictionary and its own state.
XZ_MEMORY = WINDOW_BYTES + (1 << 20)
#: Bytes read from storage, or from a decoder, at a time.
BUFFER_BYTES = 1 << 20


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
    limit: int | None = None  # bytes of the source read at most: its size when planned (None: a stream)

    def key(self) -> tuple:
        return self.source, self.compression, self.start, self.end


def is_url(name: str) -> bool:
    return "://" in name


def compression_of(name: str) -> str | None:
    compression = COMPRESSIONS.get(os.path.splitext(name)[1].lower())
    if compression == "zstd" and importlib.util.find_spec("zstandard") is None:
        raise Unusable(f"{name}: reading .zst needs zstandard: pip install 'referee[archives]'")
    return compression


def hidden(name: str) -> bool:
    """Files a directory's listing skips, as Spark and Hadoop do (`_SUCCESS`, `_manifest.json`, `.x`), and
    those within such directories; `name` is relative to the directory listed."""
    return any(step.startswith(("_", ".")) and step != "." for step in name.replace(os.sep, "/").split("/"))


class Found(NamedTuple):
    """A file a source names: its `name` (as results give it), the `url` opened, its `size`, and its
    `version` as its store describes it (a local file's times and inode, an object's ETag, version id or
    time of last change), which a resumed run compares."""

    name: str
    url: str
    size: int
    version: dict[str, Any]

    def fingerprint(self) -> dict[str, Any]:
        return {"size": self.size, **self.version}


#: What an fsspec store's `info` may say of an object's version, whichever it says: S3's ETag and version id
#: and time of last change, GCS's generation, Azure's etag, a local or in-memory file's times.
VERSION_KEYS = ("ETag", "etag", "VersionId", "version_id", "generation", "md5Hash", "LastModified",
                "last_modified", "mtime", "updated", "created", "ino")


def local_version(stat: os.stat_result) -> dict[str, Any]:
    """A local file's version: any write changes its ctime (which no one can set), a replacement its inode."""
    return {"mtime_ns": stat.st_mtime_ns, "ctime_ns": stat.st_ctime_ns, "inode": stat.st_ino}


def remote_version(info: dict[str, Any]) -> dict[str, Any]:
    return {key: str(info[key]) for key in VERSION_KEYS if info.get(key) is not None}


def local_files(name: str) -> list[Found]:
    """Each file a local path, glob or directory names, in name order. A glob or a directory gives its
    regular files only (a symbolic link to one included), never entering a symbolic link to a directory
    (`**` through a link to `.` would loop), and says on stderr what it skips (`listed`). A path named
    is read whatever it is: a FIFO or a device as a stream (`opened`)."""
    if glob.has_magic(name):
        paths = glob_paths(name)
    elif os.path.isdir(name):
        paths = walk(name, lambda steps: not hidden(steps[-1]), lambda steps: not hidden(steps[-1]))
    else:
        return [found(name, os.stat(name))]
    return [found(path, status) for path in sorted(set(paths)) if (status := regular(path)) is not None]


def found(path: str, status: os.stat_result) -> Found:
    """A local file found; one that is no regular file (a FIFO, a device) is a stream, read once as it comes:
    it has no size, and no version to compare (what passes through a FIFO changes its times)."""
    if not stat.S_ISREG(status.st_mode):
        return Found(path, os.path.abspath(path), 0, {"stream": True})
    return Found(path, os.path.abspath(path), status.st_size, local_version(status))


def walk(root: str, enter: Callable[[tuple[str, ...]], bool], take: Callable[[tuple[str, ...]], bool]) -> Iterator[str]:
    """The paths below `root` (`''`: the current directory) whose steps from it `take` accepts, entering
    the directories whose steps `enter` accepts; never a symbolic link to a directory, which is given
    instead when it would have been entered (to be said skipped). A stack, not recursion: any depth."""
    stack: list[tuple[str, tuple[str, ...]]] = [(root, ())]
    while stack:
        folder, steps = stack.pop()
        try:
            with os.scandir(folder or ".") as listing:
                entries = [(entry.name, entry.is_dir(follow_symlinks=False), entry.is_symlink()) for entry in listing]
        except (FileNotFoundError, NotADirectoryError):
            continue  # a glob's root that is not there names nothing
        except OSError as error:
            skipped(folder, f"cannot list it ({cause(error)})")
            continue
        for name, is_folder, is_link in entries:
            path, here = os.path.join(folder, name), (*steps, name)
            if is_folder:
                if enter(here):
                    stack.append((path, here))
            elif take(here) or (is_link and enter(here) and os.path.isdir(path)):
                yield path


def glob_paths(pattern: str) -> Iterator[str]:
    """What a glob names, as glob.glob(pattern, recursive=True) finds it (`*` within a name and not a
    leading dot, `**` any depth of directories not hidden) but through no symbolic link to a directory."""
    parts = pattern.split(os.sep)
    first = next(index for index, part in enumerate(parts) if glob.has_magic(part))
    root = os.sep.join(parts[:first]) or (os.sep if first else "")
    rest = parts[first:]
    return walk(root, lambda steps: begins(rest, steps), lambda steps: matches(rest, steps))


def name_matches(part: str, name: str) -> bool:
    return (part.startswith(".") or not name.startswith(".")) and fnmatch.fnmatch(name, part)


def matches(parts: list[str], steps: tuple[str, ...]) -> bool:
    """Whether a path's steps are a glob's components (`**`: any number of them)."""
    if not parts:
        return not steps
    if parts[0] == "**":
        return matches(parts[1:], steps) or (bool(steps) and not steps[0].startswith(".") and matches(parts, steps[1:]))
    return bool(steps) and name_matches(parts[0], steps[0]) and matches(parts[1:], steps[1:])


def begins(parts: list[str], steps: tuple[str, ...]) -> bool:
    """Whether a directory's steps begin a path a glob's components may match (whether to enter it)."""
    if not steps:
        return bool(parts)
    if not parts:
        return False
    if parts[0] == "**":
        return begins(parts[1:], steps) or (not steps[0].startswith(".") and begins(parts, steps[1:]))
    return name_matches(parts[0], steps[0]) and begins(parts[1:], steps[1:])


#: What a path that is no regular file is, by its mode.
KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
         (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def regular(path: str) -> os.stat_result | None:
    """The status of a path a glob or a directory found, when it is a regular file (or a symbolic link to
    one); else None, and a line on stderr saying what it is."""
    link = "a symbolic link to " if os.path.islink(path) else ""
    try:
        status = os.stat(path)
    except OSError as error:
        skipped(path, "a broken symbolic link" if link else cause(error))
        return None
    if stat.S_ISREG(status.st_mode):
        return status
    kind = next((kind for test, kind in KINDS if test(status.st_mode)), "a special file")
    skipped(path, f"{link}{kind} ({'not followed' if kind == 'a directory' else 'not a regular file'})")
    return None


#: The paths said skipped: once each, however many times the sources are listed in a run.
SKIPPED: set[str] = set()


def skipped(path: str, why: str) -> None:
    if path not in SKIPPED:
        SKIPPED.add(path)
        print(f"referee: skipped {path}: {why}", file=sys.stderr)


def remote_files(url: str) -> list[Found]:
    """Each file an fsspec URL, glob or directory names, in name order (its URL its name). A `file://`
    URL is listed as a local path is (`local_files`: links and special files are the local disk's)."""
    from fsspec.core import url_to_fs
    from fsspec.implementations.local import LocalFileSystem

    fs, path = url_to_fs(url)
    if isinstance(fs, LocalFileSystem):
        return [file._replace(name=fs.unstrip_protocol(file.url)) for file in local_files(path)]
    if glob.has_magic(path):
        found = fs.glob(path, detail=True)
    elif fs.isdir(path):
        found = {name: info for name, info in fs.find(path, detail=True).items()
                 if not hidden(name[len(path.rstrip("/")) + 1:])}
    else:
        found = {path: fs.info(path)}
    files = [Found(fs.unstrip_protocol(name), fs.unstrip_protocol(name), info["size"], remote_version(info))
             for name, info in sorted(found.items()) if info.get("type", "file") == "file"]
    if not files:
        raise FileNotFoundError(2, "no such file", url)
    return files


def listed(source: str) -> list[Found]:
    """The files a source names; a source that names none is `FileNotFoundError` naming it, a store that
    cannot be listed a `SourceError`, a protocol whose package is missing `Unusable`."""
    try:
        found = remote_files(source) if is_url(source) else local_files(source)
    except FileNotFoundError:
        found = []
    except ImportError as error:
        raise Unusable(f"{source}: {error}") from None
    except Exception as error:
        if not is_store_error(error):
            raise
        raise SourceError(source, cause(error)) from None
    if not found:
        raise FileNotFoundError(2, "no such file", source)
    return found


class Plan(NamedTuple):
    """The partitions of the sources, in order, and each file's fingerprint (`Found.fingerprint`) by name."""

    parts: list[Partition]
    files: dict[str, dict[str, Any]]


def plan(sources: list[str], part_bytes: int) -> Plan:
    """The partitions of the sources, in order, not numbered yet, each reading its file no further than its
    size now (`limit`)."""
    parts, files = [], {}
    for source in sources:
        if source == "-":
            parts.append(Partition("-", "-", None, 0, None, None, first=1))
            continue
        found = listed(source)
        for file in found:
            files[file.name] = file.fingerprint()
            name, url, size = file.name, file.url, file.size
            compression = compression_of(name)
            if compression is not None or size <= part_bytes:
                parts.append(Partition(name, url, compression, 0, None, size, first=1, limit=size))
                continue
            for start in range(0, size, part_bytes):
                end = min(start + part_bytes, size)
                parts.append(Partition(name, url, None, start, end, end - start, first=1 if start == 0 else 0,
                                       limit=size))
    return Plan(parts, files)


@contextlib.contextmanager
def opened(part: Partition) -> Iterator[IO[bytes]]:
    """The partition's source, open and decompressed as a buffered stream of lines (1 MiB reads), read no
    further than its `limit`: a file that grows meanwhile is read as it was planned, its last line cut
    there read as if the file ended there. A source that is no regular file (standard input, a FIFO, a
    device) is read as it comes. Failing to open or read its storage is a `SourceError` (`Bounded`)."""
    with contextlib.ExitStack() as stack:
        try:
            if part.url == "-":
                raw: IO[bytes] = sys.stdin.buffer  # not closed: the process's
            elif not is_url(part.url):
                raw = stack.enter_context(open(part.url, "rb", buffering=0))
            else:
                import fsspec

                raw = stack.enter_context(fsspec.open(part.url, "rb").open())
        except Exception as error:
            raise SourceError(part.source, cause(error)) from error
        stored = Bounded(raw, None if is_stream(raw) else part.limit, part.source)
        stream = decompressed(stored, part.compression)
        stack.callback(stream.close)
        yield stream


def is_stream(raw: IO[bytes]) -> bool:
    """Whether an open source is no regular file (a pipe, a FIFO, a device, a socket): it has no size."""
    try:
        return not stat.S_ISREG(os.fstat(raw.fileno()).st_mode)
    except (AttributeError, OSError, ValueError):  # an object store's file has no descriptor
        return False


class Bounded(io.RawIOBase):
    """A source's stored bytes, read no further than `limit` bytes from its start (None: to its end); any
    failure to read them is a `SourceError` naming the source, the storage's fault (not its bytes')."""

    def __init__(self, raw: IO[bytes], limit: int | None, source: str) -> None:
        super().__init__()
        self.raw, self.limit, self.source, self.position = raw, limit, source, 0
        self.seen: Callable[[memoryview], None] | None = None  # shown each block read (`ZstdFrames`)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return self.raw.seekable()

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        self.position = self.stored(self.raw.seek, offset, whence)
        return self.position

    def tell(self) -> int:
        return self.position

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        if self.limit is not None:
            view = view[:max(self.limit - self.position, 0)]
        if not view:
            return 0
        count = self.stored(self.read_into, view)
        self.position += count
        if self.seen is not None:
            self.seen(view[:count])
        return count

    def read_into(self, view: memoryview) -> int:
        if hasattr(self.raw, "readinto"):
            return self.raw.readinto(view) or 0
        data = self.raw.read(len(view))
        view[:len(data)] = data
        return len(data)

    def stored(self, call: Callable[..., int], *args: Any) -> int:
        try:
            return call(*args)
        except Exception as error:
            raise SourceError(self.source, cause(error)) from error


def decompressed(stored: Bounded, compression: str | None) -> IO[bytes]:
    """A source's bytes decompressed, every member or frame (a file may hold several, as pigz, pbzip2 and
    zstd -T write them), as a stream read 1 MiB at a time. The decoders' memory is bounded: gzip's window
    is 32 KiB and bzip2's block 900 KB by design; zstd's window and xz's dictionary at most `WINDOW_BYTES`."""
    if compression is None:
        return io.BufferedReader(stored, BUFFER_BYTES)
    if compression == "zstd":
        reader: Any = Unzstd(stored)
    elif compression == "xz":
        reader = Unxz(stored)
    elif compression == "bz2":
        import bz2

        reader = bz2.BZ2File(stored)
    else:
        import gzip

        reader = gzip.GzipFile(fileobj=stored, mode="rb")
    return io.BufferedReader(reader, BUFFER_BYTES)


class Unzstd(io.RawIOBase):
    """A .zst source's bytes, every frame of it, its window at most `WINDOW_BYTES`. zstandard's reader ends
    quietly in a frame cut short: the frames are followed as their bytes are read (`ZstdFrames`) to say so."""

    def __init__(self, stored: Bounded) -> None:
        import zstandard

        super().__init__()
        self.frames = ZstdFrames()
        stored.seen = self.frames.feed
        decoder = zstandard.ZstdDecompressor(max_window_size=WINDOW_BYTES)
        self.reader = decoder.stream_reader(stored, read_across_frames=True, closefd=False)  # type: ignore[arg-type]

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        count = self.reader.readinto(buffer)
        if not count and not self.frames.complete():
            raise EOFError("the last zstd frame ends before its end")
        return count


class ZstdFrames:
    """Where a zstd stream is among its frames, followed from its bytes as they pass (headers and sizes
    only, `frame_steps`): whether it ended between two frames (`complete`)."""

    def __init__(self) -> None:
        self.steps = frame_steps()
        self.want: tuple[str, int] | None = next(self.steps)
        self.held = b""

    def complete(self) -> bool:
        return self.want is None or (self.want[0] == "frame" and not self.held)

    def feed(self, data: memoryview) -> None:
        while data and self.want is not None:
            kind, size = self.want
            taken = min(size - len(self.held), len(data))
            if kind == "skip":
                size, data = size - taken, data[taken:]
                if size:
                    self.want = ("skip", size)
                    return
                self.advance(None)
                continue
            self.held, data = self.held + bytes(data[:taken]), data[taken:]
            if len(self.held) == size:
                got, self.held = self.held, b""
                self.advance(got)

    def advance(self, got: bytes | None) -> None:
        try:
            self.want = self.steps.send(got)
        except StopIteration:  # not a zstd frame: the decoder says what it is
            self.want = None


def frame_steps() -> Generator[tuple[str, int], bytes | None, None]:
    """The steps of reading zstd frames (RFC 8878): ("frame", 4) a frame's magic number, ("read", n) n bytes
    wanted (sent back), ("skip", n) n bytes passed over (a header's fields, a block's contents)."""
    while True:
        magic = int.from_bytes((yield "frame", 4) or b"", "little")
        if magic & 0xFFFFFFF0 == 0x184D2A50:  # a skippable frame: its size, then its bytes
            size = int.from_bytes((yield "read", 4) or b"", "little")
            if size:
                yield "skip", size
            continue
        if magic != 0xFD2FB528:
            return
        descriptor = ((yield "read", 1) or b"\0")[0]
        single = descriptor >> 5 & 1  # then no window descriptor, and a content size of at least a byte
        header = (1 - single) + (0, 1, 2, 4)[descriptor & 3] + (single, 2, 4, 8)[descriptor >> 6]
        if header:
            yield "skip", header
        last = 0
        while not last:
            block = int.from_bytes((yield "read", 3) or b"", "little")
            last, size = block & 1, 1 if block >> 1 & 3 == 1 else block >> 3  # an RLE block holds one byte
            if size:
                yield "skip", size
        if descriptor >> 2 & 1:
            yield "skip", 4  # the content's checksum


class Unxz(io.RawIOBase):
    """An .xz source's bytes, every stream of it, its decoder's memory bounded (`XZ_MEMORY`; lzma.LZMAFile
    takes no limit). Bytes after the last stream that are no stream are ignored, as LZMAFile does."""

    def __init__(self, stored: Bounded) -> None:
        super().__init__()
        self.stored, self.decoder = stored, lzma_decoder()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.read_some(len(buffer))
        memoryview(buffer).cast("B")[:len(data)] = data
        return len(data)

    def read_some(self, size: int) -> bytes:
        import lzma

        while True:
            if self.decoder.eof:  # the next stream, if any
                rest = self.decoder.unused_data or self.stored.read(BUFFER_BYTES)
                if not rest:
                    return b""
                self.decoder = lzma_decoder()
                try:
                    data = self.decoder.decompress(rest, size)
                except lzma.LZMAError as error:
                    if "memory" in str(error).lower():
                        raise
                    return b""  # trailing bytes that are no stream
            else:
                block = self.stored.read(BUFFER_BYTES) if self.decoder.needs_input else b""
                if self.decoder.needs_input and not block:
                    raise EOFError("Compressed file ended before the end-of-stream marker was reached")
                data = self.decoder.decompress(block, size)
            if data:
                return data


def lzma_decoder() -> Any:
    import lzma

    return lzma.LZMADecompressor(memlimit=XZ_MEMORY)


def open_lines(part: Partition, max_record_bytes: int = MAX_RECORD_BYTES) -> Iterator[bytes]:
    """The lines of a partition: those starting within its range (the first one after `start` but at 0),
    none held longer than `max_record_bytes` + 2 (`read_lines`). Failing to read the source is a
    `SourceError` naming it, `corrupt` when its bytes are at fault (a compressed stream that is none, or
    that is cut short, or needs a window beyond `WINDOW_BYTES`)."""
    try:
        with opened(part) as stream:
            if part.end is None:
                yield from read_lines(stream, max_record_bytes)
                return
            position = part.start
            if position > 0:  # past the line the byte before ends (a line end there: a line starts at `start`)
                stream.seek(position - 1)
                position = skip_line(stream, position - 1, part.end)
            yield from read_lines(stream, max_record_bytes, position, part.end)
    except SourceError:
        raise
    except Exception as error:
        if not isinstance(error, decoding_errors()):
            raise
        raise undecodable(part, error) from error


def skip_line(stream: IO[bytes], position: int, end: int) -> int:
    """Where the line at `position` ends, read past in blocks, or `end` if it goes on past it."""
    while position < end and (block := stream.readline(BUFFER_BYTES)):
        position += len(block)
        if block.endswith(b"\n"):
            break
    return position


def read_lines(stream: IO[bytes], max_record_bytes: int, position: int = 0, end: int | None = None) -> Iterator[bytes]:
    """Each line of a stream (from `position`, those starting before `end`), read by a bounded readline: a
    line longer than the bound (its line end aside) is passed on as its first `max_record_bytes` + 2 bytes,
    the rest dropped (`cut_short`; no further than `end`: the next partition's), so that it is its record's
    own error, never held whole."""
    most = max_record_bytes + 2  # the bound, and room for a "\r\n"
    readline = stream.readline
    if end is None:
        while line := readline(most):
            yield line if len(line) < most or line.endswith(b"\n") else cut_short(line, readline)[0]
        return
    while position < end and (line := readline(most)):
        position += len(line)
        if len(line) == most and not line.endswith(b"\n"):
            line, dropped = cut_short(line, readline, end - position)
            position += dropped
        yield line


def cut_short(head: bytes, readline: Callable[[int], bytes], budget: int | None = None) -> tuple[bytes, int]:
    """A line longer than the bound, as its head and the bytes of it dropped: the rest, read in blocks, or
    only `budget` of them once it is known to be a record (a partition's last line: each partition reads
    its own range, not a long line's every byte again). The head is blank only when the whole line is, so
    that it counts as a record exactly when the line is one."""
    dropped, blank = 0, not head.strip()
    while (budget is None or dropped < budget or blank) and (block := readline(BUFFER_BYTES)):
        dropped += len(block)
        if blank and block.strip():
            head, blank = head[:-1] + block.strip()[:1], False
        if block.endswith(b"\n"):
            break
    return (b"\n" if blank else head), dropped


def decoding_errors() -> tuple[type[BaseException], ...]:
    """What decoders raise for bytes that are not what their name says (OSError: gzip's and bz2's)."""
    import lzma
    import zlib

    errors: list[type[BaseException]] = [EOFError, OSError, zlib.error, lzma.LZMAError]
    with contextlib.suppress(ImportError):
        import zstandard

        errors.append(zstandard.ZstdError)
    return tuple(errors)


def undecodable(part: Partition, error: BaseException) -> SourceError:
    """A decoder's failure as its source's: one line, its bytes at fault."""
    kind = {"gzip": ".gz", "bz2": ".bz2", "xz": ".xz", "zstd": ".zst"}.get(part.compression or "", "plain")
    text = str(error).lower()
    if "memory" in text:  # zstd's "Frame requires too much memory", xz's "Memory usage limit reached"
        why = f"its {kind} data needs a window over {WINDOW_BYTES >> 20} MiB to decompress (the most referee gives)"
    elif isinstance(error, EOFError):
        why = f"its {kind} data is cut short (the file is truncated)"
    else:
        why = f"not valid {kind} data ({cause(error)})"
    return SourceError(part.source, why, corrupt=True)


def is_record(line: bytes) -> bool:
    """Whether a line is a record (numbered, replayed): any line but a blank one."""
    return bool(line.strip())
