#!/usr/bin/env bash
# NAT hole-punching testbed: two peers behind simulated NATs, a signaling
# server and a TURN server on a simulated public network, all in network
# namespaces on this machine. See docs/nat-testbed.md.
#
#   scripts/nat-testbed.sh SCENARIO [--turn | --internet] [--frames N] [--probe]
#                          [--cut SECS [--cut-at SECS] [--cut-side a|b] [--cut-path | --move]
#                                      [--reconnect-window SECS]]
#                          [--rejoin]
#
#   SCENARIO   routed | full-cone | port-restricted | symmetric
#   --turn     also give the peers the TURN server (coturn) as ICE server
#   --internet a public server as deployed: twinstar serve with TLS (a private
#              CA, trusted through SSL_CERT_FILE) hands out STUN and TURN with
#              REST credentials (coturn: use-auth-secret); the peers get only
#              --server wss://...; coturn must refuse a forged and an expired
#              credential and take a minted one
#   --browser  (with --internet) peer a is headless Chromium behind NAT A,
#              opening the https room link the server serves (target/web);
#              peer b is the native joiner behind NAT B; with --cut the
#              page records too (its replay comes back as a download) and
#              its console lines are timed like a native peer's log
#   --frames N frames the game plays (game mode only; default 300, with --cut (AT+5)*60)
#   --probe    run examples/nat_probe instead of the game (network only)
#   --cut SECS cut all traffic of one side's NAT for SECS s in mid-match (game mode)
#   --cut-at SECS   when: SECS after both peers logged the match start (default 4)
#   --cut-side a|b  whose NAT goes dark (default a, the host)
#   --cut-path      cut only the path between the peers (UDP between the two
#                   NATs' public addresses, at the cut side's NAT), not the
#                   server: the peers must reconnect through it
#   --move          the cut side moves during the cut, as a laptop going from
#                   Wi-Fi to a phone's hotspot: its host's address changes
#                   (10.0.x.2 -> 10.0.x.3) and so does its NAT's public
#                   address (x.2 -> x.3); the old ones never come back, so
#                   the old path cannot resume (port-restricted, symmetric)
#   --reconnect-window SECS  the peers' --reconnect-window (with --cut; default 30, the game's)
#   --rejoin   kill peer b (-9) 4 s into the match and run its join again:
#              it must rejoin, and both finish in sync with identical replays,
#              the host's upload ranked
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
# With --cut, once both peers have logged "synchronized with the peer" and
# --cut-at seconds more have passed, the cut side's NAT namespace drops every
# IPv4 packet that enters it from either side (iptables raw PREROUTING DROP on
# lan and wan: before conntrack, so its NAT state ages as in a real outage) for
# SECS seconds; then the rules go. A cut shorter than the reconnect window must
# pause and resume the match: both exit 0, equal checksums, both logged the
# interruption and the resumption, both replays verify and replay-diff finds
# no difference. A longer cut must end it: both exit 1 with "stopped
# responding" within window + 3 s after the cut began (the link comes back as
# soon as both have exited). Replays go to the log dir (--record).
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
# NAT_TESTBED_GAME_FLAGS: extra flags for both game peers, split on spaces.
set -euo pipefail
# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs.
export TWINSTAR_LAN_DISCOVERY=off

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/lib/nat-testbed-lib.sh
source "$REPO/scripts/lib/nat-testbed-lib.sh"

usage() {
    sed -n '5,31p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
}

# ---------------------------------------------------------------- arguments
SCENARIO=""
TURN=false
INTERNET=false
BROWSER=false
FRAMES=""
PROBE=false
CUT=""          # seconds; empty: no cut
CUT_AT=4        # seconds after both peers logged the match start
CUT_SIDE=a
CUT_PATH=false  # --cut-path: only UDP between the NATs
MOVE=false      # --move: the cut side comes back with new addresses
REJOIN=false
WINDOW=""       # the peers' --reconnect-window; empty: 30, the game's default (passed explicitly with --cut)
bad_input() {
    echo "nat-testbed: $*" >&2
    usage
    echo "{\"scenario\":\"${SCENARIO//[^a-z-]/}\",\"ok\":false,\"error\":\"bad input\"}"
    exit 2
}

