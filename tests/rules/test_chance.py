"""Known answers for chance made outside the engine: tests/rules/reference/chacha.py implements the
algorithm of docs/rules/chance.md in plain Python; it is checked against published ChaCha8 test vectors, and the
engine's dice, first players, bonus layouts, hands and draws are checked against it for fixed seeds.

The vectors are those of draft-strombergson-chacha-test-vectors-01 ("Test Vectors for the Stream Cipher
ChaCha", 256-bit keys, 8 rounds, 64-bit IV), and the block before counter 0 of D. J. Bernstein's
reference code run with the block counter at 2^64 - 1 (it shows the counter is 64 bits and wraps)."""

from __future__ import annotations

import random

import pytest

import referee
from rules.reference.chacha import ChaCha8, below, block, draw_token, key_of, keystream
from helpers.games import caesar_setup

# (key, IV, first two 64-byte keystream blocks) of the draft's TC1, TC2, TC3 and TC7, 8 rounds.
VECTORS = [
    ("00" * 32, "00" * 8,
     "3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e984ce172b9216f419f445367456d5619314a42a3da86b001387bfdb80e0cfe42"
     "d2aefa0deaa5c151bf0adb6c01f2a5adc0fd581259f9a2aadcf20f8fd566a26b5032ec38bbc5da98ee0c6f568b872a65a08abf251deb21bb4b56e5d8821e68aa"),
    ("01" + "00" * 31, "00" * 8,
     "cf5ee9a0494aa9613e05d5ed725b804b12f4a465ee635acc3a311de8740489ea289d04f43c7518db56eb4433e498a1238cd8464d3763ddbb9222ee3bd8fae3c8"
     "b4355a7d93dd8867089ee643558b95754efa2bd1a8a1e2d75bcdb32015542638291941feb49965587c4fdfe219cf0ec132a6cd4dc067392e67982fe53278c0b4"),
    ("00" * 32, "01" + "00" * 7,
     "2b8f4bb3798306ca5130d47c4f8d4ed13aa0edccc1be6942090faeeca0d7599b7ff0fe616bb25aa0153ad6fdc88b954903c22426d478b97b22b8f9b1db00cf06"
     "470bdffbc488a8b7c701ebf4061d75c5969186497c95367809afa80bd843b040a79abc6e73a91757f1db73c8eacfa543b38f289d065ab2f3032d377b8c37fe46"),
    ("00112233445566778899aabbccddeeffffeeddccbbaa99887766554433221100", "0f1e2d3c4b5a6978",
     "db43ad9d1e842d1272e4530e276b3f568f8859b3f7cf6d9d2c74fa53808cb5157a8ebf46ad3dcc4b6c7dadde131784b0120e0e22f6d5f9ffa7407d4a21b695d9"
     "c5dd30bf55612fab9bdd118920c19816470c7f5dcd42325dbbed8c57a56281c144cb0f03e81b3004624e0650a1ce5afaf9a7cd8163f6dbd72602257dd96e471e"),
]
BLOCK_BEFORE_ZERO = ("df8a0bceca2fbb111f29978fa9a64407c68ced975ff55a24707265d0687e6aef"
                     "b3597eac46e4b0a79b3a49c8b0f1775ac3edd7eb6a6d9bcb38f276517a79e014")
COLOURS = ["red", "yellow", "green", "blue", "purple", "orange"]


@pytest.mark.parametrize(("key", "iv", "stream"), VECTORS, ids=["TC1", "TC2", "TC3", "TC7"])
def test_the_reference_chacha8_gives_the_published_test_vectors(key: str, iv: str, stream: str) -> None:
    assert keystream(bytes.fromhex(key), bytes.fromhex(iv), 128).hex() == stream


def test_the_block_counter_is_64_bits_and_wraps() -> None:
    assert keystream(bytes(32), bytes(8), 128, counter=2**64 - 1).hex() == BLOCK_BEFORE_ZERO + VECTORS[0][2][:128]


def test_the_generator_reads_words_of_the_stream_in_order_from_word_pos() -> None:
    key = key_of(0)
    assert key == bytes(32)
    words = [ChaCha8(key).next_u32() for _ in range(1)] + [ChaCha8(key, n).next_u32() for n in range(1, 40)]
    assert words == block(key, 0) + block(key, 1) + block(key, 2)[:8]
    assert words[0] == 0x2FEF003E  # the first four bytes of TC1, little-endian
    assert key_of(0x0102030405060708).hex() == "0807060504030201" + "00" * 24


