"""WSGI entry point (``arena.wsgi:application``); platform/ must be on the path.

Loading it also imports the URLconf, and with it every view and the libraries they use (SciPy
for the ratings among them, over a second of CPU): a web process is ready before its first
request, and under gunicorn's ``preload_app`` the master does it once for all its processes.
No database connection is opened here, so none is shared across the fork.
"""

import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
application = get_wsgi_application()
get_resolver().url_patterns  # noqa: B018 - imports the URLconf (see above)
