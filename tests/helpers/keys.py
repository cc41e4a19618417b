"""The tests' seal keys and their secrets (32 bytes each, base64url): never used outside the tests."""

SECRET_1 = "dGVzdC1zZWNyZXQtb25lLXRlc3Qtc2VjcmV0LW9uZS0"
SECRET_2 = "dGVzdC1zZWNyZXQtdHdvLXRlc3Qtc2VjcmV0LXR3by0="
SECRET_OTHER = "b3RoZXItc2VjcmV0LW90aGVyLXNlY3JldC1vdGhlci0"
KEYS_OLD = f"k1:{SECRET_1}"
KEYS_ROTATED = f"k2:{SECRET_2},k1:{SECRET_1}"  # a new first key prepended
KEYS_OTHER = f"k1:{SECRET_OTHER}"  # another key set, with the same id
