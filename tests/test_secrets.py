"""Secrets a carried state keeps (issue 17), with seal keys: keyed chance (Hypnosia's and Caesar!'s
generators keyed by a secret derived from the seal key and the seed) and opaque states (Caesar!'s state
encrypted, XChaCha20-Poly1305, answered with the view of the player who moved).

The reference models (tests/reference/chacha.py, tests/reference/aead.py) share no code with the engine:
with the README's derivations and the secret they reproduce the engine exactly; without the secret, the
documented unkeyed algorithm applied to the carried state predicts nothing."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import urllib.request
from typing import Iterator

import pytest

import referee
from referee.settings import Settings
from live import Server, serve
from reference.aead import open_xchacha20poly1305
from reference.chacha import ChaCha8
from test_seals import KEYS_OLD, KEYS_OTHER, KEYS_ROTATED, SECRET_1, SECRET_2, post

SECRETS = {"k1": SECRET_1, "k2": SECRET_2}


def secret(key_id: str) -> bytes:
    text = SECRETS[key_id]
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def keyed_generator(game: str, rng: dict) -> ChaCha8:
    """The README's keyed chance: ChaCha8 keyed by HMAC-SHA-256(secret, "referee-chance/1\\n" game "\\n" seed)."""
    assert rng["algorithm"] == "chacha8-keyed"
    message = b"referee-chance/1\n" + game.encode() + b"\n" + bytes.fromhex(rng["seed"])
    key = hmac.new(secret(rng["keyed_by"]), message, hashlib.sha256).digest()
    return ChaCha8(key, rng["word_pos"])


def documented_unkeyed(rng: dict) -> ChaCha8:
    """What a holder of the state can compute: the documented generator on the state's seed."""
    return ChaCha8(bytes.fromhex(rng["seed"]), rng["word_pos"])


def rolls(game: referee.Game, state: dict, count: int) -> Iterator[tuple[dict, list[int]]]:
    """Hypnosia: the state before each roll and the dice drawn, over `count` turns."""
    for _ in range(count):
        if game.outcome(state)["status"] == "finished":
            return
        moves = game.legal_moves(state)
        if moves == ["roll"]:
            played = game.play(state, "roll")
            yield state, played["effects"]["roll"]
        else:
            played = game.play(state, moves[0])
        state = played["state"]


def predicted(generator: ChaCha8) -> list[int]:
    return [generator.die(), generator.die()]


# ---------------------------------------------------------------------------------------------- keyed chance

def test_without_keys_the_carried_state_predicts_every_roll() -> None:
    """The baseline the keyed mode removes: the documented algorithm on the carried state."""
    game = referee.game("hypnosia")
    seen = list(rolls(game, game.new(seed=3), 60))
    assert len(seen) >= 20
    for state, dice in seen:
        assert state["rng"]["algorithm"] == "chacha8" and "keyed_by" not in state["rng"]
        assert predicted(documented_unkeyed(state["rng"])) == dice


def test_with_keys_the_carried_state_no_longer_predicts_rolls() -> None:
    game = referee.game("hypnosia", seal_keys=KEYS_ROTATED)
    seen = list(rolls(game, game.new(seed=3), 60))
    assert len(seen) >= 20
    misses = 0
    for state, dice in seen:
        rng = state["rng"]
        assert rng["algorithm"] == "chacha8-keyed" and rng["keyed_by"] == "k2", rng
        misses += predicted(documented_unkeyed(rng)) != dice
        # The key holder reproduces it, with the README's derivation.
        assert predicted(keyed_generator("hypnosia", rng)) == dice
    # 1 in 36 rolls agrees by chance; the documented algorithm predicts the roll no better than that.
    assert misses >= len(seen) * 0.8, (misses, len(seen))
    # Nothing else in the state is the generator's key: the seed it shows is the unkeyed game's.
    assert seen[0][0]["rng"]["seed"] == referee.game("hypnosia").new(seed=3)["rng"]["seed"]


