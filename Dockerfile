# The image behind docker-compose.yml's web, worker and beat services.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONPATH=/app/platform \
    DJANGO_SETTINGS_MODULE=arena.settings

# bubblewrap isolates bot programs; the worker container runs it as an unprivileged user.
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 10001 --user-group arena \
    && mkdir -p /data/media \
    && chown arena:arena /data/media

WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine engine
COPY sandbox sandbox
RUN pip install .
COPY . .
RUN DEBUG=1 python manage.py collectstatic --noinput

USER arena
EXPOSE 8000
CMD ["gunicorn", "arena.wsgi", "--bind", "0.0.0.0:8000", "--workers", "2"]
