import os
import shutil
from typing import NoReturn

import pytest
import redis
from django.conf import settings


def unavailable(reason: str) -> NoReturn:
    """Skip a test whose outside prerequisite is missing. Under CI, where .ci/run provides every
    prerequisite, fail instead: a silent skip there would hide a broken set-up."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture
def redis_broker_url() -> str:
    """The configured Redis broker, skipping the test if it does not answer."""
    url: str = settings.CELERY_BROKER_URL
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as error:
        unavailable(f"Redis is not reachable at CELERY_BROKER_URL={url} ({error})")
    return url


@pytest.fixture
def chromium_path() -> str:
    path = shutil.which("chromium")
    if path is None:
        unavailable("Chromium is not installed: scripts/test.sh installs Debian's chromium as root")
    return path
