"""A `DIR/` output's manifest, and what a resumed run keeps of it.

The manifest fingerprints what the run read: each source file as its store describes it (`files`: size and
version, `sources.Found`), and each part's records as its task read them (`done.input`: their count and
sha256, `work.Reading`). A resumed run keeps a part only if it is the same work on the same bytes: the same
partition and numbering, its file unchanged (or, when the file changed, its records read again and found the
same: an archive that grew keeps every part before the growth), and the part itself there with the size and
sha256 the manifest gives. Every other part is redone, and parts the manifest no longer names are removed.
"""

from __future__ import annotations

import hashlib
from functools import partial
import sys
from collections.abc import Callable, Iterable
from dataclasses import asdict
from typing import Any

from referee.archives.failures import Unusable
from referee.archives.outputs import Directory, part_name
from referee.archives.sources import Partition, Plan
from referee.archives.work import Input, Options, number, scan

__all__ = ["FORMAT", "changes", "check_resumable", "entries_of", "resumed_entries"]

#: The manifest's format: a run resumes only a manifest of its own format.
FORMAT = 2

Run = Callable[[Callable, list], Iterable]


def entries_of(parts: list[Partition], dataset: bool) -> list[dict[str, Any]]:
    return [{"part": part_name(index, dataset), "partition": asdict(part), "done": None}
            for index, part in enumerate(parts)]


def check_resumable(manifest: Any, engine: str, settings: dict[str, Any], url: str) -> None:
    """Refuses to resume a run of another engine, format or options, naming what differs (nothing is done:
    a resume cannot make them one run)."""
    if not isinstance(manifest, dict) or not isinstance(manifest.get("options"), dict):
        raise Unusable(f"{url}_manifest.json is no manifest of referee's: write elsewhere, or remove it")
    if manifest.get("format") != FORMAT or manifest.get("engine") != engine:
        raise Unusable(f"{url} was written by referee {manifest.get('engine')} (manifest format "
                   f"{manifest.get('format', 1)}), not {engine} (format {FORMAT}): write elsewhere, or remove it to start over")
    old = manifest["options"]
    if differ := [key for key in sorted(set(old) | set(settings)) if old.get(key) != settings.get(key)]:
        said = ", ".join(f"{key} {old.get(key)!r} (now {settings.get(key)!r})" for key in differ)
        raise Unusable(f"{url} was written with other options: {said}")


def changes(old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]]) -> dict[str, str]:
    """What changed of each source file between two fingerprints (`files`), said for people. A file whose
    store says no version (its size alone) may have changed unseen: it is read again, as a changed one."""
    said = {}
    for name in [*old, *(name for name in new if name not in old)]:
        before, after = old.get(name), new.get(name)
        if before == after and before is not None and set(before) == {"size"}:
            said[name] = "no version to compare (its store gives its size alone)"
            continue
        if before == after:
            continue
        if before is None or after is None:
            said[name] = "added" if before is None else "gone"
        elif before["size"] != after["size"]:
            said[name] = f"size {before['size']:,} → {after['size']:,} bytes"
        else:
            said[name] = "changed (" + ", ".join(key for key in after if before.get(key) != after.get(key)) + ")"
    return said


def resumed_entries(manifest: dict[str, Any], planned: Plan, run: Run, directory: Directory,
                    options: Options) -> list[dict[str, Any]]:
    """The entries of a resumed run over the sources as they are now: the manifest's done parts that are
    the same work on the same bytes, and intact, kept; the others to do."""
    changed = changes(manifest["files"], planned.files)
    for name, what in changed.items():
        print(f"referee: {name}: {what} since the run began; its parts are read again and those it changes "
              "judged again", file=sys.stderr)
    old = {entry["part"]: entry for entry in manifest["parts"]}
    reread = [part for part in planned.parts if part.source in changed]
    inputs: dict[tuple, Input] = dict(zip((part.key() for part in reread), run(partial(scan, options=options), reread)))
    records = {key: done["records"] for key, done in inputs.items()} | known_records(manifest, changed)
    entries = entries_of(number(planned.parts, run, options, records), options.dataset)
    for entry in entries:
        before = old.get(entry["part"])
        if before is not None and before["done"] is not None and same_work(before["partition"], entry["partition"]):
            read = inputs.get(Partition(**entry["partition"]).key())
            if read is None or read == before["done"].get("input"):
                entry["done"] = before["done"]
    kept = [entry for entry in entries if entry["done"] is not None]
    checks = [(directory.path(entry["part"]), entry["done"]["size"], entry["done"]["sha256"]) for entry in kept]
    for entry, intact in zip(kept, run(part_intact, checks)):
        if not intact:
            print(f"referee: {directory.path(entry['part'])} is not the part the manifest describes (missing, "
                  "truncated or altered): it is judged again", file=sys.stderr)
            entry["done"] = None
    return entries


def known_records(manifest: dict[str, Any], changed: dict[str, str]) -> dict[tuple, int]:
    """The records of each partition of the unchanged files, from the manifest's numbering."""
    parts = [entry["partition"] for entry in manifest["parts"]]
    return {Partition(**part).key(): after["first"] - part["first"] for part, after in zip(parts, parts[1:])
            if part["source"] not in changed and after["source"] == part["source"] and after["start"] != 0}


def same_work(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Whether two partitions are the same records numbered the same (their file's size aside)."""
    return all(before[key] == after[key] for key in ("source", "compression", "start", "end", "first"))


def part_intact(check: tuple[str, int, str]) -> bool:
    """Whether a part is there with the size and sha256 the manifest gives (read where the data is)."""
    import fsspec

    url, size, sha256 = check
    digest = hashlib.sha256()
    try:
        with fsspec.open(url, "rb") as file:
            while block := file.read(1 << 20):
                digest.update(block)
                size -= len(block)
    except OSError:  # not there, not a file, or not to be read: judged again
        return False
    return size == 0 and digest.hexdigest() == sha256
