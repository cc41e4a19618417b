"""`referee validate --dataset DIR/`: a data set for learning, written by the archive pipeline's own tasks.

Each partition's task (`referee.archives.work.write_rows`) writes `part-NNNNN.parquet` (pyarrow: `pip install 'referee[dataset]'`), one row a
ply of every legal record, its start included. Every column is the native replay's (`_core.replay_rows`:
the replay that judges the record, which with a data set also says at each ply the player to move and the
move's action id, and the record's returns), handed to pyarrow as Arrow buffers, no value one by one. A
record with an illegal move (or no record) gives no row.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from referee.archives.failures import Stop

__all__ = ["COLUMNS", "check_installed", "schema", "table"]

#: The columns, in order.
COLUMNS = ("source", "record", "id", "game", "ply", "position", "move", "action", "to_move", "returns")


def check_installed() -> None:
    if importlib.util.find_spec("pyarrow") is None:
        raise Stop("--dataset writes Parquet with pyarrow: pip install 'referee[dataset]'")


def schema() -> Any:
    import pyarrow as pa

    return pa.schema([("source", pa.string()), ("record", pa.int64()), ("id", pa.string()), ("game", pa.string()),
                      ("ply", pa.int32()), ("position", pa.string()), ("move", pa.string()),
                      ("action", pa.int32()), ("to_move", pa.string()), ("returns", pa.list_(pa.float64()))])


def table(source: str, columns: dict[str, Any], table_schema: Any) -> Any:
    """A chunk's rows as a table: the native replay's columns (`_core.replay_rows`: each column's Arrow
    buffers) taken whole, and the partition's source on every row."""
    import pyarrow as pa

    count = columns["rows"]

    def array(kind: Any, length: int, buffers: list[bytes | None], children: tuple = ()) -> Any:
        return pa.Array.from_buffers(kind, length, [None if data is None else pa.py_buffer(data) for data in buffers],
                                     children=list(children))

    returns = array(pa.float64(), len(columns["returns_values"][1]) // 8, columns["returns_values"])
    arrays = [pa.repeat(pa.scalar(source, pa.string()), count)]
    for field in table_schema:
        if field.name != "source":
            children = (returns,) if field.name == "returns" else ()
            arrays.append(array(field.type, count, columns[field.name], children))
    return pa.Table.from_arrays(arrays, schema=table_schema)
