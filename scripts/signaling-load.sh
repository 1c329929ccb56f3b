#!/usr/bin/env bash
# Signaling under load: `twinstar serve` on loopback and 200 concurrent raw
# websocket clients in 100 rooms speaking matchbox's signaling protocol
# (examples/signaling_load.rs). Checks that every client pairs with its own
# room partner only and that the server stays up; reports pairing time
# (median, p99) and the server's memory (VmRSS, VmHWM).
#
#   scripts/signaling-load.sh [--clients N] [--limit SECS]
#
# Last stdout line: one JSON object; exit 0 iff "ok", 1 otherwise, 2 on bad
# arguments. Environment: TWINSTAR_BIN (default target/release/twinstar) and
# SIGNALING_LOAD_BIN (default target/release/examples/signaling_load); each is
# built (release) when missing.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLIENTS=200
LIMIT=60
bad_input() {
    echo "signaling-load: $*" >&2
    sed -n '8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    echo '{"ok":false,"error":"bad input"}'
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
        --clients)
            [ $# -ge 2 ] || bad_input "--clients needs a value"
            CLIENTS="$2"
            shift
            ;;
        --limit)
            [ $# -ge 2 ] || bad_input "--limit needs a value"
            LIMIT="$2"
            shift
            ;;
        *) bad_input "unknown argument $1" ;;
    esac
    shift
done
if ! [[ "$CLIENTS" =~ ^[1-9][0-9]{0,3}$ ]] || [ $((CLIENTS % 2)) != 0 ]; then
    bad_input "--clients must be an even number from 2 to 9998, got '$CLIENTS'"
fi
[[ "$LIMIT" =~ ^[1-9][0-9]{0,2}$ ]] || bad_input "--limit must be 1..999 seconds, got '$LIMIT'"

BIN="${TWINSTAR_BIN:-$REPO/target/release/twinstar}"
LOAD_BIN="${SIGNALING_LOAD_BIN:-$REPO/target/release/examples/signaling_load}"
fail() {
    echo "signaling-load: $1" >&2
    echo "{\"ok\":false,\"error\":\"$1\"}"
    exit 1
}
if [ ! -x "$BIN" ]; then
    echo "signaling-load: $BIN missing, building it" >&2
    (cd "$REPO" && timeout 3600 cargo build --release --bin twinstar >&2) || true
    [ -x "$BIN" ] || fail "binary $BIN missing and the build did not produce it"
fi
if [ ! -x "$LOAD_BIN" ]; then
    echo "signaling-load: $LOAD_BIN missing, building it" >&2
    (cd "$REPO" && timeout 3600 cargo build --release --example signaling_load >&2) || true
    [ -x "$LOAD_BIN" ] || fail "binary $LOAD_BIN missing and the build did not produce it"
fi

# The tool kills its server on every exit path; `timeout` bounds the rest.
set +e
OUT="$(timeout -k 5 $((LIMIT + 60)) "$LOAD_BIN" --clients "$CLIENTS" --limit "$LIMIT" --bin "$BIN")"
RC=$?
set -e
LAST="$(tail -n 1 <<<"$OUT")"
if [ -z "$LAST" ]; then
    fail "the load tool printed nothing (exit $RC)"
fi
echo "$LAST"
if [ "$RC" = 0 ]; then
    echo "signaling-load: ok" >&2
else
    echo "signaling-load: FAILED (exit $RC)" >&2
fi
exit "$RC"