def test_below_rejects_the_top_of_the_range_and_answers_x_mod_n() -> None:
    # 2^32 mod 6 = 4: the 4 largest words are rejected, the next one is taken modulo 6.
    words = iter([2**32 - 1, 2**32 - 4, 2**32 - 5, 0])
    assert below(lambda: next(words), 6) == (2**32 - 5) % 6 == 5
    assert next(words) == 0
    words = iter([7, 2**32 - 1])
    assert below(lambda: next(words), 1) == 0  # every word is below 2^32 - 0: nothing rejected
    assert below(lambda: 2**31 + 5, 2**31) == 5  # 2^32 mod 2^31 = 0


# ------------------------------------------------------------------ the engine's chance against the reference


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_hypnosia_first_players_and_dice_are_the_reference_draws(players: int) -> None:
    """Without `first_player`, the first player is the seated colour at index below(players) (seats in
    order); every engine-drawn `roll` is two dice, in draw order, from the state's generator; a supplied
    roll draws nothing."""
    game = referee.game("hypnosia", options={"players": players})
    rolls = 0
    for seed in [0, 1, 2**32 + 7, 2**64 - 1]:
        state = game.new(seed=seed)
        rng = ChaCha8.from_u64(seed)
        seats = state["options"]["seats"]
        assert state["to_move"] == COLOURS[seats[rng.below(players)]]
        assert state["rng"] == rng.state()
        moves = random.Random(seed)
        for ply in range(60):
            legal = game.legal_moves(state)
            if not legal:
                break
            if legal == ["roll"] and ply % 4 == 2:  # now and then a supplied roll
                move = f"{moves.randint(1, 6)}-{moves.randint(1, 6)}"
                after = game.play(state, move)["state"]
                assert after["rng"] == state["rng"]
            elif legal == ["roll"]:
                rng = ChaCha8.from_state(state["rng"])
                after = game.play(state, "roll")["state"]
                assert after["dice"] == [rng.die(), rng.die()]
                assert after["rng"] == rng.state()
                rolls += 1
            else:
                after = game.play(state, moves.choice(legal))["state"]
            state = after
    assert rolls >= 40


CAESAR = referee.game("caesar")
KINDS = [token["code"] for token in CAESAR.info()["tokens"]]


@pytest.mark.parametrize("seed", [0, 3, 11, 2**40 + 5, 2**64 - 1])
def test_caesar_bonus_layouts_and_hands_are_the_reference_draws(seed: int) -> None:
    """`new` with a seed: Italia's solid space takes a Senate, the other bonuses and the hands are drawn as
    `caesar_setup` (tests/helpers/games.py) says, from the reference generator."""
    rng = ChaCha8.from_u64(seed)
    bonuses, drawn = caesar_setup({}, rng)
    layout = bonuses | {"IT": "senate"}
    hands = {player: sorted(tokens, key=KINDS.index) for player, tokens in drawn.items()}
    state = CAESAR.new(seed=seed)
    assert {code: province["bonus"] for code, province in state["provinces"].items()} == layout
    assert state["hands"] == hands
    assert state["rng"] == rng.state()


def test_caesar_draws_during_play_are_the_reference_draws() -> None:
    """A move without draws refills the mover's hand from the state's generator: its `drawn` effect is the
    reference's draws from the mover's bag, and the generator ends where the reference's does."""
    checked = 0
    for seed in range(6):
        state, moves = CAESAR.new(seed=seed), random.Random(seed)
        while legal := CAESAR.legal_moves(state):
            player = state["to_move"]
            result = CAESAR.play(state, moves.choice(legal))
            rng, bag = ChaCha8.from_state(state["rng"]), list(state["bags"][player])
            assert result["effects"]["drawn"] == [draw_token(rng, bag, KINDS) for _ in result["effects"]["drawn"]]
            assert result["state"]["rng"] == rng.state()
            if result["effects"]["drawn"]:
                assert result["state"]["bags"][player] == bag
                checked += 1
            state = result["state"]
    assert checked >= 60
