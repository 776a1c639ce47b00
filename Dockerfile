# The images behind docker-compose.yml: the app (web, worker and beat services; target app) and
# the reverse proxy in front of web (target proxy: nginx with deploy/nginx.conf and the app's
# static files, so the two never differ).
FROM python:3.11-slim AS app

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONPATH=/app/platform \
    DJANGO_SETTINGS_MODULE=arena.settings \
    ARENA_RUNTIMES_DIR=/opt/arena/runtimes

# bubblewrap isolates bot programs; the worker container runs it as an unprivileged user.
# g++ and nlohmann/json's headers build C++ bots (the cpp runtime, compiled in the sandbox).
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap g++ libc6-dev nlohmann-json3-dev \
    && rm -rf /var/lib/apt/lists/*
# The base image deletes every .pyc of the standard library, which the sandbox binds read-only:
# without its bytecode every Python bot would compile json, re and random at each start (40 ms
# of CPU a bot; sandbox.runtimes.missing_standard_bytecode warns wherever it is missing)
RUN python -m compileall -q -j 0 -x '/(test|tests|idle_test)/' \
        "$(python -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')"
RUN useradd --create-home --uid 10001 --user-group arena \
    && mkdir -p /data/media \
    && chown arena:arena /data/media

WORKDIR /app
COPY pyproject.toml setup.py README.md ./
COPY engine engine
COPY sandbox sandbox
COPY arena_cli arena_cli
# the engine's rules compiled by mypyc: the workers' referees run them 1.3–2× faster
RUN ARENA_COMPILE_ENGINE=1 pip install .
# the python3 runtime's pinned scientific set (numpy), read-only, bound into every Python bot
RUN arena runtimes install
COPY . .
# what runs is the engine installed above, compiled: its sources, copied again with the rest,
# would come first on the path of manage.py, gunicorn and celery (the working directory). The
# worker logs which build it runs, and /api/health/ says it too (engine.build)
RUN rm -r engine && python -c "import engine; assert engine.compiled(), engine.__file__"
RUN DEBUG=1 python manage.py collectstatic --noinput \
    && python -m compileall -q -j 0 platform

USER arena
EXPOSE 8000
CMD ["gunicorn", "--config", "python:arena.gunicorn_conf", "--bind", "0.0.0.0:8000"]

FROM nginx:1.27 AS proxy
COPY deploy/nginx.conf /etc/nginx/conf.d/default.conf
COPY --from=app /app/var/static /srv/static
