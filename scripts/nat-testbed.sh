#!/usr/bin/env bash
# NAT hole-punching testbed: two peers behind simulated NATs, a signaling
# server and a TURN server on a simulated public network, all in network
# namespaces on this machine. See docs/nat-testbed.md.
#
#   scripts/nat-testbed.sh SCENARIO [--turn] [--frames N] [--probe]
#
#   SCENARIO   routed | full-cone | port-restricted | symmetric
#   --turn     also give the peers the TURN server (coturn) as ICE server
#   --frames N frames the game plays (game mode only; default 300)
#   --probe    run examples/nat_probe instead of the game (network only)
#
# Topology (every address stays inside namespaces this script creates):
#
#   host A 10.0.1.2 -- 10.0.1.1 NAT A 198.51.100.2 --+
#                                                     public 198.51.100.1  (signaling :3536,
#   host B 10.0.2.2 -- 10.0.2.1 NAT B 203.0.113.2  --+       203.0.113.1   coturn :3478)
#                                                       default route -> sink (drops all)
#
# Expected: routed, full-cone and port-restricted connect directly (never
# relay), symmetric connects only with --turn (via relay). Without it the
# joiner (B) must fail cleanly within its 15 s timeout, and the host (A, which
# waits longer) must say, within that timeout + 3 s and while still waiting,
# that a player reached the room without a network path; then it gives up
# cleanly too. That counts as success.
#
# Last stdout line: one JSON object {"scenario","ok","connection","connect_ms",
# "checksums_equal","turn",...}. Exit 0 iff ok, 1 on a failed scenario or
# setup failure, 2 on bad arguments. Needs root. Logs of every process go to a
# temp dir printed on stderr.
#
# Environment: TWINSTAR_BIN (default target/release/twinstar), NAT_PROBE_BIN
# (default /work/target-nat/release/examples/nat_probe), NAT_PROBE_TARGET_DIR
# (where to build the probe if missing, default /work/target-nat), RUST_LOG
# for the peers (default: ICE and TURN at debug level). Experiments:
# NAT_TESTBED_PUBLIC_DEFAULT=sink|unreachable|none, NAT_TESTBED_COTURN_DENY_PRIVATE=0,
# NAT_TESTBED_COTURN_FLAGS, NAT_TESTBED_NO_STUN=1, NAT_TESTBED_TURN_URL.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/lib/nat-testbed-lib.sh
source "$REPO/scripts/lib/nat-testbed-lib.sh"

usage() {
    sed -n '5,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
}

# ---------------------------------------------------------------- arguments
SCENARIO=""
TURN=false
FRAMES=300
PROBE=false
bad_input() {
    echo "nat-testbed: $*" >&2
    usage
    echo "{\"scenario\":\"${SCENARIO//[^a-z-]/}\",\"ok\":false,\"error\":\"bad input\"}"
    exit 2
}

while [ $# -gt 0 ]; do
    case "$1" in
        --turn) TURN=true ;;
        --probe) PROBE=true ;;
        --frames)
            [ $# -ge 2 ] || bad_input "--frames needs a value"
            FRAMES="$2"
            shift
            ;;
        --frames=*) FRAMES="${1#--frames=}" ;;
        -h | --help)
            usage
            exit 0
            ;;
        -*) bad_input "unknown option $1" ;;
        *)
            [ -z "$SCENARIO" ] || bad_input "more than one scenario ($SCENARIO, $1)"
            SCENARIO="$1"
            ;;
    esac
    shift
done
case "$SCENARIO" in
    routed | full-cone | port-restricted | symmetric) ;;
    "") bad_input "missing SCENARIO" ;;
    *) bad_input "unknown scenario '$SCENARIO' (routed, full-cone, port-restricted, symmetric)" ;;
esac
[[ "$FRAMES" =~ ^[1-9][0-9]{0,6}$ ]] || bad_input "--frames must be a positive integer, got '$FRAMES'"

