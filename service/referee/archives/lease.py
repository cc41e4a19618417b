"""One writer a `DIR/` output: a run holds a lease on the directory while it writes there.

A lease is a file `_lease.N` (hidden from readers, as `_SUCCESS` is), created only if absent: atomically on a
local disk (`O_EXCL`) and on object stores that have a conditional write (S3's `If-None-Match`, through
fsspec's `mode="create"`). It names its holder (host, process, a token) and carries a heartbeat the holder
rewrites every `HEARTBEAT` seconds. A second run finds the newest lease alive and refuses at once, naming the
holder. A lease is stale when its holder is gone: on the same machine its process is no longer running; from
elsewhere its heartbeat is older than `STALE` seconds. A stale lease is taken over by creating `_lease.N+1`,
which only one run can do. An attempt at a part is *fenced* (`Lease.check`): it moves its part into place only
while its lease is still the newest, so a task of a run that lost its lease (an orphaned Dask task of a killed
client) cannot replace the part of the run that holds it.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from referee.archives.failures import Busy, OutputError, Stop, cause, is_store_error
from referee.archives.outputs import is_local, partial_of, process_start, sync_directory

__all__ = ["Fence", "HEARTBEAT", "Lease", "STALE", "create", "machine"]

#: Seconds between heartbeats, and the age past which a lease from another machine is stale.
HEARTBEAT = 5.0
STALE = 60.0
LEASE = re.compile(r"_lease\.(\d+)$")


def machine() -> str:
    """This machine as process ids are told apart: its host name, this boot (ids are reused across boots)
    and the process id namespace (containers sharing a host name and a boot have their own ids)."""
    parts = [socket.gethostname()]
    with contextlib.suppress(OSError):
        with open("/proc/sys/kernel/random/boot_id") as file:
            parts.append(file.read().strip())
    with contextlib.suppress(OSError):
        parts.append(str(os.stat("/proc/self/ns/pid").st_ino))
    return "/".join(parts)


@dataclass(frozen=True)
class Fence:
    """What an attempt at a part needs to check that its run still holds the directory: the directory
    (a URL), the lease's generation and its owner's token. Pickled to Dask workers with the task."""

    root: str
    generation: int
    owner: str

    def check(self, fs: Any = None) -> None:
        """Raises `Stop` unless this lease is there, its owner's, and the newest (none taken it over since).
        `fs`: the filesystem to ask (the lease's own, from its heartbeat's thread), else the directory's."""
        from fsspec.core import url_to_fs

        shared, root = url_to_fs(self.root)
        fs = fs or shared
        base = root.rstrip("/")
        fs.invalidate_cache(base)  # an object store's listing, cached: a newer lease would go unseen
        newest = max(generations(fs, base), default=0)
        if newest != self.generation or read(fs, f"{base}/_lease.{self.generation}").get("owner") != self.owner:
            raise Stop(f"{self.root} is no longer this run's: another run took it over")


def generations(fs: Any, base: str) -> list[int]:
    """The generations of the leases a directory holds."""
    try:
        names = fs.ls(base, detail=False)
    except FileNotFoundError:  # an object store's directory that holds nothing yet
        names = []
    return sorted(int(match.group(1)) for name in names if (match := LEASE.search(name.rsplit("/", 1)[-1])))


def read(fs: Any, path: str) -> dict[str, Any]:
    """A lease's holder; one that cannot be read (torn by a crash mid-write) is as old as its file."""
    try:
        return orjson.loads(fs.cat_file(path))
    except FileNotFoundError:
        return {}
    except orjson.JSONDecodeError:
        with contextlib.suppress(Exception):
            return {"heartbeat": fs.modified(path).timestamp()}
        return {"heartbeat": 0}


