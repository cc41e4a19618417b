"""The chance algorithm of docs/rules/chance.md, in plain Python, sharing no code with the Rust core:
ChaCha with 8 rounds as rand_chacha's ChaCha8Rng uses it (the original ChaCha layout: 64-bit block
counter in words 12-13, a 64-bit stream in words 14-15, here always 0), keyed by the 32-byte seed; a
``u64`` seed ``s`` is the key whose first 8 bytes are ``s`` little-endian and the rest zero. ``word_pos``
counts the 32-bit words used. A uniform integer below ``n`` takes words ``x`` until
``x < 2^32 - (2^32 mod n)`` and answers ``x mod n``; a die is ``1 + below(6)``."""

from __future__ import annotations

import struct

MASK = 0xFFFFFFFF
CONSTANTS = struct.unpack("<4I", b"expand 32-byte k")


def _rotl(x: int, n: int) -> int:
    return ((x << n) | (x >> (32 - n))) & MASK


def _quarter(s: list[int], a: int, b: int, c: int, d: int) -> None:
    s[a] = (s[a] + s[b]) & MASK; s[d] = _rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & MASK; s[b] = _rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & MASK; s[d] = _rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & MASK; s[b] = _rotl(s[b] ^ s[c], 7)


def block(key: bytes, counter: int, nonce: bytes = bytes(8), rounds: int = 8) -> list[int]:
    """The 16 output words of one ChaCha block (``counter`` taken modulo 2^64)."""
    assert len(key) == 32 and len(nonce) == 8 and rounds % 2 == 0
    counter %= 1 << 64
    start = [*CONSTANTS, *struct.unpack("<8I", key), counter & MASK, counter >> 32, *struct.unpack("<2I", nonce)]
    s = list(start)
    for _ in range(rounds // 2):
        _quarter(s, 0, 4, 8, 12); _quarter(s, 1, 5, 9, 13); _quarter(s, 2, 6, 10, 14); _quarter(s, 3, 7, 11, 15)
        _quarter(s, 0, 5, 10, 15); _quarter(s, 1, 6, 11, 12); _quarter(s, 2, 7, 8, 13); _quarter(s, 3, 4, 9, 14)
    return [(x + y) & MASK for x, y in zip(s, start)]


def keystream(key: bytes, nonce: bytes, length: int, counter: int = 0) -> bytes:
    out = b""
    while len(out) < length:
        out += struct.pack("<16I", *block(key, counter, nonce))
        counter += 1
    return out[:length]


def key_of(seed: int) -> bytes:
    """The key of a ``u64`` seed."""
    return struct.pack("<Q", seed) + bytes(24)


class ChaCha8:
    """The generator a state carries: ``{"algorithm": "chacha8", "seed": <64 hex digits>, "word_pos": n}``."""

    def __init__(self, key: bytes, word_pos: int = 0) -> None:
        self.key, self.word_pos = key, word_pos

    @classmethod
    def from_u64(cls, seed: int) -> ChaCha8:
        return cls(key_of(seed))

    @classmethod
    def from_state(cls, rng: dict) -> ChaCha8:
        assert rng["algorithm"] == "chacha8"
        return cls(bytes.fromhex(rng["seed"]), rng["word_pos"])

    def state(self) -> dict:
        return {"algorithm": "chacha8", "seed": self.key.hex(), "word_pos": self.word_pos}

    def next_u32(self) -> int:
        word = block(self.key, self.word_pos // 16)[self.word_pos % 16]
        self.word_pos += 1
        return word

    def below(self, n: int) -> int:
        return below(self.next_u32, n)

    def die(self) -> int:
        return 1 + self.below(6)


def below(next_u32, n: int) -> int:
    """A uniform integer in ``0..n`` from a source of 32-bit words, by rejection."""
    assert n >= 1
    limit = (1 << 32) - (1 << 32) % n
    while True:
        x = next_u32()
        if x < limit:
            return x % n


def draw_token(rng: ChaCha8, bag: list[str], kinds: list[str]) -> str:
    """One seeded draw from a bag: index below(tokens in the bag), counted along the token kinds in the
    order of the game's token table."""
    index = rng.below(len(bag))
    for kind in kinds:
        count = bag.count(kind)
        if index < count:
            bag.remove(kind)
            return kind
        index -= count
    raise AssertionError("index beyond the bag")
