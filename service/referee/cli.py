"""`referee render STATE.json -o board.svg`: draws a state, or a game record's position at a ply with its
move marked, as SVG (see `referee.pictures`).

`referee match BOT BOT --game G --games N -o records.jsonl`: plays games between bots (``referee.bots``)
on native position handles and writes one game record a line, which `referee validate` replays.

`referee validate RECORDS.jsonl`: replays a whole archive of game records and writes one NDJSON result
a record — the outcome, or the first illegal ply and why, and the verdict on what the record claims
about how its game ended — with, on request, fields of the record (`--keep`), every position
(`--positions`), and a report for people (`--report`, see `referee.report`).

Locally the records are replayed on every core (the native batch runs in parallel without the GIL);
with `--scheduler ADDRESS` the same work goes to a Dask cluster, chunk by chunk. Either way, memory stays
flat: the archive is read in chunks of whole lines, results are written in input order as they come,
and the report is a tally merged chunk by chunk.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import deque
from typing import IO, Any, Iterator, NamedTuple

from tqdm import tqdm

__all__ = ["chunks", "main"]

#: Records per chunk: enough work per native call (or per Dask task) to keep every core busy.
CHUNK_RECORDS = 20_000
#: At most this many bytes of records a chunk, so that a chunk's results stay a few tens of megabytes:
#: a record's result is about its size (a verdict and a position), and with every position a dozen to a
#: few dozen times its moves' bytes.
CHUNK_BYTES = {False: 16 << 20, True: 1 << 20}


class Options(NamedTuple):
    """What each result carries beyond its verdict, and whether the chunks are tallied for a report."""

    keep: list[str]
    positions: bool
    tally: bool


def chunks(stream: IO[bytes], records: int, size: int) -> Iterator[tuple[int, bytes]]:
    """Chunks of whole lines from a binary stream, at most `records` lines and (but for a longer line)
    `size` bytes each, each with the 1-based number of its first record. Blank lines are not records."""
    first, lines, length = 1, [], 0
    for line in stream:
        if line.strip():
            if lines and length + len(line) > size:
                yield first, b"".join(lines)
                first, lines, length = first + len(lines), [], 0
            lines.append(line if line.endswith(b"\n") else line + b"\n")
            length += len(lines[-1])
        if len(lines) == records:
            yield first, b"".join(lines)
            first, lines, length = first + len(lines), [], 0
    if lines:
        yield first, b"".join(lines)


Counts = dict[str, int]  # records, legal, illegal, errors (not records), agrees, disagrees, absent (claims)
Part = tuple[bytes, Counts, "dict[str, Any] | None", int]  # results, counts, tally, bytes of records


def replay_chunk(first: int, data: bytes, options: Options) -> tuple[bytes, Counts, dict[str, Any] | None]:
    """One unit of work, locally or on a Dask worker (which imports the installed package)."""
    from referee import _core

    return _core.replay_records(data, first, options.keep, options.positions, options.tally)


def results_local(parts: Iterator[tuple[int, bytes]], options: Options) -> Iterator[Part]:
    for first, data in parts:
        yield *replay_chunk(first, data, options), len(data)


def results_on_dask(parts: Iterator[tuple[int, bytes]], options: Options, address: str) -> Iterator[Part]:
    """Chunks run as Dask tasks, a bounded number in flight (memory stays flat), results in input order."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise SystemExit("--scheduler needs Dask: pip install 'referee[dask]'") from None
    with Client(address) as client:
        in_flight = max(2, 2 * sum(client.nthreads().values()))
        pending: deque = deque()
        for first, data in parts:
            # Scattered straight to a worker, which then runs the task: a chunk in the task itself would
            # travel through the scheduler too, one more copy of every byte.
            [chunk] = client.scatter([data], direct=True, hash=False)
            pending.append((client.submit(replay_chunk, first, chunk, options, pure=False), len(data)))
            if len(pending) >= in_flight:
                future, size = pending.popleft()
                yield *future.result(), size
        while pending:
            future, size = pending.popleft()
            yield *future.result(), size


def summary_line(counts: Counts, elapsed: float) -> str:
    rate = counts["records"] / max(elapsed, 1e-9)
    return (f"{counts['records']} records: {counts['legal']} legal, {counts['illegal']} illegal, "
            f"{counts['errors']} not records; claims: {counts['agrees']} agree, {counts['disagrees']} disagree, "
            f"{counts['absent']} absent; in {elapsed:.1f} s ({rate:,.0f} records/s)")


