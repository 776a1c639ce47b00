from typing import TypedDict

from django.conf import settings
from django.db import connection


class Health(TypedDict):
    status: str
    database: str
    execution: str


def health_get() -> Health:
    """Touch the database (raising if it is unreachable) and say how tasks are executed."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return {"status": "ok", "database": connection.vendor, "execution": settings.ARENA_EXECUTION}
