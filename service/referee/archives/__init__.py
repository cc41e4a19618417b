"""The pipeline of `referee validate SOURCE...`, locally or on a Dask cluster: the same steps either way.

1. **Sources** (paths, globs, directories, fsspec URLs, `-`) become *partitions*: a byte range of a plain
   file, cut at line ends, or a compressed file whole (compression from the name: `.gz`, `.bz2`, `.xz`,
   `.zst`). Nothing is read to cut them.
2. **Numbering**: a record's number is its line in its source (blank lines not counted); a partition
   that does not start its source needs the count of the records before it, which tasks count where the
   data is (`count_records`), so the client reads none of it.
3. **Work**: a task opens its own partition (`open_lines`), replays it chunk by chunk (`replay_partition`)
   and either writes its own part of a `DIR/` output (`run_partition`; `write_rows` for a data set) or returns its results; either way
   the client receives counts and a tally. On Dask nothing is scattered: a lost worker's tasks are
   recomputed from their descriptions.
4. **Outputs that cannot lie**: `-o FILE` and `--report` are written beside their path and renamed once
   the run is complete (`whole_file`), fsync'ed before they are renamed; a `DIR/` output has a manifest
   fingerprinting what each part read and which are complete, one run at a time (a lease), `_SUCCESS`
   last, and `--resume` redoes only the parts not complete or whose sources changed.

The package's modules follow those steps: `sources` (1), `work` (2, 3), `outputs`, `manifest` and `lease` (4:
files that appear whole and durable, what a resumed run keeps, one writer a directory), `cluster` (where
tasks run), `run` (the command), `failures` (how a run fails: one line, an exit status of its own).
"""

from referee.archives.failures import Stop
from referee.archives.outputs import partial_of, whole_file
from referee.archives.run import validate
from referee.archives.sources import Partition, plan
from referee.archives.work import (
    CHUNK_RECORDS,
    COUNT_KEYS,
    Done,
    Hashed,
    Options,
    add_counts,
    chunks,
    merge,
    run_partition,
)

__all__ = ["CHUNK_RECORDS", "COUNT_KEYS", "Done", "Hashed", "Options", "Partition", "Stop", "add_counts", "chunks",
           "merge", "partial_of", "plan", "run_partition", "validate", "whole_file"]
