"""The application gunicorn serves (``arena.gunicorn_conf``): Django's WSGI application
(``arena.wsgi``) run by a fixed pool of threads in each process (``ARENA_WEB_THREADS``, default
4), behind uvicorn's event loop. The loop reads each request whole, its headers (uvicorn) and
its body (``arena.bodylimits``, capped), before a thread takes it: a slow client holds a
socket, never a thread. gunicorn's own threads read requests themselves, and three clients
sending a header byte every 2 s stalled the site.

Why not Django's ASGI handler: it runs every request in a new thread, whose database connection
is never used again, and hops between threads around each middleware; it cost 64 % more CPU per
request than gunicorn's threads, where this costs 10 % more (docs/reliability.md, "Slow
clients"). Here each thread keeps its connection (``ARENA_DB_CONN_MAX_AGE``).
"""

import os
from typing import Any, cast

from a2wsgi import WSGIMiddleware

from arena.env import read_int
from arena.wsgi import application as wsgi_application

from arena.bodylimits import BufferedBodyApp  # isort: skip - needs the apps arena.wsgi loads

THREADS = read_int(os.environ, "ARENA_WEB_THREADS", default=4, minimum=1)
# cast: Django's stubs and a2wsgi's type a WSGI environ differently (a dict, a TypedDict)
application = BufferedBodyApp(WSGIMiddleware(cast(Any, wsgi_application), workers=THREADS))
