#!/usr/bin/env bash
# Install the dev dependencies and run the whole test suite; arguments go to pytest
# (e.g. `bash scripts/test.sh -m "not browser"`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_venv
pip_install ".[dev]"
engine_build python  # the suite tests the sources (scripts/test_compiled_engine.sh the build)
missing=()
command -v bwrap >/dev/null || missing+=(bubblewrap)
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
command -v docker-compose >/dev/null || missing+=(docker-compose)  # validates docker-compose.yml
[ -x /usr/sbin/nginx ] || missing+=(nginx-light)  # runs deploy/nginx.conf (tests/platform/test_proxy.py)
command -v msgattrib >/dev/null || missing+=(gettext)  # the translation catalogues' checks
if [ ${#missing[@]} -gt 0 ]; then
    apt_install "${missing[@]}"
fi
ensure_bot_runtimes

status=0
.venv/bin/python -m pytest "$@" || status=$?
if [ "$status" -eq 5 ]; then
    say "pytest collected no tests for this selection: not a failure"
    exit 0
fi
exit "$status"