while [ $# -gt 0 ]; do
    case "$1" in
        --turn) TURN=true ;;
        --internet) INTERNET=true TURN=true ;;
        --browser) BROWSER=true ;;
        --probe) PROBE=true ;;
        --rejoin) REJOIN=true ;;
        --cut-path) CUT_PATH=true ;;
        --move) MOVE=true ;;
        --frames)
            [ $# -ge 2 ] || bad_input "--frames needs a value"
            FRAMES="$2"
            shift
            ;;
        --frames=*) FRAMES="${1#--frames=}" ;;
        --cut | --cut-at | --cut-side | --reconnect-window)
            [ $# -ge 2 ] || bad_input "$1 needs a value"
            case "$1" in
                --cut) CUT="$2" ;;
                --cut-at) CUT_AT="$2" ;;
                --cut-side) CUT_SIDE="$2" ;;
                --reconnect-window) WINDOW="$2" ;;
            esac
            shift
            ;;
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
if [ -n "$CUT" ]; then
    [[ "$CUT" =~ ^[1-9][0-9]{0,2}$ ]] || bad_input "--cut must be a whole number of seconds from 1 to 999, got '$CUT'"
    [[ "$CUT_AT" =~ ^[0-9]{1,2}$ ]] || bad_input "--cut-at must be a whole number of seconds from 0 to 99, got '$CUT_AT'"
    [[ "$CUT_SIDE" =~ ^[ab]$ ]] || bad_input "--cut-side must be a or b, got '$CUT_SIDE'"
    WINDOW="${WINDOW:-30}"
    [[ "$WINDOW" =~ ^[1-9][0-9]{0,2}$ ]] || bad_input "--reconnect-window must be a whole number of seconds from 1 to 999, got '$WINDOW'"
    ! $PROBE || bad_input "--cut needs the game (not --probe)"
    [ "$SCENARIO" != symmetric ] || $TURN || bad_input "--cut needs a connection: symmetric only connects with --turn"
    # The game calls the link interrupted after 0.5 s of silence and gives
    # up WINDOW s after the last packet: too close to call either way.
    [ $((CUT - WINDOW)) -ge 2 ] || [ $((WINDOW - CUT)) -ge 2 ] ||
        bad_input "--cut $CUT is within 2 s of the reconnect window ($WINDOW s): no single expected outcome"
    # Play goes on CUT_AT s before the cut and ~5 s after it.
    FRAMES="${FRAMES:-$(((CUT_AT + 5) * 60))}"
elif [ "$CUT_AT" != 4 ] || [ "$CUT_SIDE" != a ] || [ -n "$WINDOW" ] || $CUT_PATH || $MOVE; then
    bad_input "--cut-at, --cut-side, --cut-path, --move and --reconnect-window only go with --cut"
fi
if $MOVE; then
    ! $CUT_PATH || bad_input "--move and --cut-path are separate tests (a move cuts everything)"
    # A masquerading NAT follows its new public address by itself; the
    # routed and full-cone set-ups name the inner address in their routes.
    case "$SCENARIO" in
        port-restricted | symmetric) ;;
        *) bad_input "--move needs a masquerading NAT (port-restricted or symmetric), not $SCENARIO" ;;
    esac
fi
if $REJOIN; then
    [ -z "$CUT" ] || bad_input "--rejoin and --cut are separate tests"
    ! $PROBE || bad_input "--rejoin needs the game (not --probe)"
    [ "$SCENARIO" != symmetric ] || $TURN || bad_input "--rejoin needs a connection: symmetric only connects with --turn"
    WINDOW=20
    # 4 s of play, the kill, ~2 s to rejoin, ~6 s more.
    FRAMES="${FRAMES:-$(((CUT_AT + 8) * 60))}"
fi
FRAMES="${FRAMES:-300}"
! { $INTERNET && $PROBE; } || bad_input "--internet needs the game (not --probe)"
! $BROWSER || $INTERNET || bad_input "--browser goes with --internet"
! { $BROWSER && $REJOIN; } || bad_input "--browser does not go with --rejoin (tests/it/browser.rs covers a page's rejoin)"
WEB_DIR="${TWINSTAR_WEB:-$REPO/target/web}"
if $BROWSER; then
    [ -s "$WEB_DIR/twinstar_bg.wasm" ] || bad_input "--browser needs the web client in $WEB_DIR (bash scripts/build-web.sh)"
    [ -d "$REPO/tests/web/node_modules/playwright-core" ] || bad_input "--browser needs the driver: (cd tests/web && npm ci)"
fi
[[ "$FRAMES" =~ ^[1-9][0-9]{0,6}$ ]] || bad_input "--frames must be a positive integer, got '$FRAMES'"
read -r -a EXTRA_GAME_FLAGS <<<"${NAT_TESTBED_GAME_FLAGS:-}"
for flag in "${EXTRA_GAME_FLAGS[@]}"; do
    case "$flag" in
        --reconnect-window* | --frames*)
            bad_input "NAT_TESTBED_GAME_FLAGS: pass $flag as the script's own option (the verdict needs its value)" ;;
        --record* | --no-record | --timeout* | --json | --headless)
            bad_input "NAT_TESTBED_GAME_FLAGS: $flag is set by the script" ;;
    esac
done

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
    # Connect (<= 15 s) + the match at 60 fps, twice over, + margin
    # (+ the pause of a cut).
    PEER_LIMIT=$((PEER_TIMEOUT + FRAMES / 30 + 30 + ${CUT:-0} + CUT_AT))
