"""The `embedding` section: the Python API on every game's mid-game samples (samples.py).

- *ns/call*: best mean time of one call over 5 passes, every call of every game taking turns, for
  `play` (legal move), `validate` (legal and refused move), `legal_moves`, `outcome`, `position`, the
  engine's `play_json` (a `{"state", "move"}` body as bytes: the HTTP route's call) and `validate_json`
  (refused move), and `Engine.validate` (the native method without the Python wrapper). *× no-op call*
  compares with a plain Python function taking the same arguments, called the same way: it is what a
  call costs beyond calling anything at all. *× Iago* is ns/call ÷ Iago's for the same call; the
  `play_json`, `outcome`, `legal_moves` and `position` rows carry their target.
- *items/s* of `validate_batch` on 10,000 items (half legal, half refused moves), with and without
  `with_state`, against a Python loop of single `validate` calls on the same items, every game taking
  turns; the report checks the results are equal. (`validate_batch` encodes the dicts with orjson,
  takes the JSON batch path and decodes the results: its cost beyond the JSON call is Python objects.)
- the JSON batch calls, `validate_batch_json` (a JSON array as bytes) and `validate_batch_ndjson`, on
  400,000 items (`--json-batch-size`) or as many as fit in 200 MB (`--json-batch-mb`: a Caesar! item is
  about 3 KB, an Iago item 230 bytes), one game after the other; *bytes/item* is the array's size ÷ its
  items, *× Iago* the array's items/s ÷ Iago's, with the target; *× loop* compares with the loop above."""

from __future__ import annotations

import argparse
import functools
import os
import statistics
from collections import Counter
from typing import Any, Callable

import orjson
import referee

from report import number, progress, ratio, table, times, verdict
from samples import REFERENCE, Sample, batch_items
from timing import interleaved

__all__ = ["bench_embedding"]

# The targets of issue 13: printed next to the numbers (met / missed), never asserted.
IAGO_JSON_RATE = 1.5e6  # Iago's validate_batch_json items/s on 2 cores
JSON_TARGETS = {"isaac": 0.5, "hypnosia": 0.5, "caesar": 0.25}  # the other games' items/s ÷ Iago's
CALL_TARGETS = {  # the most a call may cost per call, × Iago's
    "`Engine.play_json(body)`": 4,
    "`game.outcome(state)`": 3,
    "`game.legal_moves(state)`": 3,
    "`game.position(state)`": 3,
}


NOOP = "no-op Python function `f(state, move)` (baseline)"


def noop(state: Any, move: Any = None) -> None:
    """The baseline: a plain Python function call with the same arguments."""
    return None


def calling(function: Callable[..., Any], calls: list[tuple[Any, ...]]) -> Callable[[], None]:
    """One pass of `function` over the argument tuples `calls`."""
    def run() -> None:
        for call in calls:
            function(*call)
    return run


def api_calls(game: referee.Game, samples: list[Sample]) -> dict[str, Callable[[], None]]:
    """One pass over the samples of each measured call, by label."""
    legal = [(sample.state, sample.legal) for sample in samples]
    illegal = [(sample.state, sample.illegal) for sample in samples]
    states = [(sample.state,) for sample in samples]
    play_bodies = [(orjson.dumps({"state": sample.state, "move": sample.legal}),) for sample in samples]
    refused_bodies = [(orjson.dumps({"state": sample.state, "move": sample.illegal}),) for sample in samples]
    engine = game._engine
    return {
        NOOP: calling(noop, legal),
        "`game.play(state, legal move)`": calling(game.play, legal),
        "`game.validate(state, legal move)`": calling(game.validate, legal),
        "`game.validate(state, refused move)`": calling(game.validate, illegal),
        "`game.legal_moves(state)`": calling(game.legal_moves, states),
        "`game.outcome(state)`": calling(game.outcome, states),
        "`game.position(state)`": calling(game.position, states),
        "`Engine.play_json(body)`": calling(engine.play_json, play_bodies),
        "`Engine.validate_json(body)` (refused move)": calling(engine.validate_json, refused_bodies),
        "`Engine.validate(state, legal move)` (no Python wrapper)": calling(engine.validate, legal),
    }