if [ "$(id -u)" != 0 ]; then
    echo "nat-testbed: must run as root (it creates network namespaces and iptables rules)" >&2
    echo "{\"scenario\":\"$SCENARIO\",\"ok\":false,\"error\":\"not root\"}"
    exit 1
fi

# ------------------------------------------------------------------ settings
PUBLIC_IP=198.51.100.1 # the public namespace: signaling + coturn
SIGNAL_PORT=3536
TURN_PORT=3478
ROOM_HOST="K7Q-2XM"
ROOM_JOIN="K7Q2XM" # the same room, spelled differently on purpose
PEER_TIMEOUT=15    # the peers' own --timeout
NOTICE_GRACE=3     # the host's "no path" notice may come this long after it
TURN_USER=u
TURN_PASS=p
if $PROBE; then
    MODE=probe
    BIN="${NAT_PROBE_BIN:-/work/target-nat/release/examples/nat_probe}"
    PEER_LIMIT=$((PEER_TIMEOUT + 15))
else
    MODE=game
    BIN="${TWINSTAR_BIN:-$REPO/target/release/twinstar}"
    # Connect (<= 15 s) + the match at 60 fps, twice over, + margin.
    PEER_LIMIT=$((PEER_TIMEOUT + FRAMES / 30 + 30))
fi
case "$SCENARIO" in
    symmetric) EXPECT=$($TURN && echo relay || echo fail) ;;
    *) EXPECT=direct ;;
esac
# When no path is expected, the host waits longer than the joiner, so that
# it is still there to report the joiner's failed attempt (and to show that
# such an attempt does not end its wait).
HOST_TIMEOUT=$PEER_TIMEOUT
if [ "$EXPECT" = fail ] && ! $PROBE; then
    HOST_TIMEOUT=$((PEER_TIMEOUT + 2 * NOTICE_GRACE))
fi

# Final JSON fields filled in as we go.
RESULT_ERROR=""
PRINTED=false
emit_setup_failure() {
    $PRINTED && return 0
    PRINTED=true
    jq -cn --arg s "$SCENARIO" --arg e "$1" --argjson turn "$TURN" --arg mode "$MODE" \
        --arg logs "${LOGDIR:-}" \
        '{scenario:$s, ok:false, connection:null, connect_ms:null, checksums_equal:null,
          turn:$turn, mode:$mode, error:$e, logs:$logs}'
}

