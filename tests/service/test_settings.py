"""The service's start refuses a bad setting the same way wherever it is read: one line on stderr naming the
variable, the value and what is accepted, a non-zero exit and no traceback. Read by gunicorn's config (a
real gunicorn, started as `make serve` starts it) and by `create_app()` in a process of its own; each value
below once started a server that could not serve, or stopped it with a traceback or without its name."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

import referee
from helpers.keys import KEYS_ROTATED
from helpers.live import APP, GUNICORN, post, serve
from referee.http.settings import SPOOL_MEMORY_BYTES
from referee.http.settings import MIN_REQUEST_BYTES, TREE_BYTES_PER_SIMULATION, Settings, bind_address

#: (variable, bad value): each must stop the service, named.
BAD = [
    ("REFEREE_LOG_LEVEL", "LOUD"),  # was a traceback from logging's dictConfig
    ("REFEREE_ACCESS_LOG", "maybe"),  # was taken as on
    ("REFEREE_MAX_BODY_BYTES", "10"),  # no play request fits: every one was a 413
    ("REFEREE_MAX_LINE_BYTES", "10"),  # no batch item fits
    ("REFEREE_MAX_SPOOL_BYTES", "1"),  # no streamed result fits
    ("REFEREE_BOARD_CACHE_BYTES", str(2**64)),  # a traceback from the engine
    ("REFEREE_MAX_BATCH_ITEMS", str(2**64)),  # a 500 on every batch
    ("REFEREE_WORKER_CONNECTIONS", str(2**31)),  # every worker failed at boot, for ever
    ("REFEREE_MAX_SIMULATIONS", "100"),  # below the default level's 200: every request without a level refused
    ("REFEREE_MAX_SIMULATIONS", str(2**32)),  # past what the engine counts
    ("REFEREE_MAX_THINK_MS", "60000"),  # longer than the worker timeout (30 s)
    ("REFEREE_SEARCH_MEMORY_BYTES", "1000"),  # no search's tree would fit
]
#: Bad addresses: gunicorn's own errors named the address alone, or were a traceback.
BAD_BINDS = [
    "nonsense",  # no port
    "localhost:http",  # not a number
    "127.0.0.1:99999",  # past the ports (a traceback)
    "::1:8000",  # IPv6 without brackets
    "192.0.2.1:8000",  # not this machine's (TEST-NET-1): five retries, then a line without the variable
    "unix:/nonexistent/referee.sock",  # no such directory
]
ALL_BAD = BAD + [("REFEREE_BIND", value) for value in BAD_BINDS]


def refusal(error: pytest.ExceptionInfo[SystemExit], name: str, value: str) -> str:
    """The message of a refusal, checked: one line naming the variable and the value."""
    message = str(error.value.code)
    assert name in message and value in message and "\n" not in message, message
    return message


# ------------------------------------------------------------------ the readers, in this process


@pytest.mark.parametrize(("name", "value"), BAD)
def test_the_reader_refuses_a_bad_value_naming_it(monkeypatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as error:
        Settings.from_env()
    refusal(error, name, value)


@pytest.mark.parametrize("value", BAD_BINDS)
def test_the_address_reader_refuses_a_bad_address_naming_it(monkeypatch, value: str) -> None:
    monkeypatch.setenv("REFEREE_BIND", value)
    with pytest.raises(SystemExit) as error:
        bind_address()
    assert "HOST:PORT" in refusal(error, "REFEREE_BIND", value)


@pytest.mark.parametrize("name", ["REFEREE_MAX_BODY_BYTES", "REFEREE_MAX_LINE_BYTES", "REFEREE_MAX_SPOOL_BYTES"])
def test_a_minimum_is_taken_and_a_byte_less_is_refused_with_the_minimum_and_why(monkeypatch, name: str) -> None:
    low = SPOOL_MEMORY_BYTES if name == "REFEREE_MAX_SPOOL_BYTES" else MIN_REQUEST_BYTES
    monkeypatch.setenv(name, str(low))
    assert getattr(Settings.from_env(), name.removeprefix("REFEREE_").lower()) == low
    monkeypatch.setenv(name, str(low - 1))
    with pytest.raises(SystemExit) as error:
        Settings.from_env()
    assert f"at least {low} (" in refusal(error, name, str(low - 1))


def test_the_largest_search_must_fit_one_client_s_share(monkeypatch) -> None:
    """A search holds its body and its tree (the bytes its simulations may grow, within
    REFEREE_SEARCH_MEMORY_BYTES) in the worker's memory: the largest allowed must fit, or the service stops
    naming what to change. The defaults' largest holds a fraction of a client's share."""
    defaults = Settings.from_env()
    assert defaults.tree_bytes(defaults.max_simulations) == (defaults.max_simulations + 1) * TREE_BYTES_PER_SIMULATION
    assert defaults.one_search() < defaults.peer_memory_bytes == 16 * 1024 * 1024
    monkeypatch.setenv("REFEREE_MAX_SIMULATIONS", str(10**9))
    with pytest.raises(SystemExit) as error:
        Settings.from_env()
    message = refusal(error, "REFEREE_WORKER_MEMORY_BYTES", str(defaults.worker_memory_bytes))
    assert "REFEREE_MAX_SIMULATIONS" in message and "REFEREE_SEARCH_MEMORY_BYTES" in message
    monkeypatch.setenv("REFEREE_SEARCH_MEMORY_BYTES", str(4 * 1024 * 1024))
    assert Settings.from_env().tree_bytes(10**9) == 4 * 1024 * 1024
    monkeypatch.setenv("REFEREE_TIMEOUT", "60")
    monkeypatch.setenv("REFEREE_MAX_THINK_MS", "60000")
    assert Settings.from_env().max_think_ms == 60000


def test_the_longest_think_follows_a_shorter_worker_timeout(monkeypatch) -> None:
    """Unset, REFEREE_MAX_THINK_MS is 5 s, or the worker timeout if shorter (a service with a 2 s timeout
    started before `suggest` starts still); set past the timeout, it stops the service naming both."""
    monkeypatch.setenv("REFEREE_TIMEOUT", "2")
    assert Settings.from_env().max_think_ms == 2000
    monkeypatch.setenv("REFEREE_MAX_THINK_MS", "2001")
    with pytest.raises(SystemExit) as error:
        Settings.from_env()
    assert "REFEREE_TIMEOUT" in refusal(error, "REFEREE_MAX_THINK_MS", "2001")


@pytest.mark.parametrize(("value", "on"), [
    *((spelling, True) for spelling in ("1", "true", "TRUE", "Yes", "on", " on ")),
    *((spelling, False) for spelling in ("0", "false", "False", "NO", "off")),
    ("", True),  # unset: the default
])
def test_access_log_takes_the_documented_spellings(monkeypatch, value: str, on: bool) -> None:
    monkeypatch.setenv("REFEREE_ACCESS_LOG", value)
    assert Settings.from_env().access_log is on


def test_log_level_takes_any_case(monkeypatch) -> None:
    monkeypatch.setenv("REFEREE_LOG_LEVEL", "warning")
    assert Settings.from_env().log_level == "WARNING"


@pytest.mark.parametrize("value", ["127.0.0.1:0", "localhost:8000", "0.0.0.0:80", "unix:/tmp/referee.sock"])
def test_the_address_reader_takes_good_addresses(monkeypatch, value: str) -> None:
    monkeypatch.setenv("REFEREE_BIND", value)
    assert bind_address() == value


def test_every_games_opening_play_fits_the_smallest_body() -> None:
    """MIN_REQUEST_BYTES holds a play request (and so a batch item) of every game's opening, in the JSON form,
    the longest first move, and Caesar!'s opaque (sealed, encrypted, with its player and secret)."""
    sizes = {}
    for name in referee.games():
        game = referee.game(name)
        state = game.new()
        sizes[name] = len(json.dumps({"state": state, "move": max(game.legal_moves(state), key=len)}))
    game = referee.game("caesar", seal_keys=referee.SealKeys(KEYS_ROTATED, ["caesar"]))
    secrets = {player: player.ljust(43, "x") for player in game.info()["players"]}
    state = game.new(commitments={player: referee.commitment(secret) for player, secret in secrets.items()})
    player = game.outcome(state)["to_move"]
    move = max(game.legal_moves(state, secret=secrets[player]), key=len)
    sizes["caesar opaque"] = len(json.dumps({"state": state, "move": move, "player": player,
                                             "secret": secrets[player]}))
    assert max(sizes.values()) <= MIN_REQUEST_BYTES, sizes