def validate(args: argparse.Namespace) -> int:
    from referee import report

    if args.jobs:
        os.environ["RAYON_NUM_THREADS"] = str(args.jobs)  # read when the native pool first starts
    options = Options(args.keep, args.positions, args.report is not None)
    source = sys.stdin.buffer if args.records == "-" else open(args.records, "rb")
    target = sys.stdout.buffer if args.output == "-" else open(args.output, "wb")
    # Opened first, so that a report that cannot be written stops the run before the work, not after.
    page = open(args.report, "w", encoding="utf-8") if args.report is not None else None
    total = None if args.records == "-" else os.path.getsize(args.records)
    show = args.progress if args.progress is not None else sys.stderr.isatty()
    counts: Counts = dict.fromkeys(("records", "legal", "illegal", "errors", "agrees", "disagrees", "absent"), 0)
    tally = None
    started = time.perf_counter()
    with source, target, tqdm(total=total, unit="B", unit_scale=True, disable=not show, file=sys.stderr) as bar:
        parts = chunks(source, args.chunk, CHUNK_BYTES[args.positions])
        results = (results_on_dask(parts, options, args.scheduler) if args.scheduler
                   else results_local(parts, options))
        for output, part_counts, part_tally, size in results:
            target.write(output)
            for key, value in part_counts.items():
                counts[key] += value
            if part_tally is not None:
                tally = report.merge(tally, part_tally)
            bar.update(size)
            elapsed = time.perf_counter() - started
            bar.set_postfix(records=counts["records"], rate=f"{counts['records'] / max(elapsed, 1e-9):,.0f}/s")
    elapsed = time.perf_counter() - started
    print(summary_line(counts, elapsed), file=sys.stderr)
    if page is not None:
        name = "standard input" if args.records == "-" else os.path.basename(args.records)
        with page:
            page.write(report.page(counts, tally or empty_tally(), source=name, seconds=elapsed))
    return 0 if counts["legal"] == counts["records"] and counts["disagrees"] == 0 else 1


def empty_tally() -> dict[str, Any]:
    """The tally of an archive without records."""
    from referee import _core

    return _core.replay_records(b"", 1, [], False, True)[2]


def scene_of(document: dict[str, Any], ply: int | None) -> tuple[str, dict[str, Any], str | None, str | None]:
    """The game, the state to draw from and the move to mark of an input: a state (its game named by its
    `rules`), an answer holding one (`{"state": ...}`), or a record (`{"game", "moves", ...}`), replayed
    up to `ply` (default: its last legal ply). The last item says why a record stops early, if it does."""
    import referee

    if isinstance(document.get("moves"), list):
        game = referee.game(document["game"], document.get("variant"), document.get("options"))
        state, move, stop = game.new(document.get("seed")), None, None
        moves = document["moves"] if ply is None else document["moves"][:ply]
        for number, next_move in enumerate(moves):
            verdict = game.validate(state, next_move)
            if not verdict["legal"]:
                stop = f"ply {number} ({next_move}) is illegal: {verdict['reason']['detail']}"
                break
            if move is not None:
                state = game.play(state, move)["state"]
            move = next_move
        return document["game"], state, move, stop
    state = document.get("state", document)
    if not isinstance(state, dict) or not isinstance(state.get("rules"), str):
        raise ValueError("the input is no state (no `rules`), answer with a `state`, or record with `moves`")
    return state["rules"].split("@")[0], state, None, None


def render(args: argparse.Namespace) -> int:
    import referee

    source = sys.stdin if args.input == "-" else open(args.input, encoding="utf-8")
    with source:
        document = json.load(source)
    if not isinstance(document, dict):
        raise ValueError("the input is not a JSON object")
    name, state, move, stop = scene_of(document, args.ply)
    game = referee.game(name)
    if args.move and move:  # a record's position, then the move asked for
        state, move = game.play(state, move)["state"], None
    svg = game.svg(state, move=args.move or move, legal=args.legal, player=args.player, size=args.size)
    if stop:
        print(f"referee: the record stops early: {stop}", file=sys.stderr)
    if args.output == "-":
        sys.stdout.write(svg + "\n")
    else:
        with open(args.output, "w", encoding="utf-8") as target:
            target.write(svg + "\n")
    return 0


def render_parser(commands: Any) -> None:
    command = commands.add_parser(
        "render",
        help="draw a state or a record's position as SVG",
        description=(
            "Draws INPUT as SVG: a state (JSON, its game named by its `rules`), an answer holding one "
            "(`{\"state\": ...}`), or a game record (`{\"game\", \"variant\"?, \"options\"?, \"seed\"?, \"moves\"}`, "
            "as `referee validate` reads), shown after its last legal ply (or --ply N) with that ply's move "
            "marked. Exit status: 0 when drawn, 1 for a bad input or state, 2 for a missing file."
        ),
    )
    command.add_argument("input", metavar="STATE.json", help="the state or record, or - for standard input")
    command.add_argument("-o", "--output", default="-", help="where the SVG goes (default: standard output)")
    command.add_argument("--move", help="play this move on the state first and mark what it did")
    command.add_argument("--ply", type=int, help="a record: draw it after this many plies")
    command.add_argument("--legal", action="store_true", help="mark the legal moves")
    command.add_argument("--player", help="draw it for this player (Caesar!: the other hand hidden)")
    command.add_argument("--size", type=int, help="the width in pixels")