def test_the_same_seed_and_key_replay_identically() -> None:
    def dice(keys: str | None, seed: int = 5) -> list[list[int]]:
        game = referee.game("hypnosia", seal_keys=keys)
        return [roll for _, roll in rolls(game, game.new(seed=seed), 40)]

    assert dice(KEYS_ROTATED) == dice(KEYS_ROTATED)
    assert dice(KEYS_ROTATED) != dice(None)
    assert dice(KEYS_ROTATED) != dice(f"k2:{SECRET_1}"), "another secret, another game"
    assert dice(KEYS_ROTATED) != dice(KEYS_ROTATED, seed=6)
    # Caesar!'s draws too: the same seed and key deal the same hands and bonuses, another key others.
    caesar = referee.game("caesar", seal_keys=KEYS_ROTATED)
    first = caesar.new(seed=9)
    assert first["rng"]["algorithm"] == "chacha8-keyed"
    assert {k: v for k, v in first.items() if k != "seal"} == {
        k: v for k, v in caesar.new(seed=9).items() if k != "seal"}
    unkeyed = referee.game("caesar").new(seed=9)
    assert (first["hands"], first["provinces"]) != (unkeyed["hands"], unkeyed["provinces"])
    # A replay is a new game: keyed alike, so a record replays to the same state.
    moves = caesar.legal_moves(first)[:1]
    replayed = caesar.replay(moves, seed=9)["state"]
    assert replayed == caesar.play(first, moves[0])["state"] | {"seal": replayed["seal"]}


def test_keyed_chance_rotates_with_the_keys() -> None:
    old = referee.game("hypnosia", seal_keys=KEYS_OLD)
    rotated = referee.game("hypnosia", seal_keys=KEYS_ROTATED)
    state = old.new(seed=8)
    assert state["rng"]["keyed_by"] == "k1"
    # After rotation the game goes on keyed by k1 (sealed by k2), drawing what k1 alone draws.
    by_old = [roll for _, roll in rolls(old, state, 30)]
    by_rotated = list(rolls(rotated, state, 30))
    assert [roll for _, roll in by_rotated] == by_old
    assert all(s["rng"]["keyed_by"] == "k1" for s, _ in by_rotated[1:])
    assert all(s["seal"].startswith("k2.") for s, _ in by_rotated[1:])
    # New games take the new key; k1 gone, its games stop (they cannot be drawn for without it).
    assert rotated.new(seed=8)["rng"]["keyed_by"] == "k2"
    only_new = referee.game("hypnosia", seal_keys=f"k2:{SECRET_2}")
    with pytest.raises(referee.InvalidSeal) as refused:
        only_new.legal_moves(by_rotated[-1][0])
    assert refused.value.detail.startswith("unknown key id"), refused.value.detail


def test_a_keyed_state_and_its_notation_need_the_keys() -> None:
    state = referee.game("hypnosia", seal_keys=KEYS_ROTATED).new(seed=2)
    with pytest.raises(referee.InvalidSeal) as refused:
        referee.game("hypnosia").legal_moves({k: v for k, v in state.items() if k != "seal"})
    assert refused.value.detail.startswith("keyed chance"), refused.value.detail
    for name in ("hypnosia", "caesar"):
        keyed = referee.game(name, seal_keys=KEYS_ROTATED)
        new = keyed.new(seed=2)
        text = keyed.position(new)
        assert text.endswith("@k2"), text
        # Notation reads back keyed (unsealed, as notation always is) where the key is held, and nowhere else.
        assert keyed.parse_position(text) == {k: v for k, v in new.items() if k != "seal"}
        with pytest.raises(referee.InvalidSeal) as refused:
            referee.game(name).parse_position(text)
        assert refused.value.detail.startswith("keyed chance"), refused.value.detail
        with pytest.raises(referee.InvalidState):
            keyed.parse_position(text.replace("@k2", "@k.2"))


# ---------------------------------------------------------------------------------------------- opaque states

PLAYERS = ("caesar", "pompey")


def other_of(player: str) -> str:
    return PLAYERS[1 - PLAYERS.index(player)]


def opaque_caesar(keys: str = KEYS_ROTATED) -> referee.Game:
    return referee.game("caesar", seal_keys=referee.SealKeys(keys, opaque=["caesar"]))


def open_with_reference(state: dict, key_id: str, game: str = "caesar", rules: str = "caesar@1") -> bytes | None:
    """The README's opaque form opened outside the engine: key HMAC-SHA-256(secret, "referee-opaque-key/1"),
    the holder the last line of the associated data."""
    prefix, body = state["opaque"].split(".", 1)
    data = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    key = hmac.new(secret(key_id), b"referee-opaque-key/1", hashlib.sha256).digest()
    aad = f"referee-opaque/1\n{game}\n{rules}\n{prefix}\n{state.get('holder', '')}".encode()
    return open_xchacha20poly1305(key, data[:24], data[24:], aad)


