"""A worker's local copies of bot packages, keyed by sha256 and filled from the database.

Nothing is shared between hosts: a cache miss reads the bytes from ``bots.Package``, checks their
hash and writes them atomically (a temporary file renamed into place), so concurrent worker
processes on one host never see half a file. The folder is private to the worker's user. Python
bots' bytecode, compiled once per host, is kept there too (:func:`bytecode_cache`).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from django.conf import settings

from bots.models import Package


class CorruptPackage(RuntimeError):
    """The stored bytes do not hash to their key: a platform failure, never the bot's."""


def package_path(sha256: str, filename: str) -> Path:
    """The path of the package file, fetching it from the database on a miss."""
    folder = Path(settings.ARENA_PACKAGE_CACHE) / sha256
    path = folder / filename
    if path.is_file():
        return path
    data = bytes(Package.objects.values_list("data", flat=True).get(pk=sha256))
    if hashlib.sha256(data).hexdigest() != sha256:
        raise CorruptPackage(f"package {sha256[:12]} does not match its hash")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder.parent, 0o700)
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def bytecode_cache() -> Path:
    """Where this host keeps Python bots' bytecode (:func:`sandbox.bytecode.with_bytecode`),
    beside the packages and as private."""
    return Path(settings.ARENA_PACKAGE_CACHE) / "bytecode"
