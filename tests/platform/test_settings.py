"""The real settings module, imported in a fresh interpreter with a given environment."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": "x" * 50,
    "ALLOWED_HOSTS": "arena.example.org",
    "DATABASE_URL": "postgres://arena@db:5432/arena",
    "ARENA_EXECUTION": "celery",
    "CELERY_BROKER_URL": "redis://redis:6379/1",
    "ARENA_CACHE_URL": "redis://redis:6379/2",
}
VARIABLES = (*PRODUCTION, "MEDIA_ROOT")
PRINT_SETTINGS = (
    "import django; from django.conf import settings as s; django.setup(); "
    "print(s.DEBUG, s.ALLOWED_HOSTS, s.DATABASES['default']['HOST'], s.ARENA_EXECUTION, "
    "s.CELERY_TASK_ALWAYS_EAGER, s.CELERY_BROKER_URL, s.MEDIA_ROOT, "
    "s.CACHES['default']['BACKEND'].rsplit('.', 1)[1], sep='|')"
)


def load_settings(**environ: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key not in VARIABLES}
    env |= {"PYTHONPATH": str(ROOT / "platform"), "DJANGO_SETTINGS_MODULE": "arena.settings"}
    return subprocess.run(
        [sys.executable, "-c", PRINT_SETTINGS],
        env=env | environ,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_defaults_are_the_embedded_quick_start() -> None:
    result = load_settings()
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().split("|") == [
        "True",
        "[]",
        "",  # SQLite has no host
        "inline",
        "True",
        "redis://127.0.0.1:6379/0",
        str(ROOT / "var" / "media"),
        "LocMemCache",
    ]


def test_production_environment() -> None:
    result = load_settings(**PRODUCTION, MEDIA_ROOT="/data/media")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().split("|") == [
        "False",
        "['arena.example.org']",
        "db",
        "celery",
        "False",
        "redis://redis:6379/1",
        "/data/media",
        "FallbackRedisCache",  # arena.cache: serves from memory while Redis is away
    ]


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"DEBUG": "yes"}, "DEBUG must be one of 1, 0, true, false; got 'yes'"),
        ({"SECRET_KEY": ""}, "SECRET_KEY is required"),
        ({"SECRET_KEY": "short"}, "SECRET_KEY must have at least 32 characters"),
        ({"ALLOWED_HOSTS": ""}, "ALLOWED_HOSTS is required when DEBUG is off"),
        ({"ARENA_EXECUTION": "eager"}, "ARENA_EXECUTION must be one of inline, celery"),
        ({"DATABASE_URL": "mysql://db/arena"}, "DATABASE_URL: unsupported scheme 'mysql'"),
    ],
)
def test_bad_environment_fails_with_a_clear_message(override: dict[str, str], message: str) -> None:
    result = load_settings(**(PRODUCTION | override))
    assert result.returncode != 0
    assert f"arena.env.EnvError: {message}" in result.stderr
