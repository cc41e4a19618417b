"""Seals (`REFEREE_SEAL_KEYS`, `referee.game(..., seal_keys=...)`): every state answered is sealed, every
state taken must carry a seal that matches it exactly, keys rotate, and without keys a seal is ignored.

The engine (one code path for the embedding API and the service) is tried exhaustively: every field of
reachable states of every game changed, removed or added. The live service (gunicorn, as `make serve`
runs it) is tried on every route of every game, and on a malformed setting."""

from __future__ import annotations

import json
import random
from typing import Any, Iterator

import pytest

import referee
from referee.http.app import create_app
from referee.http.settings import Settings
from helpers.games import FACTS
from helpers.keys import KEYS_OLD, KEYS_OTHER, KEYS_ROTATED, SECRET_1, SECRET_2
from helpers.live import Server, post, serve
from helpers.properties import GAMES, MISSING, SETUPS, get, paths, playout, put



def sealed(name: str, keys: str = KEYS_ROTATED, index: int = 0) -> referee.Game:
    return referee.game(name, seal_keys=keys, **SETUPS[name][index])


def mid_game(name: str, index: int = 0, keys: str = KEYS_ROTATED, plies: int = 12) -> dict:
    return list(playout(sealed(name, keys, index), seed=7 + index, plies=plies))[-1]


def assert_refused(game: referee.Game, state: Any, starts: str = "mismatch") -> None:
    with pytest.raises(referee.InvalidSeal) as refused:
        game.legal_moves(state)
    assert refused.value.data == {"field": "state.seal"}
    assert refused.value.detail.startswith(starts), refused.value.detail


# ---------------------------------------------------------------------------------------------- the engine

@pytest.mark.parametrize("name", GAMES)
def test_every_state_answered_is_sealed_and_taken_back(name: str) -> None:
    for index in range(len(SETUPS[name])):
        game = sealed(name, index=index)
        states = list(playout(game, seed=index, plies=400))
        assert all(state["seal"].startswith("k2.") for state in states)
        assert game.outcome(states[-1])["status"] == "finished", "played to the end"
        assert game.position(states[-1])
        assert game.check(states[-1])["seal"].startswith("k2.")
        items = [{"state": state, "move": game.legal_moves(state)[0]} for state in states[:-1][:20]]
        for result in game.play_batch(items):
            assert result["legal"] is True
            game.legal_moves(result["state"])  # a batch's next state is sealed too
        assert game.view(states[-1], game.info()["players"][0]).get("seal") is None, "a view is never sealed"


@pytest.mark.parametrize("name", GAMES)
def test_replay_answers_a_sealed_state(name: str) -> None:
    game = sealed(name)
    moves, rng, state = [], random.Random(3), game.new(seed=3)
    for _ in range(8):
        move = rng.choice(game.legal_moves(state))  # chance is drawn from the state's generator, as replay does
        moves.append(move)
        state = game.play(state, move)["state"]
    replayed = game.replay(moves, seed=3)["state"]
    assert replayed["seal"].startswith("k2.")
    assert game.legal_moves(replayed) == game.legal_moves(state)


def mutations(value: Any) -> Iterator[tuple[str, Any]]:
    """(label, changed value) for every change of one part of a JSON value: each leaf changed, each field
    and item removed, a field added to each object."""
    for path in paths(value, depth=8):
        old = get(value, path)
        label = "/".join(map(str, path))
        if isinstance(old, str):  # every character: a cell of a board, a digit of a seed
            for at, char in enumerate(old):
                other = "x" if char != "x" else "y"
                yield f"{label}[{at}] changed", put(value, path, old[:at] + other + old[at + 1:])
        if isinstance(old, bool):
            new: Any = not old
        elif isinstance(old, int):
            new = old + 1
        elif isinstance(old, str):
            new = (old[:-1] + ("x" if old[-1:] != "x" else "y")) if old else "x"
        elif old is None:
            new = "x"
        elif isinstance(old, list):
            new = old[:-1] if old else [0]
        else:
            new = old | {"extra": 0}
        yield f"{label} changed", put(value, path, new)
        yield f"{label} removed", put(value, path, MISSING)
        if isinstance(old, dict):
            yield f"{label} added to", put(value, path, old | {"x": None})
    yield "field added", value | {"extra": None}


@pytest.mark.parametrize("name", GAMES)
def test_any_change_to_a_sealed_state_is_refused(name: str) -> None:
    game = sealed(name)
    states = [mid_game(name, index) for index in range(len(SETUPS[name]))]
    changed = 0
    for state in states:
        for label, mutant in mutations(state):
            if label.startswith("seal"):
                continue  # the seal's own changes are below
            with pytest.raises(referee.InvalidSeal) as refused:
                game.legal_moves(mutant)
            assert refused.value.detail.startswith(("mismatch", "missing")), label
            changed += 1
    assert changed > 60 * len(states)
    # What the issue names, by game: a cell, a token, a pawn, a score, the generator.
    named = FACTS[name].sealed_fields
    labels = {label.split("/")[0].split("[")[0].split(" ")[0] for label, _ in mutations(states[0])}
    assert set(named) <= labels


