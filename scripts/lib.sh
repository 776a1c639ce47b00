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

# compiled_engine: print the folder holding the engine's rules compiled by mypyc (setup.py,
# ARENA_COMPILE_ENGINE=1) for the engine's sources as they are now: its C extensions, laid out
# as in the checkout (engine__mypyc.*.so beside engine/). Built once per version of the sources,
# Python and setup.py (a wheel built by pip, which brings mypyc; about three minutes on one
# core) and kept in .venv/engine-builds/; fails (status 1, saying why) where it cannot be built,
# e.g. without a C compiler or Python's headers.
compiled_engine() {
    local python=$PWD/.venv/bin/python digest cache work
    digest=$({ "$python" -VV; cat setup.py pyproject.toml
        find engine -name '*.py' -not -path '*/__pycache__/*' | LC_ALL=C sort | xargs cat
    } | sha256sum | cut -c1-16)
    cache=$PWD/.venv/engine-builds/$digest
    if [ ! -d "$cache" ]; then
        say "compiling the engine with mypyc (once per version of its sources; a few minutes)" >&2
        work=$(mktemp -d)
        tar --exclude=__pycache__ --exclude='*.so' -cf - setup.py pyproject.toml README.md engine \
            | tar -xf - -C "$work"
        if ! ARENA_COMPILE_ENGINE=1 "$python" -m pip wheel -q --disable-pip-version-check \
            --no-deps --wheel-dir "$work/wheel" "$work" >"$work/build.log" 2>&1; then
            say "the engine could not be compiled (a C compiler and Python's headers are" \
                "needed): see $work/build.log" >&2
            return 1
        fi
        "$python" - "$work"/wheel/*.whl "$work/so" <<'PY'
import sys, zipfile
wheel = zipfile.ZipFile(sys.argv[1])
wheel.extractall(sys.argv[2], [n for n in wheel.namelist() if n.endswith(".so")])
PY
        rm -rf "$PWD/.venv/engine-builds"  # earlier versions' builds
        mkdir -p "$PWD/.venv/engine-builds"
        mv "$work/so" "$cache"
        rm -rf "$work"
    fi
    printf '%s\n' "$cache"
}

# engine_build compiled|python: which build of the engine's rules .venv's processes run.
# compiled: mypyc's extensions (compiled_engine) beside the sources, where Python imports them
# before the .py files (the library they share, engine__mypyc, goes into .venv's site-packages,
# so the worker and the arena command find it as well as manage.py); where they cannot be built
# the sources run, and this says so. python: those extensions removed, so that every edit of
# the sources counts (scripts/test.sh: the main suite tests the sources).
engine_build() {
    local site built here=$PWD
    site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
    find engine -name '*.so' -delete
    rm -f engine__mypyc.*.so "$site"/engine__mypyc.*.so
    if [ "$1" = compiled ]; then
        if built=$(compiled_engine); then
            (cd "$built" && find engine -name '*.so' -exec cp --parents {} "$here" \;)
            cp "$built"/engine__mypyc.*.so "$site"/
            say "the engine's rules run compiled by mypyc"
        else
            say "warning: the engine's rules run from their Python sources (slower)"
        fi
    fi
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
