"""Strict parsing of settings from environment variables.

Each reader takes the environment as a mapping, so tests pass their own. An unset or empty
variable takes the default; a set but malformed one is an error naming the variable and the
accepted forms, never a silent fallback.
"""

from collections.abc import Mapping
from ipaddress import IPv4Network, IPv6Network, ip_network
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

Environ = Mapping[str, str]
IPNetwork = IPv4Network | IPv6Network


class EnvError(ImproperlyConfigured):
    """An environment variable is missing or malformed."""


def read_str(environ: Environ, name: str, *, default: str | None = None) -> str:
    value = environ.get(name, "").strip()
    if value:
        return value
    if default is None:
        raise EnvError(f"{name} is required")
    return default


def read_bool(environ: Environ, name: str, *, default: bool) -> bool:
    value = environ.get(name, "").strip().lower()
    if not value:
        return default
    if value in ("1", "true"):
        return True
    if value in ("0", "false"):
        return False
    raise EnvError(f"{name} must be one of 1, 0, true, false; got {value!r}")


def read_choice(environ: Environ, name: str, *, choices: tuple[str, ...], default: str) -> str:
    value = read_str(environ, name, default=default)
    if value not in choices:
        raise EnvError(f"{name} must be one of {', '.join(choices)}; got {value!r}")
    return value


def read_int(environ: Environ, name: str, *, default: int, minimum: int = 0) -> int:
    value = environ.get(name, "").strip()
    if not value:
        return default
    try:
        number = int(value)
    except ValueError:
        raise EnvError(f"{name} must be an integer; got {value!r}") from None
    if number < minimum:
        raise EnvError(f"{name} must be at least {minimum}; got {number}")
    return number


def read_list(environ: Environ, name: str, *, default: list[str]) -> list[str]:
    """A comma-separated list such as ``example.org,.example.net``; empty items are errors."""
    value = environ.get(name, "").strip()
    if not value:
        return list(default)
    items = [item.strip() for item in value.split(",")]
    if not all(items):
        raise EnvError(f"{name} is a comma-separated list without empty items; got {value!r}")
    return items


def read_path(environ: Environ, name: str, *, default: Path, base_dir: Path) -> Path:
    """An absolute path, or one relative to ``base_dir`` (the project folder)."""
    return base_dir / read_str(environ, name, default=str(default))


def parse_database_url(url: str, *, base_dir: Path) -> dict[str, Any]:
    """Turn ``sqlite:///relative/path``, ``sqlite:////absolute/path`` or
    ``postgres://user[:password]@host[:port]/name`` into a Django ``DATABASES`` entry.

    Error messages never repeat the URL, which may hold a password.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise EnvError(f"DATABASE_URL is malformed: {error}") from None
    if parts.query or parts.fragment:
        raise EnvError("DATABASE_URL: query strings and fragments are not supported")

    if parts.scheme == "sqlite":
        relative = unquote(parts.path).removeprefix("/")
        if parts.netloc or not relative or relative.endswith("/"):
            raise EnvError(
                "DATABASE_URL: write SQLite as sqlite:///relative/file or sqlite:////abs/file"
            )
        path = base_dir / relative
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(path),
            # Tests use a file (not :memory:) so that a Celery worker process can share it.
            "TEST": {"NAME": str(path.with_name(f"test_{path.name}"))},
            "OPTIONS": {
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL;",
            },
        }

    if parts.scheme in ("postgres", "postgresql"):
        name = unquote(parts.path).removeprefix("/")
        if not parts.hostname or not name or "/" in name:
            raise EnvError("DATABASE_URL: write PostgreSQL as postgres://user@host:port/name")
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": name,
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname,
            "PORT": str(port or 5432),
        }

    raise EnvError(
        f"DATABASE_URL: unsupported scheme {parts.scheme!r}; use sqlite:///path or postgres://..."
    )


def read_proxies(environ: Environ, name: str) -> int | tuple[IPNetwork, ...]:
    """Which proxies in front of the site may be believed about the client's address: empty
    or ``0`` (none: the connection's own address), a count of proxies (``1``: one nginx), or
    comma-separated networks of proxies (``10.0.0.0/8,127.0.0.1``)."""
    value = environ.get(name, "").strip()
    if not value:
        return 0
    if value.isdigit():
        return int(value)
    try:
        items = read_list(environ, name, default=[])
        return tuple(ip_network(item, strict=False) for item in items)
    except ValueError as error:
        raise EnvError(
            f"{name} must be a count of proxies or comma-separated networks; {error}"
        ) from None
