#!/usr/bin/env bash
# Bad-link soak: a signaling server and two headless bot peers (host + join)
# on loopback, both sending through the in-process link simulator at 5 %
# loss, 40 ms jitter (which reorders: packets leave every ~16 ms, so a later
# one often overtakes an earlier one) and 1 % duplication.
#
#   scripts/soak.sh [--frames N] [--latency MS] [--keep]
#
#   --frames N    frames to play (default 10000; 100000 is the full soak, ~28 min)
#   --latency MS  fixed one-way delay on top of the jitter (default 0)
#   --keep        keep the temp dir (logs, replays) even on success
#
# Checks: both peers exit 0 with 0 desyncs, equal checksums at frame N, and
# both replays verify (`twinstar replay FILE --headless --verify --json`,
# every recorded checksum re-simulated, N frames).
#
# Last stdout line: one JSON object {"ok","frames","checksums_equal",
# "checksum","desyncs","replays_verified","rollback_frames":{host,join},
# "elapsed_s",...}. Exit 0 iff every check holds, 1 otherwise, 2 on bad
# arguments. Every process runs under `timeout`; all are ended on exit.
#
# Environment: TWINSTAR_BIN (default target/release/twinstar, built if missing).
set -euo pipefail
# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs.
export TWINSTAR_LAN_DISCOVERY=off

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/lib/local-server.sh
source "$REPO/scripts/lib/local-server.sh"
FRAMES=10000
LATENCY=0
KEEP=false
JITTER=40
LOSS=5
DUP=1

usage() { sed -n '7,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; }
bad_input() {
    echo "soak: $*" >&2
    usage
    echo '{"ok":false,"error":"bad input"}'
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
        --frames)
            [ $# -ge 2 ] || bad_input "--frames needs a value"
            FRAMES="$2"
            shift
            ;;
        --frames=*) FRAMES="${1#--frames=}" ;;
        --latency)
            [ $# -ge 2 ] || bad_input "--latency needs a value"
            LATENCY="$2"
            shift
            ;;
        --keep) KEEP=true ;;
        -h | --help)
            usage
            exit 0
            ;;
        *) bad_input "unknown argument $1" ;;
    esac
    shift
done
[[ "$FRAMES" =~ ^[1-9][0-9]{0,6}$ ]] || bad_input "--frames must be a positive integer, got '$FRAMES'"
[[ "$LATENCY" =~ ^[0-9]{1,4}$ ]] || bad_input "--latency must be 0..9999 ms, got '$LATENCY'"

fail_early() {
    echo "soak: $1" >&2
    jq -cn --arg e "$1" --argjson frames "$FRAMES" '{ok:false, frames:$frames, error:$e}' 2>/dev/null ||
        echo "{\"ok\":false,\"frames\":$FRAMES,\"error\":\"$1\"}"
    exit 1
}

if ! command -v jq >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        echo "soak: installing jq" >&2
        export DEBIAN_FRONTEND=noninteractive
        { timeout 300 apt-get install -y -qq jq >&2 ||
            { timeout 300 apt-get update -qq >&2 && timeout 300 apt-get install -y -qq jq >&2; }; } ||
            fail_early "jq is missing and could not be installed"
    else
        fail_early "jq is missing (apt-get install jq)"
    fi
fi

BIN="${TWINSTAR_BIN:-$REPO/target/release/twinstar}"
if [ ! -x "$BIN" ]; then
    echo "soak: $BIN missing, building it" >&2
    (cd "$REPO" && timeout 3600 cargo build --release >&2) || true
    [ -x "$BIN" ] || fail_early "binary $BIN missing and the build did not produce it"
fi

# ------------------------------------------------------------ state, cleanup
WORK="$(mktemp -d "${TMPDIR:-/tmp}/soak.XXXXXX")"
echo "soak: $FRAMES frames, loss $LOSS %, jitter $JITTER ms, dup $DUP %, latency $LATENCY ms; logs in $WORK" >&2
PIDS=()
START_NS=$(date +%s%N)
RESULT_PRINTED=false

# shellcheck disable=SC2317 # invoked by the EXIT trap
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    set +e
    # Our children are `timeout` processes (the subshells exec it), which pass
    # TERM on to the game.
    local pid
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
    for _ in $(seq 30); do
        local alive=0
        for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        [ "$alive" = 0 ] && break
        sleep 0.1
    done
    for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null; done
    local_server_stop
    if [ "$RESULT_PRINTED" = false ]; then
        echo "{\"ok\":false,\"frames\":$FRAMES,\"error\":\"interrupted or failed during setup (exit $rc)\",\"logs\":\"$WORK\"}"
    fi
    if [ "$rc" = 0 ] && [ "$KEEP" = false ]; then
        rm -rf "$WORK"
    else
        echo "soak: logs and replays kept in $WORK" >&2
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The match at 60 fps, half as long again for stalls, plus connecting.
PEER_LIMIT=$((FRAMES * 3 / 120 + 60))
SERVER_LIMIT=$((PEER_LIMIT + 30))

# ------------------------------------------------------------------- server
# scripts/lib/local-server.sh: port 0, the address read from its stderr.
LOCAL_SERVER_LIMIT=$SERVER_LIMIT local_server_start "$BIN" "$WORK" ||
    fail_early "the signaling server did not start: $LOCAL_SERVER_ERROR"
