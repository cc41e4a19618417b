"""`referee render STATE.json -o board.svg`: draws a state, or a game record's position at a ply with its
move marked, as SVG (see `referee.pictures`).

`referee match BOT BOT --game G --games N -o records.jsonl`: plays games between bots (``referee.bots``)
on native position handles and writes one game record a line, which `referee validate` replays.

`referee validate RECORDS.jsonl`: replays a whole archive of game records and writes one NDJSON result
a record — the outcome, or the first illegal ply and why, and the verdict on what the record claims
about how its game ended — with, on request, fields of the record (`--keep`), every position
(`--positions`), and a report for people (`--report`, see `referee.archives.report`).

The archive pipeline (sources, partitions, the work locally or on a Dask cluster, outputs that cannot lie,
resume) is `referee.archives`; this module only parses commands.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
import traceback
from typing import Any

from referee import _core, archives
from referee.archives import CHUNK_RECORDS, Stop
from referee.archives.failures import cause
from referee.archives.sources import RECORD_BYTES

__all__ = ["main"]


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
    from referee import _core

    source = sys.stdin.buffer if args.input == "-" else open(args.input, "rb")
    with source:
        # Read as the service reads a body (the engine's reader): JSON nested deeper than it takes is its
        # one-line `malformed-json`, not a RecursionError.
        document = _core.loads(source.read())
    if not isinstance(document, dict):
        raise ValueError("the input is not a JSON object")
    state: dict[str, Any] | str  # `play`, below, types its state as either form
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
    from referee.bots import play_match

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
            "Plays GAMES games of GAME between BOTs (random, mcts or mcts:SIMULATIONS; engine, engine:LEVEL or "
            "engine:SIMULATIONS, the engine's own search: levels 1 to 8, or a whole number of simulations above "
            "8), seated in turn, on native position handles, and writes one record a line: {\"game\", \"variant\"?, \"options\"?, "
            "\"seed\", \"moves\", \"id\", \"players\", \"result\": {\"winner\", \"scores\"}, \"termination\": \"normal\"}, "
            "which `referee validate` replays. Exit status: 0."
        ),
    )
    command.add_argument("bots", nargs="+", metavar="BOT", type=bot_spec,
                         help="random, mcts, mcts:SIMULATIONS, engine, engine:LEVEL (1 to 8) or "
                              "engine:SIMULATIONS (above 8), one a seat in turn")
    *others, last = _core.games()
    command.add_argument("--game", required=True, help=f"{', '.join(others)} or {last}")
    command.add_argument("--games", type=int, default=1, help="how many games (default 1)")
    command.add_argument("--seed", type=int, default=0, help="seed of the games, the bots and chance (default 0)")
    command.add_argument("--variant", help="the game's variant")
    command.add_argument("--options", help="the game's options, a JSON object")
    command.add_argument("-o", "--output", default="-", help="where records go (default: standard output)")


def bot_spec(text: str) -> str:
    """A BOT argument, refused before any game (a usage error) when it names no bot."""
    from referee.bots import bot

    try:
        bot(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def parser() -> argparse.ArgumentParser:
    from referee import __version__

    root = argparse.ArgumentParser(prog="referee", description="Referee: move validation for four board games.")
    root.add_argument("--version", action="version", version=f"referee {__version__}")
    root.add_argument("--debug", action="store_true", help="show the traceback of a failure (it is one line without)")
    commands = root.add_subparsers(dest="command", required=True)
    render_parser(commands)
    match_parser(commands)
    validate_parser(commands)
    return root


def validate_parser(commands: Any) -> None:
    command = commands.add_parser(
        "validate",
        help="replay archives of game records",
        description=(
            "Replays every record of each SOURCE (NDJSON, one {\"game\", \"variant\"?, \"options\"?, \"seed\"?, "
            "\"moves\", \"id\"?} a line, with any other fields; games may be mixed), judges what each claims about "
            "how its game ended (\"result\", \"termination\", \"by\"), and writes one NDJSON result a record, in "
            "order. A SOURCE is a file, a glob, a directory, an fsspec URL (s3://, gs://, https://, memory://, ...) "
            "or - (standard input), compressed by its name's ending (.gz, .bz2, .xz, .zst). Exit status: 0 when "
            "every record is legal and no claim disagrees, 1 otherwise; a failure is one line with its own status: "
            "2 nothing was done (a usage error, a source missing, a package missing), 3 the run stopped before it "
            "completed (the line says how to resume; nothing is written at -o FILE's path), 4 another run holds "
            "-o DIR/, 5 a source cannot be read as an archive (corrupt, or past a bound), 70 a fault of referee's."
        ),
    )
    command.add_argument("sources", nargs="+", metavar="SOURCE", help="the archives, or - for standard input")
    command.add_argument("-o", "--output", default="-",
                         help="where results go: a file, - (standard output, the default), or DIR/ (a directory "
                              "or URL ending in /: one part a partition, a manifest, _SUCCESS last)")
    command.add_argument("--resume", action="store_true", help="finish the run into -o DIR/: redo only parts not complete")
    command.add_argument("-j", "--jobs", type=int, default=0, help="threads to use locally (default: every core)")
    command.add_argument("--scheduler", metavar="ADDRESS", help="run on this Dask scheduler (e.g. tcp://host:8786)")
    command.add_argument("--chunk", type=int, default=CHUNK_RECORDS, help=f"records a unit of work (default {CHUNK_RECORDS})")
    command.add_argument("--part-bytes", type=int, default=0, metavar="N",
                         help="bytes of a plain file a partition: a task, a part of DIR/ (default 8 MiB, 1 MiB with --positions)")
    command.add_argument("--keep", metavar="F,G,...", type=field_names, default=[],
                         help="copy these fields of each record into its result, unchanged (e.g. --keep date,players)")
    command.add_argument("--positions", action="store_true",
                         help="add every position of each legal record: the start's, then one a ply")
    command.add_argument("--dataset", metavar="DIR/",
                         help="write a data set instead of results: Parquet, a row a ply of every legal record (referee[dataset])")
    command.add_argument("--report", metavar="FILE.html", help="also write a report for people, one HTML page")
    command.add_argument("--max-record-bytes", type=record_bytes, default=0, metavar="N",
                         help=f"a longer record (line) is its own malformed-record error and is skipped unread (default "
                              f"{RECORD_BYTES[False] >> 20} MiB, {RECORD_BYTES[True] >> 20} MiB with --positions or "
                              "--dataset: a record of a million moves is 6-7 MB; replaying one of 16 MiB takes about "
                              "200 MiB of memory, and its every position 16 to 70 times its bytes: a run stays within "
                              "512 MiB)")
    progress = command.add_mutually_exclusive_group()
    progress.add_argument("--progress", dest="progress", action="store_true", default=None, help="always show progress")
    progress.add_argument("--no-progress", dest="progress", action="store_false", help="never show progress")


def record_bytes(text: str) -> int:
    """`--max-record-bytes`: a number of bytes, at least 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a number of bytes, at least 1")
    return int(text)


