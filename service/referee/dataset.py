"""`referee validate --dataset DIR/`: a data set for learning, written by the archive pipeline's own tasks.

Each partition's task writes `part-NNNNN.parquet` (pyarrow: `pip install 'referee[dataset]'`), one row a
ply of every legal record, its start included. The positions are the native replay's (`--positions`); the
player to move, the action ids and the returns come from a position handle on the same start pushed along the same moves,
checked against those positions at every ply. A record with an illegal move (or no record) gives no row.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
from collections.abc import Iterator
from typing import Any

import orjson

__all__ = ["COLUMNS", "check_installed", "write_part"]

#: The columns, in order.
COLUMNS = ("source", "record", "id", "game", "ply", "position", "move", "action", "to_move", "returns")


def check_installed() -> None:
    from referee.archives import Stop

    if importlib.util.find_spec("pyarrow") is None:
        raise Stop("--dataset writes Parquet with pyarrow: pip install 'referee[dataset]'")


def schema() -> Any:
    import pyarrow as pa

    return pa.schema([("source", pa.string()), ("record", pa.int64()), ("id", pa.string()), ("game", pa.string()),
                      ("ply", pa.int32()), ("position", pa.string()), ("move", pa.string()),
                      ("action", pa.int32()), ("to_move", pa.string()), ("returns", pa.list_(pa.float64()))])


class Games:
    """One `referee.Game` a setup (game, variant, options), made once a task, with the action ids of the
    moves' notations met (an id does not depend on the position)."""

    def __init__(self) -> None:
        self.games: dict[bytes, tuple[Any, dict[str, int | None]]] = {}

    def of(self, record: dict[str, Any]) -> tuple[Any, dict[str, int | None]]:
        import referee

        key = orjson.dumps([record["game"], record.get("variant"), record.get("options")], option=orjson.OPT_SORT_KEYS)
        if key not in self.games:
            self.games[key] = referee.game(record["game"], record.get("variant"), record.get("options")), {}
        return self.games[key]


def record_rows(columns: dict[str, list], source: str, number: int, record: dict[str, Any], positions: list[str],
                game: Any, actions_of: dict[str, int | None]) -> None:
    """Appends a legal record's rows: its start and one a ply."""
    handle = game.load(positions[0])  # the native replay's start, its seed too (drawn when a record has none)
    record_id = record.get("id")
    record_id = record_id if record_id is None or isinstance(record_id, str) else orjson.dumps(record_id).decode()
    moves: list[str] = record["moves"]
    movers: list[str | None] = [handle.to_move]
    actions: list[int | None] = [None]
    for ply, move in enumerate(moves):
        if move not in actions_of:
            actions_of[move] = action_of(game, move)
        try:
            actions.append(one_decision(handle, move, actions_of[move], positions[ply + 1]))
        except RuntimeError as error:  # a bug of ours, never of the record: said where
            raise RuntimeError(f"{source}:{number}: ply {ply + 1}: {error}") from None
        movers.append(handle.to_move)
    returns = handle.returns()
    count = len(moves) + 1
    columns["source"].extend([source] * count)
    columns["record"].extend([number] * count)
    columns["id"].extend([record_id] * count)
    columns["game"].extend([record["game"]] * count)
    columns["ply"].extend(range(count))
    columns["position"].extend(positions)
    columns["move"].extend([None, *moves])
    columns["action"].extend(actions)
    columns["to_move"].extend(movers)
    columns["returns"].extend([returns] * count)


def action_of(game: Any, move: str) -> int | None:
    """The action id of a move's notation in the game's action space, None when it names no one decision
    (a Hypnosia turn's two die moves, a Caesar! move with a draw)."""
    from referee.errors import RefereeError

    try:
        return game.action_of(move)
    except RefereeError:
        return None


def one_decision(handle: Any, move: str, action: int | None, after: str) -> int | None:
    """Plays `move` on the handle; returns its action id when the move is that one decision (the id pushed
    alone plays the move: the position after is the record's), else None (the move pushed as notation).
    RuntimeError when the position after is not `after`, which a replay of the same moves never gives."""
    from referee.errors import RefereeError

    if action is not None:
        with contextlib.suppress(RefereeError):  # the id is not legal here: the move is not that decision
            handle.push(action)
            if handle.position() == after:
                return action
            handle.pop()
    handle.push(move)
    if handle.position() != after:
        raise RuntimeError(f"{move} gives {handle.position()}, the native replay {after}")
    return None


def rows(source: str, first: int, data: bytes, output: bytes, games: Games) -> dict[str, list]:
    """The rows of a chunk: its records' lines and their results (with positions), in order."""
    columns: dict[str, list] = {name: [] for name in COLUMNS}
    lines = data.splitlines()
    for line in output.splitlines():
        result = orjson.loads(line)
        if result.get("legal") is not True:
            continue
        number = result["record"]
        record = orjson.loads(lines[number - first])
        record_rows(columns, source, number, record, result["positions"], *games.of(record))
    return columns


class Hashed:
    """A binary file that counts and hashes what is written to it (a part's size and checksum)."""

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


def write_part(part: Any, chunks: Iterator[tuple[int, bytes, bytes, dict, Any]], target: str) -> Any:
    """A partition's task with `--dataset`: a Parquet part at `target` (a row group a chunk)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from referee.archives import COUNT_KEYS, Done, add_counts, merge, whole_file

    counts = dict.fromkeys(COUNT_KEYS, 0)
    tally, games, table_schema = None, Games(), schema()
    with whole_file(target) as file:
        out = Hashed(file)
        with pq.ParquetWriter(out, table_schema, compression="zstd") as writer:
            for first, data, output, chunk_counts, chunk_tally in chunks:
                columns = rows(part.source, first, data, output, games)
                if columns["ply"]:
                    writer.write_table(pa.Table.from_pydict(columns, schema=table_schema))
                counts, tally = add_counts(counts, chunk_counts), merge(tally, chunk_tally)
    return Done(None, counts, tally, out.size, out.digest.hexdigest(), part.size)
