"""Slow clients on loopback: ``--slow`` connections each send a request one byte every
``--interval`` seconds (never finishing it: its headers, or its body after whole headers) while
one client requests a page in a loop; prints that client's latency (p50, p95, max) and its
answers, for the site as docker-compose's web service runs it (gunicorn with
``arena.gunicorn_conf``) and as the quick start does (``manage.py runserver``).

    .venv/bin/python -m benchmarks.slow_clients [--slow 50] [--seconds 20] [--path /api/games/]

The site uses the database ``DATABASE_URL`` names (migrated first; the quick start's SQLite file
by default). ``tests/platform/test_slow_clients.py`` runs :func:`measure` for a few seconds
against both servers (every request answered; latency only printed).
"""

from __future__ import annotations

import argparse
import http.client
import os
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from statistics import quantiles

from benchmarks.load import ROOT, free_port, gunicorn, host_port, serve

#: requests that never end, sent a byte at a time: the server waits for the rest of the headers,
#: or of the body
SLOW_REQUESTS = {
    "headers": b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 4096,
    "body": b"POST /api/auth/token/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"Content-Type: application/json\r\nContent-Length: 4096\r\n\r\n",
}


@dataclass(frozen=True)
class Measurement:
    latencies: list[float]  # seconds, one per request made while the slow clients were open
    answers: Counter[int | str]  # HTTP status, or the transport error's name

    def percentile(self, p: int) -> float:
        if len(self.latencies) < 2:
            return max(self.latencies, default=float("nan"))
        return quantiles(self.latencies, n=100, method="inclusive")[p - 1]

    def summary(self) -> str:
        return (
            f"{len(self.latencies)} requests, answers {dict(self.answers)}, "
            f"p50 {1000 * self.percentile(50):.0f} ms, p95 {1000 * self.percentile(95):.0f} ms, "
            f"max {1000 * max(self.latencies, default=0):.0f} ms"
        )


@contextmanager
def slow_connections(host: str, port: int, *, count: int, interval_s: float,
                     slow_part: str = "headers") -> Iterator[None]:  # fmt: skip
    """``count`` connections, each sent the next byte of a :data:`SLOW_REQUESTS` request (its
    headers at once if ``slow_part`` is ``"body"``, then the body's bytes) every ``interval_s``
    by one thread, until the block ends (a connection the server closed is left closed)."""
    sockets = [socket.create_connection((host, port), timeout=10) for _ in range(count)]
    stop = threading.Event()
    request = SLOW_REQUESTS[slow_part]
    if slow_part == "body":
        for sock in sockets:
            sock.sendall(request)
        request = b"{" + b" " * 4094 + b"}"

    def drip() -> None:
        for byte in request:
            for sock in sockets:
                try:
                    sock.send(bytes([byte]))
                except OSError:
                    pass
            if stop.wait(interval_s):
                return

    dripper = threading.Thread(target=drip, daemon=True)
    dripper.start()
    try:
        yield
    finally:
        stop.set()
        dripper.join()
        for sock in sockets:
            sock.close()


def measure(base_url: str, *, path: str, slow: int, seconds: float, interval_s: float = 2.0,
            pause_s: float = 0.1, slow_part: str = "headers") -> Measurement:  # fmt: skip
    """Request ``path`` every ``pause_s`` for ``seconds`` (a new connection each time, as a
    browser's first visit) while ``slow`` slow connections are open (and have sent their first
    bytes)."""
    host, port = host_port(base_url)
    latencies: list[float] = []
    answers: Counter[int | str] = Counter()
    with slow_connections(host, port, count=slow, interval_s=interval_s, slow_part=slow_part):
        time.sleep(min(interval_s, 1.0))
        stop = time.monotonic() + seconds
        while time.monotonic() < stop:
            started = time.perf_counter()
            connection = http.client.HTTPConnection(host, port, timeout=30)
            try:
                connection.request("GET", path)
                response = connection.getresponse()
                response.read()
                answers[response.status] += 1
            except OSError as error:
                answers[type(error).__name__] += 1
            finally:
                connection.close()
            latencies.append(time.perf_counter() - started)
            time.sleep(pause_s)
    return Measurement(latencies, answers)


@contextmanager
def runserver(env: Mapping[str, str]) -> Iterator[str]:
    """The quick start's server (``manage.py runserver``, threaded) on a free loopback port,
    once it answers; its URL."""
    port = free_port()
    argv = ["manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"]
    with serve("runserver", argv, port, env) as site:
        yield site.url


@contextmanager
def server(kind: str, env: Mapping[str, str]) -> Iterator[str]:
    """``"gunicorn"`` (docker-compose's) or ``"runserver"`` (the quick start's); its URL."""
    with ExitStack() as stack:
        if kind == "gunicorn":
            yield stack.enter_context(gunicorn(env)).url
        else:
            yield stack.enter_context(runserver(env))


def main() -> None:  # pragma: no cover - a benchmark, run by hand
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slow", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--interval", type=float, default=2.0)
    parser.add_argument("--path", default="/api/games/")
    args = parser.parse_args()
    env = {"PYTHONPATH": os.pathsep.join([str(ROOT / "platform"), str(ROOT)])}
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT,
                   env={**os.environ, **env}, check=True)  # fmt: skip
    for kind in ("gunicorn", "runserver"):
        with server(kind, env) as url:
            for part in SLOW_REQUESTS:
                result = measure(url, path=args.path, slow=args.slow, seconds=args.seconds,
                                 interval_s=args.interval, slow_part=part)  # fmt: skip
                print(f"{kind}: {args.slow} connections sending their {part} slowly, "
                      f"GET {args.path}: {result.summary()}")  # fmt: skip


if __name__ == "__main__":
    main()
