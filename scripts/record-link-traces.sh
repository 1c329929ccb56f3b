#!/usr/bin/env bash
# Re-records the link traces shipped in tests/fixtures/link-traces/ (see
# docs/link-traces.md): for each profile, a bot host and a bot joiner play
# on loopback under the simulated link (the same --sim-* flags on both
# sides, so both directions are alike) and the host writes what it saw
# with --record-link. The host's trace is the fixture; its header holds
# the match's own rollback figures, which tests/it/link_trace.rs compares
# a replay with.
#
#   scripts/record-link-traces.sh [PROFILE...]    good lossy wifi (default: all)
#
# TWINSTAR_BIN: the binary (default: target/debug/twinstar under
# CARGO_TARGET_DIR, built if missing). SECONDS_PER_TRACE: 40 by default.
# Recorded on loopback, not in the NAT testbed: the simulated link does
# the degrading either way (tc netem is not available here), and the
# testbed's namespaces add nothing to a trace but setup time.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$REPO/tests/fixtures/link-traces"
TARGET="${CARGO_TARGET_DIR:-$REPO/target}"
BIN="${TWINSTAR_BIN:-$TARGET/debug/twinstar}"
SECS="${SECONDS_PER_TRACE:-40}"
FRAMES=$((SECS * 60))
# Input delay 0: every frame of one-way delay shows as rollback, so the
# rollback figures tell one link from another (auto would retune the delay
# to the link and hide most rollbacks; a replay uses the same setting).
DELAY=0
SEED=6161

if [ ! -x "$BIN" ]; then
    echo "record-link-traces: building $BIN" >&2
    (cd "$REPO" && cargo build --bin twinstar >&2)
fi

profile() { # name -> the --sim-* flags of each side
    case "$1" in
        good) echo "--sim-latency 10 --sim-jitter 2" ;;
        lossy) echo "--sim-latency 45 --sim-jitter 10 --sim-loss 2" ;;
        wifi) echo "--sim-latency 15 --sim-jitter 30 --sim-loss 3 --sim-loss-burst 4 --sim-outage 20:1.5" ;;
        *) echo "record-link-traces: unknown profile '$1' (good, lossy, wifi)" >&2; exit 2 ;;
    esac
}

WORK="$(mktemp -d "${TMPDIR:-/tmp}/link-traces.XXXXXX")"
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

RUST_LOG=warn "$BIN" serve --bind 127.0.0.1:0 >"$WORK/server.out" 2>"$WORK/server.err" &
PIDS+=($!)
URL=""
for _ in $(seq 100); do
    URL="$(grep -o 'ws://127\.0\.0\.1:[0-9]*' "$WORK/server.err" 2>/dev/null | head -1 || true)"
    [ -n "$URL" ] && break
    sleep 0.1
done
[ -n "$URL" ] || { echo "record-link-traces: the server did not start" >&2; exit 1; }

[ $# -gt 0 ] || set -- good lossy wifi
mkdir -p "$OUT"
for name in "$@"; do
    read -r -a LINK <<<"$(profile "$name")"
    case "$name" in good) ROOM=TRC-G22 ;; lossy) ROOM=TRC-2SS ;; *) ROOM=TRC-WFF ;; esac
    COMMON=(--server "$URL" --stun none --headless --bot --frames "$FRAMES" --json --timeout 20
        --seed "$SEED" --input-delay "$DELAY" --reconnect-window 10 "${LINK[@]}")
    echo "record-link-traces: $name: ${LINK[*]} for $SECS s" >&2
    "$BIN" host --room "$ROOM" "${COMMON[@]}" --record-link "$WORK/$name.trace" \
        >"$WORK/$name.host.out" 2>"$WORK/$name.host.err" &
    HOST=$!
    sleep 0.3
    "$BIN" join "$ROOM" "${COMMON[@]}" >"$WORK/$name.join.out" 2>"$WORK/$name.join.err" &
    JOIN=$!
    wait "$HOST" || { echo "record-link-traces: $name: the host failed" >&2; tail -5 "$WORK/$name.host.err" >&2; exit 1; }
    wait "$JOIN" || { echo "record-link-traces: $name: the joiner failed" >&2; tail -5 "$WORK/$name.join.err" >&2; exit 1; }
    cp "$WORK/$name.trace" "$OUT/$name.trace"
    echo "record-link-traces: $OUT/$name.trace ($(wc -c <"$OUT/$name.trace") bytes): $(grep -E '^# rollback_per_frame' "$OUT/$name.trace")" >&2
done
