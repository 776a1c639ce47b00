#!/usr/bin/env bash
# Run the sandbox tests N times (default 20) while two CPU-spinning processes load the machine,
# to show that no verdict depends on how fast the machine is (issue 16).
#   bash scripts/stress_sandbox_tests.sh [N] [extra pytest arguments...]
# Each run's output goes to $STRESS_LOG_DIR (default: a new temporary directory).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-20}
shift || true
if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: $0 [RUNS] [PYTEST ARGS...]" >&2
    exit 2
fi
if [ ! -x .venv/bin/python ]; then
    echo "error: no .venv here; create it with: bash scripts/test.sh -x -q tests/sandbox" >&2
    exit 2
fi
logs=${STRESS_LOG_DIR:-$(mktemp -d -t stress-sandbox.XXXXXX)}
mkdir -p "$logs"

spinners=()
stop_spinners() {
    local pid
    for pid in "${spinners[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${spinners[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    spinners=()
}
trap stop_spinners EXIT
trap 'exit 130' INT TERM  # the EXIT trap then stops the spinners

for _ in 1 2; do
    python3 -c 'while True: pass' &
    spinners+=("$!")
done
echo "==> $runs runs of tests/sandbox with 2 CPU spinners (pids ${spinners[*]}) on $(nproc) CPUs"
echo "==> logs in $logs"

passed=0
failed=0
failed_runs=()
total_start=$SECONDS
for ((i = 1; i <= runs; i++)); do
    start=$SECONDS
    log="$logs/run-$(printf '%03d' "$i").log"
    if .venv/bin/python -m pytest tests/sandbox -q -p no:cacheprovider "$@" >"$log" 2>&1; then
        passed=$((passed + 1))
        outcome=pass
    else
        failed=$((failed + 1))
        failed_runs+=("$i")
        outcome=FAIL
    fi
    summary=$(tail -n 1 "$log")
    echo "run $i/$runs: $outcome in $((SECONDS - start)) s ($summary)"
    if [ "$outcome" = FAIL ]; then
        grep -E '^(FAILED|ERROR) ' "$log" | sed 's/^/    /' || true
    fi
done
elapsed=$((SECONDS - total_start))
echo "==> $passed passed, $failed failed of $runs runs in ${elapsed} s" \
    "(mean $((elapsed / runs)) s per run)${failed_runs:+; failed runs: ${failed_runs[*]}}"
[ "$failed" -eq 0 ]