@pytest.mark.parametrize("name", GAMES)
def test_a_changed_seal_is_refused(name: str) -> None:
    game, state = sealed(name), mid_game(name)
    seal = state["seal"]
    key_id, mac = seal.split(".")
    for at in range(len(seal)):
        for replacement in "Ag-_0.":
            if seal[at] != replacement:
                with pytest.raises(referee.InvalidSeal):
                    game.legal_moves(state | {"seal": seal[:at] + replacement + seal[at + 1:]})
    assert_refused(game, {k: v for k, v in state.items() if k != "seal"}, "missing")
    for malformed in ["", key_id, f"{key_id}.{mac}=", f"{key_id}.{mac[:-1]}", f"{key_id}:{mac}", 7, None, [seal]]:
        assert_refused(game, state | {"seal": malformed}, "malformed")
    assert_refused(game, state | {"seal": f"k9.{mac}"}, "unknown key id")
    # The seal of another state, even of the same game a ply apart.
    assert_refused(game, state | {"seal": mid_game(name, plies=11)["seal"]})


def test_keys_rotate_and_other_keys_are_refused() -> None:
    for name in GAMES:
        old_state = mid_game(name, keys=KEYS_OLD)
        assert old_state["seal"].startswith("k1.")
        rotated = sealed(name, KEYS_ROTATED)
        assert rotated.play(old_state, rotated.legal_moves(old_state)[0])["state"]["seal"].startswith("k2.")
        assert_refused(sealed(name, KEYS_OTHER), old_state, "mismatch")
        assert_refused(sealed(name, KEYS_OLD), mid_game(name, keys=KEYS_ROTATED), "unknown key id")


def test_a_seal_of_one_game_is_not_a_seal_of_another() -> None:
    iago, isaac = sealed("iago"), sealed("isaac")
    state = isaac.new()
    assert_refused(iago, state | {"seal": iago.new()["seal"]})


def test_position_strings_carry_no_seal() -> None:
    for name in GAMES:
        game = sealed(name)
        text = game.position(game.new(seed=1))
        with pytest.raises(referee.InvalidSeal) as refused:
            game.legal_moves(text)
        assert "position string" in refused.value.detail
        assert "seal" not in game.parse_position(text), "notation is never sealed"
        assert_refused(game, game.parse_position(text), "missing")


#: A seal of the right form that no key made.
BOGUS_SEAL = "k9." + "A" * 43


def test_without_keys_a_seal_is_ignored_but_for_its_form() -> None:
    for name in GAMES:
        state = mid_game(name)
        plain = referee.game(name, **SETUPS[name][0])
        assert not plain.sealed
        expected = sealed(name).legal_moves(state)
        if "rng" in state:  # keyed chance needs its key (tests/security/test_secrets.py): the game unkeyed, with the seal
            state = list(playout(plain, seed=7, plies=12))[-1] | {"seal": state["seal"]}
            expected = plain.legal_moves({key: value for key, value in state.items() if key != "seal"})
        for seal in [state["seal"], BOGUS_SEAL, mid_game(name, keys=KEYS_OTHER)["seal"]]:
            moves = plain.legal_moves(state | {"seal": seal})
            assert moves == expected
        for malformed in ["anything", 7, None, {"x": [1]}]:
            assert_refused(plain, state | {"seal": malformed}, "malformed")
        assert "seal" not in plain.play(state, moves[0])["state"]
        assert "seal" not in plain.new()


def test_seal_keys_are_read_once_and_never_shown() -> None:
    keys = referee.SealKeys(KEYS_ROTATED)
    assert keys.ids == ["k2", "k1"]
    assert repr(keys) == "SealKeys(ids=['k2', 'k1'])"
    assert SECRET_1 not in repr(keys) and SECRET_2 not in repr(keys)
    assert referee.game("iago", seal_keys=keys).sealed
    for bad in ["", "k1", f"k1:{SECRET_1[:20]}", f"k1:{SECRET_1},k1:{SECRET_2}", f"k.1:{SECRET_1}"]:
        with pytest.raises(ValueError) as refused:
            referee.game("iago", seal_keys=bad)
        assert SECRET_1[:20] not in str(refused.value)


# ---------------------------------------------------------------------------------------------- the service

@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    return {"REFEREE_SEAL_KEYS": KEYS_ROTATED}


def assert_invalid_seal(answer: tuple[int, Any], starts: str) -> None:
    status, body = answer
    assert status == 422, body
    assert body["code"] == "invalid-seal" and body["field"] == "state.seal", body
    assert body["detail"].startswith(starts), body
    assert SECRET_1 not in body["detail"] and SECRET_2 not in body["detail"]


