"""Records that claim how their games ended, as archives hold them (metadata included), and the verdict
each claim should get, worked out here from the reference models' outcomes by the rules as docs/archives.md
states them (section Claims), apart from the engine's `claims.rs`.

- `finished_records()`: seeded random games of every game played to their end, in several setups
  (Hypnosia with 2 to 6 players);
- `claimed_records()`: each of those, and stops of it part way (a game not over) and past an illegal
  ply, with every kind of claim and termination, right and wrong (`claim_variants`), and metadata;
- `expected_verdict(record, modelled)`: `(claim, code, field)` as the rules give them, from the record's
  `model_replay` (the reference models' replay, their own chance)."""

from __future__ import annotations

import functools
import random
from typing import Any

import referee
from helpers.games import FACTS
from helpers.records import model_replay
from rules.reference import hypnosia, iago

#: Each game's setups played to their end, and the seed of each game.
SETUPS: dict[str, list[dict[str, Any]]] = {name: FACTS[name].claim_setups for name in referee.games()}
TERMINATIONS = ("normal", "resignation", "timeout", "agreement", "abandoned")
FREE = object()  # a field the end leaves to the players


def finished_record(name: str, setup: dict[str, Any], seed: int) -> dict[str, Any]:
    """A seeded uniform random game to its end, as a record."""
    game, rng = referee.game(name, **setup), random.Random(seed)
    state, moves = game.new(seed=seed), []
    while legal := game.legal_moves(state):
        moves.append(rng.choice(legal))
        state = game.play(state, moves[-1])["state"]
    return {"game": name, **setup, "seed": seed, "moves": moves}


@functools.cache
def finished_records() -> tuple[dict[str, Any], ...]:
    return tuple(finished_record(name, setup, seed) for name, setups in SETUPS.items()
                 for seed, setup in enumerate(setups, start=11))


def model_outcome(name: str, pos: Any) -> dict[str, Any]:
    """The reference model's outcome: status, to_move, scores, winner and (Hypnosia) ranking."""
    if name == "iago":
        over = iago.is_finished(pos)
        return {"status": "finished" if over else "ongoing", "to_move": None if over else pos.to_move,
                "scores": iago.scores(pos), "winner": iago.winner(pos), "ranking": None}
    return {"ranking": None} | FACTS[name].model.outcome(pos)


def standing(name: str, pos: Any) -> list[list[str]] | None:
    """How the model ranks the players as the position stands: Hypnosia only (its ranking rule applies to
    any position); the two-player games have none."""
    return hypnosia.ranking(pos) if name == "hypnosia" else None


def resigned(name: str, pos: Any, players: list[str], by: str) -> tuple[str | None, list[list[str]] | None]:
    """The winner and ranking of a game lost by `by` where the moves stop."""
    ranks = standing(name, pos)
    if ranks is None:
        return next(p for p in players if p != by), None
    others = [[p for p in rank if p != by] for rank in ranks]
    others = [rank for rank in others if rank]
    return (others[0][0] if len(others[0]) == 1 else None), others + [[by]]


