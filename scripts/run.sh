#!/usr/bin/env bash
# Quick start: install what is needed, prepare the embedded SQLite database and serve the site
# at http://127.0.0.1:8000/. Set DATABASE_URL / ARENA_EXECUTION=celery + CELERY_BROKER_URL to
# use PostgreSQL and Redis instead (README.md, "Environment").
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_venv
pip_install .
command -v bwrap >/dev/null || apt_install bubblewrap

python=.venv/bin/python
mkdir -p var
$python manage.py migrate --noinput
$python manage.py quickstart_admin

# Later issues: load the bundled bots and run a demo tournament for every game.
if $python manage.py help arena_demo >/dev/null 2>&1; then
    $python manage.py arena_demo
fi

if [ "${ARENA_EXECUTION:-inline}" = celery ]; then
    say "starting a Celery worker for the default and matches queues"
    PYTHONPATH=platform .venv/bin/celery --app=arena worker --queues=default,matches &
    worker=$!
    trap 'kill "$worker" 2>/dev/null; wait "$worker" 2>/dev/null || true' EXIT
fi

say "serving http://${ARENA_ADDRESS:-127.0.0.1:8000}/ (admin at /admin/); Ctrl-C stops"
$python manage.py runserver "${ARENA_ADDRESS:-127.0.0.1:8000}"