# -------------------------------------------------------------- dependencies
need=()
command -v iptables >/dev/null || need+=(iptables)
command -v turnserver >/dev/null || need+=(coturn)
command -v jq >/dev/null || need+=(jq)
command -v ss >/dev/null || need+=(iproute2)
if [ ${#need[@]} -gt 0 ]; then
    echo "nat-testbed: installing ${need[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    timeout 300 apt-get install -y -qq "${need[@]}" >&2 ||
        { timeout 300 apt-get update -qq >&2 && timeout 300 apt-get install -y -qq "${need[@]}" >&2; } || {
        echo "nat-testbed: could not install ${need[*]}" >&2
        echo "{\"scenario\":\"$SCENARIO\",\"ok\":false,\"error\":\"could not install ${need[*]}\"}"
        exit 1
    }
fi

if [ ! -x "$BIN" ]; then
    echo "nat-testbed: $BIN missing, building it" >&2
    if $PROBE; then
        (cd "$REPO" && CARGO_TARGET_DIR="${NAT_PROBE_TARGET_DIR:-/work/target-nat}" \
            timeout 3600 nice -n 19 cargo build --release --example nat_probe >&2) || true
    else
        (cd "$REPO" && timeout 3600 cargo build --release >&2) || true
    fi
    if [ ! -x "$BIN" ]; then
        emit_setup_failure "binary $BIN missing and the build did not produce it"
        exit 1
    fi
fi

# ------------------------------------------------------------ state, cleanup
PREFIX="ntb$$-$((RANDOM % 1000))" # unique per run
NS_A="$PREFIX-a"
NS_NA="$PREFIX-nata"
NS_PUB="$PREFIX-pub"
NS_NB="$PREFIX-natb"
NS_B="$PREFIX-b"
NS_SINK="$PREFIX-sink"
CREATED_NS=()
LOGDIR="$(mktemp -d "${TMPDIR:-/tmp}/nat-testbed.$SCENARIO.XXXXXX")"
echo "nat-testbed: $SCENARIO turn=$TURN mode=$MODE, logs in $LOGDIR" >&2

FAILED_TAILS=false
# shellcheck disable=SC2317 # invoked by the EXIT trap
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    set +e
    # Every process we started runs inside one of our namespaces: end them
    # by pid (TERM, then KILL after a grace period), then drop the namespaces
    # (which also removes their veths).
    local ns pid pids=()
    for ns in "${CREATED_NS[@]}"; do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do pids+=("$pid"); done
    done
    if [ ${#pids[@]} -gt 0 ]; then
        kill -TERM "${pids[@]}" 2>/dev/null
        for _ in $(seq 20); do
            local alive=0
            for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
            [ "$alive" = 0 ] && break
            sleep 0.1
        done
        kill -KILL "${pids[@]}" 2>/dev/null
    fi
    for ns in "${CREATED_NS[@]}"; do
        ip netns del "$ns" 2>/dev/null
    done
    if [ "$rc" != 0 ] && [ "$FAILED_TAILS" = false ] && [ -n "${LOGDIR:-}" ]; then
        print_log_tails "$LOGDIR" >&2
    fi
    if [ "$rc" != 0 ] && [ "$PRINTED" = false ]; then
        emit_setup_failure "${RESULT_ERROR:-interrupted or failed during setup (exit $rc)}"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'RESULT_ERROR="interrupted"; exit 130' INT
trap 'RESULT_ERROR="terminated"; exit 143' TERM

# ------------------------------------------------------------------ topology
for ns in "$NS_A" "$NS_NA" "$NS_PUB" "$NS_NB" "$NS_B" "$NS_SINK"; do
    if ip netns list | awk '{print $1}' | grep -qxF -- "$ns"; then
        RESULT_ERROR="namespace $ns already exists"
        exit 1
    fi
    ip netns add "$ns"
    CREATED_NS+=("$ns")
    ip -n "$ns" link set lo up
done

# veth pairs are created directly inside their namespaces: no interface ever
# exists in the root namespace, so names cannot collide with anything.
link() { # ns1 if1 ns2 if2
    ip -n "$1" link add "$2" type veth peer name "$4" netns "$3"
    ip -n "$1" link set "$2" up
    ip -n "$3" link set "$4" up
}
link "$NS_A" eth0 "$NS_NA" lan
link "$NS_NA" wan "$NS_PUB" to-a
link "$NS_PUB" to-b "$NS_NB" wan
link "$NS_NB" lan "$NS_B" eth0

ip -n "$NS_A" addr add 10.0.1.2/24 dev eth0
ip -n "$NS_NA" addr add 10.0.1.1/24 dev lan
ip -n "$NS_NA" addr add 198.51.100.2/24 dev wan
ip -n "$NS_PUB" addr add 198.51.100.1/24 dev to-a
ip -n "$NS_PUB" addr add 203.0.113.1/24 dev to-b
ip -n "$NS_NB" addr add 203.0.113.2/24 dev wan
ip -n "$NS_NB" addr add 10.0.2.1/24 dev lan
ip -n "$NS_B" addr add 10.0.2.2/24 dev eth0

# Every namespace gets a default route: webrtc's mDNS socket needs one
# (without it matchbox panics in its message loop).
ip -n "$NS_A" route add default via 10.0.1.1
ip -n "$NS_B" route add default via 10.0.2.1
ip -n "$NS_NA" route add default via 198.51.100.1
ip -n "$NS_NB" route add default via 203.0.113.1
# The public namespace routes like the internet: its default route leads to
# a sink namespace that forwards nothing, so a packet to a 10.x address
# (coturn relaying to a peer's private host candidate) is sent fine and
# vanishes upstream, as it would from a real server. Without such a route
# sendto() fails (ENETUNREACH/EHOSTUNREACH) and coturn closes the whole
# allocation, which made TURN look broken (see docs/nat-testbed.md).
# NAT_TESTBED_PUBLIC_DEFAULT=unreachable|none reproduces that, together with
# NAT_TESTBED_COTURN_DENY_PRIVATE=0 (coturn's hardening hides it otherwise).
case "${NAT_TESTBED_PUBLIC_DEFAULT:-sink}" in
    sink)
        link "$NS_PUB" upstream "$NS_SINK" in
        ip -n "$NS_PUB" addr add 192.0.2.1/24 dev upstream
        ip -n "$NS_SINK" addr add 192.0.2.254/24 dev in
        ip -n "$NS_PUB" route add default via 192.0.2.254
        # New namespaces may inherit forwarding from the root namespace.
        ip netns exec "$NS_SINK" sysctl -qw net.ipv4.ip_forward=0
        ;;
    unreachable) ip -n "$NS_PUB" route add unreachable default ;;
    none) ;; # coturn only runs here, and it needs no mDNS
    *)
        RESULT_ERROR="NAT_TESTBED_PUBLIC_DEFAULT must be sink, unreachable or none"
        exit 1
        ;;