def claim_variants(name: str, pos: Any, rng: random.Random) -> list[dict[str, Any]]:
    """Claims of every kind for a game stopped at `pos`: right ones, and ones wrong in each way."""
    outcome = model_outcome(name, pos)
    players = list(outcome["scores"])
    scores, winner = outcome["scores"], outcome["winner"]
    loser = next(p for p in players if p != winner) if winner else players[-1]
    right = {"winner": winner, "scores": scores} | ({"ranking": outcome["ranking"]} if outcome["ranking"] else {})
    bumped = scores | {players[0]: scores[players[0]] + 1}
    variants: list[dict[str, Any]] = [
        {},
        {"result": right},
        {"result": {"winner": winner}, "termination": "normal"},
        {"result": {"winner": loser}},                                # a wrong winner
        {"result": {"winner": None}},
        {"result": {"winner": winner, "scores": bumped}},             # wrong scores
        {"result": {"winner": "nobody"}},                             # no player of the game
        {"result": {"winner": winner, "scores": {"nobody": 0}}},
        {"termination": "normal", "by": players[0]},                  # a `by` where none belongs
        {"termination": "resignation"},                               # who resigned?
        {"termination": "agreement", "result": {"winner": rng.choice(players)}},
        {"termination": "agreement", "result": {"winner": None, "scores": scores}},
        {"termination": "abandoned"},
        {"termination": "abandoned", "result": {"winner": players[0]}},   # an abandoned game with a winner
        {"termination": "abandoned", "result": {"winner": None, "scores": scores}},
    ]
    for by in players:
        won, ranking = resigned(name, pos, players, by)
        fair = {"winner": won} | ({"ranking": ranking, "scores": scores} if ranking else {})
        variants += [
            {"termination": "resignation", "by": by, "result": fair},
            {"termination": "timeout", "by": by, "result": fair},
            {"termination": "timeout", "by": by, "result": {"winner": by}},  # won by who timed out
            {"termination": "resignation", "by": by},
        ]
    if name == "hypnosia":
        ranks = outcome["ranking"] or standing(name, pos)
        variants += [
            {"result": {"winner": winner, "ranking": [list(reversed(rank)) for rank in ranks]}},  # ties any order
            {"result": {"winner": None, "ranking": [list(reversed(players))]}},  # all share the first rank
            {"result": {"winner": winner, "ranking": [[p] for p in players[:-1]]}},  # a player left out
            {"termination": "agreement", "result": {"winner": players[0], "ranking": [[p] for p in players]}},
        ]
        won, ranking = resigned(name, pos, players, players[0])
        beaten = [p for p in players[1:] if p != won]
        if beaten:  # a winner among the others, but not the one leading them
            variants.append({"termination": "resignation", "by": players[0], "result": {"winner": beaten[-1]}})
        if len(ranking) > 2:  # the others in the wrong order, the resigner last
            wrong = list(reversed(ranking[:-1])) + [ranking[-1]]
            first = wrong[0][0] if len(wrong[0]) == 1 else None
            variants.append({"termination": "resignation", "by": players[0], "result": {"winner": first, "ranking": wrong}})
    else:
        variants.append({"result": {"winner": winner, "ranking": [[p] for p in players]}})  # no ranking here
    return variants


METADATA = [
    {"players": {"black": "Ann Arbor", "white": "Bo Chen"}, "date": "2026-10-31", "event": "Club night"},
    {"site": "https://example.org/g/1", "round": 3, "rated": True, "time_control": {"base": 300, "increment": 5}},
    {"annotator": None, "tags": ["opening", "endgame"], "notes": "ünïcode ✓", "elo": [1500, 1620.5]},
]


