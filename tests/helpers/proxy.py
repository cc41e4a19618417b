"""Debian's `nginx` with the configuration shipped in deploy/referee.nginx.conf, started on loopback in
front of a live gunicorn (tests/helpers/live.py): a plain subprocess whose pid, logs and temporary files stay in a
temporary directory (`-p`), never the system's service. Clients connect from any address of 127/8 (all
loopback on Linux), so that nginx sees distinct peers. Shared by tests/service/test_nginx_live.py and bench/."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.live import Server, free_port

NGINX = shutil.which("nginx") or next((path for path in ["/usr/sbin/nginx"] if os.access(path, os.X_OK)), None)
CONF = Path(__file__).resolve().parents[2] / "deploy" / "referee.nginx.conf"
#: The main configuration around the shipped http-context file: everything nginx writes stays in its prefix.
MAIN = """worker_processes 1;
pid nginx.pid;
error_log error.log notice;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path body;
    proxy_temp_path proxy;
    fastcgi_temp_path fastcgi;
    uwsgi_temp_path uwsgi;
    scgi_temp_path scgi;
    include referee.conf;
}
"""


def require_nginx() -> None:
    """Skips the calling test module without nginx, or fails it under CI: it never passes by not running."""
    if NGINX:
        return
    if os.environ.get("CI"):
        pytest.fail("the proxy tests need Debian's nginx (make test installs it)", pytrace=False)
    pytest.skip("no nginx here: `make test` installs it", allow_module_level=True)


def conf_text(**changes: str) -> str:
    """The shipped file with each `old=new` text change made (each text found exactly once)."""
    text = CONF.read_text()
    for old, new in changes.items():
        assert text.count(old) == 1, f"{old!r} is not in {CONF.name} once"
        text = text.replace(old, new)
    return text


@contextlib.contextmanager
def nginx(upstream_port: int, *changes: tuple[str, str]) -> Iterator[Server]:
    """nginx with the shipped configuration in front of `upstream_port`, listening on a free loopback port
    (these two addresses changed, and any other `changes`), stopped on exit."""
    port = free_port()
    text = conf_text(**dict([("127.0.0.1:8000", f"127.0.0.1:{upstream_port}"),
                             ("listen 80;", f"listen 127.0.0.1:{port};"), *changes]))
    with tempfile.TemporaryDirectory(prefix="referee-nginx-") as prefix:
        os.chmod(prefix, 0o755)  # run as root, the master hands its workers to `nobody`
        (Path(prefix) / "referee.conf").write_text(text)
        (Path(prefix) / "nginx.conf").write_text(MAIN)
        process = subprocess.Popen([NGINX, "-p", prefix, "-c", f"{prefix}/nginx.conf", "-g", "daemon off;"],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        proxy = Server("127.0.0.1", port, process, Path(prefix) / "error.log")
        try:
            wait_listening(proxy)
            yield proxy
        finally:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)


def wait_listening(proxy: Server) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if proxy.process.poll() is not None:
            raise RuntimeError("nginx exited: " + (proxy.log_text() if proxy.log.exists() else ""))
        with contextlib.suppress(OSError), socket.create_connection((proxy.host, proxy.port), timeout=1):
            return
        time.sleep(0.05)
    raise RuntimeError("nginx did not listen: " + proxy.log_text())


