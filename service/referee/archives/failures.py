"""How a run of `referee validate` fails: one line naming what failed and why, and an exit status of its own
(docs/archives.md, "What survives what"). Nothing else leaves the command as a traceback (but `--debug`)."""

from __future__ import annotations

__all__ = ["Busy", "OutputError", "SourceError", "Stop", "Unreadable", "Unusable", "cause", "is_store_error"]

#: The packages whose errors are a store's failure (unreachable, refusing), as an `OSError` is a disk's.
STORE_PACKAGES = ("botocore", "aiobotocore", "aiohttp", "s3fs", "fsspec", "gcsfs", "adlfs", "urllib3", "requests")


class Stop(Exception):
    """A run that cannot go on, said in one line (no traceback): status 3, the run stopped before it completed,
    for a cause outside it; what is complete is kept (`--resume` goes on from there)."""

    status = 3


class Unusable(Stop):
    """Nothing was done: the command cannot run as given (options that conflict, a package missing)."""

    status = 2


class Busy(Stop):
    """Another run holds the output directory (its lease)."""

    status = 4


class Unreadable(Stop):
    """A source that cannot be read as an archive: a compressed stream that is corrupt, or asks for more
    memory than the bound; resuming does not help until the source is mended."""

    status = 5


class SourceError(Exception):
    """Reading a source failed: `source` its name, `cause` what went wrong, `corrupt` when it is its bytes
    (a compressed stream that is not one) rather than the storage (unreachable, an I/O error)."""

    def __init__(self, source: str, cause: str, corrupt: bool = False) -> None:
        super().__init__(source, cause, corrupt)
        self.source, self.cause, self.corrupt = source, cause, corrupt

    def __str__(self) -> str:
        return f"{self.source}: {self.cause}"


class OutputError(Exception):
    """Writing an output failed (a full disk, no permission, a store unreachable): `path` and `cause`."""

    def __init__(self, path: str, cause: str) -> None:
        super().__init__(path, cause)
        self.path, self.cause = path, cause

    def __str__(self) -> str:
        return f"cannot write {self.path}: {self.cause}"


def cause(error: BaseException) -> str:
    """An exception said in one short line: an OS error by its description, anything else by its kind and
    the first line of its message."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    text = str(error).strip().splitlines()
    first = text[0] if text else ""
    kind = type(error).__name__
    line = f"{kind}: {first}" if first else kind
    return line if len(line) <= 300 else line[:297] + "..."


def is_store_error(error: BaseException) -> bool:
    """Whether an exception is the storage's failure (a disk's `OSError`, an object store's client error)."""
    if isinstance(error, OSError):
        return True
    return any(kind.__module__.split(".")[0] in STORE_PACKAGES for kind in type(error).__mro__)
