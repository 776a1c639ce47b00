from pathlib import Path

import pytest

from arena.env import (
    EnvError,
    parse_database_url,
    read_bool,
    read_choice,
    read_list,
    read_path,
    read_str,
)

BASE = Path("/srv/arena")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("1", True), ("true", True), (" TRUE ", True), ("0", False), ("false", False), ("", True)],
)
def test_read_bool_accepts_only_strict_forms(raw: str, expected: bool) -> None:
    assert read_bool({"DEBUG": raw}, "DEBUG", default=True) is expected


@pytest.mark.parametrize("raw", ["yes", "on", "2", "ture"])
def test_read_bool_rejects_anything_else(raw: str) -> None:
    with pytest.raises(EnvError, match=r"DEBUG must be one of 1, 0, true, false; got"):
        read_bool({"DEBUG": raw}, "DEBUG", default=False)


def test_read_str_requires_a_value_without_default() -> None:
    assert read_str({"X": " value "}, "X") == "value"
    assert read_str({}, "X", default="fallback") == "fallback"
    with pytest.raises(EnvError, match="SECRET_KEY is required"):
        read_str({"SECRET_KEY": "  "}, "SECRET_KEY")


def test_read_list_splits_on_commas_and_rejects_empty_items() -> None:
    assert read_list({"H": "a.org, .b.net"}, "H", default=[]) == ["a.org", ".b.net"]
    assert read_list({}, "H", default=["x"]) == ["x"]
    with pytest.raises(EnvError, match="without empty items"):
        read_list({"H": "a.org,,b.net"}, "H", default=[])


def test_read_choice() -> None:
    choices = ("inline", "celery")
    assert read_choice({}, "MODE", choices=choices, default="inline") == "inline"
    assert read_choice({"MODE": "celery"}, "MODE", choices=choices, default="inline") == "celery"
    with pytest.raises(EnvError, match="MODE must be one of inline, celery; got 'eager'"):
        read_choice({"MODE": "eager"}, "MODE", choices=choices, default="inline")


def test_read_path_is_relative_to_the_project_folder() -> None:
    assert read_path({}, "P", default=Path("var/media"), base_dir=BASE) == BASE / "var/media"
    assert read_path({"P": "/data/media"}, "P", default=Path("x"), base_dir=BASE) == Path(
        "/data/media"
    )


def test_sqlite_urls_relative_and_absolute() -> None:
    relative = parse_database_url("sqlite:///var/arena.sqlite3", base_dir=BASE)
    assert relative["ENGINE"] == "django.db.backends.sqlite3"
    assert relative["NAME"] == "/srv/arena/var/arena.sqlite3"
    assert relative["TEST"]["NAME"] == "/srv/arena/var/test_arena.sqlite3"
    absolute = parse_database_url("sqlite:////tmp/a.db", base_dir=BASE)
    assert absolute["NAME"] == "/tmp/a.db"


def test_postgres_url() -> None:
    database = parse_database_url("postgres://arena:s%40cret@db.local:6543/arena", base_dir=BASE)
    assert database == {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "arena",
        "USER": "arena",
        "PASSWORD": "s@cret",
        "HOST": "db.local",
        "PORT": "6543",
    }
    minimal = parse_database_url("postgresql://postgres@127.0.0.1/arena", base_dir=BASE)
    assert (minimal["USER"], minimal["PASSWORD"], minimal["PORT"]) == ("postgres", "", "5432")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://root:hunter2@localhost/arena", "unsupported scheme 'mysql'"),
        ("arena.sqlite3", "unsupported scheme ''"),
        ("sqlite://", "write SQLite as"),
        ("sqlite://host/file.db", "write SQLite as"),
        ("postgres://user:hunter2@host:5432/", "write PostgreSQL as"),
        ("postgres:///arena", "write PostgreSQL as"),
        ("postgres://user:hunter2@host:port/arena", "DATABASE_URL is malformed"),
        ("postgres://user:hunter2@host/arena?sslmode=require", "not supported"),
    ],
)
def test_bad_database_urls_are_explained_without_leaking_the_password(
    url: str, message: str
) -> None:
    with pytest.raises(EnvError, match=message) as raised:
        parse_database_url(url, base_dir=BASE)
    assert "hunter2" not in str(raised.value)