URL="$LOCAL_SERVER_URL"

# -------------------------------------------------------------------- peers
ROOM="S4K-7WX"
LINK=(--sim-latency "$LATENCY" --sim-jitter "$JITTER" --sim-loss "$LOSS" --sim-dup "$DUP")
COMMON=(--server "$URL" --stun none --headless --bot --frames "$FRAMES" --json --timeout 15 "${LINK[@]}")
(cd "$WORK" && RUST_LOG=twinstar=info exec timeout -k 3 "$PEER_LIMIT" "$BIN" host --room "$ROOM" \
    "${COMMON[@]}" --record host.tsr >host.out 2>host.err) &
PIDS+=($!)
HOST_PID=$!
sleep 0.2
(cd "$WORK" && RUST_LOG=twinstar=info exec timeout -k 3 "$PEER_LIMIT" "$BIN" join "$ROOM" \
    "${COMMON[@]}" --record join.tsr >join.out 2>join.err) &
PIDS+=($!)
JOIN_PID=$!
set +e
wait "$HOST_PID"
HOST_RC=$?
wait "$JOIN_PID"
JOIN_RC=$?
set -e

last_json() { # file -> its last line if it is a JSON object, else null
    local line
    line="$(tail -n 1 "$1" 2>/dev/null || true)"
    if [ -n "$line" ] && jq -e 'type == "object"' <<<"$line" >/dev/null 2>&1; then
        echo "$line"
    else
        echo null
    fi
}
HOST_SUM="$(last_json "$WORK/host.out")"
JOIN_SUM="$(last_json "$WORK/join.out")"

# ------------------------------------------------------------------ replays
verify() { # name -> JSON {rc, frames, checksum}
    local name="$1" rc
    if [ ! -s "$WORK/$name.tsr" ]; then
        echo '{"rc":null,"frames":null,"checksum":null}'
        return
    fi
    set +e
    (cd "$WORK" && timeout -k 3 $((FRAMES / 500 + 60)) "$BIN" replay "$name.tsr" --headless --verify --json \
        >"$name.verify.out" 2>"$name.verify.err")
    rc=$?
    set -e
    jq -cn --argjson rc "$rc" --argjson s "$(last_json "$WORK/$name.verify.out")" \
        '{rc:$rc, frames:($s.frames? // null), checksum:($s.checksum? // null)}'
}
HOST_VERIFY="$(verify host)"
JOIN_VERIFY="$(verify join)"

ELAPSED_S="$(awk -v ns=$(($(date +%s%N) - START_NS)) 'BEGIN{printf "%.1f", ns / 1e9}')"
RESULT="$(jq -cn --argjson frames "$FRAMES" --argjson h "$HOST_SUM" --argjson j "$JOIN_SUM" \
    --argjson hrc "$HOST_RC" --argjson jrc "$JOIN_RC" \
    --argjson hv "$HOST_VERIFY" --argjson jv "$JOIN_VERIFY" --argjson elapsed "$ELAPSED_S" \
    --argjson loss "$LOSS" --argjson jitter "$JITTER" --argjson dup "$DUP" --argjson lat "$LATENCY" \
    --arg logs "$WORK" '
    def peer(s; rc): {exit: rc, frames: s.frames?, checksum_frame: s.checksum_frame?,
        checksum: s.checksum?, desyncs: s.desyncs?, rollback_frames: s.rollback_frames?,
        input_delay: s.input_delay?, rtt_ms: s.rtt_ms?, stalled_frames: s.stalled_frames?,
        packets_sent: s.packets_sent?, packets_received: s.packets_received?,
        elapsed_s: s.elapsed_s?};
    ($h != null and $j != null and $h.checksum_frame == $frames and $j.checksum_frame == $frames
        and $h.checksum != null and $h.checksum == $j.checksum) as $eq
    | (if $h == null or $j == null then null else ($h.desyncs + $j.desyncs) end) as $desyncs
    | ($hv.rc == 0 and $jv.rc == 0 and $hv.frames == $frames and $jv.frames == $frames
        and $hv.checksum == $h.checksum and $jv.checksum == $j.checksum) as $verified
    | {ok: ($hrc == 0 and $jrc == 0 and $eq and $desyncs == 0 and $verified),
       frames: $frames, checksums_equal: $eq, checksum: $h.checksum?, desyncs: $desyncs,
       replays_verified: $verified,
       rollback_frames: {host: $h.rollback_frames?, join: $j.rollback_frames?},
       elapsed_s: $elapsed,
       link: {loss_pct: $loss, jitter_ms: $jitter, dup_pct: $dup, latency_ms: $lat},
       host: peer($h; $hrc), join: peer($j; $jrc), logs: $logs}')"
RESULT_PRINTED=true
if [ "$(jq -r .ok <<<"$RESULT")" != true ]; then
    echo "soak: FAILED (host exit $HOST_RC, join exit $JOIN_RC)" >&2
    for f in host.err join.err host.verify.err join.verify.err server.err; do
        [ -s "$WORK/$f" ] && { echo "== $f" >&2; tail -n 15 "$WORK/$f" >&2; }
    done
    echo "$RESULT"
    exit 1
fi
echo "soak: ok" >&2
echo "$RESULT"
exit 0
