#!/usr/bin/env bash
# Compile the engine with mypyc (setup.py, ARENA_COMPILE_ENGINE=1) in a scratch copy of this
# checkout and run the engine suite against the compiled modules: the golden fingerprints and the
# conformance, no-leak and rules suites must pass unchanged. The checkout itself stays Python
# source. Arguments go to pytest. Compiling takes about three minutes on one core.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_venv
pip_install ".[dev]"  # mypy, which carries mypyc
python=$PWD/.venv/bin/python
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar --exclude=./.venv --exclude=./var --exclude=./.git --exclude='*.so' --exclude=__pycache__ \
    --exclude=.pytest_cache -cf - . | tar -xf - -C "$work"
cd "$work"
say "compiling the engine with mypyc in $work"
ARENA_COMPILE_ENGINE=1 "$python" setup.py -q build_ext --inplace >build.log 2>&1 \
    || { tail -40 build.log; exit 1; }
# pytest puts this copy first on the path (pythonpath "."), ahead of the editable install;
# tests/engine/test_build.py checks that the modules it imports are the compiled ones
ARENA_EXPECT_COMPILED_ENGINE=1 "$python" -m pytest tests/engine -p no:cacheprovider "$@"
