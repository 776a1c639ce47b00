#!/usr/bin/env bash
# Run the engine suite against the engine compiled by mypyc (setup.py, ARENA_COMPILE_ENGINE=1), in
# a scratch copy of this checkout: the golden fingerprints and the conformance, no-leak and rules
# suites must pass unchanged. The checkout itself is left as it is. Arguments go to pytest. The
# build is lib.sh's compiled_engine, the quick start's: compiled once per version of the
# engine's sources (about three minutes on one core), then reused.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_venv
pip_install ".[dev]"
built=$(compiled_engine)
python=$PWD/.venv/bin/python
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar --exclude=./.venv --exclude=./var --exclude=./.git --exclude='*.so' --exclude=__pycache__ \
    --exclude=.pytest_cache -cf - . | tar -xf - -C "$work"
cp -R "$built"/. "$work"/
cd "$work"
# pytest puts this copy first on the path (pythonpath "."), ahead of the editable install;
# tests/engine/test_build.py checks that the modules it imports are the compiled ones
ARENA_EXPECT_COMPILED_ENGINE=1 "$python" -m pytest tests/engine -p no:cacheprovider "$@"
