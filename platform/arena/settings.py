"""Django settings, read from the environment (README.md lists the variables).

The defaults are the embedded quick start: DEBUG on, a SQLite file under var/, tasks executed
in-process. Deployments set DEBUG=0, SECRET_KEY, ALLOWED_HOSTS, a PostgreSQL DATABASE_URL and
ARENA_EXECUTION=celery with a Redis CELERY_BROKER_URL (see docker-compose.yml).
"""

import os
import tempfile
from datetime import timedelta
from pathlib import Path

import django_stubs_ext

from arena.env import (
    EnvError,
    parse_database_url,
    read_bool,
    read_choice,
    read_int,
    read_list,
    read_path,
    read_proxies,
    read_str,
)

django_stubs_ext.monkeypatch()  # lets generic classes such as ModelAdmin[Model] be subscripted

BASE_DIR = Path(__file__).resolve().parents[2]  # the project folder (holds manage.py)
VAR_DIR = BASE_DIR / "var"
env = os.environ

DEBUG = read_bool(env, "DEBUG", default=True)
ALLOWED_HOSTS = read_list(env, "ALLOWED_HOSTS", default=[])  # DEBUG allows local hosts if empty
if DEBUG:
    SECRET_KEY = read_str(env, "SECRET_KEY", default="django-insecure-local-quickstart-only")
else:
    SECRET_KEY = read_str(env, "SECRET_KEY")
    if len(SECRET_KEY) < 32:
        raise EnvError("SECRET_KEY must have at least 32 characters when DEBUG is off")
    if not ALLOWED_HOSTS:
        raise EnvError("ALLOWED_HOSTS is required when DEBUG is off")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI / Redoc files for /api/docs/
    "django_htmx",
    "ops",
    "bots",
    "matches",
    "tournaments",
    "ratings",
    "api",
    "web",
]

