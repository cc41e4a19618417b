"""The smoke test of an installed package, run by `tests/release/dist_checks.py` with the Python of a fresh virtual
environment into which a built wheel (or the sdist) was installed, with no Rust toolchain on PATH:
`python smoke.py ARCHIVE [EXPECTED] [--no-serve]`. It uses only the package, its dependencies and the
standard library, and checks each use: embedding (a game of each game to its end, a position handle, a
batch), `referee validate` on the example archive (a result a record; with EXPECTED, the results of the
tested build, byte for byte), and gunicorn serving `/healthz` and a `play` (but with `--no-serve`, where
gunicorn does not run: Windows). The release workflow (.github/workflows/release.yml) runs it on each
platform's wheel. Any failure is an AssertionError (exit status 1)."""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import referee

BIN = Path(sys.executable).parent


def no_toolchain() -> None:
    for tool in ("cargo", "rustc", "rustup"):
        assert shutil.which(tool) is None, f"{tool} is on PATH: the smoke test must run without a toolchain"
    assert Path(referee.__file__).is_relative_to(Path(sys.prefix)), f"referee from {referee.__file__}, not the venv"


def embed() -> None:
    """A game of each game played to its end, a position handle, a batch and a replay of records."""
    for name in referee.games():
        game, rng = referee.game(name), random.Random(1)
        state, moves = game.new(seed=1), []
        while legal := game.legal_moves(state):
            moves.append(rng.choice(legal))
            assert game.validate(state, moves[-1])["legal"] is True
            state = game.play(state, moves[-1])["state"]
        assert game.outcome(state)["status"] == "finished", name
        record = {"game": name, "seed": 1, "moves": moves}
        [result] = [json.loads(line) for line in referee.replay_records(json.dumps(record).encode()).splitlines()]
        assert result["legal"] is True, (name, result)
    game = referee.game("iago")
    position, rng = game.start(seed=7), random.Random(7)
    while not position.is_over():
        position.push(rng.choice(position.legal_actions()))
    assert sorted(position.returns()) == [-1.0, 1.0] or position.returns() == [0.0, 0.0]
    state = game.new()
    verdicts = game.validate_batch([{"state": state, "move": move} for move in [*game.legal_moves(state), "z9"]])
    assert [verdict["legal"] for verdict in verdicts] == [True] * len(game.legal_moves(state)) + [False]


def validate(archive: str, expected: str | None) -> None:
    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / "results.jsonl"
        done = subprocess.run([BIN / "referee", "validate", archive, "-o", out, "--no-progress"], timeout=60, check=False)
        assert done.returncode == 1  # the example has refused records and claims that disagree, to show them
        records = [line for line in Path(archive).read_text(encoding="utf-8").splitlines() if line.strip()]
        assert len(out.read_text().splitlines()) == len(records)
        if expected:
            assert out.read_text() == Path(expected).read_text(), "referee validate's results differ from the tested build's"
    version = subprocess.run([BIN / "referee", "--version"], capture_output=True, text=True, check=True).stdout
    assert version == f"referee {referee.__version__}\n"


def call(port: int, path: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def serve() -> None:
    """gunicorn with the project's config and one worker: /healthz, then a new Iago game and a play."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = os.environ | {"REFEREE_BIND": f"127.0.0.1:{port}", "REFEREE_WORKERS": "1"}
    server = subprocess.Popen([BIN / "gunicorn", "-c", "python:referee.http.gunicorn_conf", "referee.http.app:create_app()"],
                              env=env, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                health = call(port, "/healthz")
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.2)
        assert health == {"status": "ok", "version": referee.__version__}
        state = call(port, "/v1/games/iago/new", {"seed": 3})["state"]
        move = referee.game("iago").legal_moves(state)[0]
        played = call(port, "/v1/games/iago/play", {"state": state, "move": move})
        assert played["state"] == referee.game("iago").play(state, move)["state"]
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    arguments = argparse.ArgumentParser(description=__doc__)
    arguments.add_argument("archive")
    arguments.add_argument("expected", nargs="?")
    arguments.add_argument("--no-serve", action="store_true")
    args = arguments.parse_args()
    no_toolchain()
    embed()
    validate(args.archive, args.expected)
    if not args.no_serve:
        serve()
    print(f"smoke test passed: referee {referee.__version__} from {Path(referee.__file__).parent}")
