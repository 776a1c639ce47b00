# shellcheck shell=bash
# Shared by scripts/run.sh and scripts/test.sh (sourced, not run).

say() { printf '==> %s\n' "$*"; }

# ensure_venv: create .venv with the real interpreter behind `python3` (not a pyenv shim).
ensure_venv() {
    local python=${PYTHON:-python3}
    if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        echo "error: Card Arena needs Python 3.11 or newer as '$python' (set PYTHON=...)" >&2
        exit 1
    fi
    if [ ! -x .venv/bin/python ]; then
        local real
        real=$("$python" -c 'import sys; print(sys.executable)')
        say "creating .venv with $real"
        "$real" -m venv .venv
    fi
}

# pip_install SPEC: install the project (editable) into .venv, e.g. pip_install ".[dev]".
# Skipped when SPEC was installed from the same pyproject.toml and setup.py (a stamp in .venv):
# the install is editable, so only those files' changes need it again, and scripts running side
# by side (.ci/run) then never install into one venv at once.
pip_install() {
    local stamp=".venv/.installed-${1//[^a-z]/_}" digest
    digest=$(cat pyproject.toml setup.py | sha256sum)
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$digest" ]; then
        return 0
    fi
    say "installing $1 into .venv"
    .venv/bin/python -m pip install -qq --disable-pip-version-check --editable "$1"
    printf '%s\n' "$digest" >"$stamp"
}

# apt_install PACKAGE...: install Debian packages as root (or with password-less sudo);
# elsewhere only say what is missing. Never fails the caller.
apt_install() {
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
            sudo=(sudo -n)
        else
            say "not root: install $* yourself (sudo apt-get install $*)"
            return 0
        fi
    fi
    if ! command -v apt-get >/dev/null; then
        say "no apt-get: install $* with your package manager"
        return 0
    fi
    say "installing $* with apt-get"
    if [ -z "${APT_UPDATED:-}" ]; then
        "${sudo[@]}" apt-get update -qq || true
        APT_UPDATED=1
    fi
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "$@" \
        || say "warning: apt-get could not install $*"
}

# ensure_bot_runtimes: what the bot runtimes need beyond Python (docs/runtimes.md): g++ and
# nlohmann/json's headers for cpp bots, and the python3 runtime's pinned scientific set (numpy),
# installed with pip into var/runtimes/python-sci (read-only; nothing from the host's packages).
ensure_bot_runtimes() {
    local missing=()
    command -v g++ >/dev/null || missing+=(g++)
    [ -f /usr/include/nlohmann/json.hpp ] || missing+=(nlohmann-json3-dev)
    if [ ${#missing[@]} -gt 0 ]; then
        apt_install "${missing[@]}"
    fi
    .venv/bin/arena runtimes install
}
