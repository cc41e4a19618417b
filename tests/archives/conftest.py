"""What the archive tests share: an S3-compatible store on loopback."""

from __future__ import annotations

import pytest


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def s3(monkeypatch):
    """An S3-compatible server on loopback (moto's server mode) with a bucket `archives`, reached as any
    S3 store is: through s3fs and the standard AWS_* variables, which the referee processes inherit."""
    moto_server = pytest.importorskip("moto.server")
    s3fs = pytest.importorskip("s3fs")
    port = free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    for name, value in {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "referee",
                        "AWS_SECRET_ACCESS_KEY": "referee", "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    s3fs.S3FileSystem.clear_instance_cache()  # a file system made for another test's server
    import urllib.request

    # moto's buckets live in the process, past its servers: another test's are gone first.
    urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/moto-api/reset", method="POST"))
    store = s3fs.S3FileSystem()
    store.mkdir("archives")
    yield store
    s3fs.S3FileSystem.clear_instance_cache()
    server.stop()
