"""ASGI entry point (``arena.asgi:application``); platform/ must be on the path."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
application = get_asgi_application()
