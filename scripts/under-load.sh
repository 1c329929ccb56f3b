#!/usr/bin/env bash
# Runs a command several times with every core kept busy, to show whether a
# timing-sensitive test fails under load (docs/testing.md, "Flaky tests":
# how a ledger entry is checked). One line per run, then a summary:
#
#   bash scripts/under-load.sh [--runs N] [--grep REGEX] [--load N] -- CMD...
#
#   --runs N     how many runs (default 10)
#   --grep REGEX also count the runs whose output has a line matching REGEX
#                (a symptom the test tolerates, e.g. an extra pause)
#   --load N     busy workers (default: one per core); stress-ng's CPU
#                workers when it is installed, else shell busy loops
#
# Each run's output is kept in target/under-load/run-K.log. Exit 0 when every
# run passed, 1 when one failed, 2 on bad arguments. Bounded: the load stops
# with the script.
set -euo pipefail
# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs.
export TWINSTAR_LAN_DISCOVERY=off
cd "$(dirname "$0")/.."

runs=10 pattern="" load=$(nproc)
usage() { echo "usage: scripts/under-load.sh [--runs N] [--grep REGEX] [--load N] -- CMD..." >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs=${2:-}; shift 2 ;;
        --grep) pattern=${2:-}; shift 2 ;;
        --load) load=${2:-}; shift 2 ;;
        --) shift; break ;;
        *) usage ;;
    esac
done
[ $# -gt 0 ] || usage
[[ $runs =~ ^[1-9][0-9]*$ && $load =~ ^[0-9]+$ ]] || usage

logs=target/under-load
mkdir -p "$logs"
workers=()
stop_load() {
    [ ${#workers[@]} -eq 0 ] || kill "${workers[@]}" 2> /dev/null || true
    wait 2> /dev/null || true
}
trap stop_load EXIT
if [ "$load" -gt 0 ]; then
    if command -v stress-ng > /dev/null; then
        stress-ng --cpu "$load" --quiet > /dev/null 2>&1 &
        workers+=($!)
    else
        for _ in $(seq "$load"); do
            (while :; do :; done) &
            workers+=($!)
        done
    fi
fi
echo "under-load: $runs runs of $* beside $load busy workers" >&2

passed=0 failed=0 seen=0
for k in $(seq "$runs"); do
    t=$SECONDS rc=0
    "$@" > "$logs/run-$k.log" 2>&1 || rc=$?
    mark=""
    if [ -n "$pattern" ] && grep -qE -- "$pattern" "$logs/run-$k.log"; then
        seen=$((seen + 1))
        mark=" (matched: $pattern)"
    fi
    if [ $rc = 0 ]; then
        passed=$((passed + 1))
        echo "under-load: run $k passed in $((SECONDS - t)) s$mark" >&2
    else
        failed=$((failed + 1))
        echo "under-load: run $k FAILED (exit $rc) in $((SECONDS - t)) s$mark: $logs/run-$k.log" >&2
    fi
done
summary="under-load: $runs runs, $passed passed, $failed failed"
[ -z "$pattern" ] || summary+="; '$pattern' in $seen"
echo "$summary" >&2
[ $failed = 0 ]