def refusal_mix(game: referee.Game, samples: list[Sample]) -> str:
    """How the samples' refused moves are refused: the commonest rules (or codes) and their counts."""
    reasons = [game.validate(sample.state, sample.illegal)["reason"] for sample in samples]
    counts = Counter(reason.get("rule") or reason["code"] for reason in reasons)
    return ", ".join(f"`{rule}` {count:,}" for rule, count in counts.most_common(4))


def call_target(name: str, ns: float, reference: float | None, limit: int | None) -> str:
    if limit is None:
        return ""
    if name == REFERENCE:
        return "(the reference)"
    return verdict(f"≤ {limit}× Iago", None if reference is None else ns <= limit * reference)


def per_call_rows(args: argparse.Namespace, games: dict[str, referee.Game],
                  samples: dict[str, list[Sample]]) -> list[list[str]]:
    """Every call of every game, the games' passes taking turns; one row per (call, game)."""
    functions, labels = {}, []
    for name, game in games.items():
        for label, function in api_calls(game, samples[name]).items():
            functions[label, name] = function
            if label not in labels:
                labels.append(label)
    progress(f"embedding: per-call times of {len(labels)} calls on {len(games)} games")
    passes = interleaved(args.repeat, functions)
    ns = {key: seconds * 1e9 / len(samples[key[1]]) for key, (_, seconds) in passes.items()}
    rows = []
    for label in labels:
        for name in games:
            reference = ns.get((label, REFERENCE))
            rows.append([label, name, number(ns[label, name]), times(ns[label, name] / ns[NOOP, name]),
                         ratio(ns[label, name], reference),
                         call_target(name, ns[label, name], reference, CALL_TARGETS.get(label))])
    return rows