def test_an_opaque_state_reveals_nothing_and_opens_only_with_the_key() -> None:
    game = opaque_caesar()
    assert game.opaque and not referee.game("caesar", seal_keys=KEYS_ROTATED).opaque
    assert game.holders == list(PLAYERS) and referee.game("caesar", seal_keys=KEYS_ROTATED).holders == []
    states = game.new(seed=4)
    assert list(states) == list(PLAYERS)
    for holder, state in states.items():
        assert state == {"opaque": state["opaque"], "holder": holder} and state["opaque"].startswith("k2.")
        assert game.check(state) != state and game.check(state)["holder"] == holder, "a fresh nonce, the same holder"
    inner = [json.loads(open_with_reference(state, "k2")) for state in states.values()]
    assert inner[0] == inner[1], "every holder carries the same game"
    assert inner[0]["rules"] == "caesar@1" and set(inner[0]["hands"]) == set(PLAYERS)
    assert inner[0]["rng"]["algorithm"] == "chacha8-keyed"
    for state in states.values():
        for hand in inner[0]["hands"].values():
            assert not any(token in state["opaque"] for token in hand)
    # Any other key, or none, opens nothing.
    state = states["caesar"]
    assert open_with_reference(state | {"opaque": state["opaque"].replace("k2.", "k1.", 1)}, "k1") is None
    for keys, starts in ((KEYS_OTHER, "unknown key id"), (f"k2:{SECRET_1}", "undecryptable"), (None, "opaque")):
        with pytest.raises(referee.InvalidSeal) as refused:
            referee.game("caesar", seal_keys=keys).legal_moves(state)
        assert refused.value.detail.startswith(starts), refused.value.detail
        assert refused.value.data == {"field": "state.seal"}


def test_each_holder_sees_only_its_own_hand() -> None:
    game = opaque_caesar()
    states = game.new(seed=4)
    for ply in range(6):
        mover = game.outcome(states["caesar"])["to_move"]
        state = states[mover]
        played = game.play(state, game.legal_moves(state)[0], mover if ply % 2 else None)
        assert set(played) == {"states", "view", "effects", "outcome"}, "no notation: it would show all"
        assert {player: held["holder"] for player, held in played["states"].items()} == dict(zip(PLAYERS, PLAYERS))
        view = played["view"]
        assert list(view["hands"]) == [mover] and "bags" not in view and "rng" not in view
        inner = json.loads(open_with_reference(played["states"][mover], "k2"))
        assert view["hands"][mover] == inner["hands"][mover]
        assert view["hand_sizes"][other_of(mover)] == len(inner["hands"][other_of(mover)])
        for holder, held in played["states"].items():
            assert game.view(held, holder)["hands"] == {holder: inner["hands"][holder]}
            with pytest.raises(referee.NotYourState) as refused:
                game.view(held, other_of(holder))
            assert refused.value.data == {"field": "state", "holder": holder, "player": other_of(holder)}
        states = played["states"]
    replayed = game.replay([], seed=4)
    assert set(replayed["states"]) == set(PLAYERS) and "state" not in replayed and "position" not in replayed


def test_a_held_state_acts_only_as_its_holder() -> None:
    game = opaque_caesar()
    states = game.new(seed=4)
    mover = game.outcome(states["caesar"])["to_move"]
    mine, theirs = states[mover], states[other_of(mover)]
    move = game.legal_moves(mine)[0]
    assert game.validate(mine, move) == {"legal": True}
    (result,) = game.play_batch([{"state": mine, "move": move}])
    assert set(result["states"]) == set(PLAYERS) and "state" not in result and list(result["view"]["hands"]) == [mover]
    # The other holder's state lists no moves (the mover's hand), plays none and judges none.
    for call in (lambda: game.legal_moves(theirs), lambda: game.play(theirs, move),
                 lambda: game.validate(theirs, move), lambda: game.svg(theirs, move=move),
                 lambda: game.svg(theirs, player=mover), lambda: game._engine.view(theirs)):
        with pytest.raises(referee.NotYourState) as refused:
            call()
        assert refused.value.data["holder"] == other_of(mover), refused.value.data
    (refused,) = game.validate_batch([{"state": theirs, "move": move}])
    assert refused["error"]["code"] == "not-your-state"
    # Its holder's picture is drawn for its holder: the other hand face down, no legal marks off its turn.
    picture = game.svg(theirs, legal=True)
    assert "hand-token hidden" in picture and not re.search(r'class="(?:[^"]* )?legal[ "]', picture)
    assert game.outcome(theirs) == game.outcome(mine), "where the game stands is no secret"