esac
for ns in "$NS_NA" "$NS_PUB" "$NS_NB"; do
    ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1
done

ipt() { ip netns exec "$1" iptables -w 5 "${@:2}"; }
nat_rules() { # ns inner_ip
    local ns="$1" inner="$2"
    case "$SCENARIO" in
        full-cone)
            ipt "$ns" -t nat -A POSTROUTING -o wan -j MASQUERADE
            ipt "$ns" -t nat -A PREROUTING -i wan -p udp -j DNAT --to-destination "$inner"
            ;;
        port-restricted)
            ipt "$ns" -t nat -A POSTROUTING -o wan -j MASQUERADE
            ipt "$ns" -t mangle -A PREROUTING -i wan -m conntrack --ctstate NEW -j DROP
            ;;
        symmetric)
            ipt "$ns" -t nat -A POSTROUTING -o wan -j MASQUERADE --random-fully
            ipt "$ns" -t mangle -A PREROUTING -i wan -m conntrack --ctstate NEW -j DROP
            ;;
    esac
}
if [ "$SCENARIO" = routed ]; then
    ip -n "$NS_PUB" route add 10.0.1.0/24 via 198.51.100.2
    ip -n "$NS_PUB" route add 10.0.2.0/24 via 203.0.113.2
else
    nat_rules "$NS_NA" 10.0.1.2
    nat_rules "$NS_NB" 10.0.2.2
fi
{
    echo "== $NS_NA"
    ipt "$NS_NA" -S -t nat
    ipt "$NS_NA" -S -t mangle
    echo "== $NS_NB"
    ipt "$NS_NB" -S -t nat
    ipt "$NS_NB" -S -t mangle
} >"$LOGDIR/iptables.txt" 2>&1 || true

# ------------------------------------------------------------------- servers
# Background processes run under `timeout` inside our namespaces; the cleanup
# finds them through `ip netns pids`.
SERVER_LIMIT=$((2 * PEER_LIMIT + 60))
# `nat_probe serve` and `twinstar serve` take the same arguments.
ip netns exec "$NS_PUB" env RUST_LOG="${SERVER_RUST_LOG:-info}" \
    timeout -k 3 "$SERVER_LIMIT" "$BIN" serve --bind "$PUBLIC_IP:$SIGNAL_PORT" \
    >"$LOGDIR/signaling.out" 2>"$LOGDIR/signaling.err" &

