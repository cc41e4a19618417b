"""`POST /v1/games/{game}/suggest` against a live gunicorn, from outside as a client sees it: every game's
suggestion is a move `legal-moves` lists and `play` takes, the same again for the same seed and simulations;
refused as `play` refuses a state, and past the service's bounds (`over-budget`, naming the bound the settings
give); sealed and opaque states (an opaque suggestion is its plain twin's); the threads that think
shared between clients (a light client ends the heaviest's newest search); a client that goes away stops its
search, and a stopping worker ends one. No timing is asserted but generous bounds on liveness."""

from __future__ import annotations

import json
import random
import re
import signal
import socket
import time
from typing import Any

import pytest

import referee
from helpers.keys import KEYS_ROTATED, open_with_reference
from helpers.live import Server, connect, get, post, read_answer, request_bytes, serve

pytestmark = pytest.mark.live

#: The module's server: one worker (its two threads that think, shared by every client here), searches as
#: long as a test needs to see them stopped (a tree of 4 MiB at most), and the debug line of each search
#: that begins.
MOST_SIMULATIONS, MOST_THINK_MS = 1_000_000, 25_000
#: How long a test waits for what must come (a bound on liveness, not a timing: what it waits for comes in
#: milliseconds on an idle machine, and long before the searches' 25 s on a loaded one).
LIVENESS = 20.0
LIGHT, HEAVY = "127.0.0.3", "127.0.0.2"
#: The games whose states a service may keep opaque: those with hidden information (their players prove who
#: they are with secrets).
HIDDEN = [name for name in referee.games() if referee.game(name).info()["hidden_information"]]


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    return {"REFEREE_WORKERS": "1", "REFEREE_MAX_SIMULATIONS": str(MOST_SIMULATIONS),
            "REFEREE_MAX_THINK_MS": str(MOST_THINK_MS), "REFEREE_SEARCH_MEMORY_BYTES": str(4 << 20),
            "REFEREE_LOG_LEVEL": "DEBUG"}


def states_of(name: str) -> list[Any]:
    """A game's start, a state some turns into a seeded random game where its mover decides (not a roll), and
    that state's position notation."""
    game = referee.game(name)
    start, rng = game.new(seed=5), random.Random(name)
    state = start
    for _ in range(8):
        state = game.play(state, rng.choice(game.legal_moves(state)))["state"]
    while game.legal_moves(state) == ["roll"]:
        state = game.play(state, "roll")["state"]
    return [start, state, game.position(state)]


def finished(name: str) -> dict:
    game, rng = referee.game(name), random.Random(name)
    state = game.new(seed=5)
    while moves := game.legal_moves(state):
        state = game.play(state, rng.choice(moves))["state"]
    return state


def without_time(suggestion: dict) -> dict:
    return {key: value for key, value in suggestion.items() if key != "spent_ms"}


def suggested(server: Server, name: str, body: dict) -> dict:
    status, answer = post(server, f"/v1/games/{name}/suggest", body)
    assert status == 200, (name, answer)
    return answer


def refused(server: Server, name: str, body: dict, status: int, code: str) -> dict:
    got, answer = post(server, f"/v1/games/{name}/suggest", body)
    assert (got, answer.get("code")) == (status, code), (name, answer)
    return answer


@pytest.mark.parametrize("name", referee.games())
def test_every_game_s_suggestion_is_a_move_play_takes_and_the_same_again_for_a_seed(server: Server, name: str) -> None:
    for state in states_of(name):
        body = {"state": state, "simulations": 80, "seed": 11}
        first = suggested(server, name, body)
        assert first["simulations"] == 80 and first["seed"] == 11 and -1 <= first["value"] <= 1
        status, listed = post(server, f"/v1/games/{name}/legal-moves", {"state": state})
        assert status == 200 and first["move"] in listed["moves"], (first, listed)
        assert all(candidate["move"] in listed["moves"] for candidate in first["candidates"])
        status, played = post(server, f"/v1/games/{name}/play", {"state": state, "move": first["move"]})
        assert status == 200, played
        assert without_time(suggested(server, name, body)) == without_time(first)
        assert without_time(first) == without_time(referee.game(name).suggest(state, simulations=80, seed=11))
    level = suggested(server, name, {"state": state, "level": 1})  # a fresh seed, which the answer gives
    assert level["simulations"] == referee._core.LEVELS[0] and 0 <= level["seed"] < 2**53