def validate_loop(game: referee.Game, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [game.validate(item["state"], item["move"]) for item in items]


def dict_batch_rows(args: argparse.Namespace, games: dict[str, referee.Game], samples: dict[str, list[Sample]]
                    ) -> tuple[list[list[str]], dict[str, tuple[list[dict[str, Any]], float]]]:
    """A loop of `validate` against `validate_batch` (with and without states), every game taking turns;
    the rows, and each game's loop results and items/s."""
    functions = {}
    for name, game in games.items():
        items = batch_items(samples[name], args.batch_size)
        functions[name, "loop"] = functools.partial(validate_loop, game, items)
        functions[name, "batch"] = functools.partial(game.validate_batch, items)
        functions[name, "with_state"] = functools.partial(game.validate_batch, items, with_state=True)
    progress(f"embedding: validate_batch of {args.batch_size} items, every game")
    ways = interleaved(args.repeat, functions)
    rows, loops = [], {}
    for name in games:
        (looped, loop_time), (batched, batch_time) = ways[name, "loop"], ways[name, "batch"]
        state_time = ways[name, "with_state"][1]
        loops[name] = (looped, args.batch_size / loop_time)
        rows.append([name, number(args.batch_size / loop_time), number(args.batch_size / batch_time),
                     times(loop_time / batch_time), number(args.batch_size / state_time),
                     times(loop_time / state_time), "equal" if batched == looped else "**differ**"])
    return rows, loops


def json_batch(args: argparse.Namespace, game: referee.Game, samples: list[Sample],
               looped: list[dict[str, Any]]) -> dict[str, Any]:
    """`validate_batch_json` and `validate_batch_ndjson` of one game on --json-batch-size items (at most
    --json-batch-mb of JSON): items/s, bytes/item, and whether the results equal the loop's."""
    distinct = [orjson.dumps(item) for item in batch_items(samples, 2 * len(samples))]
    per_item = statistics.mean(len(item) + 1 for item in distinct)
    size = max(1, min(args.json_batch_size, int(args.json_batch_mb * 1e6 / per_item)))
    chosen = [distinct[index % len(distinct)] for index in range(size)]  # batch_items(samples, size), encoded
    as_array = b"[" + b",".join(chosen) + b"]"
    as_lines = b"\n".join(chosen) + b"\n"
    del chosen
    progress(f"embedding: {game.name} JSON batches of {size:,} items ({len(as_array) / 1e6:,.0f} MB)")
    ways = interleaved(args.repeat, {
        "array": functools.partial(game.validate_batch_json, as_array),
        "lines": functools.partial(game.validate_batch_ndjson, as_lines),
    })
    checked = min(len(looped), size)
    answers = orjson.loads(ways["array"][0])[:checked]
    same = [{key: value for key, value in answer.items() if key != "index"} for answer in answers] == looped[:checked]
    return {"items": size, "bytes_per_item": len(as_array) / size, "array": size / ways["array"][1],
            "lines": size / ways["lines"][1], "same": same}


def json_target(name: str, rate: float, reference: float | None) -> str:
    if name == REFERENCE:
        return verdict(f"≥ {IAGO_JSON_RATE / 1e6:.1f} M/s", rate >= IAGO_JSON_RATE)
    factor = JSON_TARGETS.get(name)
    if factor is None:
        return ""
    return verdict(f"≥ {factor}× Iago", None if reference is None else rate >= factor * reference)


def json_batch_rows(args: argparse.Namespace, games: dict[str, referee.Game], samples: dict[str, list[Sample]],
                    loops: dict[str, tuple[list[dict[str, Any]], float]]) -> tuple[list[list[str]], dict[str, float]]:
    """One game at a time (the buffers are large): the rows, and each game's array items/s."""
    results = {name: json_batch(args, game, samples[name], loops[name][0]) for name, game in games.items()}
    reference = results.get(REFERENCE, {}).get("array")
    rows = []
    for name, result in results.items():
        rows.append([name, number(result["items"]), number(result["bytes_per_item"]), number(result["array"]),
                     ratio(result["array"], reference), json_target(name, result["array"], reference),
                     number(result["lines"]), times(result["array"] / loops[name][1]),
                     "equal" if result["same"] else "**differ**"])
    return rows, {name: result["array"] for name, result in results.items()}


def bench_embedding(args: argparse.Namespace, games: dict[str, referee.Game],
                    samples: dict[str, list[Sample]]) -> tuple[str, dict[str, float]]:
    call_rows = per_call_rows(args, games, samples)
    batch_rows, loops = dict_batch_rows(args, games, samples)
    json_rows, json_rates = json_batch_rows(args, games, samples, loops)
    counts = ", ".join(f"{name} {len(found):,}" for name, found in samples.items())
    mixes = [f"- {name}: {refusal_mix(game, samples[name])}" for name, game in games.items()]
    text = "\n".join([
        "## embedding: the Python API",
        "",
        f"Per call, best mean over {args.repeat} passes over each game's mid-game states ({counts}: states of the "
        "middle half of seeded random games with at least two legal moves), every call of every game taking "
        "turns; states are the dicts the API returns. The refused move is a legal move of another state of the "
        "same game that `validate` refuses here. *× Iago*: ns/call ÷ Iago's for the same call (lower is "
        "cheaper). Targets: `Engine.play_json` within 4× Iago's, `outcome`, `legal_moves` and `position` "
        "within 3×.",
        "",
        table(["call", "game", "ns/call", "× no-op call", "× Iago", "target"], call_rows),
        "",
        "The refused moves, by the rule (or code) that refuses them, the commonest first:",
        "",
        *mixes,
        "",
        f"Batches of {number(args.batch_size)} validate items (half legal, half refused moves), best of "
        f"{args.repeat}, every game taking turns; `validate_batch` runs on {os.cpu_count()} cores (rayon). "
        "*results*: the batch's results compared with the loop's.",
        "",
        table(["game", "loop of `validate` items/s", "`validate_batch` items/s", "× loop",
               "`validate_batch(with_state=True)` items/s", "× loop", "results"], batch_rows),
        "",
        f"The JSON calls take the items as bytes and parse them in parallel with the rules, no Python object "
        f"per item: `validate_batch_json` (a JSON array) and `validate_batch_ndjson`, {number(args.json_batch_size)} "
        f"items (`--json-batch-size`) or as many as fit in {args.json_batch_mb} MB (`--json-batch-mb`), best of "
        f"{args.repeat}, one game after the other. *× Iago* compares the array's items/s; targets: Iago "
        f"≥ {IAGO_JSON_RATE / 1e6:.1f} M validations/s on 2 cores, Isaac and Hypnosia ≥ 0.5× Iago, Caesar! "
        "≥ 0.25× Iago. *results*: the array's results against the loop's (index aside).",
        "",
        table(["game", "items", "bytes/item", "`validate_batch_json` items/s", "× Iago", "target",
               "`validate_batch_ndjson` items/s", "× loop", "results"], json_rows),
    ])
    return text, json_rates