# coturn also answers the peers' STUN requests (srflx candidates), so it runs
# with and without --turn. See docs/nat-testbed.md for each flag. Refusing
# private peer addresses is hardening (the relay cannot be used to reach the
# operator's own network), not a requirement: with the sink route, stock
# coturn relays without it (NAT_TESTBED_COTURN_DENY_PRIVATE=0).
COTURN_ARGS=(-n --listening-ip="$PUBLIC_IP" --relay-ip="$PUBLIC_IP" --listening-port="$TURN_PORT"
    --lt-cred-mech --user="$TURN_USER:$TURN_PASS" --realm=twinstar
    --no-tls --no-dtls --no-cli --no-tcp-relay
    --pidfile="$LOGDIR/turnserver.pid" --userdb="$LOGDIR/turndb"
    --simple-log --log-file="$LOGDIR/coturn.log" --verbose)
if [ "${NAT_TESTBED_COTURN_DENY_PRIVATE:-1}" = 1 ]; then
    COTURN_ARGS+=(--denied-peer-ip=10.0.0.0-10.255.255.255
        --denied-peer-ip=172.16.0.0-172.31.255.255
        --denied-peer-ip=192.168.0.0-192.168.255.255)
fi
# Extra flags for experiments, split on spaces.
read -r -a extra <<<"${NAT_TESTBED_COTURN_FLAGS:-}"
COTURN_ARGS+=("${extra[@]}")
ip netns exec "$NS_PUB" timeout -k 3 "$SERVER_LIMIT" turnserver "${COTURN_ARGS[@]}" \
    >"$LOGDIR/coturn.out" 2>&1 &

wait_listening() { # ns proto(t|u) port what
    local _
    for _ in $(seq 100); do
        if [ -n "$(ip netns exec "$1" ss -Hn"$2"l "sport = :$3" 2>/dev/null)" ]; then
            return 0
        fi
        sleep 0.1
    done
    RESULT_ERROR="$4 did not start listening on port $3 within 10 s"
    return 1
}
wait_listening "$NS_PUB" t "$SIGNAL_PORT" "signaling server"
wait_listening "$NS_PUB" u "$TURN_PORT" "coturn"

# --------------------------------------------------------------------- peers
# NAT_TESTBED_NO_STUN=1 and NAT_TESTBED_TURN_URL are for experiments only.
ICE_ARGS=()
if [ "${NAT_TESTBED_NO_STUN:-0}" != 1 ]; then
    ICE_ARGS+=(--stun "stun:$PUBLIC_IP:$TURN_PORT")
fi
if $TURN; then
    ICE_ARGS+=(--turn "${NAT_TESTBED_TURN_URL:-turn:$PUBLIC_IP:$TURN_PORT?transport=udp}"
        --turn-user "$TURN_USER" --turn-pass "$TURN_PASS")
fi
SERVER_URL="ws://$PUBLIC_IP:$SIGNAL_PORT"
if $PROBE; then
    ARGS_A=(peer --server "$SERVER_URL" --room "$ROOM_HOST" "${ICE_ARGS[@]}" --timeout "$PEER_TIMEOUT")
    ARGS_B=(peer --server "$SERVER_URL" --room "$ROOM_JOIN" "${ICE_ARGS[@]}" --timeout "$PEER_TIMEOUT")
else
    GAME_ARGS=(--server "$SERVER_URL" "${ICE_ARGS[@]}" --headless --bot --frames "$FRAMES"
        --json --no-record)
    ARGS_A=(host --room "$ROOM_HOST" "${GAME_ARGS[@]}" --timeout "$HOST_TIMEOUT")
    ARGS_B=(join "$ROOM_JOIN" "${GAME_ARGS[@]}" --timeout "$PEER_TIMEOUT")
