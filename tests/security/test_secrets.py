"""Secrets a carried state keeps (issue 17), with seal keys: keyed chance (Hypnosia's and Caesar!'s
generators keyed by a secret derived from the seal key and the seed) and opaque states (Caesar!'s state
encrypted, XChaCha20-Poly1305, answered with the view of the player who moved).

The reference models (tests/rules/reference/chacha.py, tests/rules/reference/aead.py) share no code with the engine:
with the derivations of docs/security.md and the secret they reproduce the engine exactly; without the secret, the
documented unkeyed algorithm applied to the carried state predicts nothing."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from typing import Iterator

import pytest

import referee
from referee.http.settings import Settings
from helpers.live import Server, post, send
from rules.reference.aead import open_xchacha20poly1305, seal_xchacha20poly1305
from rules.reference.chacha import ChaCha8
from helpers.keys import KEYS_OLD, KEYS_OTHER, KEYS_ROTATED, SECRET_1, SECRET_2, open_with_reference, opaque_key, secret

def keyed_generator(game: str, rng: dict) -> ChaCha8:
    """Keyed chance (docs/security.md): ChaCha8 keyed by HMAC-SHA-256(secret, "referee-chance/1\\n" game "\\n" seed)."""
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
        # The key holder reproduces it, with the derivation of docs/security.md.
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
#: Each player's secret, known to that player alone (and to the test, which plays both).
SECRETS_OF = {"caesar": "caesar's secret, his alone", "pompey": "pompey's secret, his alone"}
COMMITMENTS = {player: referee.commitment(text) for player, text in SECRETS_OF.items()}
NOBODYS = "a guess that is nobody's secret"


def other_of(player: str) -> str:
    return PLAYERS[1 - PLAYERS.index(player)]


def opaque_caesar(keys: str = KEYS_ROTATED) -> referee.Game:
    return referee.game("caesar", seal_keys=referee.SealKeys(keys, opaque=["caesar"]))


def started(game: referee.Game) -> tuple[dict, str]:
    """A new opaque game (its seed the service's own) and the player to move."""
    state = game.new(commitments=COMMITMENTS)
    return state, game.outcome(state)["to_move"]


def test_an_opaque_state_reveals_nothing_and_opens_only_with_the_key() -> None:
    game = opaque_caesar()
    assert game.opaque and game.committed and not referee.game("caesar", seal_keys=KEYS_ROTATED).committed
    state, _ = started(game)
    assert list(state) == ["opaque"] and state["opaque"].startswith("k2."), "one state serves both players"
    inner = open_with_reference(state, "k2")
    assert inner is not None and set(inner) == {"state", "commitments"}
    assert inner["commitments"] == COMMITMENTS, "the commitments travel inside the ciphertext"
    assert inner["state"]["rules"] == "caesar@1" and set(inner["state"]["hands"]) == set(PLAYERS)
    assert inner["state"]["rng"]["algorithm"] == "chacha8-keyed"
    assert game.check(state) != state and open_with_reference(game.check(state), "k2") == inner, "a fresh nonce"
    # The bytes a client holds show none of the plaintext (the base64 text itself could show nothing).
    body = state["opaque"].split(".", 1)[1]
    carried = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    shown = [b'"hands"', b'"bags"', b'"commitments"'] + [f'"{t}"'.encode() for h in inner["state"]["hands"].values() for t in h]
    assert not any(plain in carried for plain in shown)
    # Any other key, or none, opens nothing.
    assert open_with_reference({"opaque": state["opaque"].replace("k2.", "k1.", 1)}, "k1") is None
    for keys, starts in ((KEYS_OTHER, "unknown key id"), (f"k2:{SECRET_1}", "undecryptable"), (None, "opaque")):
        with pytest.raises(referee.InvalidSeal) as refused:
            referee.game("caesar", seal_keys=keys).legal_moves(state, secret=SECRETS_OF["caesar"])
        assert refused.value.detail.startswith(starts), refused.value.detail
        assert refused.value.data == {"field": "state.seal"}


def test_a_committed_game_starts_only_with_one_commitment_a_player() -> None:
    game = opaque_caesar()
    assert referee.commitment(SECRETS_OF["caesar"]) == hashlib.sha256(SECRETS_OF["caesar"].encode()).hexdigest()
    for short_or_long in ("x" * 15, "x" * 257):
        with pytest.raises(ValueError, match="16 to 256 characters"):
            referee.commitment(short_or_long)
    digest = COMMITMENTS["caesar"]
    for given, field in ((None, "commitments"), ({}, "commitments.caesar"), ({"caesar": digest}, "commitments.pompey"),
                         (COMMITMENTS | {"crassus": digest}, "commitments"), ({"caesar": digest, "pompey": digest},
                         "commitments.pompey"), (COMMITMENTS | {"pompey": digest.upper()}, "commitments.pompey"),
                         (COMMITMENTS | {"pompey": 7}, "commitments.pompey"), ([digest, digest], "commitments")):
        with pytest.raises(referee.errors.MalformedRequest) as refused:
            game.new(commitments=given)
        assert [error["field"] for error in refused.value.data["errors"]] == [field], (given, refused.value.data)
    # A game or mode without hidden information ignores them (a client may always send them): the same state.
    for plain in (referee.game("caesar"), referee.game("iago"),
                  referee.game("hypnosia", seal_keys=referee.SealKeys(KEYS_ROTATED, opaque=["hypnosia"]))):
        assert not plain.committed
        with_them = plain.new(seed=4, commitments={"anyone": "not even a digest"})
        assert list(with_them) == list(plain.new(seed=4))


def test_a_committed_game_cannot_be_copied() -> None:
    """H1: chance depends only on (key, game, seed), so a seed or hands a client chose would let a player
    start a copy of a game under way, with commitments of their own, and view the other player's hand."""
    game = opaque_caesar()
    with pytest.raises(referee.errors.MalformedRequest) as refused:
        game.new(seed=4, commitments=COMMITMENTS)
    assert [error["field"] for error in refused.value.data["errors"]] == ["seed"], refused.value.data
    with_hands = referee.game("caesar", options={"hands": {"caesar": ["L40", "S60"], "pompey": ["L40", "S60"]}},
                              seal_keys=referee.SealKeys(KEYS_ROTATED, opaque=["caesar"]))
    with pytest.raises(referee.InvalidOptions) as refused:
        with_hands.new(commitments=COMMITMENTS)
    assert refused.value.data["field"] == "options.hands" and refused.value.detail.startswith("not allowed")
    # Two new games are two games: the seed is drawn from the operating system, inside the ciphertext.
    inners = [open_with_reference(game.new(commitments=COMMITMENTS), "k2")["state"] for _ in range(3)]
    assert len({inner["rng"]["seed"] for inner in inners}) == 3
    assert len({json.dumps(inner["hands"], sort_keys=True) for inner in inners}) > 1 or len(
        {json.dumps(inner["provinces"], sort_keys=True) for inner in inners}) > 1
    # A replay would show hands in its refusals (`token-not-in-hand`, `data.hand`) without any secret.
    with pytest.raises(referee.errors.MalformedRequest) as refused:
        game.replay(["S60@HC-HU"])
    assert refused.value.data["errors"][0]["field"] == "moves" and refused.value.detail.startswith("opaque")
    # Without opaque mode (sealed, or no keys) seeds, hands and replays are as before.
    sealed = referee.game("caesar", seal_keys=KEYS_ROTATED)
    assert sealed.new(seed=4) == sealed.new(seed=4) | {"seal": sealed.new(seed=4)["seal"]}
    assert sealed.replay([], seed=4)["legal"]


def first_move_and_draw(game: referee.Game, state: dict, secret_: str | None = None) -> tuple[str, str]:
    move = game.legal_moves(state, secret=secret_)[0]
    drawn = game.play(state, move, secret=secret_)["effects"]["drawn"]
    return move, drawn[0]


def test_with_keys_a_move_cannot_list_its_draws() -> None:
    """H2: listed draws are for records of games drawn by hand; with keyed chance the generator draws."""
    plain = referee.game("caesar")
    state = plain.new(seed=4)
    move, drawn = first_move_and_draw(plain, state)
    assert plain.play(state, f"{move} ={drawn}")["effects"]["drawn"] == [drawn], "without keys, as before"
    sealed = referee.game("caesar", seal_keys=KEYS_ROTATED)
    opaque = opaque_caesar()
    cases = [(sealed, sealed.new(seed=4), None)]
    opaque_state, mover = started(opaque)
    cases.append((opaque, opaque_state, SECRETS_OF[mover]))
    for game, state, secret_ in cases:
        move, drawn = first_move_and_draw(game, state, secret_)
        for listed in (drawn, "D42", "L40"):
            with pytest.raises(referee.IllegalMove) as refused:
                game.play(state, f"{move} ={listed}", secret=secret_)
            assert refused.value.rule == "listed-draws", refused.value.rule
            assert "bag" not in refused.value.data and "hand" not in refused.value.data, refused.value.data
            verdict = game.validate(state, f"{move} ={listed}", secret=secret_)
            assert verdict["reason"]["rule"] == "listed-draws" and "bag" not in verdict["reason"], verdict


def test_an_unknown_player_is_unknown_before_any_secret() -> None:
    """M2: a name that is no player is `unknown-player`, not `not-this-player`."""
    game = opaque_caesar()
    state, _ = started(game)
    for secret_ in (None, NOBODYS, SECRETS_OF["caesar"]):
        with pytest.raises(referee.UnknownPlayer):
            game.view(state, "crassus", secret_)
        with pytest.raises(referee.UnknownPlayer):
            game.svg(state, player="crassus", secret=secret_)


def test_a_committed_state_stays_opaque_when_opaque_mode_is_off() -> None:
    """M3: a game that opened committed is answered encrypted, whatever the keys' opaque games say now."""
    state, mover = started(opaque_caesar())
    sealed_only = referee.game("caesar", seal_keys=KEYS_ROTATED)
    assert not sealed_only.opaque
    secret_ = SECRETS_OF[mover]
    played = sealed_only.play(state, sealed_only.legal_moves(state, secret=secret_)[0], secret=secret_)
    assert list(played["state"]) == ["opaque"] and "position" not in played, played
    assert open_with_reference(played["state"], "k2")["commitments"] == COMMITMENTS
    assert list(sealed_only.check(state)) == ["opaque"]
    (result,) = sealed_only.play_batch([{"state": state, "move": sealed_only.legal_moves(state, secret=secret_)[0],
                                        "secret": secret_}])
    assert list(result["state"]) == ["opaque"], result
    with pytest.raises(referee.NotThisPlayer):
        sealed_only.view(state, other_of(mover), secret_)


def test_the_whole_of_a_committed_state_is_not_shown_to_embedders() -> None:
    """M1: notation and perft would show every hand."""
    game = opaque_caesar()
    state, _ = started(game)
    for call in (lambda: game.position(state), lambda: game.perft(state, 1)):
        with pytest.raises(referee.NotThisPlayer) as refused:
            call()
        assert refused.value.detail.startswith("whole"), refused.value.detail
    sealed = referee.game("caesar", seal_keys=KEYS_ROTATED)
    assert sealed.position(sealed.new(seed=4)) and sealed.perft(sealed.new(seed=4), 1) > 0


def test_a_play_answers_one_state_and_only_the_movers_hand() -> None:
    game = opaque_caesar()
    state, mover = started(game)
    for ply in range(6):
        played = game.play(state, game.legal_moves(state, secret=SECRETS_OF[mover])[0], mover if ply % 2 else None,
                           secret=SECRETS_OF[mover])
        assert set(played) == {"state", "view", "effects", "outcome"}, "no notation: it would show all"
        assert list(played["state"]) == ["opaque"]
        inner = open_with_reference(played["state"], "k2")
        assert set(inner["state"]["hands"]) == set(PLAYERS), "the state has both hands"
        view = played["view"]
        assert list(view["hands"]) == [mover] and "bags" not in view and "rng" not in view, "the answer only one"
        assert view["hands"][mover] == inner["state"]["hands"][mover]
        assert view["hand_sizes"][other_of(mover)] == len(inner["state"]["hands"][other_of(mover)])
        for player in PLAYERS:
            assert game.view(played["state"], player, SECRETS_OF[player])["hands"] == {
                player: inner["state"]["hands"][player]}
        state, mover = played["state"], played["outcome"]["to_move"]


def refusals(game: referee.Game, state: dict, mover: str, move: str) -> dict:
    """Every call that reveals a player's information, with a given secret, for the player it acts as."""
    waiting = other_of(mover)
    return {
        "legal_moves": lambda secret: game.legal_moves(state, secret=secret),
        "play": lambda secret: game.play(state, move, secret=secret),
        "validate": lambda secret: game.validate(state, move, secret=secret),
        "view": lambda secret: game.view(state, waiting, secret),
        "svg": lambda secret: game.svg(state, player=waiting, secret=secret),
        "svg move": lambda secret: game.svg(state, move=move, secret=secret),
        "svg by secret": lambda secret: game.svg(state, secret=secret),
        "batch": lambda secret: game.validate_batch([{"state": state, "move": move}
                                                     | ({"secret": secret} if secret else {})])[0],
    }


def test_every_call_that_reveals_a_hand_needs_that_players_secret() -> None:
    game = opaque_caesar()
    state, mover = started(game)
    move = game.legal_moves(state, secret=SECRETS_OF[mover])[0]
    acts_as = {"view": other_of(mover), "svg": other_of(mover), "svg by secret": None}
    for name, call in refusals(game, state, mover, move).items():
        player = acts_as.get(name, mover)
        right = SECRETS_OF[player] if player else SECRETS_OF[other_of(mover)]
        assert call(right) is not None  # the right secret is enough
        for given, starts in ((None, "missing"), (NOBODYS, "wrong"), (SECRETS_OF[other_of(player or mover)],
                                                                     "another player's")):
            if name == "svg by secret" and given is not None and given != NOBODYS:
                continue  # any player's secret draws that player's picture
            if name == "batch":
                error = call(given)["error"]
                assert error["code"] == "not-this-player" and error["detail"].startswith(starts), (given, error)
                assert error["field"] == "secret" and error["player"] == mover
                continue
            with pytest.raises(referee.NotThisPlayer) as refused:
                call(given)
            assert refused.value.detail.startswith(starts), (name, given, refused.value.detail)
            assert refused.value.data == {"field": "secret", "player": player}, (name, refused.value.data)
    # A picture is drawn for the secret's owner: the other hand face down, no legal marks off its turn.
    picture = game.svg(state, legal=True, secret=SECRETS_OF[other_of(mover)])
    assert f'data-player="{other_of(mover)}"' in picture and "hand-token hidden" in picture
    assert not re.search(r'class="(?:[^"]* )?legal[ "]', picture)
    assert game.outcome(state)["to_move"] == mover, "where the game stands is no secret"
    (played,) = game.play_batch([{"state": state, "move": move, "secret": SECRETS_OF[mover]}])
    assert list(played["state"]) == ["opaque"] and list(played["view"]["hands"]) == [mover]
    with pytest.raises(referee.NotThisPlayer):
        game._engine.view(state)  # never the whole state


def test_commitments_cannot_be_swapped_or_changed() -> None:
    game = opaque_caesar()
    state, mover = started(game)
    # A game started with other commitments refuses the first player's secret.
    theirs = game.new(commitments={"caesar": referee.commitment(NOBODYS), "pompey": COMMITMENTS["pompey"]})
    with pytest.raises(referee.NotThisPlayer) as refused:
        game.view(theirs, "caesar", SECRETS_OF["caesar"])
    assert refused.value.detail.startswith("wrong")
    assert game.view(theirs, "pompey", SECRETS_OF["pompey"])
    # The commitments are inside the ciphertext: changing it, or splicing two, opens nothing.
    half = len(state["opaque"]) // 2
    for changed in [state["opaque"][:half] + theirs["opaque"][half:], *tampered(state["opaque"])]:
        with pytest.raises(referee.InvalidSeal) as refused:
            game.view({"opaque": changed}, "caesar", SECRETS_OF["caesar"])
        assert refused.value.detail.startswith(("undecryptable", "malformed")), refused.value.detail
    assert open_with_reference({"opaque": state["opaque"][:half] + theirs["opaque"][half:]}, "k2") is None


def held_state_of_format_1(holder: str | None, key_id: str = "k2") -> dict:
    """A state as Referee wrote it before commitments (`referee-opaque/1`, bound to a holder), made with the key."""
    plain = referee.game("caesar").new(seed=4)
    aad = f"referee-opaque/1\ncaesar\ncaesar@1\n{key_id}\n{holder or ''}".encode()
    nonce = bytes(range(24))
    sealed = seal_xchacha20poly1305(opaque_key(key_id), nonce, json.dumps(plain).encode(), aad)
    text = f"{key_id}.{base64.urlsafe_b64encode(nonce + sealed).decode().rstrip('=')}"
    assert open_xchacha20poly1305(opaque_key(key_id), nonce, sealed, aad) is not None
    return {"opaque": text} | ({"holder": holder} if holder else {})


def test_held_states_of_the_old_format_are_refused_with_what_to_do() -> None:
    game = opaque_caesar()
    for holder in PLAYERS:
        with pytest.raises(referee.InvalidSeal) as refused:
            game.legal_moves(held_state_of_format_1(holder), secret=SECRETS_OF[holder])
        assert refused.value.detail.startswith("held state") and "commitments" in refused.value.detail
    # Stripped of its holder, format 1 does not open as format 2.
    with pytest.raises(referee.InvalidSeal) as refused:
        game.legal_moves(held_state_of_format_1(None))
    assert refused.value.detail.startswith("undecryptable"), refused.value.detail
    # A plain (sealed) Caesar! state has no commitments: a service keeping Caesar! opaque refuses it.
    sealed = referee.game("caesar", seal_keys=KEYS_ROTATED).new(seed=4)
    with pytest.raises(referee.InvalidSeal) as refused:
        game.legal_moves(sealed, secret=SECRETS_OF["caesar"])
    assert refused.value.detail.startswith("not opaque"), refused.value.detail


def test_a_game_without_hidden_information_is_anyones() -> None:
    hypnosia = referee.game("hypnosia", seal_keys=referee.SealKeys(KEYS_ROTATED, opaque=["hypnosia"]))
    state = hypnosia.new(seed=4)
    assert list(state) == ["opaque"]
    inner = open_with_reference(state, "k2", "hypnosia", "hypnosia@1")
    assert inner is not None and set(inner) == {"state"}, "no commitments"
    played = hypnosia.play(state, hypnosia.legal_moves(state)[0], secret=NOBODYS)
    assert list(played["state"]) == ["opaque"]
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
    state, mover = started(game)
    for changed in tampered(state["opaque"]):
        with pytest.raises(referee.InvalidSeal) as refused:
            game.legal_moves(state | {"opaque": changed}, secret=SECRETS_OF[mover])
        assert refused.value.detail.startswith(("undecryptable", "malformed")), refused.value.detail
    for bad in (state | {"seal": "x"}, state | {"opaque": 7}, state | {"opaque": ""}):
        with pytest.raises((referee.InvalidSeal, referee.InvalidState)):
            game.legal_moves(bad, secret=SECRETS_OF[mover])
    # An opaque state of one game is no state of another, even with the same keys.
    hypnosia = referee.game("hypnosia", seal_keys=referee.SealKeys(KEYS_ROTATED, opaque=["hypnosia"]))
    with pytest.raises(referee.InvalidSeal) as refused:
        hypnosia.legal_moves(state)
    assert refused.value.detail.startswith("undecryptable")


def test_opaque_states_rotate_with_the_keys() -> None:
    old, rotated = opaque_caesar(KEYS_OLD), opaque_caesar(KEYS_ROTATED)
    state, mover = started(old)
    assert state["opaque"].startswith("k1.")
    secret_ = SECRETS_OF[mover]
    played = rotated.play(state, rotated.legal_moves(state, secret=secret_)[0], secret=secret_)
    assert played["state"]["opaque"].startswith("k2.")
    inner = open_with_reference(played["state"], "k2")
    assert inner["state"]["rng"]["keyed_by"] == "k1" and inner["commitments"] == COMMITMENTS
    for player in PLAYERS:
        assert list(rotated.view(played["state"], player, SECRETS_OF[player])["hands"]) == [player]
    with pytest.raises(referee.InvalidSeal) as refused:
        old.view(played["state"], mover, secret_)
    assert refused.value.detail.startswith("unknown key id")


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
    answer = send(server, "/v1/games/caesar/render", json.dumps(body).encode())
    assert answer.status == 200, answer.body
    return answer.body.decode()


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    return {"REFEREE_SEAL_KEYS": KEYS_ROTATED, "REFEREE_OPAQUE_STATES": "caesar"}


@pytest.mark.live
def test_live_caesar_is_opaque_and_hypnosia_keyed(server: Server) -> None:
    status, new = post(server, "/v1/games/caesar/new", {})
    assert status == 400 and new["code"] == "malformed-request" and new["errors"][0]["field"] == "commitments", new
    status, new = post(server, "/v1/games/caesar/new", {"commitments": COMMITMENTS | {"pompey": "x"}})
    assert status == 400 and new["errors"][0]["field"] == "commitments.pompey", new
    status, new = post(server, "/v1/games/caesar/new", {"seed": 4, "commitments": COMMITMENTS})
    assert status == 400 and new["code"] == "malformed-request" and new["errors"][0]["field"] == "seed", new
    status, new = post(server, "/v1/games/caesar/new", {"options": {"hands": {"caesar": ["L40", "S60"], "pompey": [
        "L40", "S60"]}}, "commitments": COMMITMENTS})
    assert status == 422 and new["code"] == "invalid-options" and new["field"] == "options.hands", new
    status, new = post(server, "/v1/games/caesar/new", {"commitments": COMMITMENTS})
    assert status == 200 and list(new["state"]) == ["opaque"] and "position" not in new, new
    state, mover = new["state"], new["outcome"]["to_move"]
    waiting = other_of(mover)
    status, body = post(server, "/v1/games/caesar/legal-moves", {"state": state, "secret": SECRETS_OF[mover]})
    assert status == 200, body
    move = body["moves"][0]
    status, played = post(server, "/v1/games/caesar/play",
                          {"state": state, "move": move, "player": mover, "secret": SECRETS_OF[mover]})
    assert status == 200 and set(played) == {"state", "view", "effects", "outcome"}, played
    inner = open_with_reference(played["state"], "k2")
    assert set(inner["state"]["hands"]) == set(PLAYERS) and list(played["view"]["hands"]) == [mover]
    next_state = played["state"]
    status, view = post(server, "/v1/games/caesar/view",
                        {"state": next_state, "player": waiting, "secret": SECRETS_OF[waiting]})
    assert status == 200 and view["hands"] == {waiting: inner["state"]["hands"][waiting]}, view
    svg = game_svg(server, {"state": next_state, "secret": SECRETS_OF[waiting]})
    assert f'data-player="{waiting}"' in svg and "hidden" in svg, "drawn for the secret's owner"
    # Every route that reveals a hand refuses a missing secret, a wrong one and the other player's.
    routes = {"view": ({"state": state, "player": waiting}, waiting), "render": ({"state": state, "player": waiting},
              waiting), "render move": ({"state": state, "move": move}, mover), "legal-moves": ({"state": state}, mover),
              "play": ({"state": state, "move": move}, mover), "validate": ({"state": state, "move": move}, mover)}
    for name, (body, player) in routes.items():
        for secret_, starts in ((None, "missing"), (NOBODYS, "wrong"), (SECRETS_OF[other_of(player)], "another")):
            sent = body | ({"secret": secret_} if secret_ else {})
            status, problem = post(server, f"/v1/games/caesar/{name.split()[0]}", sent)
            assert status == 422 and problem["code"] == "not-this-player", (name, secret_, problem)
            assert problem["field"] == "secret" and problem["player"] == player, (name, problem)
            assert problem["detail"].startswith(starts), (name, problem)
    status, problem = post(server, "/v1/games/caesar/view", {"state": state, "player": mover, "secret": "short"})
    assert status == 400 and problem["errors"][0]["field"] == "secret", problem
    items = [{"state": state, "move": move, "secret": SECRETS_OF[mover]}, {"state": state, "move": move},
             {"state": state, "move": move, "secret": NOBODYS}, {"state": state, "move": move,
                                                                   "secret": SECRETS_OF[waiting]}]
    status, results = post(server, "/v1/games/caesar/batch?with_state=true", items)
    assert status == 200 and list(results["results"][0]["state"]) == ["opaque"], results
    assert list(results["results"][0]["view"]["hands"]) == [mover]
    for result, starts in zip(results["results"][1:], ("missing", "wrong", "another")):
        assert result["error"]["code"] == "not-this-player" and result["error"]["detail"].startswith(starts), result
    for changed in list(tampered(state["opaque"]))[:3]:
        status, body = post(server, "/v1/games/caesar/play",
                            {"state": {"opaque": changed}, "move": move, "secret": SECRETS_OF[mover]})
        assert status == 422 and body["code"] == "invalid-seal" and body["field"] == "state.seal", body
        assert SECRET_1 not in body["detail"] and SECRET_2 not in body["detail"]
    status, body = post(server, "/v1/games/caesar/play",
                        {"state": held_state_of_format_1(mover), "move": move, "secret": SECRETS_OF[mover]})
    assert status == 422 and body["code"] == "invalid-seal" and body["detail"].startswith("held state"), body
    status, replayed = post(server, "/v1/games/caesar/replay", {"moves": [move], "seed": 4, "commitments": COMMITMENTS})
    assert status == 400 and replayed["code"] == "malformed-request" and replayed["errors"][0]["field"] == "moves", replayed
    for name in ("view", "render"):
        for secret_ in (None, NOBODYS, SECRETS_OF[mover]):
            sent = {"state": state, "player": "crassus"} | ({"secret": secret_} if secret_ else {})
            status, problem = post(server, f"/v1/games/caesar/{name}", sent)
            assert status == 422 and problem["code"] == "unknown-player", (name, secret_, problem)
    status, new = post(server, "/v1/games/hypnosia/new", {"seed": 4, "commitments": COMMITMENTS})
    assert status == 200 and new["state"]["rng"]["algorithm"] == "chacha8-keyed", new
    assert new["state"]["seal"].startswith("k2.") and new["position"].endswith("@k2")
