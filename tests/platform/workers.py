"""Real Celery worker processes for integration tests (started by conftest's ``start_worker``)."""

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from django.db import connection


def database_url(database: dict[str, Any]) -> str:
    """The DATABASE_URL of the database this test is using (pytest-django's test database)."""
    if connection.vendor == "sqlite":
        return f"sqlite:///{database['NAME']}"  # NAME is absolute: sqlite:////...
    credentials = quote(database["USER"]) + (
        f":{quote(database['PASSWORD'])}" if database["PASSWORD"] else ""
    )
    return f"postgres://{credentials}@{database['HOST']}:{database['PORT']}/{database['NAME']}"


@dataclass
class Worker:
    """A Celery worker process with a home of its own (as if on another host)."""

    name: str
    process: subprocess.Popen[bytes]
    log: Path
    home: Path  # its working directory, media folder, package cache and temp dir live here

    def assert_alive(self) -> None:
        assert self.process.poll() is None, f"worker exited:\n{self.log.read_text()}"

    @property
    def package_cache(self) -> Path:
        return self.home / "package-cache"


class StartWorker(Protocol):
    """conftest's ``start_worker``: start a worker named ``name`` (extra command-line ``args``
    and environment ``env`` optional)."""

    def __call__(self, name: str, *args: str, env: Mapping[str, str] | None = None) -> Worker: ...