fi
PEER_RUST_LOG="${RUST_LOG:-info,webrtc_ice=debug,rtc_ice=debug,rtc_turn=debug,webrtc::peer_connection::transport=debug}"

run_peer() { # name ns args...
    local name="$1" ns="$2"
    shift 2
    echo "$BIN $*" >"$LOGDIR/$name.cmd"
    (
        set +e
        start=$(date +%s%N)
        echo "$start" >"$LOGDIR/$name.start"
        ip netns exec "$ns" env RUST_LOG="$PEER_RUST_LOG" \
            timeout -k 3 "$PEER_LIMIT" "$BIN" "$@" >"$LOGDIR/$name.out" 2>"$LOGDIR/$name.err"
        rc=$?
        end=$(date +%s%N)
        echo "$rc $(((end - start) / 1000000))" >"$LOGDIR/$name.rc"
    ) &
}
run_peer a "$NS_A" "${ARGS_A[@]}"
PID_A=$!
run_peer b "$NS_B" "${ARGS_B[@]}"
PID_B=$!

# The host's notice about the joiner's failed attempt: when it appears on the
# host's stderr (ms since the host started; null if not within the joiner's
# timeout + NOTICE_GRACE), and whether the host was still running then.
NOTICE='no direct network path could be opened'
NOTICE_MS=null
HOST_WAITING=null
if [ "$EXPECT" = fail ] && ! $PROBE; then
    wait "$PID_B" || true
    notice_limit_ms=$(((PEER_TIMEOUT + NOTICE_GRACE) * 1000))
    start_a="$(cat "$LOGDIR/a.start" 2>/dev/null || date +%s%N)"
    while :; do
        now=$(date +%s%N)
        since_ms=$(((now - start_a) / 1000000))
        if grep -aqF "$NOTICE" "$LOGDIR/a.err" 2>/dev/null; then
            NOTICE_MS=$since_ms
            if [ -s "$LOGDIR/a.rc" ]; then HOST_WAITING=false; else HOST_WAITING=true; fi
            break
        fi
        [ "$since_ms" -le "$notice_limit_ms" ] || break
        sleep 0.05
    done
    echo "nat-testbed: host notice after ${NOTICE_MS} ms (host still waiting: $HOST_WAITING)" >&2
fi
# (b may have been waited for already)
wait "$PID_A" "$PID_B" 2>/dev/null || true

# ---------------------------------------------------------------- evaluation
summary_a="$(peer_summary "$LOGDIR" a)"
summary_b="$(peer_summary "$LOGDIR" b)"
echo "peer a: $summary_a" >&2
echo "peer b: $summary_b" >&2

RESULT="$(jq -cn --arg scenario "$SCENARIO" --arg expect "$EXPECT" --arg mode "$MODE" \
    --argjson turn "$TURN" --argjson a "$summary_a" --argjson b "$summary_b" \
    --argjson limit_ms "$(((PEER_TIMEOUT + 2) * 1000))" \
    --argjson host_limit_ms "$(((HOST_TIMEOUT + 2) * 1000))" \
    --argjson notice_ms "$NOTICE_MS" --argjson host_waiting "$HOST_WAITING" \
    --argjson notice_limit_ms "$(((PEER_TIMEOUT + NOTICE_GRACE) * 1000))" --arg logs "$LOGDIR" \
    -f "$REPO/scripts/lib/nat-testbed-verdict.jq")"
PRINTED=true
OK="$(jq -r .ok <<<"$RESULT")"
if [ "$OK" != true ]; then
    echo "nat-testbed: $SCENARIO FAILED: $(jq -r .reason <<<"$RESULT")" >&2
    print_log_tails "$LOGDIR" >&2
    FAILED_TAILS=true
    echo "$RESULT"
    exit 1
fi
echo "nat-testbed: $SCENARIO ok ($(jq -r .reason <<<"$RESULT"))" >&2
echo "$RESULT"
exit 0
