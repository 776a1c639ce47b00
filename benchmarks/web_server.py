"""CPU of the web processes per request, for the server docker-compose runs
(``arena.gunicorn_conf``: uvicorn's workers, Django's WSGI application on threads) and the
alternatives it was chosen against: gunicorn's ``gthread`` workers (which slow clients stall)
and Django's own ASGI handler (a new thread, and a new database connection, per request).

    .venv/bin/python -m benchmarks.web_server [--requests 600] [--clients 8] [--rounds 2]

Each server (2 processes) answers ``--requests`` requests from ``--clients`` threads, a mix of
ladder pages and API reads with distinct query strings (no page cache hits); the CPU time of its
process tree is divided by the requests. On a shared machine compare servers measured in the
same round. The site uses the database ``DATABASE_URL`` names (migrated first).
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import threading
from collections import Counter

from benchmarks.load import ROOT, _request, gunicorn, host_port, tree_cpu_seconds

SERVERS: dict[str, tuple[list[str], dict[str, str]]] = {
    "docker-compose's (uvicorn, WSGI on threads)": ([], {}),
    "gunicorn gthread, 4 threads": (
        ["--worker-class", "gthread", "--threads", "4", "arena.wsgi:application"], {}),
    "Django's ASGI handler": (
        ["django.core.asgi:get_asgi_application()"], {"ARENA_DB_CONN_MAX_AGE": "0"}),
}  # fmt: skip
PATHS = ["/ladder/belote/", "/api/ladders/belote/", "/api/games/", "/"]


def cpu_per_request(options: list[str], env: dict[str, str], *, requests: int,
                    clients: int) -> tuple[float, Counter[int]]:  # fmt: skip
    """Seconds of the server's CPU per request, and the answers' statuses."""
    with gunicorn(env, options=options) as site:
        host, port = host_port(site.url)
        for n in range(20):  # warm each process: templates compiled, connections open
            _request(host, port, "GET", f"{PATHS[n % len(PATHS)]}?warm={n}")
        counter = itertools.count()
        statuses: Counter[int] = Counter()
        lock = threading.Lock()

        def client() -> None:
            while (n := next(counter)) < requests:
                status, _ = _request(host, port, "GET", f"{PATHS[n % len(PATHS)]}?n={n}")
                with lock:
                    statuses[status] += 1

        before = tree_cpu_seconds(site.pid)
        threads = [threading.Thread(target=client) for _ in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return (tree_cpu_seconds(site.pid) - before) / requests, statuses


def main() -> None:  # pragma: no cover - a benchmark, run by hand
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=600)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    path = os.pathsep.join([str(ROOT / "platform"), str(ROOT)])
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT,
                   env={**os.environ, "PYTHONPATH": path}, check=True)  # fmt: skip
    base = {"ARENA_WEB_NICE": "0"}
    for round_ in range(1, args.rounds + 1):
        for name, (options, env) in SERVERS.items():
            cpu, statuses = cpu_per_request(options, {**base, **env}, requests=args.requests,
                                            clients=args.clients)  # fmt: skip
            print(f"round {round_}: {name:<45} {1000 * cpu:5.1f} ms per request {dict(statuses)}")


if __name__ == "__main__":
    main()