def match(args: argparse.Namespace) -> int:
    from referee.bots import bot, play_match

    for spec in args.bots:
        bot(spec)  # refuses an unknown bot before any game
    options = json.loads(args.options) if args.options else None
    target = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")
    wins: dict[str, float] = dict.fromkeys(args.bots, 0.0)
    with target:
        for record in play_match(args.game, args.bots, args.games, args.seed, args.variant, options):
            target.write(json.dumps(record, separators=(",", ":")) + "\n")
            winner = record["result"]["winner"]
            if winner is not None:
                wins[record["players"][winner]] += 1 / list(record["players"].values()).count(record["players"][winner])
    summary = ", ".join(f"{spec}: {count:g}" for spec, count in wins.items())
    print(f"{args.games} games of {args.game}; wins by bot: {summary}", file=sys.stderr)
    return 0


def match_parser(commands: Any) -> None:
    command = commands.add_parser(
        "match",
        help="play games between bots and write their records",
        description=(
            "Plays GAMES games of GAME between BOTs (random, mcts or mcts:SIMULATIONS), seated in turn, on "
            "native position handles, and writes one record a line: {\"game\", \"variant\"?, \"options\"?, "
            "\"seed\", \"moves\", \"id\", \"players\", \"result\": {\"winner\", \"scores\"}, \"termination\": \"normal\"}, "
            "which `referee validate` replays. Exit status: 0."
        ),
    )
    command.add_argument("bots", nargs="+", metavar="BOT", help="random, mcts or mcts:SIMULATIONS, one a seat in turn")
    command.add_argument("--game", required=True, help="iago, isaac, hypnosia or caesar")
    command.add_argument("--games", type=int, default=1, help="how many games (default 1)")
    command.add_argument("--seed", type=int, default=0, help="seed of the games, the bots and chance (default 0)")
    command.add_argument("--variant", help="the game's variant")
    command.add_argument("--options", help="the game's options, a JSON object")
    command.add_argument("-o", "--output", default="-", help="where records go (default: standard output)")


def parser() -> argparse.ArgumentParser:
    from referee import __version__

    root = argparse.ArgumentParser(prog="referee", description="Referee: move validation for four board games.")
    root.add_argument("--version", action="version", version=f"referee {__version__}")
    commands = root.add_subparsers(dest="command", required=True)
    render_parser(commands)
    match_parser(commands)
    command = commands.add_parser(
        "validate",
        help="replay an archive of game records",
        description=(
            "Replays every record of RECORDS (NDJSON, one {\"game\", \"variant\"?, \"options\"?, \"seed\"?, "
            "\"moves\", \"id\"?} a line, with any other fields; games may be mixed), judges what each claims about "
            "how its game ended (\"result\", \"termination\", \"by\"), and writes one NDJSON result a record, in "
            "order. Exit status: 0 when every record is legal and no claim disagrees, 1 otherwise."
        ),
    )
    command.add_argument("records", metavar="RECORDS.jsonl", help="the archive, or - for standard input")
    command.add_argument("-o", "--output", default="-", help="where results go (default: standard output)")
    command.add_argument("-j", "--jobs", type=int, default=0, help="threads to use locally (default: every core)")
    command.add_argument("--scheduler", metavar="ADDRESS", help="run on this Dask scheduler (e.g. tcp://host:8786)")
    command.add_argument("--chunk", type=int, default=CHUNK_RECORDS, help=f"records a unit of work (default {CHUNK_RECORDS})")
    command.add_argument("--keep", metavar="F,G,...", type=field_names, default=[],
                         help="copy these fields of each record into its result, unchanged (e.g. --keep date,players)")
    command.add_argument("--positions", action="store_true",
                         help="add every position of each legal record: the start's, then one a ply")
    command.add_argument("--report", metavar="FILE.html", help="also write a report for people, one HTML page")
    progress = command.add_mutually_exclusive_group()
    progress.add_argument("--progress", dest="progress", action="store_true", default=None, help="always show progress")
    progress.add_argument("--no-progress", dest="progress", action="store_false", help="never show progress")
    return root


def field_names(text: str) -> list[str]:
    """`--keep`'s fields: names separated by commas, none a field results already have."""
    from referee._core import RESULT_FIELDS

    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("name at least one field")
    if taken := [name for name in names if name in RESULT_FIELDS]:
        raise argparse.ArgumentTypeError(
            f"{', '.join(taken)}: a field of every result (results have {', '.join(RESULT_FIELDS)})")
    return list(dict.fromkeys(names))


def main(argv: list[str] | None = None) -> int:
    from referee.errors import RefereeError

    args = parser().parse_args(argv)
    if args.command == "validate" and (args.chunk < 1 or args.jobs < 0):
        parser().error("--chunk must be at least 1 and --jobs at least 0")
    try:
        commands = {"render": render, "match": match, "validate": validate}
        return commands[args.command](args)
    except FileNotFoundError as error:
        print(f"referee: {error.filename}: no such file", file=sys.stderr)
        return 2
    except RefereeError as error:
        print(f"referee: {error.code}: {error.detail}", file=sys.stderr)
        return 1
    except ValueError as error:  # JSON that does not parse, or is no state or record
        print(f"referee: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
