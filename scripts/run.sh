#!/usr/bin/env bash
# Quick start: install what is needed, prepare the embedded SQLite database, run a tournament of
# the bundled bots in every game, then serve the site at http://127.0.0.1:8000/. Set DATABASE_URL / ARENA_EXECUTION=celery + CELERY_BROKER_URL to
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

# The main job: a tournament of the bundled example bots in every game, through the same
# bubblewrap sandbox the platform uses (or, where bubblewrap cannot work, explicitly trusted:
# they are our own bots). Summaries are printed; replays land in var/replays/<game>/.
sandbox=()
if ! .venv/bin/arena validate examples/random --game bauer >/dev/null 2>&1; then
    say "bubblewrap is not usable here: running the bundled bots with --trusted"
    sandbox=(--trusted)
fi
fourth=builtin:heuristic
command -v node >/dev/null && fourth=examples/random-node
for game in belote bauer barbu; do
    say "tournament: $game (4 bundled bots, duplicate deals, 4 matches)"
    .venv/bin/arena play "$game" "examples/$game/heuristic.py" "examples/$game/minimal.py" \
        examples/random "$fourth" --duplicate --matches 4 --seed 1 -q \
        --replay "var/replays/$game/match.json" "${sandbox[@]}"
done
for pair in "heuristic.py random" "heuristic.py minimal.py" "minimal.py random"; do
    read -r first second <<<"$pair"
    [ "$second" = random ] && second=../random
    name="${first%.py}-$(basename "${second%.py}")"
    say "tournament: badugi heads-up, $name (duplicate, 4 x 2 x 100 hands)"
    .venv/bin/arena play badugi "examples/badugi/$first" "examples/badugi/$second" \
        --duplicate --matches 4 --seed 1 -q --replay "var/replays/badugi/$name.json" "${sandbox[@]}"
done

if [ "${ARENA_EXECUTION:-inline}" = celery ]; then
    say "starting a Celery worker for the default and matches queues"
    PYTHONPATH=platform .venv/bin/celery --app=arena worker --queues=default,matches &
    worker=$!
    trap 'kill "$worker" 2>/dev/null; wait "$worker" 2>/dev/null || true' EXIT
fi

say "serving http://${ARENA_ADDRESS:-127.0.0.1:8000}/ (admin at /admin/); Ctrl-C stops"
$python manage.py runserver "${ARENA_ADDRESS:-127.0.0.1:8000}"
