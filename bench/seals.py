"""The `seals` section: play with seals, keyed chance and opaque states against without, every game.

Each game's `play` body (the state 12 plies into a seeded game, a legal move) is sent unsealed to a
service without keys, sealed to one with `REFEREE_SEAL_KEYS` (Hypnosia's and Caesar!'s chance then
keyed), and opaque to one that also has `REFEREE_OPAQUE_STATES` for every game: µs a call in process
(`Engine.play_json`, best of 5), a refused seal wrong in its MAC's first or last character (7 runs of
each in turns: best, median and spread; constant time), and requests/s and latencies over HTTP (wrk, as
for http; one server without keys, one with, one with opaque states, in turns). Opaque Caesar! games
start with both players' commitments, and the opaque body carries the mover's `secret` (checked: SHA-256
and a constant-time comparison with the commitment inside the state); each answer encrypts one next
state, with the commitments. Targets: sealed `play` at least 0.90× the unsealed requests/s (issue 14);
opaque Caesar! `play` at ≥ 0.85× (issue 17, printed in the table)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
from pathlib import Path
from typing import Any

import referee

from report import number, progress, table, verdict
from served import check_answer, server, wrk_rounds
from timing import per_call_us

__all__ = ["bench_seals"]

#: A key set for the benchmark only (32 bytes each): the first seals, both verify, as after a rotation.
BENCH_SEAL_KEYS = ("k2:YmVuY2gtc2VhbC1rZXktdHdvLWJlbmNoLXNlYWwta2V5,"
                   "k1:YmVuY2gtc2VhbC1rZXktb25lLWJlbmNoLXNlYWwta2V5")


KINDS = ("plain", "sealed", "opaque")


def answered_as(kind: str, answer: dict[str, Any]) -> bool:
    """Whether a play answer's next state is of this kind."""
    state = answer["state"]
    return ("seal" in state, "opaque" in state) == (kind == "sealed", kind == "opaque")


#: The players' secrets of the benchmark's committed (opaque Caesar!) games: random, 43 characters.
BENCH_PLAYER_SECRETS = {"caesar": "q8Ld0v3sXw9bN2mKc7TzR4yHf1JpA6gUeS5iWoPlE0k",
                        "pompey": "Zr5tB1nQw8cV3xM7kL2jH9gF4dS6aP0oI1uY5eT8rW3"}


def mover_secret(game: referee.Game, state: dict[str, Any], kind: str) -> str | None:
    """The secret an opaque body gives: the mover's (checked by a committed game, ignored by the others)."""
    return BENCH_PLAYER_SECRETS.get(game.outcome(state)["to_move"]) if kind == "opaque" else None


def seal_bodies(args: argparse.Namespace, workdir: Path, plies: int = 12) -> dict[str, dict[str, bytes]]:
    """Each game's `play` body, unsealed, sealed and opaque: the state `plies` into a game seeded alike and
    played alike (the same random choices; opaque Caesar! on a seed of the service's), and a legal move. Without keys chance is the documented
    generator, with keys it is keyed, so Hypnosia's and Caesar!'s unsealed game draws otherwise than the
    sealed and opaque ones (which are the same game). Opaque Caesar! games start with the players'
    commitments, and every opaque body carries the mover's secret (ignored where nothing is hidden)."""
    bodies: dict[str, dict[str, bytes]] = {}
    for name in args.games_list:
        bodies[name] = {}
        games = {"plain": referee.game(name), "sealed": referee.game(name, seal_keys=BENCH_SEAL_KEYS),
                 "opaque": referee.game(name, seal_keys=referee.SealKeys(BENCH_SEAL_KEYS, opaque=[name]))}
        commitments = {player: referee.commitment(secret) for player, secret in BENCH_PLAYER_SECRETS.items()}
        for kind, game in games.items():
            # A committed game (opaque Caesar!) draws its own seed: it refuses one given.
            seed = None if game.committed else 1
            rng, state = random.Random(name), game.new(seed=seed, commitments=commitments)
            for _ in range(plies):
                secret = mover_secret(game, state, kind)
                state = game.play(state, rng.choice(game.legal_moves(state, secret=secret)), secret=secret)["state"]
            secret = mover_secret(game, state, kind)
            move = rng.choice(game.legal_moves(state, secret=secret))
            assert answered_as(kind, game.play(state, move, secret=secret)), kind
            body = {"state": state, "move": move} | ({"secret": secret} if secret else {})
            bodies[name][kind] = json.dumps(body).encode()
            (workdir / f"{name}-{kind}.json").write_bytes(bodies[name][kind])
    return bodies


def seal_in_process_rows(bodies: dict[str, dict[str, bytes]]) -> list[list[str]]:
    rows = []
    for name, body in bodies.items():
        progress(f"seals: {name} in process")
        engines = {"plain": referee._core.Engine(name),
                   "sealed": referee._core.Engine(name, None, referee.SealKeys(BENCH_SEAL_KEYS)),
                   "opaque": referee._core.Engine(name, None, referee.SealKeys(BENCH_SEAL_KEYS, opaque=[name]))}
        us = {kind: per_call_us(lambda kind=kind: engines[kind].play_json(body[kind])) for kind in KINDS}
        rows.append([name, f"{len(body['sealed']):,} / {len(body['opaque']):,}", f"{us['plain']:.1f}",
                     f"{us['sealed']:.1f}", f"{us['opaque']:.1f}"])
    return rows


