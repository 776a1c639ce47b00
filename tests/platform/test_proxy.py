"""The reverse proxy's committed configuration (deploy/nginx.conf, docker-compose's nginx), run
by this machine's nginx in front of a recording upstream on loopback: what reaches the site and
what never does."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from api.uploads import FORM_OVERHEAD_BYTES
from bots.services import MAX_UPLOAD_BYTES
from tests.platform.conftest import unavailable

ROOT = Path(__file__).resolve().parents[2]

MAIN_CONF = """
daemon off;
master_process off;
pid {home}/nginx.pid;
error_log {home}/error.log;
events {{}}
http {{
    access_log off;
    client_body_temp_path {home}/body;
    proxy_temp_path {home}/proxy;
    fastcgi_temp_path {home}/fastcgi;
    uwsgi_temp_path {home}/uwsgi;
    scgi_temp_path {home}/scgi;
    include {home}/default.conf;
}}
"""


class Recorder(BaseHTTPRequestHandler):
    """The site's stand-in: answers every request with the headers and body size it got."""

    seen: list[dict[str, Any]]

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self.answer()

    def do_POST(self) -> None:  # noqa: N802
        self.answer()

    def answer(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        record = {"path": self.path, "headers": dict(self.headers), "body_bytes": len(body)}
        self.seen.append(record)
        data = json.dumps(record).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Proxy:
    def __init__(self, port: int, seen: list[dict[str, Any]]) -> None:
        self.port = port
        self.seen = seen

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, bytes]:  # fmt: skip
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[Proxy]:
    """nginx with deploy/nginx.conf, its upstream and static folder moved to loopback and
    ``tmp_path``, in front of a :class:`Recorder`."""
    nginx = shutil.which("nginx", path=f"{os.environ.get('PATH', '')}{os.pathsep}/usr/sbin")
    if nginx is None:
        unavailable("nginx is not installed (Debian package nginx-light; scripts/test.sh)")
    seen: list[dict[str, Any]] = []
    handler = type("Handler", (Recorder,), {"seen": seen})
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    (tmp_path / "static" / "site").mkdir(parents=True)
    (tmp_path / "static" / "site" / "arena.css").write_text("body {}\n")
    port = free_port()
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    for committed, here in [
        ("server web:8000;", f"server 127.0.0.1:{upstream.server_address[1]};"),
        ("listen 80;", f"listen 127.0.0.1:{port};"),
        ("alias /srv/static/;", f"alias {tmp_path}/static/;"),
    ]:
        assert committed in conf
        conf = conf.replace(committed, here)
    (tmp_path / "default.conf").write_text(conf)
    (tmp_path / "nginx.conf").write_text(MAIN_CONF.format(home=tmp_path))
    process = subprocess.Popen(
        [nginx, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"), "-e",
         str(tmp_path / "error.log")],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None, process.stderr.read() if process.stderr else ""
                assert time.monotonic() < deadline, "nginx did not listen"
                time.sleep(0.1)
        yield Proxy(port, seen)
    finally:
        process.terminate()
        process.wait(timeout=30)
        upstream.shutdown()
        upstream.server_close()


def test_the_client_address_replaces_whatever_the_client_said(proxy: Proxy) -> None:
    status, body = proxy.request(
        "GET", "/ladder/belote/", headers={"X-Forwarded-For": "203.0.113.9", "Host": "a.org:8000"}
    )
    assert status == 200
    headers = json.loads(body)["headers"]
    assert headers["X-Forwarded-For"] == "127.0.0.1"  # overwritten, not appended to
    assert headers["X-Forwarded-Proto"] == "http"
    assert headers["Host"] == "a.org:8000"  # with its port: Django's CSRF check compares it
    assert re.fullmatch(r"[0-9a-f]{32}", headers["X-Request-ID"])  # the site keeps nginx's id


def test_a_body_over_the_largest_upload_is_refused_before_it_is_sent(proxy: Proxy) -> None:
    """A 300 MiB Content-Length is answered 413 at once; nothing reaches the site."""
    with socket.create_connection(("127.0.0.1", proxy.port), timeout=30) as sock:
        sock.sendall(
            b"POST /bots/1/versions/ HTTP/1.1\r\nHost: a.org\r\n"
            b"Content-Type: multipart/form-data; boundary=x\r\n"
            + f"Content-Length: {300 * 1024 * 1024}\r\n\r\n".encode()
        )
        assert sock.recv(4096).startswith(b"HTTP/1.1 413")
    assert proxy.seen == []


def test_the_cap_is_the_sites_largest_upload(proxy: Proxy) -> None:
    body = b"x" * (MAX_UPLOAD_BYTES + FORM_OVERHEAD_BYTES)
    status, answer = proxy.request("POST", "/api/bots/1/versions/", body=body)
    assert status == 200 and json.loads(answer)["body_bytes"] == len(body)
    assert proxy.request("POST", "/api/bots/1/versions/", body=body + b"x")[0] == 413


def test_a_slow_request_reaches_the_site_only_once_it_is_whole(proxy: Proxy) -> None:
    """Slow clients wait in nginx (request buffering): 50 connections sending their headers a
    byte at a time and one sending half a body reach the site not at all, and other requests
    pass meanwhile."""
    slow = [socket.create_connection(("127.0.0.1", proxy.port), timeout=30) for _ in range(50)]
    half = socket.create_connection(("127.0.0.1", proxy.port), timeout=30)
    try:
        for sock in slow:
            sock.sendall(b"GET /slow/ HTTP/1.1\r\nHo")
        half.sendall(b"POST /half/ HTTP/1.1\r\nHost: a.org\r\nContent-Length: 1000\r\n\r\n")
        half.sendall(b"y" * 500)
        for _ in range(5):
            assert proxy.request("GET", "/other/")[0] == 200
        time.sleep(0.5)
        assert [r["path"] for r in proxy.seen] == ["/other/"] * 5
        half.sendall(b"y" * 500)
        assert half.recv(4096).startswith(b"HTTP/1.1 200")
        assert proxy.seen[-1]["path"] == "/half/" and proxy.seen[-1]["body_bytes"] == 1000
    finally:
        for sock in [*slow, half]:
            sock.close()


def test_static_files_are_served_by_nginx(proxy: Proxy) -> None:
    status, body = proxy.request("GET", "/static/site/arena.css")
    assert (status, body) == (200, b"body {}\n")
    assert proxy.seen == []