class Lease:
    """A run's lease on a directory (a URL). Its heartbeat lists the directory from a thread of its own,
    so the lease has a filesystem of its own: a shared one's cached listing, refreshed from this thread
    while a task's upload ends in another, hid the new file from the task's move."""

    def __init__(self, url: str, command: str) -> None:
        from fsspec.core import url_to_fs

        self.fs, root = url_to_fs(url, skip_instance_cache=True)
        self.base, self.url, self.command = root.rstrip("/"), url, command
        self.owner = secrets.token_hex(8)
        self.generation = 0
        self.lost: str | None = None
        self.confirmed = 0.0  # when the lease was last found ours (`monotonic`)
        self.stopped = threading.Event()
        self.thread: threading.Thread | None = None

    @property
    def fence(self) -> Fence:
        return Fence(self.url, self.generation, self.owner)

    def path(self, generation: int) -> str:
        return f"{self.base}/_lease.{generation}"

    def holder(self) -> dict[str, Any]:
        return {"owner": self.owner, "host": socket.gethostname(), "machine": machine(), "pid": os.getpid(),
                "process_start": process_start(os.getpid()), "command": self.command,
                "started": self.started, "heartbeat": time.time()}

    @contextlib.contextmanager
    def held(self) -> Iterator[Lease]:
        """Holds the lease for the `with` block, its heartbeat beating; released when the block ends, however."""
        self.started = time.time()
        try:
            self.acquire()
        except Exception as error:
            if not is_store_error(error) or isinstance(error, (FileExistsError, OutputError)):
                raise
            raise OutputError(self.url, cause(error)) from None
        self.thread = threading.Thread(target=self.beat, name="referee-lease", daemon=True)
        self.thread.start()
        try:
            yield self
        finally:
            self.stopped.set()
            self.thread.join()
            self.release()

    def acquire(self) -> None:
        """Takes the directory (made when it is not there), or raises `Busy` naming the run that holds it.
        The lease is read back once created: on a store without a conditional write (`create`), of two
        runs that wrote it at once only the one whose words stayed holds it."""
        self.fs.makedirs(self.base, exist_ok=True)
        older = generations(self.fs, self.base)
        newest = older[-1] if older else 0
        holder = read(self.fs, self.path(newest)) if newest else {}
        if holder and alive(holder):
            raise Busy(f"{self.url} is being written by another run: {describe(holder)}; wait for it to end "
                       f"(a lease is stale {STALE:.0f} s after its last heartbeat, or at once when its process is gone)")
        self.generation = newest + 1
        taken = Busy(f"{self.url} was taken by another run at the same moment: wait for it to end")
        try:
            create(self.fs, self.path(self.generation), orjson.dumps(self.holder()))
        except FileExistsError:
            raise taken from None
        if read(self.fs, self.path(self.generation)).get("owner") != self.owner:
            raise taken
        self.confirmed = time.monotonic()
        for generation in older:  # the runs it took over: gone, and their tasks fenced off by this lease
            with contextlib.suppress(Exception):
                self.fs.rm(self.path(generation))

    def beat(self) -> None:
        """The heartbeat: the lease checked still the newest and ours, then rewritten, every `HEARTBEAT` s."""
        while not self.stopped.wait(HEARTBEAT):
            try:
                self.fence.check(self.fs)
                rewrite(self.fs, self.path(self.generation), orjson.dumps(self.holder()))
                self.confirmed = time.monotonic()
            except Stop as error:
                self.lost = str(error)
                return
            except Exception:  # noqa: BLE001 - a store unreachable for a while: the next beat tries again
                continue

    def check(self) -> None:
        """Raises `Stop` once the lease is lost, or not confirmed for half the time after which another run
        may take it over (a stalled machine, a store unreachable): the run must not go on writing. What the
        heartbeat found: no request of its own."""
        if self.lost is None and time.monotonic() - self.confirmed > STALE / 2:
            self.lost = (f"{self.url}: this run's lease could not be renewed for {STALE / 2:g} s, so it stopped "
                         f"writing; resume with: {self.command}")
        if self.lost is not None:
            raise Stop(self.lost)

    def release(self) -> None:
        """Removes this lease: the directory is free (a store gone: the lease, left, is stale once silent)."""
        with contextlib.suppress(Exception):
            self.fs.rm(self.path(self.generation))


def alive(holder: dict[str, Any]) -> bool:
    """Whether a lease's holder may still be running: on this machine (this boot, these process ids)
    whether its process is; from elsewhere whether it was heard from within `STALE` seconds."""
    if holder.get("machine") == machine() and "pid" in holder:
        start, recorded = process_start(int(holder["pid"])), holder.get("process_start")
        return start is not None and (not start or not recorded or start == recorded)
    return time.time() - float(holder.get("heartbeat", 0)) < STALE


def describe(holder: dict[str, Any]) -> str:
    heard = time.time() - float(holder.get("heartbeat", 0))
    return (f"{holder.get('host', '?')} process {holder.get('pid', '?')}, heard from {heard:.0f} s ago "
            f"({holder.get('command', 'a run')})")


def create(fs: Any, path: str, data: bytes) -> None:
    """Writes `path` only if it is absent (`FileExistsError` else): atomically on a local disk (`O_EXCL`)
    and on stores with a conditional write (S3's `If-None-Match`); elsewhere fsspec checks, then writes."""
    if is_local(fs):
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        sync_directory(os.path.dirname(path))
        return
    fs.pipe_file(path, data, mode="create")


def rewrite(fs: Any, path: str, data: bytes) -> None:
    """Replaces a lease's words whole (a reader never sees them torn): a file renamed over it locally, one
    upload on an object store."""
    if is_local(fs):
        temporary = partial_of(path, "lease")
        with open(temporary, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
        return
    fs.pipe_file(path, data)
