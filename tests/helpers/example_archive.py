"""The example archive of docs/archives.md, `docs/archive/example.jsonl`: a club's games of the four games as an
archive holds them — who played, when, the result claimed and how each game ended (to the end, by a
resignation, a timeout, an agreement, abandoned), a few claims that the moves contradict, a record with a
mistyped move and a line that is no record. `python tests/helpers/example_archive.py docs/archive/example.jsonl`
writes it (a test checks the committed file is what this makes); its report, `docs/archive/report.html`,
is what `referee validate` writes of it (`--report`), checked by another test."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import referee
from helpers.games import FACTS

#: Records a game.
GAMES = 12
NAMES = ["Ann", "Bo", "Chidi", "Dana", "Eero", "Fatou", "Gus", "Hana", "Ivo", "Jun"]
SETUPS: dict[str, list[dict[str, Any]]] = {name: FACTS[name].archive_setups for name in referee.games()}
#: How each record of a game ends, in turn (the first, a short resignation, is a sample of docs/archives.md).
ENDS = ["resignation", "normal", "normal", "timeout", "normal", "agreement", "normal", "abandoned", "wrong winner",
        "normal", "no claim", "normal"]


def played(name: str, setup: dict[str, Any], seed: int) -> tuple[list[str], referee.Game]:
    game, rng = referee.game(name, **setup), random.Random(seed)
    state, moves = game.new(seed=seed), []
    while legal := game.legal_moves(state):
        moves.append(rng.choice(legal))
        state = game.play(state, moves[-1])["state"]
    return moves, game


def claimed(end: str, game: referee.Game, moves: list[str], seed: int, rng: random.Random) -> dict[str, Any]:
    """The record's moves and claim for an end: a game stopped early where the end needs one."""
    if end in ("normal", "wrong winner", "no claim"):
        outcome = game.replay(moves, seed=seed)["outcome"]
        result = {"winner": outcome["winner"], "scores": outcome["scores"]}
        if "ranking" in outcome:
            result["ranking"] = outcome["ranking"]
        if end == "wrong winner":
            result = {"winner": next(p for p in outcome["scores"] if p != outcome["winner"])}
        return {"moves": moves} | ({} if end == "no claim" else {"result": result, "termination": "normal"})
    stop = 8 if end == "resignation" else rng.randrange(len(moves) // 3, len(moves) - 1)
    moves = moves[:stop]
    outcome = game.replay(moves, seed=seed)["outcome"]
    players = list(outcome["scores"])
    if end in ("resignation", "timeout") and len(players) == 2:
        by = outcome["to_move"]
        return {"moves": moves, "result": {"winner": next(p for p in players if p != by)}, "termination": end, "by": by}
    if end == "abandoned":
        return {"moves": moves, "termination": "abandoned"}
    return {"moves": moves, "result": {"winner": None, "scores": outcome["scores"]}, "termination": "agreement"}


def records() -> list[dict[str, Any]]:
    rng, out = random.Random(2026), []
    for name, setups in SETUPS.items():
        for number in range(GAMES):
            setup = setups[number % len(setups)]
            seed = 100 * len(out) + number
            moves, game = played(name, setup, seed)
            seated = list(game.replay([], seed=seed)["outcome"]["scores"])
            # Resignations and timeouts in two-player games only: the samples show the simple case.
            end = ENDS[number] if len(seated) == 2 or ENDS[number] not in ("resignation", "timeout") else "normal"
            players = dict(zip(seated, rng.sample(NAMES, len(NAMES))))
            head = {"id": f"club-{name}-{number + 1:02}", "event": "Autumn club nights",
                    "date": f"2026-{9 + number // 6:02}-{1 + number * 4 % 28:02}", "players": players}
            out.append(head | {"game": name, **setup, "seed": seed} | claimed(end, game, moves, seed, rng))
    typo = dict(out[1])
    typo |= {"id": typo["id"] + "-typo", "moves": typo["moves"][:5] + [typo["moves"][3]] + typo["moves"][6:]}
    out.insert(2, typo)  # a mistyped move: the record is illegal there, and its claim cannot hold
    return out


def text() -> str:
    lines = [json.dumps(record, ensure_ascii=False) for record in records()]
    lines.insert(30, '{"id": "club-isaac-xx", "game": "isaac", "moves": [], "result": "1-0"}')  # no record
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    Path(sys.argv[1] if len(sys.argv) > 1 else "docs/archive/example.jsonl").write_text(text(), encoding="utf-8")