def field_names(text: str) -> list[str]:
    """`--keep`'s fields: names separated by commas, none a field results already have."""
    from referee._core import RESULT_FIELDS

    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("name at least one field")
    fields = [*RESULT_FIELDS, "source"]  # `source`: results of several sources name theirs
    if taken := [name for name in names if name in fields]:
        raise argparse.ArgumentTypeError(
            f"{', '.join(taken)}: a field of every result (results have {', '.join(fields)})")
    return list(dict.fromkeys(names))


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if not args.debug:  # a store's client library says what it left undone (asyncio's "Task exception was
        # never retrieved") on standard error, before the failure's one line: --debug shows it. Not put back
        # on return: those tasks are collected as the process exits, after the command.
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    if args.command == "validate" and (args.chunk < 1 or args.jobs < 0 or args.part_bytes < 0):
        parser().error("--chunk must be at least 1, --jobs and --part-bytes at least 0")
    try:
        commands = {"render": render, "match": match, "validate": lambda args: archives.validate(args, argv)}
        return commands[args.command](args)
    except BaseException as error:
        if args.debug:
            traceback.print_exc()
        return failed(error)


def failed(error: BaseException) -> int:
    """A command's failure said in one line on standard error; its exit status (docs/archives.md)."""
    from referee.errors import RefereeError

    try:
        raise error
    except FileNotFoundError as missing:
        print(f"referee: {missing.filename or missing}: no such file", file=sys.stderr)
        return 2
    except Stop as error:  # a run that cannot complete, said in one line with its own status
        print(f"referee: {error}", file=sys.stderr)
        return error.status
    except RefereeError as error:
        print(f"referee: {error.code}: {error.detail}", file=sys.stderr)
        return 1
    except ValueError as error:  # JSON that does not parse, or is no state or record
        print(f"referee: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("referee: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of the results went away (`| head`): nothing more to say to it
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except SystemExit:
        raise
    except Exception as error:  # a fault of referee's own: said in one line all the same
        print(f"referee: internal error: {cause(error)} (--debug shows where; please report it)", file=sys.stderr)
        return 70


if __name__ == "__main__":
    sys.exit(main())
