"""ASGI entry point (``arena.asgi:application``), what gunicorn serves (``arena.gunicorn_conf``);
platform/ must be on the path.

Django runs each request's views in a thread of its own here, so a thread's persistent database
connection would never be used again: the processes share connections through a pool instead
(``ARENA_DB_POOL_SIZE`` per process, default 8, unless set). Request bodies are capped before
Django reads them (``arena.bodylimits``). As with ``arena.wsgi``, loading it imports the URLconf
and every view, once in gunicorn's master, and opens no connection.
"""

import os

from django.core.asgi import get_asgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
os.environ.setdefault("ARENA_DB_POOL_SIZE", "8")
django_application = get_asgi_application()
get_resolver().url_patterns  # noqa: B018 - imports the URLconf (see arena.wsgi)

from arena.bodylimits import BodyLimitApp  # noqa: E402 - its views' limits need the apps loaded

application = BodyLimitApp(django_application)
