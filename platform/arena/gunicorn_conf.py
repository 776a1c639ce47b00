"""gunicorn settings for the site (``gunicorn --config python:arena.gunicorn_conf arena.wsgi``).

The web processes run at a lower CPU priority than the match workers (``ARENA_WEB_NICE``,
default 10). Bots' time limits are wall clock: on a host shared by the site and the workers, a
burst of page views must not eat the CPU a bot is thinking with, or web traffic would decide
timeouts. On a host of its own the setting changes nothing (niceness only matters when processes
compete for a core).

The application is loaded once, in the master, before it forks (``preload_app``): every web
process starts with the views, templates' modules and libraries already imported (see
``arena.wsgi``), instead of importing them while it answers its first requests.
"""

import os

from arena.env import read_int

_nice = read_int(os.environ, "ARENA_WEB_NICE", default=10, minimum=0)
preload_app = True


def on_starting(server: object) -> None:
    """Lower the master's priority before it forks: the workers inherit it."""
    if _nice:
        os.nice(_nice)
