#!/usr/bin/env bash
# Re-records the link traces shipped in tests/fixtures/link-traces/ (see
# docs/link-traces.md): for each profile, a bot host and a bot joiner play
# under the simulated link (the same --sim-* flags on both sides, so both
# directions are alike) and the host writes what it saw with --record-link.
# The host's trace is the fixture; its header holds the match's own
# rollback figures, which tests/it/link_trace.rs compares a replay with,
# and the ICE path the match took (`# connection:`, the summary's
# `connection`).
#
#   scripts/record-link-traces.sh [--loopback | --nat KIND] [PROFILE...]
#
#   PROFILE     good, lossy, wifi (default: all three)
#   --nat KIND  the NAT testbed's NATs (default port-restricted; also
#               full-cone or routed): the host in one network namespace
#               behind NAT A, the joiner in another behind NAT B, the
#               signaling server and a STUN server (coturn) on the public
#               namespace between them (scripts/lib/nat-testbed-lib.sh, the
#               topology of scripts/nat-testbed.sh). The peers meet over
#               their NATs' public addresses (srflx, checked: a match on
#               another path fails the recording). Needs root.
#   --loopback  both peers and the server on 127.0.0.1, no STUN (path
#               `host`): for a machine without root; also
#               RECORD_LINK_LOOPBACK=1.
#
# Either way the --sim-* flags do the degrading (tc netem is not available
# here); the testbed adds a real NATed path: its address translation, its
# UDP hole punching, and the kernel's forwarding through three namespaces.
# The header gains `# recorded_in:` (where) before the game's own lines.
#
# TWINSTAR_BIN: the binary (default: target/debug/twinstar under
# CARGO_TARGET_DIR, built if missing). SECONDS_PER_TRACE: 40 by default.
# Exit 0 when every profile was recorded, 1 on a failed recording or setup,
# 2 on bad arguments.
set -euo pipefail
# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs.
export TWINSTAR_LAN_DISCOVERY=off

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/lib/local-server.sh
source "$REPO/scripts/lib/local-server.sh"
# shellcheck source=scripts/lib/nat-testbed-lib.sh
source "$REPO/scripts/lib/nat-testbed-lib.sh"
OUT="$REPO/tests/fixtures/link-traces"
TARGET="${CARGO_TARGET_DIR:-$REPO/target}"
BIN="${TWINSTAR_BIN:-$TARGET/debug/twinstar}"
SECS="${SECONDS_PER_TRACE:-40}"
# Input delay 0: every frame of one-way delay shows as rollback, so the
# rollback figures tell one link from another (auto would retune the delay
# to the link and hide most rollbacks; a replay uses the same setting).
DELAY=0
SEED=6161

die() { # code message
    echo "record-link-traces: $2" >&2
    exit "$1"
}

LOOPBACK=false
[ "${RECORD_LINK_LOOPBACK:-0}" = 0 ] || LOOPBACK=true
NAT=port-restricted
PROFILES=()
while [ $# -gt 0 ]; do
    case "$1" in
        --loopback) LOOPBACK=true ;;
        --nat)
            [ $# -ge 2 ] || die 2 "--nat needs a value (port-restricted, full-cone, routed)"
            NAT="$2"
            shift
            ;;
        -h | --help)
            sed -n '11,23p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
            exit 0
            ;;
        -*) die 2 "unknown option $1 (--loopback, --nat KIND)" ;;
        *) PROFILES+=("$1") ;;
    esac
    shift
done
case "$NAT" in
    port-restricted | full-cone | routed) ;;
    symmetric) die 2 "--nat symmetric connects only through a TURN relay, which the traces do not use" ;;
    *) die 2 "unknown --nat '$NAT' (port-restricted, full-cone, routed)" ;;
esac
[[ "$SECS" =~ ^[1-9][0-9]{0,3}$ ]] || die 2 "SECONDS_PER_TRACE must be a whole number of seconds, got '$SECS'"
FRAMES=$((SECS * 60))

