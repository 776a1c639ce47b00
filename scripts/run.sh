#!/usr/bin/env bash
# Quick start: install what is needed, prepare the embedded SQLite database, run a tournament of
# the bundled bots in every game through the platform, then serve the site at
# http://127.0.0.1:8000/. Set DATABASE_URL, ARENA_EXECUTION=celery and CELERY_BROKER_URL to use
# PostgreSQL, Redis and a Celery worker instead (README.md, "Environment").
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

# Refuse early, before installing and replaying everything, if the site's port is taken (by an
# earlier run still serving, or by another program).
address=${ARENA_ADDRESS:-127.0.0.1:8000}
if ! python3 -c 'import socket, sys
host, port = sys.argv[1].rsplit(":", 1)
with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
    s.bind((host.strip("[]"), int(port)))' "$address" 2>/dev/null; then
    echo "error: $address is already in use (is the site already running?); stop it or choose" \
        "another address: ARENA_ADDRESS=127.0.0.1:8001 bash scripts/run.sh" >&2
    exit 1
fi

ensure_venv
pip_install .
engine_build compiled  # the referees run mypyc's build, 1.3-2x faster (the sources without a compiler)
command -v bwrap >/dev/null || apt_install bubblewrap
# the cpp runtime's compiler and JSON headers; the python3 runtime's pinned numpy (var/runtimes)
ensure_bot_runtimes

python=.venv/bin/python
mkdir -p var
$python manage.py migrate --noinput
$python manage.py quickstart_admin

# Bundled bots run in the bubblewrap sandbox, like every uploaded bot; where bubblewrap cannot
# work on this machine they run without it (they are our own bots; never do this on a server).
# The quick start runs our own bots on this machine: per-bot control groups where it can make
# them (as root), per-process limits otherwise (a server keeps the default, "required").
export ARENA_SANDBOX_CGROUPS=${ARENA_SANDBOX_CGROUPS:-auto}
if ! .venv/bin/arena validate examples/random --game bauer >/dev/null 2>&1; then
    say "bubblewrap is not usable here: running the bundled bots WITHOUT the sandbox"
    export ARENA_TRUSTED_BOTS=1
fi

if [ "${ARENA_EXECUTION:-inline}" = celery ]; then
    say "starting a Celery worker (validation, rated and unrated matches, default queues) with the beat scheduler"
    PYTHONPATH=platform .venv/bin/celery --app=arena worker --beat \
        --queues=default,validation,rated,matches --schedule=var/celerybeat-schedule &
    worker=$!
    trap 'kill "$worker" 2>/dev/null; wait "$worker" 2>/dev/null || true' EXIT
fi

# The main job: the bundled bots become the "house" user's bots (validated in the sandbox), then
# one round-robin tournament per game runs through the platform: matches recorded with their
# replays, standings printed; official, so they are rated on each game's ladder.
$python manage.py load_house_bots
for game_rounds in belote:2 bauer:2 barbu:6 badugi:1; do
    game=${game_rounds%:*}
    rounds=${game_rounds#*:}
    say "tournament: $game, the house bots, $rounds round(s) of duplicate matches"
    $python manage.py run_tournament --game "$game" --house --rounds "$rounds" --official --wait 900
done

if [ "${ARENA_EXECUTION:-inline}" != celery ]; then
    # no beat and no worker here: one process keeps the ladders playing beside the site, so a
    # new upload gets its first rated matches within a minute
    say "the ladder: matches keep being played in the background (manage.py play_ladder)"
    $python manage.py play_ladder --every 10 > var/ladder.log 2>&1 &
    ladder=$!
    trap 'kill "$ladder" 2>/dev/null; wait "$ladder" 2>/dev/null || true' EXIT
fi

say "the arena command is .venv/bin/arena (or run 'source .venv/bin/activate', then arena)"
say "serving http://$address/ (admin at /admin/); Ctrl-C stops"
$python manage.py runserver "$address"