@pytest.mark.live
@pytest.mark.parametrize("name", GAMES)
def test_live_every_route_seals_and_checks(server: Server, name: str) -> None:
    games = f"/v1/games/{name}"
    status, body = post(server, f"{games}/new", {"seed": 5})
    assert status == 200 and body["state"]["seal"].startswith("k2."), body
    state = body["state"]
    status, body = post(server, f"{games}/legal-moves", {"state": state})
    assert status == 200, body
    move = body["moves"][0]
    status, played = post(server, f"{games}/play", {"state": state, "move": move})
    assert status == 200 and played["state"]["seal"].startswith("k2."), played
    assert post(server, f"{games}/validate", {"state": played["state"], "move": move})[0] == 200
    player = referee.game(name).info()["players"][0]
    status, view = post(server, f"{games}/view", {"state": state, "player": player})
    assert status == 200 and "seal" not in view
    status, replayed = post(server, f"{games}/replay", {"seed": 5, "moves": [move]})
    assert status == 200 and replayed["state"]["seal"].startswith("k2.")
    assert replayed["state"] == played["state"]

    forged = state | {"seal": played["state"]["seal"]}  # a real seal, of another state
    unsealed = {k: v for k, v in state.items() if k != "seal"}
    requests = {
        "legal-moves": lambda s: {"state": s},
        "play": lambda s: {"state": s, "move": move},
        "validate": lambda s: {"state": s, "move": move},
        "view": lambda s: {"state": s, "player": player},
    }
    for route, body_of in requests.items():
        assert_invalid_seal(post(server, f"{games}/{route}", body_of(forged)), "mismatch")
        assert_invalid_seal(post(server, f"{games}/{route}", body_of(unsealed)), "missing")
        assert_invalid_seal(post(server, f"{games}/{route}", body_of(state | {"seal": "k2.x"})), "malformed")

    # Keys rotate: a state sealed with the old first key (k1) is taken; a state of another key set is not.
    old = sealed(name, KEYS_OLD).new(seed=5)
    assert post(server, f"{games}/legal-moves", {"state": old})[0] == 200
    assert_invalid_seal(post(server, f"{games}/legal-moves", {"state": sealed(name, KEYS_OTHER).new(seed=5)}),
                        "mismatch")


@pytest.mark.live
@pytest.mark.parametrize("name", GAMES)
def test_live_batches_refuse_a_bad_seal_alone(server: Server, name: str) -> None:
    state = post(server, f"/v1/games/{name}/new", {"seed": 9})[1]["state"]
    move = post(server, f"/v1/games/{name}/legal-moves", {"state": state})[1]["moves"][0]
    items = [{"state": state, "move": move}, {"state": state | {"seal": "k1.x"}, "move": move},
             {"state": {k: v for k, v in state.items() if k != "seal"}, "move": move}, {"state": state, "move": move}]
    status, body = post(server, f"/v1/games/{name}/batch?with_state=true", items)
    assert status == 200, body
    ndjson = b"".join(json.dumps(item).encode() + b"\n" for item in items)
    status, lines = post(server, f"/v1/games/{name}/batch?with_state=true", ndjson, "application/x-ndjson")
    assert status == 200, lines
    for results in (body["results"], lines):
        assert [result.get("legal") for result in results] == [True, None, None, True]
        assert [result["error"]["code"] for result in results[1:3]] == ["invalid-seal"] * 2
        assert all(result["state"]["seal"].startswith("k2.") for result in (results[0], results[3]))


def test_live_without_keys_a_seal_is_ignored() -> None:
    client = create_app(Settings(access_log=False)).test_client()
    for name in GAMES:
        state = mid_game(name)
        if "rng" in state:  # keyed chance needs its key (tests/security/test_secrets.py): the game unkeyed
            state = list(playout(referee.game(name, **SETUPS[name][0]), seed=7, plies=12))[-1]
        move = referee.game(name).legal_moves(state)[0]
        answer = client.post(f"/v1/games/{name}/play", json={"state": state | {"seal": BOGUS_SEAL}, "move": move})
        assert answer.status_code == 200, answer.json
        assert "seal" not in answer.json["state"]
        answer = client.post(f"/v1/games/{name}/play", json={"state": state | {"seal": 7}, "move": move})
        assert answer.status_code == 422 and answer.json["code"] == "invalid-seal", answer.json


# Every malformation is a test of the engine's reader of keys (rust_core/src/keys.rs); these two show that the
# service stops on one, whichever it is: an empty value, and a secret too short.
@pytest.mark.live
@pytest.mark.parametrize("value", ["", f"k1:{SECRET_1[:20]}"])
def test_a_malformed_setting_stops_the_service(value: str) -> None:
    with pytest.raises(RuntimeError) as stopped:
        with serve(REFEREE_SEAL_KEYS=value):
            pass
    log = str(stopped.value)
    assert "REFEREE_SEAL_KEYS is malformed" in log, log
    assert SECRET_1[:20] not in log and SECRET_2 not in log