fi
# What a cut must do to the match: pause it (resume) or end it (end).
CUT_EXPECT=null
if [ -n "$CUT" ]; then
    if [ "$CUT" -lt "$WINDOW" ]; then CUT_EXPECT=resume; else CUT_EXPECT=end; fi
fi
END_GRACE=3 # a too-long cut: both must have ended within WINDOW + this after it began
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
command -v openssl >/dev/null || need+=(openssl)
command -v curl >/dev/null || need+=(curl)
command -v python3 >/dev/null || need+=(python3)
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
CREATED_NS=() # the namespaces made so far (scripts/lib/nat-testbed-lib.sh)
LOGDIR="$(mktemp -d "${TMPDIR:-/tmp}/nat-testbed.$SCENARIO.XXXXXX")"
echo "nat-testbed: $SCENARIO turn=$TURN mode=$MODE, logs in $LOGDIR" >&2

FAILED_TAILS=false
# shellcheck disable=SC2317 # invoked by the EXIT trap
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    set +e
    # Every process we started runs inside one of our namespaces: end them
    # by pid, then drop the namespaces (which also removes their veths).
    ntb_teardown
    if [ "$rc" != 0 ] && [ "$FAILED_TAILS" = false ] && [ -n "${LOGDIR:-}" ]; then
        print_log_tails "$LOGDIR" >&2
    fi
    if [ "$rc" != 0 ] && [ "$PRINTED" = false ]; then
        emit_setup_failure "${RESULT_ERROR:-${NTB_ERROR:-interrupted or failed during setup (exit $rc)}}"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'RESULT_ERROR="interrupted"; exit 130' INT
trap 'RESULT_ERROR="terminated"; exit 143' TERM

# ------------------------------------------------------------------ topology
# scripts/lib/nat-testbed-lib.sh: the namespaces, their links and routes
# (NAT_TESTBED_PUBLIC_DEFAULT=unreachable|none: the public namespace's
# default route, for experiments), the NATs' rules.
ntb_namespaces "$PREFIX"
ntb_topology "${NAT_TESTBED_PUBLIC_DEFAULT:-sink}"
ntb_nat_rules "$SCENARIO"
{
    echo "== $NS_NA"
    ntb_ipt "$NS_NA" -S -t nat
    ntb_ipt "$NS_NA" -S -t mangle
    echo "== $NS_NB"
    ntb_ipt "$NS_NB" -S -t nat
    ntb_ipt "$NS_NB" -S -t mangle
} >"$LOGDIR/iptables.txt" 2>&1 || true

# ------------------------------------------------------------------- servers
# Background processes run under `timeout` inside our namespaces; the cleanup
# finds them through `ip netns pids`.
SERVER_LIMIT=$((2 * PEER_LIMIT + 60))
# `nat_probe serve` and `twinstar serve` take the same arguments.
SERVE_ARGS=(serve --bind "$PUBLIC_IP:$SIGNAL_PORT")
SCHEME=ws
PEER_ENV=()
if $INTERNET; then
    bash "$REPO/scripts/lib/make-test-certs.sh" "$LOGDIR/certs" "$PUBLIC_IP" >&2
    # Written before the server starts, which reads it at once: written after
    # it (as it once was), a server that started quickly found no file and
    # exited ("cannot read the TURN secret"), so the scenario failed on an
    # idle machine and passed on a loaded one (issue 45's ledger).
    TURN_SECRET="$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
    printf '%s\n' "$TURN_SECRET" >"$LOGDIR/turn-secret"
    SERVE_ARGS+=(--tls-cert "$LOGDIR/certs/server.pem" --tls-key "$LOGDIR/certs/server.key"
        --stun "stun:$PUBLIC_IP:$TURN_PORT" --turn "turn:$PUBLIC_IP:$TURN_PORT?transport=udp"
        --turn-secret-file "$LOGDIR/turn-secret")
    SCHEME=wss
    PEER_ENV=(SSL_CERT_FILE="$LOGDIR/certs/ca.pem")
    ! $BROWSER || SERVE_ARGS+=(--web "$WEB_DIR")
fi
ip netns exec "$NS_PUB" env RUST_LOG="${SERVER_RUST_LOG:-info}" \
    timeout -k 3 "$SERVER_LIMIT" "$BIN" "${SERVE_ARGS[@]}" \
    >"$LOGDIR/signaling.out" 2>"$LOGDIR/signaling.err" &

# coturn also answers the peers' STUN requests (srflx candidates), so it runs
# with and without --turn. See docs/nat-testbed.md for each flag. Refusing
# private peer addresses is hardening (the relay cannot be used to reach the
# operator's own network), not a requirement: with the sink route, stock
# coturn relays without it (NAT_TESTBED_COTURN_DENY_PRIVATE=0).
if $INTERNET; then
    # The TURN REST convention: coturn checks what twinstar serve mints
    # (the secret was written before the server started, above).
    CRED_ARGS=(--use-auth-secret --static-auth-secret="$TURN_SECRET")
else
    CRED_ARGS=(--lt-cred-mech --user="$TURN_USER:$TURN_PASS")