profile() { # name -> the --sim-* flags of each side
    case "$1" in
        good) echo "--sim-latency 10 --sim-jitter 2" ;;
        lossy) echo "--sim-latency 45 --sim-jitter 10 --sim-loss 2" ;;
        wifi) echo "--sim-latency 15 --sim-jitter 30 --sim-loss 3 --sim-loss-burst 4 --sim-outage 20:1.5" ;;
        *) return 1 ;;
    esac
}
[ ${#PROFILES[@]} -gt 0 ] || PROFILES=(good lossy wifi)
for name in "${PROFILES[@]}"; do
    profile "$name" >/dev/null || die 2 "unknown profile '$name' (good, lossy, wifi)"
done

if ! $LOOPBACK; then
    [ "$(id -u)" = 0 ] ||
        die 1 "the NAT testbed needs root (network namespaces, iptables); --loopback records without it"
    for tool in ip iptables turnserver jq ss; do
        command -v "$tool" >/dev/null ||
            die 1 "the NAT testbed needs $tool (apt-get install iproute2 iptables coturn jq)"
    done
else
    command -v jq >/dev/null || die 1 "jq is missing (apt-get install jq)"
fi

if [ ! -x "$BIN" ]; then
    echo "record-link-traces: building $BIN" >&2
    (cd "$REPO" && cargo build --bin twinstar >&2) || die 1 "could not build $BIN"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/link-traces.XXXXXX")"
CREATED_NS=() # the testbed's namespaces (scripts/lib/nat-testbed-lib.sh)
PIDS=()       # loopback peers
# shellcheck disable=SC2317 # invoked by the EXIT trap
cleanup() {
    local rc=$? pid
    trap - EXIT INT TERM
    set +e
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
    local_server_stop
    # Every process of the testbed runs in one of its namespaces.
    ntb_teardown
    if [ "$rc" = 0 ]; then
        rm -rf "$WORK"
    else
        echo "record-link-traces: logs kept in $WORK" >&2
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# How long a peer may run: connecting (20 s), the match, an outage's
# pause and stalls, with room to spare.
PEER_LIMIT=$((SECS * 3 + 60))
if $LOOPBACK; then
    WHERE="loopback (127.0.0.1, no STUN)"
    ICE=(--stun none)
    EXPECT_PATH=host
    LOCAL_SERVER_LIMIT=$((PEER_LIMIT * ${#PROFILES[@]} + 60)) local_server_start "$BIN" "$WORK" ||
        die 1 "the signaling server did not start: $LOCAL_SERVER_ERROR"
else
    PUBLIC_IP=198.51.100.1 # the testbed's public namespace
    STUN_PORT=3478
    ntb_namespaces "lkt$$-$((RANDOM % 1000))" || die 1 "$NTB_ERROR"
    ntb_topology sink || die 1 "$NTB_ERROR"
    ntb_nat_rules "$NAT" || die 1 "$NTB_ERROR"
    LOCAL_SERVER_NETNS="$NS_PUB" LOCAL_SERVER_BIND="$PUBLIC_IP:0" \
        LOCAL_SERVER_LIMIT=$((PEER_LIMIT * ${#PROFILES[@]} + 60)) local_server_start "$BIN" "$WORK" ||
        die 1 "the signaling server did not start in the testbed: $LOCAL_SERVER_ERROR"
    # coturn answers STUN only: the peers learn their NATs' public addresses.
    ip netns exec "$NS_PUB" timeout -k 3 $((PEER_LIMIT * ${#PROFILES[@]} + 60)) turnserver -n \
        --listening-ip="$PUBLIC_IP" --listening-port="$STUN_PORT" --stun-only \
        --no-tls --no-dtls --no-cli --pidfile="$WORK/turnserver.pid" \
        --simple-log --log-file="$WORK/coturn.log" >"$WORK/coturn.out" 2>&1 &
    ntb_wait_listening "$NS_PUB" u "$STUN_PORT" "coturn (STUN)" || die 1 "$NTB_ERROR"
    WHERE="nat-testbed $NAT (host 10.0.1.2 behind NAT A, joiner 10.0.2.2 behind NAT B, STUN and signaling on $PUBLIC_IP)"
    ICE=(--stun "stun:$PUBLIC_IP:$STUN_PORT")
    case "$NAT" in
        # Routed: the peers' own addresses are reachable, so `host` it is.
        routed) EXPECT_PATH=host ;;
        # Behind NATs only the NATs' public addresses meet; the one that
        # answers first may be learnt from a check (prflx) rather than STUN.
        *) EXPECT_PATH="srflx|prflx" ;;
    esac
fi
URL="$LOCAL_SERVER_URL"
echo "record-link-traces: recording in $WORK via $URL: $WHERE" >&2

run_peer() { # name netns|"" args... (in the background; its pid in PEER_PID)
    local name="$1" ns="$2" cmd
    shift 2
    cmd=(env RUST_LOG=warn TWINSTAR_DATA_DIR="$WORK" timeout -k 3 "$PEER_LIMIT" "$BIN" "$@")
    [ -z "$ns" ] || cmd=(ip netns exec "$ns" "${cmd[@]}")
    (cd "$WORK" && exec "${cmd[@]}" >"$name.out" 2>"$name.err") &
    PEER_PID=$!
    PIDS+=("$PEER_PID")
}
peer_failed() { # profile side
    echo "record-link-traces: $1: the $2 failed:" >&2
    tail -n 5 "$WORK/$1.$2.err" >&2
    exit 1
}

mkdir -p "$OUT"
NS_HOST="" NS_JOIN=""
$LOOPBACK || { NS_HOST="$NS_A" NS_JOIN="$NS_B"; }
for name in "${PROFILES[@]}"; do
    read -r -a LINK <<<"$(profile "$name")"
    case "$name" in good) ROOM=TRC-G22 ;; lossy) ROOM=TRC-2SS ;; *) ROOM=TRC-WFF ;; esac
    COMMON=(--server "$URL" "${ICE[@]}" --headless --bot --frames "$FRAMES" --json --timeout 20
        --no-record --seed "$SEED" --input-delay "$DELAY" --reconnect-window 10 "${LINK[@]}")
    echo "record-link-traces: $name: ${LINK[*]} for $SECS s" >&2
    run_peer "$name.host" "$NS_HOST" host --room "$ROOM" "${COMMON[@]}" --record-link "$WORK/$name.trace"
    HOST=$PEER_PID
    sleep 0.3
    run_peer "$name.join" "$NS_JOIN" join "$ROOM" "${COMMON[@]}"
    JOIN=$PEER_PID
    wait "$HOST" || peer_failed "$name" host
    wait "$JOIN" || peer_failed "$name" join
    [ -s "$WORK/$name.trace" ] || die 1 "$name: the host wrote no trace ($WORK/$name.host.err)"
    H="$(tail -n 1 "$WORK/$name.host.out")"
    J="$(tail -n 1 "$WORK/$name.join.out")"
    jq -e 'type == "object"' <<<"$H" >/dev/null 2>&1 || die 1 "$name: the host printed no JSON summary"
    jq -e 'type == "object"' <<<"$J" >/dev/null 2>&1 || die 1 "$name: the joiner printed no JSON summary"
    [ "$(jq -r .checksum <<<"$H")" = "$(jq -r .checksum <<<"$J")" ] ||
        die 1 "$name: the peers' checksums differ ($(jq -c '{checksum, checksum_frame}' <<<"$H") vs $(jq -c '{checksum, checksum_frame}' <<<"$J"))"
    PATH_H="$(jq -r .connection <<<"$H")"
    PATH_J="$(jq -r .connection <<<"$J")"
    [[ "$PATH_H" =~ ^($EXPECT_PATH)$ ]] ||
        die 1 "$name: the match took path '$PATH_H' (joiner '$PATH_J'), not $EXPECT_PATH: not the path asked for"
    IN_TRACE="$(sed -n 's/^# connection: //p' "$WORK/$name.trace")"
    [ "$IN_TRACE" = "$PATH_H" ] ||
        die 1 "$name: the trace says connection '$IN_TRACE', the host's summary '$PATH_H'"
    # Where it was recorded, first among the header's free-form lines.
    { head -n 1 "$WORK/$name.trace"
        echo "# recorded_in: $WHERE"
        tail -n +2 "$WORK/$name.trace"; } >"$OUT/$name.trace"
    echo "record-link-traces: $OUT/$name.trace ($(wc -c <"$OUT/$name.trace") bytes): path $PATH_H (joiner $PATH_J), rollback per frame $(sed -n 's/^# rollback_per_frame: //p' "$OUT/$name.trace") (joiner $(jq -r '.rollback_frames / ([.frames, 1] | max) * 1000 | round / 1000' <<<"$J")), mean rtt $(jq -r .rtt_ms <<<"$H") ms" >&2
done