# ------------------------------------------------------------------ a process of its own


def stopped(process: subprocess.Popen) -> tuple[int | None, str]:
    """The exit status of a process that must stop of itself within 20 s (None if it did not: then it is
    killed, its process group whole), and its stderr."""
    try:
        _, err = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        _, err = process.communicate(timeout=5)
        return None, err.decode(errors="replace")
    return process.returncode, err.decode(errors="replace")


def assert_refused(code: int | None, err: str, name: str) -> None:
    assert code not in (None, 0), (code, err[-800:])
    assert "Traceback" not in err, err[-800:]
    assert len(err.strip().splitlines()) == 1 and name in err, err[-800:]


@pytest.mark.live
@pytest.mark.parametrize(("name", "value"), ALL_BAD)
def test_gunicorn_refuses_a_bad_value_at_start(tmp_path, name: str, value: str) -> None:
    """gunicorn as `make serve` runs it: it exits at once, before any worker, with the variable named."""
    env = os.environ | {"REFEREE_BIND": "127.0.0.1:0", "REFEREE_WORKERS": "1", name: value}
    process = subprocess.Popen([str(GUNICORN), "-c", "python:referee.http.gunicorn_conf", APP], env=env, cwd=tmp_path,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               process_group=0)
    assert_refused(*stopped(process), name)


@pytest.mark.parametrize(("name", "value"), BAD)
def test_create_app_refuses_a_bad_value_in_process(tmp_path, name: str, value: str) -> None:
    """An app made in-process (an embedder's server, a test) reads the same settings and stops alike."""
    process = subprocess.Popen([sys.executable, "-c", "from referee.http.app import create_app; create_app()"],
                               env=os.environ | {name: value}, cwd=tmp_path, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, process_group=0)
    assert_refused(*stopped(process), name)


@pytest.mark.live
def test_a_server_at_the_minimums_plays_and_streams_every_opening() -> None:
    """The minimums are enough: at them, each game's opening is played, and judged in a streamed batch with
    its state."""
    with serve(REFEREE_WORKERS="1", REFEREE_MAX_BODY_BYTES=str(MIN_REQUEST_BYTES),
               REFEREE_MAX_LINE_BYTES=str(MIN_REQUEST_BYTES), REFEREE_MAX_SPOOL_BYTES=str(SPOOL_MEMORY_BYTES)) as live:
        for name in referee.games():
            game = referee.game(name)
            state = game.new()
            item = {"state": state, "move": max(game.legal_moves(state), key=len)}
            status, answer = post(live, f"/v1/games/{name}/play", item)
            assert status == 200, (name, answer)
            status, lines = post(live, f"/v1/games/{name}/batch/ndjson?with_state=true",
                                 json.dumps(item).encode() + b"\n", "application/x-ndjson")
            assert status == 200 and len(lines) == 1 and lines[0]["legal"] is True, (name, lines)
