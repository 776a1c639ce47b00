"""Size limits apply before a body is read (issue 30; ``arena.bodylimits``): a body declared
larger than its cap is answered 413 without a byte of it being sent, under the test client
(WSGI), the quick start's runserver and gunicorn as docker-compose runs it (ASGI); a chunked
body is cut off once it passes the cap. The page upload form used to read a 300 MiB body whole
before refusing it."""

from __future__ import annotations

import json
import socket
import time

import pytest
from django.db import connection
from django.test import Client

from api.services import token_create
from api.uploads import FORM_OVERHEAD_BYTES
from arena.bodylimits import body_limit
from benchmarks.load import host_port
from benchmarks.slow_clients import server
from bots.services import MAX_UPLOAD_BYTES
from tests.platform.factories import FIRST_LEGAL, UserFactory, active_bot
from tests.platform.workers import database_url

HUGE = 300 * 1024 * 1024


def cap(path: str) -> int:
    limit = body_limit(path)
    assert limit is not None
    return limit.bytes


def test_each_path_has_its_cap() -> None:
    upload = MAX_UPLOAD_BYTES + FORM_OVERHEAD_BYTES
    assert cap("/bots/new/") == cap("/bots/7/versions/") == upload
    assert cap("/api/bots/") == cap("/api/bots/7/versions/") == upload
    assert cap("/api/tournaments/") == cap("/nowhere/") == 2_621_440  # Django's default


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/bots/new/", "/bots/1/versions/", "/api/bots/1/versions/"])
def test_a_declared_300_mib_upload_is_refused_before_the_view(path: str) -> None:
    client = Client()
    client.force_login(UserFactory())
    response = client.post(
        path, b"", content_type="multipart/form-data; boundary=x", CONTENT_LENGTH=str(HUGE)
    )
    assert response.status_code == 413
    if path.startswith("/api/"):
        assert response.json()["error"]["code"] == "too_large"


@pytest.mark.django_db
def test_a_json_body_over_djangos_cap_is_a_413_in_the_apis_envelope() -> None:
    response = Client().post(
        "/api/tournaments/", b"{}", content_type="application/json", CONTENT_LENGTH="3000000"
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"


def read_response(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection or stops for 20 s."""
    sock.settimeout(20)
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
            if b"\r\n\r\n" in data and len(data.split(b"\r\n\r\n", 1)[1]) > 20:
                break
    except (TimeoutError, ConnectionResetError):
        pass
    return data


def post_headers(path: str, host: str, extra: str) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\n"
        f"Content-Type: multipart/form-data; boundary=x\r\n{extra}\r\n"
    ).encode()


@pytest.mark.integration
@pytest.mark.django_db
@pytest.mark.timeout(300)
@pytest.mark.parametrize("kind", ["gunicorn", "runserver"])
def test_a_server_answers_a_declared_300_mib_body_at_once(kind: str) -> None:
    bot = active_bot("belote")
    env = {"DATABASE_URL": database_url(connection.settings_dict)}
    with server(kind, env) as url:
        host, port = host_port(url)
        for path in ("/bots/new/", f"/bots/{bot.pk}/versions/", f"/api/bots/{bot.pk}/versions/"):
            with socket.create_connection((host, port), timeout=20) as sock:
                started = time.monotonic()
                sock.sendall(post_headers(path, host, f"Content-Length: {HUGE}\r\n"))
                answer = read_response(sock)
                took = time.monotonic() - started
            print(f"{kind} {path}: {answer.split(b' ', 2)[1].decode()} in {took * 1000:.0f} ms")
            assert answer.startswith(b"HTTP/1.1 413"), (path, answer[:200])


@pytest.mark.integration
@pytest.mark.django_db
@pytest.mark.timeout(300)
def test_gunicorn_cuts_off_a_chunked_body_past_the_cap() -> None:
    bot = active_bot("belote")
    env = {"DATABASE_URL": database_url(connection.settings_dict)}
    with server("gunicorn", env) as url:
        host, port = host_port(url)
        path = f"/api/bots/{bot.pk}/versions/"
        chunk = b"z" * (1024 * 1024)
        with socket.create_connection((host, port), timeout=20) as sock:
            sock.sendall(post_headers(path, host, "Transfer-Encoding: chunked\r\n"))
            sent = 0
            try:
                while sent < HUGE:
                    sock.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    sent += len(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the server stopped reading
            answer = read_response(sock)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "too_large"
        assert sent < HUGE / 4, sent


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)  # the server sees the bot and the token
@pytest.mark.timeout(300)
def test_gunicorn_hands_a_chunked_upload_under_the_cap_to_the_site_whole() -> None:
    """The body is buffered and given to Django with its length declared (a WSGI application
    reads no chunked body)."""
    bot = active_bot("belote")
    token = token_create(user=bot.owner, name="chunked")[1]
    env = {"DATABASE_URL": database_url(connection.settings_dict)}
    source = f"{FIRST_LEGAL}# chunked\n".encode()
    body = (
        b'--x\r\nContent-Disposition: form-data; name="file"; filename="bot.py"\r\n'
        b"Content-Type: text/x-python\r\n\r\n" + source + b"\r\n--x--\r\n"
    )
    with server("gunicorn", env) as url:
        host, port = host_port(url)
        with socket.create_connection((host, port), timeout=60) as sock:
            extra = f"Authorization: Token {token}\r\nTransfer-Encoding: chunked\r\n"
            sock.sendall(post_headers(f"/api/bots/{bot.pk}/versions/", host, extra))
            for start in range(0, len(body), 100):
                piece = body[start : start + 100]
                sock.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            sock.sendall(b"0\r\n\r\n")
            answer = read_response(sock)
    assert answer.startswith(b"HTTP/1.1 201"), answer[:300]
    assert bot.versions.count() == 2