@pytest.mark.parametrize("name", referee.games())
def test_refused_as_play_refuses_and_past_the_service_s_bounds(server: Server, name: str) -> None:
    start, state, _ = states_of(name)
    game = referee.game(name)
    other = next(one for one in referee.games() if one != name)
    foreign = referee.game(other).new(seed=5)
    status, by_play = post(server, f"/v1/games/{name}/play", {"state": foreign, "move": game.legal_moves(start)[0]})
    answer = refused(server, name, {"state": foreign}, status, by_play["code"])
    where = r" at line \d+ column \d+$"  # of the text each reads: the body's, or the state's alone
    assert re.sub(where, "", answer["detail"]) == re.sub(where, "", by_play["detail"])
    refused(server, name, {"state": finished(name)}, 422, "game-over")
    mover = game.outcome(state)["to_move"]
    waiting = next(player for player in game.outcome(state)["scores"] if player != mover)
    refused(server, name, {"state": state, "player": waiting}, 422, "not-your-turn")
    assert suggested(server, name, {"state": state, "player": mover, "level": 1})["move"]
    for body, field, limit in (({"simulations": MOST_SIMULATIONS + 1}, "simulations", MOST_SIMULATIONS),
                               ({"think_ms": MOST_THINK_MS + 1}, "think_ms", MOST_THINK_MS),
                               ({"level": 9}, "level", 8)):
        answer = refused(server, name, {"state": state} | body, 422, "over-budget")
        assert (answer["field"], answer["limit"]) == (field, limit), answer
    refused(server, name, {"state": state, "level": 2, "simulations": 10}, 400, "malformed-request")
    refused(server, name, {"state": state, "seed": 2**53}, 400, "malformed-request")


@pytest.mark.parametrize("hidden", HIDDEN)
def test_sealed_and_opaque_states_and_an_opaque_suggestion_is_its_plain_twin_s(server: Server, hidden: str) -> None:
    """With seal keys (a game with hidden information opaque: Caesar!): a sealed state is thought about, a
    forged seal refused; an opaque state needs its mover's secret, and suggests what its plain twin (the same
    state, opened with the key: its generator, which a search never draws from, unkeyed) suggests on a server
    without keys."""
    players = referee.game(hidden).info()["players"]
    secrets = {player: f"{player}'s own secret, for this test" for player in players}
    commitments = {player: referee.commitment(secret) for player, secret in secrets.items()}
    with serve(REFEREE_WORKERS="1", REFEREE_SEAL_KEYS=KEYS_ROTATED, REFEREE_OPAQUE_STATES=hidden) as keyed:
        for name in referee.games():
            if name == hidden:
                continue
            status, new = post(keyed, f"/v1/games/{name}/new", {"seed": 5})
            assert status == 200 and new["state"]["seal"].startswith("k2."), new
            state = new["state"]
            answer = suggested(keyed, name, {"state": state, "simulations": 40, "seed": 2})
            status, listed = post(keyed, f"/v1/games/{name}/legal-moves", {"state": state})
            assert answer["move"] in listed["moves"]
            other = next(player for player in new["outcome"]["scores"] if player != state["to_move"])
            refused(keyed, name, {"state": state | {"to_move": other}}, 422, "invalid-seal")  # its seal kept
        status, new = post(keyed, f"/v1/games/{hidden}/new", {"commitments": commitments})
        assert status == 200 and list(new["state"]) == ["opaque"], new
        opaque, mover = new["state"], new["outcome"]["to_move"]
        refused(keyed, hidden, {"state": opaque, "simulations": 40}, 422, "not-this-player")
        body = {"simulations": 120, "seed": 9}
        theirs = suggested(keyed, hidden, {"state": opaque, "secret": secrets[mover]} | body)
        status, played = post(keyed, f"/v1/games/{hidden}/play", {"state": opaque, "move": theirs["move"],
                                                                  "secret": secrets[mover]})
        assert status == 200, played
    twin = open_with_reference(opaque, "k2", hidden, referee.game(hidden).rules_version)["state"]
    twin["rng"] = {key: value for key, value in twin["rng"].items() if key != "keyed_by"} | {"algorithm": "chacha8"}
    assert without_time(suggested(server, hidden, {"state": twin} | body)) == without_time(theirs)


