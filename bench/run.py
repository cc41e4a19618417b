#!/usr/bin/env python3
"""Referee benchmarks: measures everything in one run on this machine and prints a Markdown report.

    python bench/run.py                               # every section, about a minute
    python bench/run.py --only core,embedding         # some sections
    python bench/run.py --out bench/results/latest.md # also write the report to a file (git-ignored)

Sections (the default runs the first six):
    core       Iago perft and random playouts: the Rust engine against the Python reference model
    games      the same for Isaac, Hypnosia and Caesar!
    embedding  per-call cost of the Python API on mid-game states, and the batch calls
    http       gunicorn + wrk: play and validate against a trivial Flask app under the same config, at full
               load and at 70% of it
    batch      NDJSON batches over HTTP, end to end: one of 10,000 items, and a long stream
    slow       64 clients trickling bodies at a byte a second: /healthz and play latency meanwhile
    archive    `referee validate` on a generated archive of random games (--archive-games, 100,000)
    soak       play at full load for --soak-seconds (600): errors, worker restarts, worker memory
    seals      play with seals (REFEREE_SEAL_KEYS, keyed chance) and opaque states (REFEREE_OPAQUE_STATES)
               against without, every game: in process and over HTTP

Run it with a release build of `referee` installed (see bench/README.md), not an editable debug build.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import http.client
import importlib.util
import json
import os
import platform
import random
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import referee

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
BODIES = BENCH / "bodies"
MODEL_PATH = ROOT / "tests" / "reference" / "iago.py"
SECTIONS = ("core", "games", "embedding", "http", "batch", "slow", "archive", "soak", "seals")
DEFAULT_SECTIONS = SECTIONS[:6]
#: An Iago game has at most 61 plies (one disc a hex); a longer playout is a bug, not a slow game.
MAX_PLIES = 100
MIDGAME = range(15, 45)  # the plies whose states count as mid-game


# --------------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------------

def progress(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def number(value: float, digits: int = 0) -> str:
    return f"{value:,.{digits}f}"


def times(value: float) -> str:
    return f"{value:,.1f}×" if value < 100 else f"{value:,.0f}×"


def table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def interleaved(repeat: int, functions: dict[str, Callable[[], Any]]) -> dict[str, tuple[Any, float]]:
    """Each function's result and best wall time over `repeat` rounds; a round runs every function once,
    so a burst of load from elsewhere on the machine hits all of them alike."""
    best = {name: (None, float("inf")) for name in functions}
    for _ in range(repeat):
        for name, function in functions.items():
            start = time.perf_counter()
            result = function()
            elapsed = time.perf_counter() - start
            if elapsed < best[name][1]:
                best[name] = (result, elapsed)
    return best


def command_output(*command: str) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return (done.stdout or done.stderr).strip() or "unknown"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_model(name: str = "iago") -> Any:
    """The Python reference model of a game (tests/reference/<name>.py), loaded from its file."""
    spec = importlib.util.spec_from_file_location(f"reference_{name}", MODEL_PATH.with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------------------------------
# Seeded random playouts
# --------------------------------------------------------------------------------------------------

def engine_game(game: referee.Game, rng: random.Random) -> list[dict[str, Any]]:
    """A random game to the end through the Python API: the state after every ply."""
    state = game.new()
    states = [state]
    for _ in range(MAX_PLIES):
        moves = game.legal_moves(state)
        if not moves:
            return states
        state = game.play(state, rng.choice(moves))["state"]
        states.append(state)
    raise RuntimeError(f"an engine playout did not end within {MAX_PLIES} plies")


def model_game(model: Any, rng: random.Random) -> list[Any]:
    """The same random game with the reference model: the position after every ply."""
    position = model.initial()
    positions = [position]
    for _ in range(MAX_PLIES):
        moves = model.legal_moves(position)
        if not moves:
            return positions
        position = model.play(position, rng.choice(moves))[0]
        positions.append(position)
    raise RuntimeError(f"a model playout did not end within {MAX_PLIES} plies")


def board_cells(game: referee.Game) -> list[str]:
    """The hexes in notation order: the order of the characters of a state's board rows."""
    return [cell["cell"] for cell in game.info()["board"]["cells"]]


def empty_cells(cells: list[str], state: dict[str, Any]) -> list[str]:
    return [cell for cell, mark in zip(cells, "".join(state["board"])) if mark == "."]


def midgame_samples(game: referee.Game, count: int, seed: int) -> list[tuple[dict[str, Any], str, str]]:
    """`count` (state, legal move, illegal move) triples from mid-game states of seeded playouts.
    The illegal move is an empty hex the rules forbid (forced capture, outer area, centre) when the
    state has one, else an occupied hex."""
    rng = random.Random(seed)
    cells = board_cells(game)
    samples: list[tuple[dict[str, Any], str, str]] = []
    for game_number in range(count):  # every game gives at least one sample
        for ply, state in enumerate(engine_game(game, random.Random(seed + 1 + game_number))):
            legal = game.legal_moves(state)
            if ply not in MIDGAME or not legal:
                continue
            empty = empty_cells(cells, state)
            forbidden = [cell for cell in empty if cell not in legal]
            occupied = [cell for cell in cells if cell not in empty]
            samples.append((state, rng.choice(legal), rng.choice(forbidden or occupied)))
            if len(samples) == count:
                return samples
    return samples


