"""gunicorn settings for the site: ``gunicorn --config python:arena.gunicorn_conf`` serves it
(docker-compose.yml's web service and ``benchmarks/load.py`` both start it so, adding only the
address with ``--bind``).

The site is served by uvicorn's worker (``ARENA_WEB_WORKERS`` processes, default 2), each
reading requests on an event loop and handing whole ones to Django's threads (``arena.asgi``),
so a client that sends its request slowly (one header byte every few seconds, or a slow link)
holds a socket, never a worker. gunicorn's sync workers (and its threads, which block reading a
request's headers) were all held by three such clients, and the site stopped answering. The
reverse proxy in docker-compose buffers whole requests as well; this setting is what keeps a
site without one (a test, a trial) answering.

The web processes run at a lower CPU priority than the match workers (``ARENA_WEB_NICE``,
default 10). Bots' time limits are wall clock: on a host shared by the site and the workers, a
burst of page views must not eat the CPU a bot is thinking with, or web traffic would decide
timeouts. On a host of its own the setting changes nothing (niceness only matters when processes
compete for a core).

The application is loaded once, in the master, before it forks (``preload_app``): every web
process starts with the views, templates' modules and libraries already imported (see
``arena.asgi``), instead of importing them while it answers its first requests.
"""

import os

from arena.env import read_int

wsgi_app = "arena.asgi:application"
worker_class = "uvicorn_worker.UvicornWorker"
workers = read_int(os.environ, "ARENA_WEB_WORKERS", default=2, minimum=1)
# a worker whose event loop has not reported for this long is restarted (views run in threads:
# a slow page does not stop the loop)
timeout = 120
# X-Forwarded-For and X-Forwarded-Proto are read by the site alone (ARENA_TRUSTED_PROXIES,
# ARENA_HTTPS): the server must not rewrite the client's address from them, not even for a
# connection from loopback (uvicorn would by default).
forwarded_allow_ips = ""
preload_app = True

_nice = read_int(os.environ, "ARENA_WEB_NICE", default=10, minimum=0)


def on_starting(server: object) -> None:
    """Lower the master's priority before it forks: the workers inherit it."""
    if _nice:
        os.nice(_nice)