def send_search(server: Server, peer: str, name: str, body: dict) -> socket.socket:
    """A search sent from `peer` on a connection of its own, its answer not read yet."""
    sock = connect(server, peer, timeout=60)
    sock.sendall(request_bytes("POST", f"/v1/games/{name}/suggest", json.dumps(body).encode()))
    return sock


def waited_for(server: Server, pattern: str, count: int = 1) -> list[dict]:
    """The server's JSON log lines whose message matches `pattern`, once there are `count` of them."""
    deadline = time.monotonic() + LIVENESS
    while True:
        lines = [json.loads(line) for line in server.log_text().splitlines() if line.startswith("{")]
        found = [line for line in lines if re.search(pattern, line.get("message", ""))]
        if len(found) >= count or time.monotonic() > deadline:
            assert len(found) >= count, f"{len(found)} of {count} lines {pattern!r}: {server.log_text()[-3000:]}"
            return found
        time.sleep(0.05)


def long_search(name: str) -> dict:
    """A search that would think the service's longest: its most simulations and time."""
    return {"state": states_of(name)[1], "simulations": MOST_SIMULATIONS, "think_ms": MOST_THINK_MS}


def test_a_light_client_ends_the_heaviest_s_newest_search_and_a_client_gone_stops_its_own(server: Server) -> None:
    """One worker thinks two searches at once. A heavy client's two long searches think; a light client's
    search ends the heavy client's newest (answered 503 `service-busy`, its client holding the most) and is
    answered; then the heavy client goes away, and its other search stops: its log line counts the
    simulations it ran, fewer than it asked; the worker answers a probe and another search at once."""
    before = len(waited_for(server, "a search begins", 0))
    first, second = referee.games()[:2]
    heavy = [send_search(server, HEAVY, first, long_search(first)) for _ in range(2)]
    waited_for(server, "a search begins", before + 2)
    light = suggested_from(server, LIGHT, second, {"state": states_of(second)[1], "simulations": 50, "seed": 1})
    assert light.status == 200 and json.loads(light.body)["simulations"] == 50, light.body
    paid = read_answer(heavy[1])  # the newest: ended for the light client's
    heavy[1].close()
    body = json.loads(paid.body)
    assert paid.status == 503 and body["code"] == "service-busy" and "holds the most" in body["detail"], body
    assert paid.headers["retry-after"] == "1"
    heavy[0].close()  # goes away while its search thinks
    (gone,) = waited_for(server, "the client went away")
    assert gone["simulations"] < gone["asked"] == MOST_SIMULATIONS, gone
    assert get(f"{server.base}/healthz", timeout=LIVENESS)[0] == 200
    assert suggested_from(server, LIGHT, first, {"state": states_of(first)[1], "level": 1}).status == 200


def suggested_from(server: Server, peer: str, name: str, body: dict) -> Any:
    with send_search(server, peer, name, body) as sock:
        sock.settimeout(LIVENESS)
        return read_answer(sock)


def test_a_stopping_worker_ends_a_search_at_once() -> None:
    """SIGTERM while a search thinks: its request answers 503 `service-unavailable` (another instance may take
    it), long before the search's time or the graceful timeout, and the worker exits."""
    with serve(REFEREE_WORKERS="1", REFEREE_LOG_LEVEL="DEBUG", REFEREE_MAX_THINK_MS=str(MOST_THINK_MS),
               REFEREE_MAX_SIMULATIONS=str(MOST_SIMULATIONS), REFEREE_SEARCH_MEMORY_BYTES=str(4 << 20),
               REFEREE_GRACEFUL_TIMEOUT="28") as live:
        name = referee.games()[-1]
        with send_search(live, HEAVY, name, long_search(name)) as sock:
            waited_for(live, "a search begins")
            live.process.send_signal(signal.SIGTERM)
            sock.settimeout(LIVENESS)
            answer = read_answer(sock)
        assert answer.status == 503 and json.loads(answer.body)["code"] == "service-unavailable", answer.body
        live.process.wait(timeout=LIVENESS)
