#!/usr/bin/env bash
# Signaling under load: `twinstar serve` on loopback and N concurrent raw
# websocket clients, two per room, speaking matchbox's signaling protocol
# (examples/signaling_load.rs), in R rounds (all arrive, pair, stay
# connected and idle, then leave). Checks that every client pairs with its
# own room partner only, that the server stays up, that an idle connected
# client costs at most 32 KiB of the server's resident memory, and that the
# resident set after the last round is no more than 10% above the first
# round's (no growth round over round); reports pairing time (median, p99)
# and the server's memory (VmRSS, VmHWM) per round.
#
#   scripts/signaling-load.sh [--clients N] [--rounds R] [--rate PER_S] [--limit SECS]
#
# CI runs --clients 2000 --rounds 3; the 10,000-client figure:
# --clients 10000 --rate 1000 --limit 120.
#
# Last stdout line: one JSON object; exit 0 iff "ok", 1 otherwise, 2 on bad
# arguments. Environment: TWINSTAR_BIN (default target/release/twinstar) and
# SIGNALING_LOAD_BIN (default target/release/examples/signaling_load); each is
# built (release) when missing.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLIENTS=200
LIMIT=60
ROUNDS=1
RATE=""
bad_input() {
    echo "signaling-load: $*" >&2
    sed -n '12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
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
        --rounds)
            [ $# -ge 2 ] || bad_input "--rounds needs a value"
            ROUNDS="$2"
            shift
            ;;
        --rate)
            [ $# -ge 2 ] || bad_input "--rate needs a value"
            RATE="$2"
            shift
            ;;
        *) bad_input "unknown argument $1" ;;
    esac
    shift
done
if ! [[ "$CLIENTS" =~ ^[1-9][0-9]{0,4}$ ]] || [ "$CLIENTS" -gt 10000 ] || [ $((CLIENTS % 2)) != 0 ]; then
    bad_input "--clients must be an even number from 2 to 10000, got '$CLIENTS'"
fi
[[ "$LIMIT" =~ ^[1-9][0-9]{0,2}$ ]] || bad_input "--limit must be 1..999 seconds, got '$LIMIT'"
[[ "$ROUNDS" =~ ^([1-9]|1[0-9]|20)$ ]] || bad_input "--rounds must be 1..20, got '$ROUNDS'"
[ -z "$RATE" ] || [[ "$RATE" =~ ^[1-9][0-9]{0,5}$ ]] || bad_input "--rate must be a positive number of clients per second, got '$RATE'"
RATE_ARGS=()
[ -z "$RATE" ] || RATE_ARGS=(--rate "$RATE")

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
OUT="$(timeout -k 5 $(((LIMIT + 60) * ROUNDS)) "$LOAD_BIN" --clients "$CLIENTS" --limit "$LIMIT" \
    --rounds "$ROUNDS" "${RATE_ARGS[@]}" --bin "$BIN")"
RC=$?
set -e
LAST="$(tail -n 1 <<<"$OUT")"
if [ -z "$LAST" ]; then
    fail "the load tool printed nothing (exit $RC)"
fi
# Memory: per idle client, and no growth from the first round to the last.
LAST="$(jq -c '. as $r | .server as $s
    | ($s.rss_kib_after_by_round // []) as $after
    | (if ($after | length) > 1 and $after[0] != null and $after[-1] != null
       then ($after[-1] <= $after[0] * 1.10) else true end) as $flat
    | ($s.rss_kib_per_idle_client == null or $s.rss_kib_per_idle_client <= 32) as $small
    | $r + {memory_ok: ($flat and $small), rss_flat_over_rounds: $flat}
    | .ok = (.ok and $flat and $small)' <<<"$LAST")"
[ "$(jq -r .ok <<<"$LAST")" = true ] || RC=1
echo "$LAST"
if [ "$RC" = 0 ]; then
    echo "signaling-load: ok" >&2
else
    echo "signaling-load: FAILED (exit $RC)" >&2
fi
exit "$RC"
