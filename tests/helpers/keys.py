"""The tests' seal keys and their secrets (32 bytes each, base64url): never used outside the tests; and the opaque
form of docs/security.md opened outside the engine (tests/rules/reference/aead.py), to see what a state hides."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

from rules.reference.aead import open_xchacha20poly1305

SECRET_1 = "dGVzdC1zZWNyZXQtb25lLXRlc3Qtc2VjcmV0LW9uZS0"
SECRET_2 = "dGVzdC1zZWNyZXQtdHdvLXRlc3Qtc2VjcmV0LXR3by0="
SECRET_OTHER = "b3RoZXItc2VjcmV0LW90aGVyLXNlY3JldC1vdGhlci0"
KEYS_OLD = f"k1:{SECRET_1}"
KEYS_ROTATED = f"k2:{SECRET_2},k1:{SECRET_1}"  # a new first key prepended
KEYS_OTHER = f"k1:{SECRET_OTHER}"  # another key set, with the same id
#: The secret of each key id of KEYS_ROTATED.
SECRETS = {"k1": SECRET_1, "k2": SECRET_2}


def secret(key_id: str) -> bytes:
    """A key's secret, as bytes."""
    text = SECRETS[key_id]
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def opaque_key(key_id: str) -> bytes:
    """The key of opaque states (docs/security.md): HMAC-SHA-256(secret, "referee-opaque-key/1")."""
    return hmac.new(secret(key_id), b"referee-opaque-key/1", hashlib.sha256).digest()


def open_with_reference(state: dict, key_id: str, game: str = "caesar", rules: str = "caesar@1") -> dict | None:
    """The opaque form of docs/security.md opened outside the engine: the plaintext `{"state", "commitments"?}`, or None."""
    prefix, body = state["opaque"].split(".", 1)
    data = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    aad = f"referee-opaque/2\n{game}\n{rules}\n{prefix}".encode()
    plaintext = open_xchacha20poly1305(opaque_key(key_id), data[:24], data[24:], aad)
    return None if plaintext is None else json.loads(plaintext)
