"""What the archive tests share: an S3-compatible store on loopback."""

from __future__ import annotations

import urllib.request

import pytest


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Moto:
    """moto's S3 server on a port of loopback, which a test may stop (the store unreachable) and start again
    (restarted: its buckets live in the process, past its servers)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.server = None
        self.start()

    def start(self) -> None:
        from moto.server import ThreadedMotoServer

        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self.server.start()

    def stop(self) -> None:
        self.server.stop()


@pytest.fixture
def moto(monkeypatch):
    pytest.importorskip("moto.server")
    server = Moto()
    for name, value in {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{server.port}", "AWS_ACCESS_KEY_ID": "referee",
                        "AWS_SECRET_ACCESS_KEY": "referee", "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    # Another test's buckets are gone first.
    urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{server.port}/moto-api/reset", method="POST"))
    yield server
    server.stop()


@pytest.fixture
def s3(moto):
    """An S3-compatible server on loopback (moto's server mode) with a bucket `archives`, reached as any
    S3 store is: through s3fs and the standard AWS_* variables, which the referee processes inherit."""
    s3fs = pytest.importorskip("s3fs")
    s3fs.S3FileSystem.clear_instance_cache()  # a file system made for another test's server
    store = s3fs.S3FileSystem()
    store.mkdir("archives")
    yield store
    s3fs.S3FileSystem.clear_instance_cache()