def stops(record: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    """The record itself (a game over), two stops part way (a game going on), and one past an illegal ply."""
    moves = record["moves"]
    cut = [record | {"moves": moves[:n]} for n in (0, rng.randrange(1, len(moves)))]
    illegal = record | {"moves": moves + [moves[0]]}  # a ply after the end (or a repeated first move)
    return [record, *cut, illegal]


@functools.cache
def claimed_records() -> tuple[dict[str, Any], ...]:
    """Every finished record's stops with every claim variant and some metadata, numbered by `id`."""
    rng, out = random.Random(32), []
    for record in finished_records():
        for stop in stops(record, rng):
            replayed = modelled(stop)
            variants = claim_variants(stop["game"], replayed["pos"], rng)
            for claim in variants if replayed["legal"] else variants[:4]:  # past an illegal ply, all alike
                out.append(stop | rng.choice(METADATA) | claim | {"id": len(out)})
    return tuple(out)


def modelled(record: dict[str, Any]) -> dict[str, Any]:
    """The reference model's replay of a record's moves (claims and metadata aside), once."""
    return _modelled(record["game"], record.get("variant"), repr(record.get("options")), record["seed"],
                     tuple(record["moves"]))


@functools.cache
def _modelled(name: str, variant: str | None, options: str, seed: int, moves: tuple[str, ...]) -> dict[str, Any]:
    record = {"game": name, "seed": seed, "moves": list(moves), "options": eval(options) or {}}  # noqa: S307
    return model_replay(record | ({"variant": variant} if variant else {}))


def same_ranking(claimed: list[list[str]], actual: list[list[str]] | None) -> bool:
    return actual is not None and [sorted(rank) for rank in claimed] == [sorted(rank) for rank in actual]


def expected_verdict(record: dict[str, Any]) -> tuple[str, str | None, str | None]:
    """`(claim, code, field)`: the verdict the rules give the record's claim (docs/archives.md, Claims)."""
    claimed = {key: record[key] for key in ("result", "termination", "by") if record.get(key) is not None}
    if not claimed:
        return "absent", None, None
    replayed = modelled(record)
    if not replayed["legal"]:
        return "disagrees", "claim-illegal-moves", None
    name, pos = record["game"], replayed["pos"]
    outcome = model_outcome(name, pos)
    players = list(outcome["scores"])
    result = claimed.get("result") or {}
    termination, by = claimed.get("termination", "normal"), claimed.get("by")
    winner, scores, ranking = result.get("winner"), result.get("scores"), result.get("ranking")
    named = [("by", by)] * (by is not None) + [("result.winner", winner)] * (winner is not None)
    named += [("result.scores", p) for p in scores or {}] + [("result.ranking", p) for rank in ranking or [] for p in rank]
    for field, player in named:
        if player not in players:
            return "disagrees", "claim-unknown-player", field
    lost_by = termination in ("resignation", "timeout")
    inconsistent = (
        ("by", lost_by and by is None),
        ("result.winner", lost_by and winner == by),
        ("by", not lost_by and by is not None),
        ("result.winner", termination == "abandoned" and winner is not None),
        ("result.ranking", termination == "abandoned" and ranking is not None),
        ("result.ranking", ranking is not None and (sorted(p for rank in ranking for p in rank) != sorted(players)
                                                    or not all(ranking))),
        ("result.winner", ranking is not None and (ranking[0][0] if len(ranking[0]) == 1 else None) != winner),
    )
    for field, broken in inconsistent:
        if broken:
            return "disagrees", "claim-inconsistent", field
    over = outcome["status"] == "finished"
    if termination == "normal" and not over:
        return "disagrees", "claim-not-over", None
    if termination != "normal" and over:
        return "disagrees", "claim-over", None
    if termination == "normal":
        expected_winner, expected_ranking = outcome["winner"], outcome["ranking"]
    elif lost_by:
        expected_winner, expected_ranking = resigned(name, pos, players, by)
    elif termination == "agreement":
        expected_winner, expected_ranking = FREE, FREE if name == "hypnosia" else None
    else:
        expected_winner, expected_ranking = FREE, FREE
    if "result" in claimed and expected_winner is not FREE and winner != expected_winner:
        return "disagrees", "claim-mismatch", "result.winner"
    if scores is not None and scores != outcome["scores"]:
        return "disagrees", "claim-mismatch", "result.scores"
    if ranking is not None and expected_ranking is not FREE and not same_ranking(ranking, expected_ranking):
        return "disagrees", "claim-mismatch", "result.ranking"
    return "agrees", None, None


def verdict_of(result: dict[str, Any]) -> tuple[str, str | None, str | None]:
    """`(claim, code, field)` of a result (a replay's answer, an archive's result)."""
    reason = result.get("claim_reason") or {}
    field = reason.get("field") if reason.get("code") in ("claim-unknown-player", "claim-inconsistent",
                                                            "claim-mismatch") else None
    return result["claim"], reason.get("code"), field