MIDDLEWARE = [
    "arena.requestid.RequestIdMiddleware",  # first: every response and log line has its id
    "django.middleware.security.SecurityMiddleware",
    "arena.bodylimits.BodyLimitMiddleware",  # refuses an oversized body before it is read
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",  # Accept-Language or the remembered choice
    "arena.pagecache.PublicPageCacheMiddleware",  # anonymous visitors' public pages, briefly
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "arena.urls"
WSGI_APPLICATION = "arena.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "platform" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": parse_database_url(
        read_str(env, "DATABASE_URL", default="sqlite:///var/arena.sqlite3"), base_dir=BASE_DIR
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
else:
    # Keep each web thread's and worker's connection for a while (checked before reuse): a new
    # PostgreSQL connection per request costs more CPU than most of our pages.
    DATABASES["default"]["CONN_MAX_AGE"] = read_int(
        env, "ARENA_DB_CONN_MAX_AGE", default=60, minimum=0
    )
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Logs go to stderr (the container's log), DEBUG or not: warnings and errors of every part, the
# request id on each line (arena.requestid). Every 500 is logged there with its traceback by
# Django's "django.request" logger (whose default handlers write nothing with DEBUG off).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "arena.requestid.RequestIdFilter"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"}
    },
    "handlers": {
        "stderr": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": "plain",
        }
    },
    "root": {
        "handlers": ["stderr"],
        "level": read_choice(
            env, "ARENA_LOG_LEVEL", choices=("DEBUG", "INFO", "WARNING", "ERROR"), default="INFO"
        ),
    },
    "loggers": {"django": {"handlers": [], "level": "INFO", "propagate": True}},
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# The site speaks English and Korean; URLs are the same in both (the language comes from the
# browser's Accept-Language or the switch on every page, remembered in a cookie).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("ko", "한국어")]
# not platform/locale: a folder there would shadow the standard library's locale module
LOCALE_PATHS = [BASE_DIR / "platform" / "arena" / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
FORMAT_MODULE_PATH = ["arena.formats"]  # dates as the reader's language writes them
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"  # filled by collectstatic, served by WhiteNoise
STATICFILES_DIRS = [BASE_DIR / "platform" / "static"]  # the site's stylesheet, scripts, htmx
WHITENOISE_AUTOREFRESH = DEBUG  # look files up per request: no collectstatic needed locally
# Uploaded bot versions and match replays.
MEDIA_URL = "media/"
MEDIA_ROOT = read_path(env, "MEDIA_ROOT", default=VAR_DIR / "media", base_dir=BASE_DIR)

# Celery reads the CELERY_* names below; the fixed task policy lives in arena/celery.py.
# "inline" runs tasks in the calling process (no broker needed); "celery" sends them to workers.
ARENA_EXECUTION = read_choice(
    env, "ARENA_EXECUTION", choices=("inline", "celery"), default="inline"
)
CELERY_BROKER_URL = read_str(env, "CELERY_BROKER_URL", default="redis://127.0.0.1:6379/0")
CELERY_TASK_ALWAYS_EAGER = ARENA_EXECUTION == "inline"
CELERY_TASK_EAGER_PROPAGATES = True

# One cache for every web process (rate limits, the public page cache, the ladder's computed
# figures) when ARENA_CACHE_URL names a Redis database; else each process keeps its own. The
# shared one is optional at request time (arena.cache): while it cannot be reached, each process
# uses its own memory; connecting and each command wait at most ARENA_CACHE_TIMEOUT_MS, and
# after a failure Redis is tried again after ARENA_CACHE_RETRY_S.
_cache_url = read_str(env, "ARENA_CACHE_URL", default="")
if _cache_url:
    _cache_timeout_s = read_int(env, "ARENA_CACHE_TIMEOUT_MS", default=250, minimum=1) / 1000
    CACHES = {
        "default": {
            "BACKEND": "arena.cache.FallbackRedisCache",
            "LOCATION": _cache_url,
            "KEY_PREFIX": "arena",
            "OPTIONS": {
                "socket_connect_timeout": _cache_timeout_s,
                "socket_timeout": _cache_timeout_s,
                "retry_s": read_int(env, "ARENA_CACHE_RETRY_S", default=5, minimum=1),
            },
        }
    }
# The readiness check (/api/health/ready/) waits this long for each of the database, the broker
# and the cache (probed at once), then reports the silent ones as timed out.
ARENA_HEALTH_TIMEOUT_S = read_int(env, "ARENA_HEALTH_TIMEOUT_S", default=2, minimum=1)
# After the broker failed to take a message, this process sends nothing for this long (arena.
# dispatch): a broker that hangs costs one request its timeouts, not every request.
ARENA_BROKER_RETRY_S = read_int(env, "ARENA_BROKER_RETRY_S", default=5, minimum=1)

# -- Card Arena ------------------------------------------------------------------------------
# Bot packages and replays live in the database, so a worker needs only the database and the
# broker; each worker keeps unpacked copies of the packages it ran here, keyed by sha256.
ARENA_PACKAGE_CACHE = read_path(
    env,
    "ARENA_PACKAGE_CACHE",
    default=Path(tempfile.gettempdir()) / f"arena-packages-{os.geteuid()}",
    base_dir=BASE_DIR,
)
# 1 runs uploaded bots WITHOUT bubblewrap: only for a machine that cannot run it and only our own
# bundled bots (scripts/run.sh decides); never on a server that accepts uploads.
ARENA_TRUSTED_BOTS = read_bool(env, "ARENA_TRUSTED_BOTS", default=False)
# Sandboxes a worker process keeps prepared for its next match (sandbox.pool); 0: none (the
# default: on a host whose cores the workers keep busy, preparing costs more CPU than it saves)
ARENA_PREPARED_SANDBOXES = read_int(env, "ARENA_PREPARED_SANDBOXES", default=0, minimum=0)
# Ladder matches each ladder keeps queued or running; 0 (the default): as many as the live
# workers play at once (tournaments.services.ladder_queue_depth)
ARENA_LADDER_QUEUE_DEPTH = read_int(env, "ARENA_LADDER_QUEUE_DEPTH", default=0, minimum=0)
ARENA_MATCH_MAX_ATTEMPTS = read_int(env, "ARENA_MATCH_MAX_ATTEMPTS", default=3, minimum=1)
# A match queued this long is sent to the workers again (its message may have been lost); a
# message that was not lost only costs a claim that changes nothing. The backstop: a broker that
# restarted empty is noticed by the reaper at once, and everything queued re-sent then
# (arena.celery.broker_restarted).
ARENA_MATCH_REDISPATCH_S = read_int(env, "ARENA_MATCH_REDISPATCH_S", default=600, minimum=1)
# Each worker records a heartbeat this often; a match (or validation) whose worker has been
# silent for ARENA_WORKER_LOST_S is re-queued by the reaper (matches.heartbeats), long before
# its lease ends. Silence must span several beats, or a busy database would cost re-runs.
ARENA_WORKER_HEARTBEAT_S = read_int(env, "ARENA_WORKER_HEARTBEAT_S", default=10, minimum=1)
ARENA_WORKER_LOST_S = read_int(env, "ARENA_WORKER_LOST_S", default=30, minimum=1)
if ARENA_WORKER_LOST_S < 2 * ARENA_WORKER_HEARTBEAT_S:
    raise EnvError("ARENA_WORKER_LOST_S must be at least twice ARENA_WORKER_HEARTBEAT_S")
# Uploads above this size spill to a temporary file instead of memory.
FILE_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024

# -- The public API (docs/api.md) ------------------------------------------------------------
REST_FRAMEWORK = {
    # knox first: its "Token" challenge makes a request without credentials a 401, not a 403
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "knox.auth.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "api.pagination.LimitOffset",
    # JSON only: the browsable HTML API answered 500 on views without a queryset (its filter
    # form); people browse the API at /api/docs/ (Swagger UI) instead
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # request bodies are JSON (the upload views take multipart themselves), so the schema offers
    # one content type per body and generated clients send each field once; deep JSON is a 400
    # (api.parsers)
    "DEFAULT_PARSER_CLASSES": ["api.parsers.BoundedJSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    "DEFAULT_THROTTLE_RATES": {"login": "30/minute"},
}
# Tokens expire after ARENA_TOKEN_TTL_DAYS (0: never); they are stored hashed and revocable.
_token_days = read_int(env, "ARENA_TOKEN_TTL_DAYS", default=90, minimum=0)
KNOX_TOKEN_MODEL = "knox.AuthToken"  # named by migrations that depend on the token table
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=_token_days) if _token_days else None,
    "AUTH_HEADER_PREFIX": "Token",
}
# Unranked challenge matches a user may request per hour (staff are not limited).
ARENA_CHALLENGES_PER_HOUR = read_int(env, "ARENA_CHALLENGES_PER_HOUR", default=30, minimum=0)
# Quotas on unrated play (matches.quotas): matches one request may create (everyone), unrated
# matches a user may ask for per hour and have waiting at once (staff are not limited).
ARENA_MATCHES_PER_REQUEST = read_int(env, "ARENA_MATCHES_PER_REQUEST", default=500, minimum=1)
ARENA_UNRATED_MATCHES_PER_HOUR = read_int(
    env, "ARENA_UNRATED_MATCHES_PER_HOUR", default=1000, minimum=0
)
ARENA_UNRATED_QUEUED_PER_USER = read_int(
    env, "ARENA_UNRATED_QUEUED_PER_USER", default=500, minimum=0
)
SPECTACULAR_SETTINGS = {
    "TITLE": "Card Arena API",
    "DESCRIPTION": "Upload card-game bots, run tournaments and challenges, read ladders and "
    "replays. Authenticate with `Authorization: Token <token>` from `POST /api/auth/token/`.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",  # vendored by drf-spectacular-sidecar: no CDN
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "MatchStatusEnum": "matches.models.MatchStatus",
        "VersionStatusEnum": "bots.models.BotVersionStatus",
        "OriginEnum": "matches.models.MatchOrigin",
    },
}

