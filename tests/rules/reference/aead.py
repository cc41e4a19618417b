"""XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha, RFC 8439's AEAD with HChaCha20's subkey), in plain Python
on the ChaCha block of ``chacha.py``, sharing no code with the Rust core: the tests open an opaque state
with it and the key docs/security.md derives, which shows what the state is and that the key opens it."""

from __future__ import annotations

import struct

from rules.reference.chacha import CONSTANTS, MASK, block

P1305 = (1 << 130) - 5


def hchacha20(key: bytes, nonce16: bytes) -> bytes:
    """The subkey: ChaCha20's rounds on (constants, key, nonce) without the final addition, words 0-3, 12-15."""
    counter = struct.unpack("<Q", nonce16[:8])[0]
    out = block(key, counter, nonce16[8:], rounds=20)
    start = [*CONSTANTS, *struct.unpack("<8I", key), *struct.unpack("<4I", nonce16)]
    words = [(o - s) & MASK for o, s in zip(out, start)]
    return struct.pack("<8I", *words[:4], *words[12:])


def chacha20(key: bytes, nonce8: bytes, counter: int, length: int) -> bytes:
    out = b""
    while len(out) < length:
        out += struct.pack("<16I", *block(key, counter, nonce8, rounds=20))
        counter += 1
    return out[:length]


def poly1305(key: bytes, message: bytes) -> bytes:
    r = int.from_bytes(key[:16], "little") & 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF
    s = int.from_bytes(key[16:], "little")
    acc = 0
    for at in range(0, len(message), 16):
        acc = (acc + int.from_bytes(message[at:at + 16] + b"\x01", "little")) * r % P1305
    return ((acc + s) % (1 << 128)).to_bytes(16, "little")


def _pad16(data: bytes) -> bytes:
    return bytes(-len(data) % 16)


def open_xchacha20poly1305(key: bytes, nonce: bytes, sealed: bytes, aad: bytes) -> bytes | None:
    """The plaintext, or None when the tag does not match."""
    assert len(key) == 32 and len(nonce) == 24 and len(sealed) >= 16
    subkey, nonce8 = hchacha20(key, nonce[:16]), nonce[16:]
    ciphertext, tag = sealed[:-16], sealed[-16:]
    mac_data = (aad + _pad16(aad) + ciphertext + _pad16(ciphertext)
                + struct.pack("<QQ", len(aad), len(ciphertext)))
    if poly1305(chacha20(subkey, nonce8, 0, 32), mac_data) != tag:
        return None
    stream = chacha20(subkey, nonce8, 1, len(ciphertext))
    return bytes(c ^ k for c, k in zip(ciphertext, stream))


def seal_xchacha20poly1305(key: bytes, nonce: bytes, plaintext: bytes, aad: bytes) -> bytes:
    """The ciphertext with its tag: what a key holder writes (the tests make states of a format the engine no
    longer writes with it)."""
    assert len(key) == 32 and len(nonce) == 24
    subkey, nonce8 = hchacha20(key, nonce[:16]), nonce[16:]
    stream = chacha20(subkey, nonce8, 1, len(plaintext))
    ciphertext = bytes(p ^ k for p, k in zip(plaintext, stream))
    mac_data = (aad + _pad16(aad) + ciphertext + _pad16(ciphertext)
                + struct.pack("<QQ", len(aad), len(ciphertext)))
    return ciphertext + poly1305(chacha20(subkey, nonce8, 0, 32), mac_data)