def test_a_holder_cannot_be_stripped_or_swapped() -> None:
    game = opaque_caesar()
    states = game.new(seed=4)
    for holder, state in states.items():
        swapped = state | {"holder": other_of(holder)}
        assert open_with_reference(swapped, "k2") is None, "the holder is in the associated data"
        with pytest.raises(referee.InvalidSeal) as refused:
            game.view(swapped, other_of(holder))
        assert refused.value.detail.startswith("undecryptable"), refused.value.detail
        for changed in ({"opaque": state["opaque"]}, state | {"holder": "crassus"}, state | {"holder": 1}):
            with pytest.raises(referee.InvalidSeal) as refused:
                game.view(changed, holder)
            assert refused.value.detail.startswith("malformed"), refused.value.detail
    # Hypnosia has no hidden information: one opaque state, no holder, anyone's.
    hypnosia = referee.game("hypnosia", seal_keys=referee.SealKeys(KEYS_ROTATED, opaque=["hypnosia"]))
    assert hypnosia.holders == []
    state = hypnosia.new(seed=4)
    assert list(state) == ["opaque"]
    assert list(hypnosia.play(state, hypnosia.legal_moves(state)[0])["state"]) == ["opaque"]
    with pytest.raises(referee.InvalidSeal):
        hypnosia.legal_moves(state | {"holder": "red"})


def tampered(text: str) -> Iterator[str]:
    prefix, body = text.split(".", 1)
    for at in range(0, len(body), 7):
        replacement = "A" if body[at] != "A" else "B"
        yield f"{prefix}.{body[:at]}{replacement}{body[at + 1:]}"
    yield f"{prefix}.{body[:-2]}"
    yield f"{prefix}.{body}AAAA"


def test_tampered_opaque_states_are_refused() -> None:
    game = opaque_caesar()
    state = game.new(seed=4)["caesar"]
    for changed in tampered(state["opaque"]):
        with pytest.raises(referee.InvalidSeal) as refused:
            game.legal_moves(state | {"opaque": changed})
        assert refused.value.detail.startswith(("undecryptable", "malformed")), refused.value.detail
    for bad in (state | {"seal": "x"}, state | {"opaque": 7}, state | {"opaque": ""}):
        with pytest.raises((referee.InvalidSeal, referee.InvalidState)):
            game.legal_moves(bad)
    # An opaque state of one game is no state of another, even with the same keys.
    hypnosia = referee.game("hypnosia", seal_keys=referee.SealKeys(KEYS_ROTATED, opaque=["hypnosia"]))
    with pytest.raises(referee.InvalidSeal) as refused:
        hypnosia.legal_moves({"opaque": state["opaque"]})
    assert refused.value.detail.startswith("undecryptable")


def test_opaque_states_rotate_with_the_keys() -> None:
    old, rotated = opaque_caesar(KEYS_OLD), opaque_caesar(KEYS_ROTATED)
    states = old.new(seed=4)
    mover = old.outcome(states["caesar"])["to_move"]
    assert states[mover]["opaque"].startswith("k1.")
    played = rotated.play(states[mover], rotated.legal_moves(states[mover])[0])
    for holder, held in played["states"].items():
        assert held["opaque"].startswith("k2.") and held["holder"] == holder
        assert json.loads(open_with_reference(held, "k2"))["rng"]["keyed_by"] == "k1"
        with pytest.raises(referee.InvalidSeal) as refused:
            old.view(held, holder)
        assert refused.value.detail.startswith("unknown key id")
    # A game that was sealed before it became opaque goes on held by its players.
    sealed = referee.game("caesar", seal_keys=KEYS_ROTATED).new(seed=4)
    assert set(rotated.play(sealed, rotated.legal_moves(sealed)[0])["states"]) == set(PLAYERS)