# -- Security (issue 14, docs/reliability.md) ----------------------------------------------------
# Served behind TLS (ARENA_HTTPS=1): HSTS, secure cookies, redirect to https, and the proxy's
# X-Forwarded-Proto trusted (the proxy must set it). Off for the local quick start on http.
ARENA_HTTPS = read_bool(env, "ARENA_HTTPS", default=False)
if ARENA_HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_HSTS_SECONDS = read_int(env, "ARENA_HSTS_SECONDS", default=365 * 24 * 3600, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
X_FRAME_OPTIONS = "DENY"
# Who may say where a request came from (X-Forwarded-For): nobody by default, the connection's
# own address counts; a count of proxies in front (docker-compose's nginx: 1) or their networks.
ARENA_TRUSTED_PROXIES = read_proxies(env, "ARENA_TRUSTED_PROXIES")
SECURE_REFERRER_POLICY = "same-origin"
MIDDLEWARE.insert(1, "arena.security.ContentSecurityPolicyMiddleware")
ARENA_CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)
# Seconds an anonymous visitor's public page is served again to the next ones (0: off)
ARENA_PAGE_CACHE_SECONDS = read_int(env, "ARENA_PAGE_CACHE_SECONDS", default=5, minimum=0)
# Seconds a ladder's strengths and seat fairness (a bootstrap; a scan of stored replays) are
# served before they are computed again for newer results (0: after every new result)
ARENA_FIGURES_REFRESH_SECONDS = read_int(
    env, "ARENA_FIGURES_REFRESH_SECONDS", default=30, minimum=0
)
# Requests per hour (0: unlimited): sign-ups and page log-ins per address, uploads (pages and
# API) per user; API tokens per address per minute (DRF's "login" throttle).
ARENA_SIGNUPS_PER_HOUR = read_int(env, "ARENA_SIGNUPS_PER_HOUR", default=10, minimum=0)
ARENA_LOGINS_PER_HOUR = read_int(env, "ARENA_LOGINS_PER_HOUR", default=60, minimum=0)
ARENA_UPLOADS_PER_HOUR = read_int(env, "ARENA_UPLOADS_PER_HOUR", default=60, minimum=0)
# Log-in and token attempts per user name and hour, whatever address they come from (0:
# unlimited): rotating addresses does not help a password guesser.
ARENA_LOGINS_PER_NAME_PER_HOUR = read_int(
    env, "ARENA_LOGINS_PER_NAME_PER_HOUR", default=30, minimum=0
)
_tokens_per_minute = read_int(env, "ARENA_TOKENS_PER_MINUTE", default=30, minimum=1)
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {"login": f"{_tokens_per_minute}/minute"}