def batch_items(samples: list[tuple[dict[str, Any], str, str]], size: int) -> list[dict[str, Any]]:
    """`size` validate items over the samples, alternating a legal and an illegal move."""
    items = []
    for index in range(size):
        state, legal, illegal = samples[(index // 2) % len(samples)]
        items.append({"state": state, "move": legal if index % 2 == 0 else illegal})
    return items


# --------------------------------------------------------------------------------------------------
# core: engine vs reference model
# --------------------------------------------------------------------------------------------------

def bench_core(args: argparse.Namespace, game: referee.Game, model: Any) -> str:
    start = game.new()
    progress(f"core: perft, engine depth {args.engine_depth}, model depth {args.model_depth}")
    perfts = interleaved(args.perft_repeat, {
        "engine": lambda: game.perft(start, args.engine_depth),
        "model": lambda: model.perft(model.initial(), args.model_depth),
    })
    (engine_nodes, engine_time), (model_nodes, model_time) = perfts["engine"], perfts["model"]
    same_count = game.perft(start, args.model_depth) == model_nodes
    engine_rate, model_rate = engine_nodes / engine_time, model_nodes / model_time

    progress(f"core: random games, {args.games} engine and {args.model_games} model games a round")
    playouts = interleaved(args.repeat, {
        "engine": lambda: [engine_game(game, random.Random(args.seed + index)) for index in range(args.games)],
        "model": lambda: [model_game(model, random.Random(args.seed + index)) for index in range(args.model_games)],
    })
    (engine_games, engine_games_time), (model_games, model_games_time) = playouts["engine"], playouts["model"]
    engine_games_rate, model_games_rate = args.games / engine_games_time, args.model_games / model_games_time
    # The same seed picks the same move when both list the legal moves in notation order.
    same_games = sum(
        game.position(states[-1]) == model.format_position(positions[-1])
        for states, positions in zip(engine_games, model_games)
    )
    plies = statistics.mean(len(states) - 1 for states in engine_games)

    rows = [
        ["perft nodes/s", f"{number(engine_rate)} (perft({args.engine_depth}) = {number(engine_nodes)}, "
         f"{engine_time * 1000:,.1f} ms)", f"{number(model_rate)} (perft({args.model_depth}) = {number(model_nodes)}, "
         f"{model_time * 1000:,.0f} ms)", times(engine_rate / model_rate)],
        ["random games/s", f"{number(engine_games_rate, 1)} ({args.games} games a round)",
         f"{number(model_games_rate, 1)} ({args.model_games} games a round)", times(engine_games_rate / model_games_rate)],
    ]
    return "\n".join([
        "## core: Iago engine vs Python reference model",
        "",
        table(["measure", "Rust engine", "Python model", "engine / model"], rows),
        "",
        f"- perft from the initial position, single thread, both count the last ply in bulk (size of the legal "
        f"move list); best of {args.perft_repeat}, engine and model taking turns. Engine perft({args.model_depth}) "
        f"{'equals' if same_count else '**differs from**'} the model's ({number(model_nodes)}).",
        f"- random games: seeded uniform playouts from the initial position to the end (mean {plies:.1f} plies), "
        f"best of {args.repeat} rounds taking turns; "
        "the engine is driven through the Python API (`legal_moves` + `play` on JSON-like states each ply), "
        "so this includes the embedding cost.",
        f"- the engine and the model played the same {same_games} of {min(args.games, args.model_games)} "
        "seeded games (same final position).",
    ])


# --------------------------------------------------------------------------------------------------
# games: Isaac, Hypnosia and Caesar!, engine vs model
# --------------------------------------------------------------------------------------------------

#: Caesar!'s fixed setup for perft (its reference model counts exactly only while no draw matters).
CAESAR_SETUP = {
    "bonuses": {"HU": "tactics", "HC": "might", "MT": "senate", "SD": "wealth", "GA": "senate", "NU": "might",
                "SC": "tactics", "GC": "wealth", "AF": "senate", "AC": "tactics", "MD": "might", "DM": "wealth",
                "CY": "senate", "CR": "tactics", "AG": "might", "AS": "senate", "SY": "wealth"},
    "hands": {"caesar": ["S60", "L22"], "pompey": ["D51", "N33"]},
}


def game_adapters() -> dict[str, dict[str, Any]]:
    """For each game: the engine setup, a perft start for both sides, and one seeded random game each
    (uniform over the legal moves; the model is given the chance events it cannot draw)."""
    isaac, hypnosia, caesar = load_model("isaac"), load_model("hypnosia"), load_model("caesar")

    def engine_playout(game: referee.Game, seed: int) -> int:
        rng, state, plies = random.Random(seed), game.new(seed=seed), 0
        while moves := game.legal_moves(state):
            move = rng.choice(moves)
            state = game.play(state, move)["state"]
            plies += move != "roll"  # Hypnosia's roll is a move of the engine's, not a turn
        return plies

    def isaac_playout(seed: int) -> int:
        rng, pos, plies = random.Random(seed), isaac.initial(), 0
        while moves := isaac.legal_moves(pos):
            pos, _ = isaac.play(pos, rng.choice(moves))
            plies += 1
        return plies

    def hypnosia_playout(seed: int) -> int:
        rng, pos, plies = random.Random(seed), hypnosia.initial({"first_player": "red"}), 0
        while not hypnosia.is_finished(pos):
            if hypnosia.projection(pos)["dice"] is None:
                pos, _ = hypnosia.play(pos, f"{rng.randint(1, 6)}-{rng.randint(1, 6)}")
            pos, _ = hypnosia.play(pos, rng.choice(hypnosia.legal_moves(pos)))
            plies += 1
        return plies

    def caesar_playout(seed: int) -> int:
        rng, pos, plies = random.Random(seed), caesar.initial(CAESAR_SETUP["bonuses"], CAESAR_SETUP["hands"]), 0
        while moves := caesar.legal_moves(pos):
            pos, _ = caesar.play(pos, rng.choice(moves), draw=lambda player, bag: rng.choice(bag))
            plies += 1
        return plies

    return {
        "isaac": {"options": {}, "perft": (3, 2), "model_start": isaac.initial, "model": isaac,
                  "engine_playout": engine_playout, "model_playout": isaac_playout},
        "hypnosia": {"options": {"first_player": "red"}, "perft": (2, 1), "model": hypnosia,
                     "model_start": lambda: hypnosia.initial({"first_player": "red"}),
                     "engine_playout": engine_playout, "model_playout": hypnosia_playout},
        "caesar": {"options": CAESAR_SETUP, "perft": (3, 2), "model": caesar,
                   "model_start": lambda: caesar.initial(CAESAR_SETUP["bonuses"], CAESAR_SETUP["hands"]),
                   "engine_playout": engine_playout, "model_playout": caesar_playout},
    }


def bench_games(args: argparse.Namespace) -> str:
    rows = []
    for name, adapter in game_adapters().items():
        game = referee.game(name, options=adapter["options"])
        start, model = game.new(seed=args.seed), adapter["model"]
        engine_depth, model_depth = adapter["perft"]
        progress(f"games: {name} perft, engine depth {engine_depth}, model depth {model_depth}")
        perfts = interleaved(args.perft_repeat, {
            "engine": lambda: game.perft(start, engine_depth),
            "model": lambda: model.perft(adapter["model_start"](), model_depth),
        })
        (engine_nodes, engine_time), (model_nodes, model_time) = perfts["engine"], perfts["model"]
        agree = game.perft(start, model_depth) == model_nodes
        progress(f"games: {name} random games")
        playouts = interleaved(args.repeat, {
            "engine": lambda: [adapter["engine_playout"](game, args.seed + i) for i in range(args.games // 10)],
            "model": lambda: [adapter["model_playout"](args.seed + i) for i in range(max(args.model_games // 5, 1))],
        })
        (engine_plies, engine_games_time), (model_plies, model_games_time) = playouts["engine"], playouts["model"]
        engine_games = len(engine_plies) / engine_games_time
        model_games = len(model_plies) / model_games_time
        rows.append([
            name,
            f"{number(engine_nodes / engine_time)} (perft({engine_depth}) = {number(engine_nodes)})",
            f"{number(model_nodes / model_time)} (perft({model_depth}) = {number(model_nodes)}"
            f"{'' if agree else ', **engine differs**'})",
            times((engine_nodes / engine_time) / (model_nodes / model_time)),
            f"{number(engine_games, 1)} ({statistics.mean(engine_plies):.0f} plies)",
            f"{number(model_games, 1)} ({statistics.mean(model_plies):.0f} plies)",
            times(engine_games / model_games),
        ])
    return "\n".join([
        "## games: Isaac, Hypnosia, Caesar! — engine vs Python reference model",
        "",
        table(["game", "engine perft nodes/s", "model perft nodes/s", "×", "engine games/s", "model games/s", "×"], rows),
        "",
        f"- perft from the start, single thread, best of {args.perft_repeat}, taking turns; a node is a legal "
        "move (Hypnosia: a whole turn; before a roll, summed over the 21 distinct rolls; Caesar!: draws from "
        "the seeded source, fixed bonuses and hands). The model counts a shallower depth, and the engine's "
        "count at that depth is checked equal to it.",
        f"- games: seeded uniform random games to the end, best of {args.repeat} rounds taking turns; the engine "
        "through the Python API (`legal_moves` + `play` on JSON states each ply, chance from the state's "
        "seeded source), the model with Python's seeded `random` for the chance it cannot draw. Games differ "
        "between the two, so compare games/s only as orders of magnitude (plies per game shown).",
    ])


# --------------------------------------------------------------------------------------------------
# embedding: the Python API
# --------------------------------------------------------------------------------------------------

def noop(state: Any, move: Any = None) -> None:
    """The baseline: a plain Python function call with the same arguments."""
    return None


def calling(function: Callable[..., Any], calls: list[tuple[Any, ...]]) -> Callable[[], None]:
    """One pass of `function` over the argument tuples `calls`."""
    def run() -> None:
        for call in calls:
            function(*call)
    return run


def bench_embedding(args: argparse.Namespace, game: referee.Game, samples: list) -> tuple[str, float]:
    progress(f"embedding: per-call times on {len(samples)} mid-game states")
    legal_calls = [(state, legal) for state, legal, _ in samples]
    illegal_calls = [(state, illegal) for state, _, illegal in samples]
    state_calls = [(state,) for state, _, _ in samples]
    passes = interleaved(args.repeat, {
        "no-op Python function `f(state, move)` (baseline)": calling(noop, legal_calls),
        "`game.play(state, legal move)`": calling(game.play, legal_calls),
        "`game.validate(state, legal move)`": calling(game.validate, legal_calls),
        "`game.validate(state, illegal move)`": calling(game.validate, illegal_calls),
        "`game.legal_moves(state)`": calling(game.legal_moves, state_calls),
        "`game._engine.validate(state, legal move)` (no Python wrapper)": calling(game._engine.validate, legal_calls),
    })
    per_call = {name: seconds * 1e9 / len(samples) for name, (_, seconds) in passes.items()}
    baseline = next(iter(per_call.values()))
    rows = [[name, number(ns), times(ns / baseline)] for name, ns in per_call.items()]

    progress(f"embedding: validate_batch of {args.batch_size} items")
    items = batch_items(samples, args.batch_size)
    ways = interleaved(args.repeat, {
        "loop of `game.validate(state, move)`": lambda: [game.validate(item["state"], item["move"]) for item in items],
        "`game.validate_batch(items)`": lambda: game.validate_batch(items),
        "`game.validate_batch(items, with_state=True)`": lambda: game.validate_batch(items, with_state=True),
    })
    (looped, loop_time), (batched, batch_time), _ = ways.values()
    batch_rows = [[name, number(len(items) / seconds), times(loop_time / seconds)] for name, (_, seconds) in ways.items()]

    size = args.json_batch_size
    progress(f"embedding: JSON batches of {size} items")
    big = batch_items(samples, size)
    as_array = json.dumps(big).encode()
    as_lines = b"".join(json.dumps(item).encode() + b"\n" for item in big)
    json_ways = interleaved(args.repeat, {
        f"`game.validate_batch_json(array)`, {number(size)} items": lambda: game.validate_batch_json(as_array),
        f"`game.validate_batch_ndjson(lines)`, {number(size)} items": lambda: game.validate_batch_ndjson(as_lines),
    })
    answers = [json.loads(answer) for answer in (next(iter(json_ways.values()))[0],)][0]
    same = [{k: v for k, v in answer.items() if k != "index"} for answer in answers[:len(items)]] == looped
    batch_rows += [[name, number(size / seconds), times(loop_time / len(items) * size / seconds)]
                   for name, (_, seconds) in json_ways.items()]
    json_rate = max(size / seconds for _, seconds in json_ways.values())
    text = "\n".join([
        "## embedding: the Python API",
        "",
        f"Per call, best mean over {args.repeat} passes over {len(samples)} mid-game states (plies "
        f"{MIDGAME.start}-{MIDGAME.stop - 1} of seeded random games); states are the dicts the API returns.",
        "",
        table(["call", "ns/call", "× no-op call"], rows),
        "",
        f"Batch of {number(len(items))} validate items (half legal, half illegal moves), best of {args.repeat}; "
        f"`validate_batch` runs on {os.cpu_count()} cores (rayon). "
        f"Batch results {'equal' if batched == looped else '**differ from**'} the single calls' results. "
        f"The JSON calls take the items as bytes (JSON array or NDJSON, {len(as_array) / 1e6:,.0f} MB) and parse "
        "them in parallel with the rules, so no Python object is made per item; their results "
        f"{'equal' if same else '**differ from**'} the loop's (index aside).",
        "",
        table(["way", "items/s", "× loop"], batch_rows),
    ])
    return text, json_rate


# --------------------------------------------------------------------------------------------------
# http: gunicorn + wrk
# --------------------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def log_tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def stop_server(process: subprocess.Popen) -> None:
    """SIGTERM to the gunicorn master (graceful), then SIGKILL to its own process group if needed."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # the group is the server's own: it was started in a new session
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)


@contextlib.contextmanager
def gunicorn(app: str, workdir: Path, workers: int | None, extra: tuple[str, ...] = (),
             settings: dict[str, str] | None = None) -> Iterator[tuple[str, int, subprocess.Popen]]:
    """Serves `app` with the project's gunicorn config (and these REFEREE_* `settings`) on a free loopback
    port; yields (host, port, master)."""
    host, port = "127.0.0.1", free_port()
    env = dict(os.environ, REFEREE_BIND=f"{host}:{port}", REFEREE_ACCESS_LOG="0", REFEREE_GRACEFUL_TIMEOUT="5")
    env.update(settings or {})
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)  # the config makes (and removes) a directory of its own
    if workers:
        env["REFEREE_WORKERS"] = str(workers)
    log_path = workdir / f"gunicorn-{port}.log"
    command = [sys.executable, "-m", "gunicorn", "-c", "python:referee.gunicorn_conf", *extra, app]
    progress(f"http: starting {app} on {host}:{port}")
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, env=env, cwd=workdir, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {process.returncode}:\n{log_tail(log_path)}")
            try:
                socket.create_connection((host, port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"gunicorn did not listen within 30 s:\n{log_tail(log_path)}") from None
                time.sleep(0.1)
        yield host, port, process
    finally:
        stop_server(process)
        progress(f"http: stopped {app}")


def post(host: str, port: int, path: str, body: bytes, content_type: str = "application/json",
         timeout: float = 60) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request("POST", path, body=body, headers={"Content-Type": content_type})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def wrk(args: argparse.Namespace, url: str, body: Path, duration: int, delay_ms: str = "0") -> dict[str, Any]:
    command = ["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{duration}s", "--timeout", "5s",
               "--latency", "-s", str(BENCH / "post.lua"), url, "--", str(body), delay_ms]
    done = subprocess.run(command, capture_output=True, text=True, timeout=duration + 60, check=False)
    for line in done.stdout.splitlines():
        if line.startswith("WRK_JSON "):
            result = json.loads(line.removeprefix("WRK_JSON "))
            result["rps"] = result["requests"] / (result["duration_us"] / 1e6)
            result["bytes_per_answer"] = result["bytes"] / max(result["requests"], 1)
            result["errors"] = sum(result[key] for key in
                                   ("connect_errors", "read_errors", "write_errors", "status_errors", "timeouts"))
            return result
    raise RuntimeError(f"wrk failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")


def write_bodies(game: referee.Game, seed: int) -> tuple[dict[str, Path], int]:
    """bench/bodies/{play,validate}.json: a mid-game state with its biggest capture (play) and an empty hex
    that the forced-capture rule forbids there (validate); and the state's ply. Deterministic for a given
    engine and seed."""
    cells = board_cells(game)
    for offset in range(100):
        states = engine_game(game, random.Random(seed + offset))
        for ply in range(28, min(36, len(states))):
            state = states[ply]
            legal = game.legal_moves(state)
            forbidden = [cell for cell in empty_cells(cells, state) if cell not in legal
                         and game.validate(state, cell).get("reason", {}).get("rule") == "forced-capture"]
            if not legal or not forbidden:
                continue
            best = max(legal, key=lambda move: len(game.play(state, move)["effects"]["captured"]))
            BODIES.mkdir(exist_ok=True)
            paths = {"play": BODIES / "play.json", "validate": BODIES / "validate.json"}
            paths["play"].write_text(json.dumps({"state": state, "move": best}) + "\n")
            paths["validate"].write_text(json.dumps({"state": state, "move": forbidden[0]}) + "\n")
            return paths, ply
    raise RuntimeError("no mid-game state with a forced capture in 100 seeded games")


def check_answer(host: str, port: int, path: str, body: Path, expect: Callable[[dict], bool]) -> dict:
    status, answer = post(host, port, path, body.read_bytes())
    data = json.loads(answer)
    if status != 200 or not expect(data):
        raise RuntimeError(f"POST {path} with {body.name} answered {status}: {answer[:500]!r}")
    return data


def wrk_rounds(args: argparse.Namespace, targets: dict[str, tuple[str, Path]]) -> dict[str, dict[str, Any]]:
    """wrk on every (url, body) target: a warm-up, then `--rounds` runs of `--duration` seconds each, the
    targets taking turns so that load from elsewhere on the machine hits them alike. Requests/s over
    all rounds, median of the rounds' p50, worst of their p99."""
    for url, body in targets.values():
        if args.warmup:
            wrk(args, url, body, args.warmup)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in targets}
    for round_ in range(args.rounds):
        progress(f"http: wrk round {round_ + 1} of {args.rounds}")
        for name, (url, body) in targets.items():
            runs[name].append(wrk(args, url, body, args.duration))
    merged = {}
    for name, results in runs.items():
        requests = sum(result["requests"] for result in results)
        merged[name] = {
            "rps": requests / (sum(result["duration_us"] for result in results) / 1e6),
            "p50_us": statistics.median(result["p50_us"] for result in results),
            "p99_us": max(result["p99_us"] for result in results),
            "bytes_per_answer": sum(result["bytes"] for result in results) / max(requests, 1),
            "errors": sum(result["errors"] for result in results),
        }
    return merged


def http_row(name: str, result: dict[str, Any], baseline: dict[str, Any]) -> list[str]:
    return [
        name,
        number(result["rps"]),
        f"{result['rps'] / baseline['rps']:.2f}×",  # two decimals: the target is a ratio of 0.8
        f"{result['p50_us'] / 1000:,.2f}",
        f"{result['p99_us'] / 1000:,.2f}",
        number(result["bytes_per_answer"]),
        number(result["errors"]),
    ]


def bench_http(args: argparse.Namespace, game: referee.Game, workdir: Path, samples: list | None,
               in_process_batch_rate: float | None) -> str:
    parts = []
    with contextlib.ExitStack() as servers:  # stops every server started here, whatever happens
        host, port, master = servers.enter_context(gunicorn("referee.app:create_app()", workdir, args.workers))
        if "http" in args.only:
            trivial_host, trivial_port, _ = servers.enter_context(
                gunicorn("trivial_app:app", workdir, args.workers, ("--pythonpath", str(BENCH))))
            parts.append(bench_wrk(args, game, (host, port), (trivial_host, trivial_port)))
        if "batch" in args.only:
            parts.append(bench_http_batch(args, host, port, samples, in_process_batch_rate))
            parts.append(bench_stream(args, host, port, master, samples))
        if "slow" in args.only:
            parts.append(bench_slow(args, game, host, port, master, samples))
        if "soak" in args.only:
            parts.append(bench_soak(args, game, host, port, master))
    return "\n\n".join(parts)


def workers_of(master: subprocess.Popen) -> dict[int, int]:
    """The gunicorn workers of a master: pid -> resident memory in KiB."""
    children = Path(f"/proc/{master.pid}/task/{master.pid}/children").read_text().split()
    return {int(pid): rss_kib(int(pid)) for pid in children}


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def paced_wrk(args: argparse.Namespace, url: str, body: Path, rate: float) -> dict[str, Any]:
    """wrk holding about `rate` requests/s: each connection waits between requests (post.lua's second
    argument); the wait is corrected once from a first run, since a request's own time adds to it."""
    delay_ms = args.connections / rate * 1000
    result: dict[str, Any] = {}
    for _ in range(3):
        result = wrk(args, url, body, args.duration, f"{delay_ms:.3f}")
        cycle_ms = args.connections / result["rps"] * 1000  # delay + time of a request, per connection
        delay_ms = max(delay_ms - (cycle_ms - args.connections / rate * 1000), 0.0)
    return result


def bench_wrk(args: argparse.Namespace, game: referee.Game, real: tuple[str, int], trivial: tuple[str, int]) -> str:
    bodies, ply = write_bodies(game, args.seed)
    check_answer(*trivial, "/trivial", bodies["play"], lambda data: data == {"legal": True})
    check_answer(*real, "/v1/games/iago/play", bodies["play"], lambda data: "state" in data)
    reason = check_answer(*real, "/v1/games/iago/validate", bodies["validate"],
                          lambda data: data.get("legal") is False)["reason"]
    results = wrk_rounds(args, {
        "trivial": (f"http://{trivial[0]}:{trivial[1]}/trivial", bodies["play"]),
        "play": (f"http://{real[0]}:{real[1]}/v1/games/iago/play", bodies["play"]),
        "validate": (f"http://{real[0]}:{real[1]}/v1/games/iago/validate", bodies["validate"]),
    })
    rows = [
        http_row("trivial Flask app (`POST /trivial`, play body)", results["trivial"], results["trivial"]),
        http_row("`POST /v1/games/iago/play`", results["play"], results["trivial"]),
        http_row("`POST /v1/games/iago/validate` (illegal move)", results["validate"], results["trivial"]),
    ]
    for name, path in (("play", "play"), ("validate", "validate")):
        target = 0.7 * results[name]["rps"]
        progress(f"http: {name} paced at 70% of its maximum ({target:,.0f} requests/s)")
        paced = paced_wrk(args, f"http://{real[0]}:{real[1]}/v1/games/iago/{path}", bodies[name], target)
        rows.append(http_row(f"`{name}` paced at 70% of its maximum ({number(target)} requests/s asked)",
                             paced, results["trivial"]))
    workers = args.workers or f"the config's default, {2 * (os.cpu_count() or 1) + 1}"
    return "\n".join([
        "## http: gunicorn + Flask, driven by wrk",
        "",
        f"gunicorn `-c python:referee.gunicorn_conf` on 127.0.0.1 ({workers} workers, `REFEREE_ACCESS_LOG=0`), "
        f"once with the app, once with `bench/trivial_app.py`. `wrk -t{args.threads} -c{args.connections} "
        f"-d{args.duration}s --latency`, {args.rounds} rounds taking turns after a {args.warmup} s warm-up each, "
        "on the same machine as the servers (wrk takes CPU from them). "
        f"Bodies: `bench/bodies/play.json` ({bodies['play'].stat().st_size} bytes: the state after ply {ply} of a "
        "seeded game and its biggest capture) and `bench/bodies/validate.json` (the same state and a move refused "
        f"by `{reason.get('rule', reason['code'])}`). p50: median over the rounds, p99: worst round. Errors: non-2xx "
        "answers, socket errors and timeouts. The paced rows hold about 70% of the endpoint's maximum rate "
        f"(one {args.duration} s run each, after calibrating the pause between requests of a connection); "
        "their × trivial column compares rates, not capacities.",
        "",
        table(["endpoint", "requests/s", "× trivial", "p50 ms", "p99 ms", "bytes/answer", "errors"], rows),
    ])


def bench_http_batch(args: argparse.Namespace, host: str, port: int, samples: list,
                     in_process_batch_rate: float | None) -> str:
    progress(f"batch: NDJSON batch of {args.batch_size} items over HTTP")
    items = batch_items(samples, args.batch_size)
    body = b"".join(json.dumps(item).encode() + b"\n" for item in items)
    seconds = []
    for _ in range(args.batch_repeat):
        start = time.perf_counter()
        status, answer = post(host, port, "/v1/games/iago/batch", body, "application/x-ndjson")
        seconds.append(time.perf_counter() - start)
        lines = answer.count(b"\n")
        if status != 200 or lines != len(items):
            raise RuntimeError(f"the batch answered {status} with {lines} lines: {answer[:500]!r}")
    median, best = statistics.median(seconds), min(seconds)
    rate = len(items) / median
    rows = [
        ["median", f"{median * 1000:,.0f}", number(rate)],
        ["best", f"{best * 1000:,.0f}", number(len(items) / best)],
    ]
    note = ""
    if in_process_batch_rate:
        note = (f" End to end is {times(in_process_batch_rate / rate)} slower than in-process "
                f"JSON batches ({number(in_process_batch_rate)} items/s above).")
    return "\n".join([
        "## batch: NDJSON over HTTP",
        "",
        f"`POST /v1/games/iago/batch` with {number(len(items))} NDJSON validate items "
        f"({len(body) / 1e6:.1f} MB in, {len(answer) / 1e6:.1f} MB out), one request at a time on a fresh "
        f"connection, {args.batch_repeat} requests; timed from sending the request to the last byte of the "
        f"answer.{note}",
        "",
        table(["request", "ms", "items/s"], rows),
    ])


def bench_stream(args: argparse.Namespace, host: str, port: int, master: subprocess.Popen, samples: list) -> str:
    """A long NDJSON stream: items/s end to end, and the workers' peak memory for a short and a long one."""
    lines = [json.dumps(item).encode() + b"\n" for item in batch_items(samples, 10_000)]
    rows, peaks = [], []
    for count in (args.stream_items // 10, args.stream_items):
        progress(f"batch: NDJSON stream of {count:,} items")
        body = b"".join(lines[i % len(lines)] for i in range(count))
        start = time.perf_counter()
        status, answer = post(host, port, "/v1/games/iago/batch", body, "application/x-ndjson", timeout=600)
        seconds = time.perf_counter() - start
        answered = answer.count(b"\n")
        if status != 200 or answered != count:
            raise RuntimeError(f"the stream answered {status} with {answered} lines: {answer[:300]!r}")
        peak = max(rss_kib(pid, "VmHWM") for pid in workers_of(master))
        peaks.append(peak)
        rows.append([number(count), f"{len(body) / 1e6:,.0f}", f"{seconds:,.2f}", number(count / seconds),
                     f"{peak / 1024:,.0f}"])
        del body, answer
    return "\n".join([
        "## batch: a long NDJSON stream over HTTP",
        "",
        "`POST /v1/games/iago/batch` (NDJSON) with the validate items above repeated, one request on a fresh "
        "connection (Python's http.client, which sends the whole body before reading), timed to the last byte "
        "of the answer; the service reads and judges the stream in chunks of about 1 MB and spools results "
        "beyond 8 MB to a temporary file. Peak memory: the largest peak resident set (VmHWM) among the workers after the "
        "request, so memory growing with the input would show as a larger peak for the longer stream.",
        "",
        table(["items", "MB in", "seconds", "items/s", "worker peak MiB"], rows),
    ])


def timed_request(host: str, port: int, raw: bytes) -> tuple[float, int]:
    """Seconds to send a raw request on a fresh connection and read the whole answer, and its status."""
    start = time.perf_counter()
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(raw)
        reader = sock.makefile("rb")
        status = int(reader.readline().split()[1])
        length = 0
        while (line := reader.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        reader.read(length)
    return time.perf_counter() - start, status


def latency_row(name: str, samples: list[tuple[float, int]]) -> list[str]:
    seconds = sorted(elapsed for elapsed, _ in samples)
    errors = sum(status != 200 for _, status in samples)
    p99 = seconds[min(len(seconds) - 1, int(len(seconds) * 0.99))]
    return [name, number(len(samples)), f"{statistics.median(seconds) * 1000:,.2f}", f"{p99 * 1000:,.2f}",
            f"{seconds[-1] * 1000:,.2f}", number(errors)]


def probe_latencies(host: str, port: int, play: bytes, seconds: float) -> dict[str, list[tuple[float, int]]]:
    """`/healthz` and `play`, one after the other on fresh connections, for `seconds`."""
    healthz = b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n"
    play_raw = (b"POST /v1/games/iago/play HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n%b" % (len(play), play))
    samples: dict[str, list[tuple[float, int]]] = {"healthz": [], "play": []}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        samples["healthz"].append(timed_request(host, port, healthz))
        samples["play"].append(timed_request(host, port, play_raw))
        time.sleep(0.02)
    return samples


def bench_slow(args: argparse.Namespace, game: referee.Game, host: str, port: int, master: subprocess.Popen,
               samples: list | None) -> str:
    """64 connections trickle `new` bodies at one byte a second for longer than the worker timeout, and one
    honest client uploads an NDJSON batch slowly; meanwhile /healthz and play are timed."""
    bodies, _ = write_bodies(game, args.seed)
    play = bodies["play"].read_bytes()
    probe_latencies(host, port, play, 1)  # warm-up: every worker has answered both
    quiet = probe_latencies(host, port, play, 5)
    trickle_body = b"{" + b" " * (args.trickle_seconds - 2) + b"}"
    head = (b"POST /v1/games/iago/new HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % len(trickle_body))
    items = b"".join(json.dumps(item).encode() + b"\n"
                     for item in batch_items(samples or midgame_samples(game, 200, args.seed), 1000))
    upload_head = (b"POST /v1/games/iago/batch HTTP/1.1\r\nHost: bench\r\nContent-Type: application/x-ndjson\r\n"
                   b"Content-Length: %d\r\n\r\n" % len(items))
    before = set(workers_of(master))
    progress(f"slow: {args.tricklers} connections trickling bodies at 1 byte/s for {args.trickle_seconds} s")
    tricklers = [socket.create_connection((host, port), timeout=args.trickle_seconds + 30) for _ in range(args.tricklers)]
    upload = socket.create_connection((host, port), timeout=args.trickle_seconds + 30)
    try:
        for sock in tricklers:
            sock.sendall(head)
        upload.sendall(upload_head)
        per_second = len(items) // (args.trickle_seconds - 1) + 1
        loaded: dict[str, list[tuple[float, int]]] = {"healthz": [], "play": []}
        for second in range(len(trickle_body)):
            started = time.monotonic()
            for sock in tricklers:
                sock.sendall(trickle_body[second:second + 1])
            upload.sendall(items[second * per_second:(second + 1) * per_second])
            for name, found in probe_latencies(host, port, play, max(0.0, 1 - (time.monotonic() - started))).items():
                loaded[name].extend(found)
        upload.sendall(items[len(trickle_body) * per_second:])
        answered = sum(read_status(sock) == 200 for sock in tricklers)
        upload_status = read_status(upload)
    finally:
        for sock in [*tricklers, upload]:
            sock.close()
    restarted = len(before - set(workers_of(master)))
    rows = [
        latency_row("`GET /healthz`, quiet", quiet["healthz"]),
        latency_row("`POST play`, quiet", quiet["play"]),
        latency_row(f"`GET /healthz`, {args.tricklers} tricklers", loaded["healthz"]),
        latency_row(f"`POST play`, {args.tricklers} tricklers", loaded["play"]),
    ]
    return "\n".join([
        "## slow: clients that trickle their bodies",
        "",
        f"{args.tricklers} connections send a {len(trickle_body)}-byte `POST /v1/games/iago/new` body at one byte a "
        f"second ({len(trickle_body)} s; the worker timeout is {os.environ.get('REFEREE_TIMEOUT', '30')} s), and one client uploads a 1,000-item NDJSON "
        f"batch ({len(items) / 1e6:.2f} MB) spread over the same time. Meanwhile `/healthz` and `play` are sent "
        "one after the other, each on a fresh connection, and timed from connect to the last byte; the quiet rows "
        f"are the same probe for 5 s before. Afterwards: **{answered} of {args.tricklers} trickled bodies answered 200**, "
        f"the slow upload answered **{upload_status}**, **{restarted} workers restarted**.",
        "",
        table(["probe", "requests", "p50 ms", "p99 ms", "max ms", "errors"], rows),
    ])


def read_status(sock: socket.socket) -> int:
    line = sock.makefile("rb").readline()
    return int(line.split()[1]) if line else 0


def bench_soak(args: argparse.Namespace, game: referee.Game, host: str, port: int, master: subprocess.Popen) -> str:
    bodies, _ = write_bodies(game, args.seed)
    url = f"http://{host}:{port}/v1/games/iago/play"
    wrk(args, url, bodies["play"], 5)  # warm: every worker has served and grown to its working size
    before = workers_of(master)
    progress(f"soak: play at full load for {args.soak_seconds} s")
    result = wrk(args, url, bodies["play"], args.soak_seconds)
    after = workers_of(master)
    rows = [[str(pid), f"{rss / 1024:,.1f}", f"{after.get(pid, 0) / 1024:,.1f}" if pid in after else "restarted"]
            for pid, rss in before.items()]
    restarted = len(set(before) - set(after))
    return "\n".join([
        "## soak: play at full load",
        "",
        f"`wrk -t{args.threads} -c{args.connections} -d{args.soak_seconds}s` on `POST /v1/games/iago/play` after a "
        f"5 s warm-up: {number(result['requests'])} requests, {number(result['rps'])} requests/s, p50 "
        f"{result['p50_us'] / 1000:,.2f} ms, p99 {result['p99_us'] / 1000:,.2f} ms, **{result['errors']} errors**, "
        f"**{restarted} workers restarted**. Worker resident memory (VmRSS) at the start and the end:",
        "",
        table(["worker pid", "start MiB", "end MiB"], rows),
    ])


def bench_archive(args: argparse.Namespace, game: referee.Game, workdir: Path) -> str:
    path = workdir / "archive.jsonl"
    progress(f"archive: generating {args.archive_games:,} random games")
    rng = random.Random(args.seed)
    with open(path, "wb") as archive:
        for number_ in range(args.archive_games):
            moves, state = [], game.new()
            while legal := game.legal_moves(state):
                moves.append(rng.choice(legal))
                state = game.play(state, moves[-1])["state"]
            archive.write(json.dumps({"game": "iago", "moves": moves, "id": number_}).encode() + b"\n")
    plies = None
    runs = []
    for _ in range(args.repeat if args.repeat < 3 else 3):
        progress("archive: referee validate")
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "referee.cli", "validate", str(path), "-o", str(workdir / "out.jsonl"),
                               "--no-progress"], capture_output=True, text=True, check=False)
        runs.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise RuntimeError(f"referee validate failed ({done.returncode}): {done.stderr[-500:]}")
        plies = done.stderr.strip().splitlines()[-1]
    best = min(runs)
    return "\n".join([
        "## archive: `referee validate` on a generated archive",
        "",
        f"{number(args.archive_games)} seeded random Iago games ({path.stat().st_size / 1e6:,.0f} MB, every game played "
        f"to its end) replayed by `python -m referee.cli validate archive.jsonl -o out.jsonl --no-progress` on "
        f"{os.cpu_count()} cores; whole command, process start included, best of {len(runs)}: "
        f"**{best:,.2f} s, {number(args.archive_games / best)} records/s**. Its summary line: `{plies}`.",
    ])


# --------------------------------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------------------------------

def header(args: argparse.Namespace, started: datetime.datetime, load_at_start: tuple[float, ...]) -> str:
    commit = command_output("git", "-C", str(ROOT), "rev-parse", "--short", "HEAD")
    dirty = command_output("git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no")
    if dirty not in ("", "unknown"):
        commit += " (with uncommitted changes)"
    module = Path(referee.__file__).resolve()
    lines = [
        "# Referee benchmarks",
        "",
        f"- date: {started:%Y-%m-%d %H:%M} UTC (the run took "
        f"{(datetime.datetime.now(datetime.timezone.utc) - started).total_seconds():.0f} s)",
        f"- command: `{shlex.join([Path(sys.executable).name, *sys.argv])}`",
        f"- git commit: {commit}",
        f"- CPU: {cpu_model()}, {os.cpu_count()} cores; load average (1, 5, 15 min) at start: "
        f"{', '.join(f'{load:.2f}' for load in load_at_start)}, at end: "
        f"{', '.join(f'{load:.2f}' for load in os.getloadavg())}",
        f"- Python {platform.python_version()}, referee {referee.__version__} from `{module.parent}`",
    ]
    if "http" in args.only:
        lines.append(f"- {command_output('wrk', '-v').splitlines()[0]}")
    if ROOT / "service" in module.parents:
        lines.append("- **WARNING: referee is imported from the source tree (an editable, probably debug, build); "
                     "the numbers are not representative. Install a release wheel (bench/README.md).**")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# seals: play with seals against without
# --------------------------------------------------------------------------------------------------

#: A key set for the benchmark only (32 bytes each): the first seals, both verify, as after a rotation.
BENCH_SEAL_KEYS = ("k2:YmVuY2gtc2VhbC1rZXktdHdvLWJlbmNoLXNlYWwta2V5,"
                   "k1:YmVuY2gtc2VhbC1rZXktb25lLWJlbmNoLXNlYWwta2V5")


KINDS = ("plain", "sealed", "opaque")


def seal_bodies(workdir: Path, plies: int = 12) -> dict[str, dict[str, bytes]]:
    """Each game's `play` body, unsealed, sealed and opaque: the state `plies` into a game seeded alike and
    played alike (the same random choices), and a legal move. Without keys chance is the documented
    generator, with keys it is keyed, so Hypnosia's and Caesar!'s unsealed game draws otherwise than the
    sealed and opaque ones (which are the same game)."""
    bodies: dict[str, dict[str, bytes]] = {}
    for name in referee.games():
        bodies[name] = {}
        games = {"plain": referee.game(name), "sealed": referee.game(name, seal_keys=BENCH_SEAL_KEYS),
                 "opaque": referee.game(name, seal_keys=referee.SealKeys(BENCH_SEAL_KEYS, opaque=[name]))}
        for kind, game in games.items():
            rng, state = random.Random(name), game.new(seed=1)
            for _ in range(plies):
                state = game.play(state, rng.choice(game.legal_moves(state)))["state"]
            move = rng.choice(game.legal_moves(state))
            answer = game.play(state, move)["state"]
            assert ("seal" in answer, "opaque" in answer) == (kind == "sealed", kind == "opaque"), (kind, answer)
            bodies[name][kind] = json.dumps({"state": state, "move": move}).encode()
            (workdir / f"{name}-{kind}.json").write_bytes(bodies[name][kind])
    return bodies


def per_call_us(call: Callable[[], Any], seconds: float = 0.5) -> float:
    """Microseconds a call, best of 5 runs of about `seconds` each."""
    best = float("inf")
    for _ in range(5):
        count, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            for _ in range(100):
                call()
            count += 100
        best = min(best, elapsed / count * 1e6)
    return best


def seal_in_process_rows(bodies: dict[str, dict[str, bytes]]) -> list[list[str]]:
    rows = []
    for name, body in bodies.items():
        progress(f"seals: {name} in process")
        engines = {"plain": referee._core.Engine(name),
                   "sealed": referee._core.Engine(name, referee.SealKeys(BENCH_SEAL_KEYS)),
                   "opaque": referee._core.Engine(name, referee.SealKeys(BENCH_SEAL_KEYS, opaque=[name]))}
        us = {kind: per_call_us(lambda kind=kind: engines[kind].play_json(body[kind])) for kind in KINDS}
        rows.append([name, f"{len(body['sealed']):,} / {len(body['opaque']):,}", f"{us['plain']:.1f}",
                     f"{us['sealed']:.1f}", f"{us['opaque']:.1f}"])
    return rows


def seal_timing_rows(bodies: dict[str, tuple[bytes, bytes]]) -> list[list[str]]:
    """A refused seal wrong in its MAC's first character against one wrong in its last: the comparison is
    constant-time, so the two cost the same (to the noise)."""
    engine = referee._core.Engine("caesar", referee.SealKeys(BENCH_SEAL_KEYS))
    body = json.loads(bodies["caesar"]["sealed"])
    seal = body["state"]["seal"]
    at = seal.index(".") + 1
    rows = []
    for where, index in (("first", at), ("last", len(seal) - 1)):
        wrong = seal[:index] + ("A" if seal[index] != "A" else "Q") + seal[index + 1:]
        data = json.dumps(body | {"state": body["state"] | {"seal": wrong}}).encode()

        def refused(data: bytes = data) -> None:
            try:
                engine.play_json(data)
            except referee.InvalidSeal:
                return
            raise RuntimeError("a wrong seal was taken")
        rows.append([f"MAC wrong in its {where} character", f"{per_call_us(refused):.2f}"])
    return rows


def bench_seals(args: argparse.Namespace, workdir: Path) -> str:
    bodies = seal_bodies(workdir)
    in_process = seal_in_process_rows(bodies)
    timing = seal_timing_rows(bodies)
    settings = {"plain": {}, "sealed": {"REFEREE_SEAL_KEYS": BENCH_SEAL_KEYS},
                "opaque": {"REFEREE_SEAL_KEYS": BENCH_SEAL_KEYS, "REFEREE_OPAQUE_STATES": ",".join(bodies)}}
    expected = {"plain": lambda state: "seal" not in state and "opaque" not in state,
                "sealed": lambda state: "seal" in state, "opaque": lambda state: list(state) == ["opaque"]}
    with contextlib.ExitStack() as servers:
        targets = {}
        for kind in KINDS:
            host, port, _ = servers.enter_context(gunicorn(
                "referee.app:create_app()", workdir, args.workers, settings=settings[kind]))
            for name in bodies:
                path, body = f"/v1/games/{name}/play", workdir / f"{name}-{kind}.json"
                check_answer(host, port, path, body, lambda data, kind=kind: expected[kind](data["state"]))
                targets[f"{name}-{kind}"] = (f"http://{host}:{port}{path}", body)
        results = wrk_rounds(args, targets)
    rows = []
    for name in bodies:
        plain, sealed, opaque = (results[f"{name}-{kind}"] for kind in KINDS)
        rows.append([name, number(plain["rps"]), number(sealed["rps"]), number(opaque["rps"]),
                     f"{sealed['rps'] / plain['rps']:.2f}× / {opaque['rps'] / plain['rps']:.2f}×",
                     " / ".join(f"{result['p50_us'] / 1000:,.2f}" for result in (plain, sealed, opaque)),
                     " / ".join(f"{result['p99_us'] / 1000:,.2f}" for result in (plain, sealed, opaque)),
                     number(plain["errors"] + sealed["errors"] + opaque["errors"])])
    workers = args.workers or f"the config's default, {2 * (os.cpu_count() or 1) + 1}"
    return "\n".join([
        "## seals: play with seals, keyed chance and opaque states against without",
        "",
        "Each game's `play` body: the state 12 plies into a seeded game and a legal move, sent unsealed to a "
        "service without keys, sealed to a service with two keys (`REFEREE_SEAL_KEYS`, the first seals; Hypnosia's "
        "and Caesar!'s chance keyed), and opaque to a service with the same keys making every game opaque "
        "(`REFEREE_OPAQUE_STATES`). The sealed request verifies the seal (canonical form of the state, "
        "HMAC-SHA-256), derives the keyed generator's key (HMAC-SHA-256) and seals the next state; the opaque one "
        "decrypts the state (XChaCha20-Poly1305), derives the generator's key, encrypts the next state with a fresh "
        "nonce and answers the mover's view instead of the notation. Without keys chance is unkeyed, so the "
        "unsealed Hypnosia and Caesar! games draw otherwise than the keyed ones (same seed and choices).",
        "",
        "In process (`Engine.play_json`, the whole request in the engine; µs a call, best of 5):",
        "",
        table(["game", "sealed / opaque body bytes", "unsealed µs", "sealed µs", "opaque µs"], in_process),
        "",
        "A refused seal, wrong in the first or the last character of its MAC (Caesar!'s state; µs a call): "
        "verification compares the whole MAC in constant time, so neither is faster.",
        "",
        table(["refused seal", "µs a call"], timing),
        "",
        f"Over HTTP: gunicorn `-c python:referee.gunicorn_conf` ({workers} workers, `REFEREE_ACCESS_LOG=0`), one "
        f"server without keys, one with, one with opaque states; `wrk -t{args.threads} -c{args.connections} "
        f"-d{args.duration}s`, {args.rounds} rounds taking turns after a {args.warmup} s warm-up each. "
        "Latencies unsealed / sealed / opaque.",
        "",
        table(["game", "unsealed requests/s", "sealed requests/s", "opaque requests/s",
               "sealed, opaque ÷ unsealed", "p50 ms", "p99 ms", "errors"], rows),
    ])


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=",".join(DEFAULT_SECTIONS),
                        help=f"comma-separated sections to run (default: all of {','.join(SECTIONS)})")
    parser.add_argument("--out", type=Path, help="also write the Markdown report to this file")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random playouts (default: 1)")
    core = parser.add_argument_group("core")
    core.add_argument("--engine-depth", type=int, default=5, help="engine perft depth (default: 5)")
    core.add_argument("--model-depth", type=int, default=3, help="model perft depth (default: 3)")
    core.add_argument("--perft-repeat", type=int, default=3, help="perft runs of each, best kept (default: 3)")
    core.add_argument("--games", type=int, default=100, help="engine random games a round (default: 100)")
    core.add_argument("--model-games", type=int, default=10, help="model random games a round (default: 10)")
    core.add_argument("--repeat", type=int, default=5,
                      help="rounds of random games, and passes of each embedding measure; best kept (default: 5)")
    embedding = parser.add_argument_group("embedding and batch")
    embedding.add_argument("--states", type=int, default=2000, help="mid-game states sampled (default: 2000)")
    embedding.add_argument("--batch-size", type=int, default=10_000, help="items in a batch (default: 10000)")
    embedding.add_argument("--batch-repeat", type=int, default=5, help="HTTP batch requests (default: 5)")
    embedding.add_argument("--json-batch-size", type=int, default=400_000,
                           help="items in the in-process JSON batches (default: 400000)")
    embedding.add_argument("--stream-items", type=int, default=1_000_000,
                           help="items in the long NDJSON stream over HTTP (default: 1000000)")
    embedding.add_argument("--archive-games", type=int, default=100_000, help="games in the archive (default: 100000)")
    embedding.add_argument("--soak-seconds", type=int, default=600, help="seconds of the soak (default: 600)")
    web = parser.add_argument_group("http")
    web.add_argument("--duration", type=int, default=4, help="seconds of each wrk run (default: 4)")
    web.add_argument("--rounds", type=int, default=5, help="wrk runs per endpoint, taking turns (default: 5)")
    web.add_argument("--warmup", type=int, default=2, help="seconds of wrk warm-up before each run (default: 2)")
    web.add_argument("--threads", type=int, default=2, help="wrk threads (default: 2)")
    web.add_argument("--connections", type=int, default=32, help="wrk connections (default: 32)")
    web.add_argument("--tricklers", type=int, default=64, help="slow: trickling connections (default: 64)")
    web.add_argument("--trickle-seconds", type=int, default=35,
                     help="slow: seconds each trickled body takes, one byte a second (default: 35)")
    web.add_argument("--workers", type=int, help="gunicorn workers (default: the config's, 2 × cores + 1)")
    args = parser.parse_args()
    args.only = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = set(args.only) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections {', '.join(sorted(unknown))}; known: {', '.join(SECTIONS)}")
    if args.batch_size > 10_000 and "batch" in args.only:
        parser.error("the service accepts at most 10,000 batch items (REFEREE_MAX_BATCH_ITEMS)")
    return args


def main() -> None:
    args = parse_args()
    # Ctrl-C (even when started in the background) and SIGTERM unwind the stack, so the `finally`
    # blocks stop the servers.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    started, load_at_start = datetime.datetime.now(datetime.timezone.utc), os.getloadavg()
    parts = []
    game = referee.game("iago")
    samples = None
    batch_rate = None
    if "core" in args.only:
        parts.append(bench_core(args, game, load_model()))
    if "games" in args.only:
        parts.append(bench_games(args))
    if {"embedding", "batch"} & set(args.only):
        progress(f"sampling {args.states} mid-game states")
        samples = midgame_samples(game, args.states, args.seed)
    if "embedding" in args.only:
        text, batch_rate = bench_embedding(args, game, samples)
        parts.append(text)
    if "archive" in args.only:
        with tempfile.TemporaryDirectory(prefix="referee-archive-") as workdir:
            parts.append(bench_archive(args, game, Path(workdir)))
    if {"http", "batch", "slow", "soak"} & set(args.only):
        with tempfile.TemporaryDirectory(prefix="referee-bench-") as workdir:
            parts.append(bench_http(args, game, Path(workdir), samples, batch_rate))
    if "seals" in args.only:
        with tempfile.TemporaryDirectory(prefix="referee-seals-") as workdir:
            parts.append(bench_seals(args, Path(workdir)))
    report = "\n\n".join([header(args, started, load_at_start), *parts]) + "\n"
    print(report)
    if args.out:
        args.out.write_text(report)
        progress(f"report written to {args.out}")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        progress("interrupted; servers stopped")
        sys.exit(130)