def seal_timing_rows(bodies: dict[str, dict[str, bytes]], rounds: int = 7) -> list[list[str]]:
    """A refused seal wrong in its MAC's first character against one wrong in its last, measured in turns
    (`rounds` of each): the comparison is constant-time, so the two should differ by no more than runs of
    either vary."""
    engine = referee._core.Engine("caesar", None, referee.SealKeys(BENCH_SEAL_KEYS))
    body = json.loads(bodies["caesar"]["sealed"])
    seal = body["state"]["seal"]
    at = seal.index(".") + 1
    calls = {}
    for where, index in (("first", at), ("last", len(seal) - 1)):
        wrong = seal[:index] + ("A" if seal[index] != "A" else "Q") + seal[index + 1:]
        data = json.dumps(body | {"state": body["state"] | {"seal": wrong}}).encode()

        def refused(data: bytes = data) -> None:
            try:
                engine.play_json(data)
            except referee.InvalidSeal:
                return
            raise RuntimeError("a wrong seal was taken")
        calls[where] = refused
    runs: dict[str, list[float]] = {where: [] for where in calls}
    for _ in range(rounds):
        for where, call in calls.items():
            runs[where].append(per_call_us(call, seconds=0.2))
    return [[f"MAC wrong in its {where} character", f"{min(times):.2f}", f"{statistics.median(times):.2f}",
             f"{max(times) - min(times):.2f}"] for where, times in runs.items()]


def bench_seals(args: argparse.Namespace, workdir: Path) -> str:
    bodies = seal_bodies(args, workdir)
    in_process = seal_in_process_rows(bodies)
    timing = seal_timing_rows(bodies)
    settings = {"plain": {}, "sealed": {"REFEREE_SEAL_KEYS": BENCH_SEAL_KEYS},
                "opaque": {"REFEREE_SEAL_KEYS": BENCH_SEAL_KEYS, "REFEREE_OPAQUE_STATES": ",".join(bodies)}}
    with contextlib.ExitStack() as servers:
        targets = {}
        for kind in KINDS:
            live = servers.enter_context(server(args.workers, env=settings[kind]))
            for name in bodies:
                path, body = f"/v1/games/{name}/play", workdir / f"{name}-{kind}.json"
                check_answer(live, path, body, lambda data, kind=kind: answered_as(kind, data))
                targets[f"{name}-{kind}"] = (live.base + path, body)
        results = wrk_rounds(args, targets)
    rows = []
    for name in bodies:
        plain, sealed, opaque = (results[f"{name}-{kind}"] for kind in KINDS)
        rows.append([name, number(plain["rps"]), number(sealed["rps"]), number(opaque["rps"]),
                     f"{sealed['rps'] / plain['rps']:.2f}× / {opaque['rps'] / plain['rps']:.2f}×",
                     " / ".join(f"{result['p50_us'] / 1000:,.2f}" for result in (plain, sealed, opaque)),
                     " / ".join(f"{result['p99_us'] / 1000:,.2f}" for result in (plain, sealed, opaque)),
                     number(plain["errors"] + sealed["errors"] + opaque["errors"]),
                     verdict("opaque ≥ 0.85×", opaque["rps"] >= 0.85 * plain["rps"]) if name == "caesar" else ""])
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
        "nonce (Caesar!: with the players' commitments, after checking the mover's secret against its commitment, "
        "SHA-256 and a constant-time comparison) and answers the mover's view instead of the notation. "
        "Without keys chance is unkeyed, so the "
        "unsealed Hypnosia and Caesar! games draw otherwise than the keyed ones (same seed and choices).",
        "",
        "In process (`Engine.play_json`, the whole request in the engine; µs a call, best of 5):",
        "",
        table(["game", "sealed / opaque body bytes", "unsealed µs", "sealed µs", "opaque µs"], in_process),
        "",
        "A refused seal, wrong in the first or the last character of its MAC (Caesar!'s state; µs a call, "
        "7 runs of each in turns): verification compares the whole MAC in constant time (`hmac`'s "
        "`verify_slice`), so where the MAC differs should not show beyond the spread of the runs.",
        "",
        table(["refused seal", "best µs", "median µs", "spread of the runs µs"], timing),
        "",
        f"Over HTTP: gunicorn `-c python:referee.http.gunicorn_conf` ({workers} workers, `REFEREE_ACCESS_LOG=0`), one "
        f"server without keys, one with, one with opaque states; `wrk -t{args.threads} -c{args.connections} "
        f"-d{args.duration}s`, {args.rounds} rounds taking turns after a {args.warmup} s warm-up each. "
        "Latencies unsealed / sealed / opaque.",
        "",
        table(["game", "unsealed requests/s", "sealed requests/s", "opaque requests/s",
               "sealed, opaque ÷ unsealed", "p50 ms", "p99 ms", "errors", "issue 17 target"], rows),
    ])