def test_opaque_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_SEAL_KEYS", KEYS_ROTATED)
    monkeypatch.setenv("REFEREE_OPAQUE_STATES", " caesar , hypnosia")
    assert Settings.from_env().seal_keys.opaque == ["caesar", "hypnosia"]
    monkeypatch.setenv("REFEREE_OPAQUE_STATES", "chess")
    with pytest.raises(SystemExit, match="REFEREE_OPAQUE_STATES is malformed"):
        Settings.from_env()
    monkeypatch.delenv("REFEREE_SEAL_KEYS")
    monkeypatch.setenv("REFEREE_OPAQUE_STATES", "caesar")
    with pytest.raises(SystemExit, match="needs REFEREE_SEAL_KEYS"):
        Settings.from_env()
    with pytest.raises(ValueError, match="not a game"):
        referee.SealKeys(KEYS_OLD, opaque=["chess"])
    assert "opaque=['caesar']" in repr(referee.SealKeys(KEYS_OLD, opaque=["caesar"]))


# ---------------------------------------------------------------------------------------------- live

def game_svg(server: Server, body: dict) -> str:
    """The render route's SVG (a problem fails the test with its body)."""
    request = urllib.request.Request(f"{server.base}/v1/games/caesar/render", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read().decode()


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serve(REFEREE_SEAL_KEYS=KEYS_ROTATED, REFEREE_OPAQUE_STATES="caesar") as live:
        yield live


def test_live_caesar_is_opaque_and_hypnosia_keyed(server: Server) -> None:
    status, new = post(server, "/v1/games/caesar/new", {"seed": 4})
    assert status == 200 and set(new["states"]) == set(PLAYERS) and "position" not in new, new
    mover = new["outcome"]["to_move"]
    state, theirs = new["states"][mover], new["states"][other_of(mover)]
    status, body = post(server, "/v1/games/caesar/legal-moves", {"state": state})
    assert status == 200, body
    move = body["moves"][0]
    status, played = post(server, "/v1/games/caesar/play", {"state": state, "move": move, "player": mover})
    assert status == 200 and set(played["states"]) == set(PLAYERS) and "state" not in played, played
    assert list(played["view"]["hands"]) == [mover] and "position" not in played
    pompeys = played["states"]["pompey"]
    status, view = post(server, "/v1/games/caesar/view", {"state": pompeys, "player": "pompey"})
    assert status == 200 and list(view["hands"]) == ["pompey"], view
    svg = game_svg(server, {"state": pompeys})
    assert 'data-player="pompey"' in svg and "hidden" in svg, "drawn for its holder"
    # Acting as another player with a held state is refused, on every route.
    refusals = [("view", {"state": pompeys, "player": "caesar"}), ("render", {"state": pompeys, "player": "caesar"}),
                ("legal-moves", {"state": theirs}), ("play", {"state": theirs, "move": move}),
                ("validate", {"state": theirs, "move": move})]
    for route, body in refusals:
        status, problem = post(server, f"/v1/games/caesar/{route}", body)
        assert status == 422 and problem["code"] == "not-your-state" and problem["field"] == "state", (route, problem)
        assert problem["holder"] == body["state"]["holder"], problem
    status, results = post(server, "/v1/games/caesar/batch?with_state=true",
                           [{"state": state, "move": move}, {"state": theirs, "move": move}])
    assert status == 200 and set(results["results"][0]["states"]) == set(PLAYERS), results
    assert results["results"][1]["error"]["code"] == "not-your-state", results
    status, validated = post(server, "/v1/games/caesar/validate", {"state": state, "move": move})
    assert status == 200 and validated == {"legal": True}
    for changed in list(tampered(state["opaque"]))[:3]:
        status, body = post(server, "/v1/games/caesar/play", {"state": state | {"opaque": changed}, "move": move})
        assert status == 422 and body["code"] == "invalid-seal" and body["field"] == "state.seal", body
        assert SECRET_1 not in body["detail"] and SECRET_2 not in body["detail"]
    status, new = post(server, "/v1/games/hypnosia/new", {"seed": 4})
    assert status == 200 and new["state"]["rng"]["algorithm"] == "chacha8-keyed", new
    assert new["state"]["seal"].startswith("k2.") and new["position"].endswith("@k2")