fi
COTURN_ARGS=(-n --listening-ip="$PUBLIC_IP" --relay-ip="$PUBLIC_IP" --listening-port="$TURN_PORT"
    "${CRED_ARGS[@]}" --realm=twinstar
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

ntb_wait_listening "$NS_PUB" t "$SIGNAL_PORT" "signaling server"
ntb_wait_listening "$NS_PUB" u "$TURN_PORT" "coturn"

# --------------------------------------------------------------------- peers
# NAT_TESTBED_NO_STUN=1 and NAT_TESTBED_TURN_URL are for experiments only.
ICE_ARGS=()
if [ "${NAT_TESTBED_NO_STUN:-0}" != 1 ] && ! $INTERNET; then
    ICE_ARGS+=(--stun "stun:$PUBLIC_IP:$TURN_PORT")
fi
# --internet: the peers know only the server; it hands out STUN and TURN.
if $TURN && ! $INTERNET; then
    ICE_ARGS+=(--turn "${NAT_TESTBED_TURN_URL:-turn:$PUBLIC_IP:$TURN_PORT?transport=udp}"
        --turn-user "$TURN_USER" --turn-pass "$TURN_PASS")
fi
SERVER_URL="$SCHEME://$PUBLIC_IP:$SIGNAL_PORT"
if $PROBE; then
    ARGS_A=(peer --server "$SERVER_URL" --room "$ROOM_HOST" "${ICE_ARGS[@]}" --timeout "$PEER_TIMEOUT")
    ARGS_B=(peer --server "$SERVER_URL" --room "$ROOM_JOIN" "${ICE_ARGS[@]}" --timeout "$PEER_TIMEOUT")
else
    GAME_ARGS=(--server "$SERVER_URL" "${ICE_ARGS[@]}" --headless --bot --frames "$FRAMES"
        --json "${EXTRA_GAME_FLAGS[@]}")
    if [ -n "$CUT" ] || $REJOIN; then
        # Replays of a cut or rejoined match must verify and be identical.
        GAME_ARGS+=(--reconnect-window "$WINDOW")
        REC_A=(--record "$LOGDIR/a.tsr")
        REC_B=(--record "$LOGDIR/b.tsr")
    else
        REC_A=(--no-record)
        REC_B=(--no-record)
    fi
    ARGS_A=(host --room "$ROOM_HOST" "${GAME_ARGS[@]}" "${REC_A[@]}" --timeout "$HOST_TIMEOUT")
    ARGS_B=(join "$ROOM_JOIN" "${GAME_ARGS[@]}" "${REC_B[@]}" --timeout "$PEER_TIMEOUT")
fi
PEER_RUST_LOG="${RUST_LOG:-info,webrtc_ice=debug,rtc_ice=debug,rtc_turn=debug,webrtc::peer_connection::transport=debug}"
# The cut needs the match start, the interruption and the resumption lines.
[ -z "$CUT" ] || PEER_RUST_LOG="$PEER_RUST_LOG,twinstar::session::online=info"

run_peer() { # name ns args...
    local name="$1" ns="$2"
    shift 2
    echo "$BIN $*" >"$LOGDIR/$name.cmd"
    (
        set +e
        start=$(date +%s%N)
        echo "$start" >"$LOGDIR/$name.start"
        ip netns exec "$ns" env RUST_LOG="$PEER_RUST_LOG" TWINSTAR_DATA_DIR="$LOGDIR" "${PEER_ENV[@]}" \
            timeout -k 3 "$PEER_LIMIT" "$BIN" "$@" >"$LOGDIR/$name.out" 2>"$LOGDIR/$name.err"
        rc=$?
        end=$(date +%s%N)
        echo "$end" >"$LOGDIR/$name.end"
        echo "$rc $(((end - start) / 1000000))" >"$LOGDIR/$name.rc"
    ) &
}
# A browser player: drive.mjs prints the page's console and, last, its
# result line (TWINSTAR-RESULT {"exit":N,"summary":{...}}); its summary
# becomes a.out's last line and its exit a.rc's, as a native peer's would.
run_browser_peer() { # name ns url [drive flags...]
    local name="$1" ns="$2" url="$3"
    local flags=("${@:4}")
    echo "node tests/web/drive.mjs $url" >"$LOGDIR/$name.cmd"
    (
        set +e
        start=$(date +%s%N)
        echo "$start" >"$LOGDIR/$name.start"
        # The testbed's CA is not in Chromium's store: its certificate
        # errors are ignored (the native peer checks it through SSL_CERT_FILE).
        (cd "$REPO" && ip netns exec "$ns" timeout -k 3 "$PEER_LIMIT" node tests/web/drive.mjs "$url" \
            --timeout $((PEER_LIMIT - 5)) --flag=--ignore-certificate-errors "${flags[@]}" \
            >"$LOGDIR/$name.page" 2>"$LOGDIR/$name.err")
        result="$(grep -a '^TWINSTAR-RESULT ' "$LOGDIR/$name.page" | tail -n 1 | cut -d' ' -f2-)"
        [ -n "$result" ] || result='{}'
        rc="$(jq -r '.exit // 1' <<<"$result" 2>/dev/null || echo 1)"
        jq -c '.summary // {}' <<<"$result" >"$LOGDIR/$name.out" 2>/dev/null || echo '{}' >"$LOGDIR/$name.out"
        end=$(date +%s%N)
        echo "$end" >"$LOGDIR/$name.end"
        echo "${rc:-1} $(((end - start) / 1000000))" >"$LOGDIR/$name.rc"
    ) &
}
if $BROWSER; then
    FRAGMENT="#!host --room $ROOM_HOST --bots --frames $FRAMES --json --timeout $HOST_TIMEOUT"
    DRIVE_FLAGS=()
    if [ -n "$CUT" ]; then
        # The page's replay comes back as a download (a.tsr, beside b's);
        # its console lines, stamped, go to a.err for the cut's timings.
        FRAGMENT+=" --reconnect-window $WINDOW --record a.tsr"
        DRIVE_FLAGS=(--downloads "$LOGDIR" --stamp-console)
    fi
    run_browser_peer a "$NS_A" "https://$PUBLIC_IP:$SIGNAL_PORT/${FRAGMENT// /%20}" "${DRIVE_FLAGS[@]}"
else
    run_peer a "$NS_A" "${ARGS_A[@]}"
fi
PID_A=$!
if $BROWSER; then
    # The joiner starts once the page is in the room: Chromium's start, the
    # page and its wasm took 14.4 s on a loaded CI machine (eighth
    # validation run), which the joiner's --timeout (15 s, what a player
    # waits to meet) must not pay for. Up to 60 s, or until the page ends.
    for _ in $(seq 600); do
        grep -q 'joined (1/2)' "$LOGDIR/signaling.err" 2>/dev/null && break
        [ -s "$LOGDIR/a.rc" ] && break
        sleep 0.1
    done
    grep -q 'joined (1/2)' "$LOGDIR/signaling.err" 2>/dev/null ||
        echo "nat-testbed: the page did not join room $ROOM_HOST within 60 s; starting the joiner anyway" >&2
fi
run_peer b "$NS_B" "${ARGS_B[@]}"
PID_B=$!

both_done() { [ -s "$LOGDIR/a.rc" ] && [ -s "$LOGDIR/b.rc" ]; }
any_done() { [ -s "$LOGDIR/a.rc" ] || [ -s "$LOGDIR/b.rc" ]; }

# -------------------------------------------------------------------- rejoin
# Kill b once the match runs, wait for a to say it waits, start b's join
# again (its rejoin ticket is in its data folder) and judge the outcome here.
if $REJOIN; then
    SYNC='synchronized with the peer'
    fail_rejoin() {
        echo "nat-testbed: $SCENARIO rejoin FAILED: $1" >&2
        print_log_tails "$LOGDIR" >&2
        FAILED_TAILS=true
        PRINTED=true
        jq -cn --arg s "$SCENARIO" --arg e "$1" --arg logs "$LOGDIR" --argjson turn "$TURN" \
            '{scenario:$s, ok:false, turn:$turn, mode:"rejoin", error:$e, logs:$logs}'
        exit 1
    }
    deadline=$(($(date +%s) + HOST_TIMEOUT + 10))
    until grep -aqF "$SYNC" "$LOGDIR/a.err" 2>/dev/null && grep -aqF "$SYNC" "$LOGDIR/b.err" 2>/dev/null; do
        { ! any_done && [ "$(date +%s)" -le "$deadline" ]; } || fail_rejoin "the match did not start on both sides"
        sleep 0.05
    done
    sleep "$CUT_AT"
    for pid in $(ip netns pids "$NS_B"); do kill -9 "$pid" 2>/dev/null || true; done
    KILLED_NS=$(date +%s%N)
    wait "$PID_B" 2>/dev/null || true
    until grep -aqF "waiting up to" "$LOGDIR/a.err"; do
        [ $(($(date +%s%N) - KILLED_NS)) -lt 10000000000 ] || fail_rejoin "a did not notice that b was killed within 10 s"
        sleep 0.02
    done
    NOTICED_MS=$((($(date +%s%N) - KILLED_NS) / 1000000))
    ARGS_B2=(join "$ROOM_JOIN" "${GAME_ARGS[@]}" --record "$LOGDIR/b2.tsr" --timeout "$PEER_TIMEOUT")
    run_peer b2 "$NS_B" "${ARGS_B2[@]}"
    PID_B2=$!
    wait "$PID_A" "$PID_B2" 2>/dev/null || true
    summary_a="$(peer_summary "$LOGDIR" a)"
    summary_b2="$(peer_summary "$LOGDIR" b2)"
    echo "peer a: $summary_a" >&2
    echo "peer b2: $summary_b2" >&2
    va=0 vb=0 d=0
    timeout 120 "$BIN" replay "$LOGDIR/a.tsr" --headless --verify --json >"$LOGDIR/a.verify.out" 2>&1 || va=$?
    timeout 120 "$BIN" replay "$LOGDIR/b2.tsr" --headless --verify --json >"$LOGDIR/b2.verify.out" 2>&1 || vb=$?
    timeout 120 "$BIN" replay-diff "$LOGDIR/a.tsr" "$LOGDIR/b2.tsr" >"$LOGDIR/replay-diff.out" 2>&1 || d=$?
    RESULT="$(jq -cn --arg s "$SCENARIO" --argjson turn "$TURN" --arg expect "$EXPECT" \
        --argjson a "$summary_a" --argjson b "$summary_b2" --argjson frames "$FRAMES" \
        --argjson noticed "$NOTICED_MS" --argjson va "$va" --argjson vb "$vb" --argjson d "$d" \
        --arg logs "$LOGDIR" '
        ($a.json // {}) as $ja | ($b.json // {}) as $jb |
        {scenario:$s, turn:$turn, mode:"rejoin", logs:$logs,
         ok:($a.rc == 0 and $b.rc == 0 and $ja.checksum_frame == $frames
             and $ja.checksum == $jb.checksum and $ja.rejoins == 1 and $jb.player == 2
             and $va == 0 and $vb == 0 and $d == 0
             # A crash and rejoin is ranked like any other match (issue 57):
             # the host uploads, and the server counts the rejoin as the
             # same match.
             and ($ja.upload.ranked != null)
             and (if $expect == "relay" then $jb.connection == "relay" else true end)),
         connection:$jb.connection, checksum:$ja.checksum, noticed_kill_ms:$noticed,
         rejoin_connect_ms:$jb.connect_ms, catch_up_bytes:$ja.catch_up_bytes,
         upload:$ja.upload,
         replays:{a_verify_rc:$va, b2_verify_rc:$vb, diff_rc:$d}, a:$a, b2:$b}')"
    PRINTED=true
    [ "$(jq -r .ok <<<"$RESULT")" = true ] || fail_rejoin "$RESULT"
    echo "nat-testbed: $SCENARIO rejoin ok (killed b, a noticed in $NOTICED_MS ms, b rejoined over $(jq -r .connection <<<"$RESULT") and played to frame $FRAMES in $(jq -r .rejoin_connect_ms <<<"$RESULT") ms from its start; equal checksums, replays verify and match, the host's upload ranked)" >&2
    echo "$RESULT"
    exit 0
fi

# ----------------------------------------------------------------------- cut
# move_side a|b: the side's host and NAT trade their addresses for new ones
# (.2 -> .3 on the LAN and on the WAN). The new address is added first and
# promoted when the old one goes, so the subnet routes stay; the kernel drops
# the masquerade entries of the deleted public address, so the NAT maps anew.
MOVED=null
move_side() {
    local host_ns nat_ns lan wan
    if [ "$1" = a ]; then
        host_ns=$NS_A nat_ns=$NS_NA lan=10.0.1 wan=198.51.100
    else
        host_ns=$NS_B nat_ns=$NS_NB lan=10.0.2 wan=203.0.113
    fi
    move_addr "$host_ns" eth0 "$lan.2" "$lan.3"
    move_addr "$nat_ns" wan "$wan.2" "$wan.3"
    ip -n "$host_ns" route replace default via "$lan.1"
    ip -n "$nat_ns" route replace default via "$wan.1"
    MOVED="{\"host\":\"$lan.2 -> $lan.3\",\"nat\":\"$wan.2 -> $wan.3\"}"
}
move_addr() { # ns dev old new
    ip netns exec "$1" sysctl -qw "net.ipv4.conf.$2.promote_secondaries=1"
    ip -n "$1" addr add "$4/24" dev "$2"
    ip -n "$1" addr del "$3/24" dev "$2"
}

# Once both peers have logged the match start, wait CUT_AT s, then the cut
# side's NAT drops every IPv4 packet entering it from the LAN or the WAN
# (raw PREROUTING: before conntrack, so nothing refreshes its NAT state,
# as when the link is really gone) for CUT s, or until both peers have
# exited. Times are epoch ns on this machine's clock, the same one the
# peers' log timestamps use.
CUT_ERROR=""
CUT_START_NS=null
CUT_END_NS=null
CUT_DROPPED=null
if [ -n "$CUT" ]; then
    SYNC='synchronized with the peer'
    if [ "$CUT_SIDE" = a ]; then NS_CUT="$NS_NA"; else NS_CUT="$NS_NB"; fi
    sync_deadline=$(($(date +%s) + HOST_TIMEOUT + 10))
    until grep -aqF "$SYNC" "$LOGDIR/a.err" 2>/dev/null && grep -aqF "$SYNC" "$LOGDIR/b.err" 2>/dev/null; do
        if any_done || [ "$(date +%s)" -gt "$sync_deadline" ]; then
            CUT_ERROR="the match did not start on both sides, no cut"
            break
        fi
        sleep 0.05
    done
    if [ -z "$CUT_ERROR" ]; then
        sleep "$CUT_AT"
        if any_done; then
            CUT_ERROR="a peer had already exited ${CUT_AT} s after the match start: --frames $FRAMES is too short for the cut"
        fi
    fi
    if [ -z "$CUT_ERROR" ]; then
        if $CUT_PATH; then
            # Only the peers' path: UDP to and from the other NAT.
            if [ "$CUT_SIDE" = a ]; then far=203.0.113.2; else far=198.51.100.2; fi
            cut_rules=(-i lan -p udp -d "$far" -j DROP --- -i wan -p udp -s "$far" -j DROP)
        else
            cut_rules=(-i lan -j DROP --- -i wan -j DROP)
        fi
        cut_rule() { # cut_rule -I|-D: both rules of cut_rules
            local op="$1" rule=()
            for w in "${cut_rules[@]}" ---; do
                if [ "$w" = --- ]; then
                    if [ "$op" = -I ]; then ntb_ipt "$NS_CUT" -t raw -I PREROUTING 1 "${rule[@]}"; else ntb_ipt "$NS_CUT" -t raw -D PREROUTING "${rule[@]}"; fi
                    rule=()
                else
                    rule+=("$w")
                fi
            done
        }
        cut_rule -I
        CUT_START_NS=$(date +%s%N)
        echo "nat-testbed: cut $($CUT_PATH && echo "the peers' path at ")NAT $CUT_SIDE for $CUT s (reconnect window $WINDOW s)" >&2
        if $MOVE; then
            move_side "$CUT_SIDE"
            echo "nat-testbed: side $CUT_SIDE moved: $MOVED" >&2
        fi
        cut_until=$((CUT_START_NS + CUT * 1000000000))
        while [ "$(date +%s%N)" -lt "$cut_until" ] && ! both_done; do sleep 0.02; done
        # Packets dropped in each direction (proof that the cut was two-way).
        CUT_DROPPED="$(ntb_ipt "$NS_CUT" -t raw -L PREROUTING -v -x -n |
            awk '$3 == "DROP" { for (i = 4; i <= NF; i++) if ($i == "lan" || $i == "wan") n[$i] = $1 }
                 END { printf "{\"from_lan\":%d,\"from_wan\":%d}", n["lan"], n["wan"] }')"
        cut_rule -D
        CUT_END_NS=$(date +%s%N)
        echo "nat-testbed: link restored after $(((CUT_END_NS - CUT_START_NS) / 1000000)) ms, dropped $CUT_DROPPED" >&2
    fi
fi

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

CUT_JSON=null
if [ -n "$CUT" ]; then
    facts_a="$(cut_peer_facts "$LOGDIR" a "$CUT_START_NS" "$CUT_END_NS")"
    facts_b="$(cut_peer_facts "$LOGDIR" b "$CUT_START_NS" "$CUT_END_NS")"
    replays="$(replay_checks "$BIN" "$LOGDIR")"
    cut_ms=null
    [ "$CUT_END_NS" = null ] || cut_ms=$(((CUT_END_NS - CUT_START_NS) / 1000000))
    CUT_JSON="$(jq -cn --argjson cut_s "$CUT" --argjson at "$CUT_AT" --arg side "$CUT_SIDE" \
        --argjson window "$WINDOW" --arg expect "$CUT_EXPECT" --arg err "$CUT_ERROR" \
        --argjson cut_ms "$cut_ms" --argjson dropped "$CUT_DROPPED" \
        --argjson a "$facts_a" --argjson b "$facts_b" --argjson replays "$replays" \
        --argjson end_limit_ms "$(((WINDOW + END_GRACE) * 1000))" \
        --argjson path_only "$CUT_PATH" --argjson moved "$MOVED" \
        '{cut_s:$cut_s, cut_at_s:$at, side:$side, path_only:$path_only, moved:$moved, reconnect_window_s:$window, expect:$expect,
          error:(if $err == "" then null else $err end), cut_ms:$cut_ms, dropped:$dropped,
          end_limit_ms:$end_limit_ms, a:$a, b:$b, replays:$replays}')"
    echo "cut: $CUT_JSON" >&2
fi

RESULT="$(jq -cn --arg scenario "$SCENARIO" --arg expect "$EXPECT" --arg mode "$MODE" \
    --argjson turn "$TURN" --argjson a "$summary_a" --argjson b "$summary_b" \
    --argjson limit_ms "$(((PEER_TIMEOUT + 2) * 1000))" \
    --argjson host_limit_ms "$(((HOST_TIMEOUT + 2) * 1000))" \
    --argjson notice_ms "$NOTICE_MS" --argjson host_waiting "$HOST_WAITING" \
    --argjson notice_limit_ms "$(((PEER_TIMEOUT + NOTICE_GRACE) * 1000))" --arg logs "$LOGDIR" \
    --argjson cut "$CUT_JSON" \
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
if $INTERNET; then
    # coturn takes a credential the server minted (fetched from /ice as a
    # player would, from behind NAT A) and refuses a forged and an expired one.
    allocate() {
        local from=()
        [ "$1" != --from ] || { from=(--from "$2"); shift 2; }
        ip netns exec "$NS_A" timeout 10 python3 "$REPO/scripts/lib/turn_allocate.py" "${from[@]}" "$PUBLIC_IP" "$TURN_PORT" "$@" || true
    }
    offer="$(ip netns exec "$NS_A" timeout 10 curl -s --cacert "$LOGDIR/certs/ca.pem" "https://$PUBLIC_IP:$SIGNAL_PORT/ice" || true)"
    user="$(jq -r '.username // empty' <<<"$offer" 2>/dev/null || true)"
    pass="$(jq -r '.credential // empty' <<<"$offer" 2>/dev/null || true)"
    # Each from a port of its own, below the ephemeral range: from ephemeral
    # ports two checks in a row once got the same one, so the same NAT
    # mapping, and coturn answered the expired credential on the forged
    # one's 5-tuple with 437 instead of 401 (docs/testing.md, the ledger).
    minted="$(allocate --from 20001 "$user" "$pass")"
    forged="$(allocate --from 20002 "$user" "Zm9yZ2VkLXBhc3N3b3JkLTEyMzQ=")"
    expired="$(allocate --from 20003 --rest "$TURN_SECRET" intruder "$(($(date +%s) - 60))")"
    # The hardened relay (docs/deploy.md, section 4): with the minted
    # credential, a permission to relay to a private address (host B's, on
    # its LAN) is refused; one to the relay's public address, what the
    # match's relayed peers ask for each other, is granted. Without the
    # private-range hardening (NAT_TESTBED_COTURN_DENY_PRIVATE=0) both are.
    to_private="$(allocate --from 20004 --permit 10.0.2.2 "$user" "$pass")"
    to_public="$(allocate --from 20005 --permit "$PUBLIC_IP" "$user" "$pass")"
    private_refused=true
    [ "${NAT_TESTBED_COTURN_DENY_PRIVATE:-1}" = 1 ] || private_refused=false
    TURN_REST="$(jq -cn --arg m "$minted" --arg f "$forged" --arg e "$expired" \
        --arg p "$to_private" --arg q "$to_public" --argjson deny "$private_refused" \
        '{minted:$m, forged:$f, expired:$e, to_private:$p, to_public:$q,
          ok:($m == "allocated" and ($f | startswith("refused 401")) and ($e | startswith("refused 401"))
              and (if $deny then ($p | startswith("allocated, refused 403")) else $p == "allocated, permitted" end)
              and $q == "allocated, permitted")}')"
    echo "nat-testbed: TURN REST credentials: $TURN_REST" >&2
    # Neither the secret nor a password in the server's logs.
    # Neither the secret nor any player's password in any log of ours: the
    # usernames coturn saw (EXPIRY:NAME) give each password back.
    LEAK=false
    mapfile -t passwords < <(grep -aoE '[0-9]{10}:[0-9a-f]{8}' "$LOGDIR/coturn.log" | sort -u |
        python3 -c 'import base64,hashlib,hmac,sys
s = sys.argv[1].encode()
for u in sys.stdin.read().split():
    print(base64.b64encode(hmac.new(s, u.encode(), hashlib.sha1).digest()).decode())' "$TURN_SECRET")
    [ -z "$pass" ] || passwords+=("$pass")
    logs=("$LOGDIR"/*.err "$LOGDIR"/*.out)
    [ ! -e "$LOGDIR/a.page" ] || logs+=("$LOGDIR/a.page")
    for needle in "$TURN_SECRET" "${passwords[@]}"; do
        if grep -aqF -- "$needle" "${logs[@]}"; then LEAK=true; fi
    done
    echo "nat-testbed: checked ${#passwords[@]} TURN password(s) and the secret against the logs: leaked=$LEAK" >&2
    RESULT="$(jq -c --argjson rest "$TURN_REST" --argjson leak "$LEAK" \
        '. + {internet:true, turn_rest:$rest, secret_in_logs:$leak}
         | .ok = (.ok and $rest.ok and ($leak | not))' <<<"$RESULT")"
    if [ "$(jq -r .ok <<<"$RESULT")" != true ]; then
        echo "nat-testbed: $SCENARIO --internet FAILED: credentials $TURN_REST, secret in logs: $LEAK" >&2
        print_log_tails "$LOGDIR" >&2
        echo "$RESULT"
        exit 1
    fi
fi
echo "nat-testbed: $SCENARIO ok ($(jq -r .reason <<<"$RESULT"))" >&2
echo "$RESULT"
exit 0
