#!/usr/bin/env bash
# deploy/compose.yaml brought up whole with podman-compose, and played
# through (issue 47; root: podman).
#
#   scripts/check-compose.sh
#
# The stack as the file has it: two nodes of the server's image
# (localhost/twinstar-server:check, from scripts/check-server-image.sh),
# HAProxy, Redis and coturn. No registry is reachable here, so HAProxy,
# Redis and coturn come from one image of Debian's packages
# (scripts/lib/stack.Containerfile, on a Debian root made with debootstrap;
# both images are kept by podman for the next run). Then:
# - HAProxy answers /readyz; coturn takes a TURN REST credential a node
#   minted (/ice, a real Allocate) and refuses a forged one;
# - public rooms are opened through HAProxy until each node holds one
#   (rooms shard by code; the nodes' metrics say where each went), and
#   /rooms through HAProxy lists both nodes' rooms (the Redis directory);
# - a match starts in the second node's room; the first node is stopped
#   (SIGTERM: it drains): its room leaves /rooms while the match on the
#   second node plays to its end, both players agreeing.
# The players are $TWINSTAR_BIN (default target/debug/twinstar), outside.
set -euo pipefail
# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs.
export TWINSTAR_LAN_DISCOVERY=off
cd "$(dirname "$0")/.."
# shellcheck source=lib/podman.sh
source scripts/lib/podman.sh
# shellcheck source=lib/free-port.sh
source scripts/lib/free-port.sh

fail() {
    echo "check-compose: FAILED: $*" >&2
    exit 1
}
[ "$(id -u)" = 0 ] || { echo "check-compose: podman here needs root" >&2; exit 1; }
# podman-compose from PyPI: Debian's 1.0.3 cannot start a service on the
# host's network (coturn's: "cannot set multiple networks").
PODMAN_COMPOSE_VERSION=1.6.0
scripts=$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')
podman_compose="$scripts/podman-compose"
if ! "$podman_compose" version 2> /dev/null | grep -q "podman-compose version $PODMAN_COMPOSE_VERSION"; then
    python3 -m pip install --quiet --disable-pip-version-check "podman-compose==$PODMAN_COMPOSE_VERSION" > /dev/null 2>&1 ||
        fail "pip install podman-compose==$PODMAN_COMPOSE_VERSION failed"
fi
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
bin=${TWINSTAR_BIN:-$target_dir/debug/twinstar}
[ -x "$bin" ] || fail "no twinstar binary at $bin (cargo build, or set TWINSTAR_BIN)"
export CONTAINERS_CONF="$PWD/scripts/lib/containers.conf"
server_image=localhost/twinstar-server:check
podman image exists "$server_image" || fail "no $server_image (bash scripts/check-server-image.sh --build-only)"

started=$(date +%s)
# The stand-in image for HAProxy, Redis and coturn, once per machine.
stack_image=localhost/twinstar-stack:bookworm
if ! podman image exists "$stack_image"; then
    if ! podman image exists localhost/twinstar-debian:bookworm; then
        root=$(mktemp -d)
        mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2> /dev/null | head -n 1)
        echo "check-compose: debootstrap bookworm (minbase) for the stack's image" >&2
        debootstrap --variant=minbase bookworm "$root" "${mirror:-http://deb.debian.org/debian}" > "$root.log" 2>&1 ||
            { tail -5 "$root.log" >&2; fail "debootstrap failed"; }
        tar -C "$root" -c . | podman import - localhost/twinstar-debian:bookworm > /dev/null
        rm -rf "$root" "$root.log"
    fi
    podman build -t "$stack_image" -f scripts/lib/stack.Containerfile scripts/lib > "$target_dir/stack-image.log" 2>&1 ||
        { tail -5 "$target_dir/stack-image.log" >&2; fail "the stack's image did not build"; }
fi

work=$(mktemp -d)
project=twinstar-check
export TWINSTAR_IMAGE=$server_image HAPROXY_IMAGE=$stack_image REDIS_IMAGE=$stack_image COTURN_IMAGE=$stack_image
export TWINSTAR_PUBLIC_HOST=127.0.0.1
TWINSTAR_TURN_SECRET=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
TWINSTAR_HTTP_PORT=$(free_port) TWINSTAR_TURN_PORT=$(free_port)
TWINSTAR_NODE1_METRICS=$(free_port) TWINSTAR_NODE2_METRICS=$(free_port)
export TWINSTAR_TURN_SECRET TWINSTAR_HTTP_PORT TWINSTAR_TURN_PORT TWINSTAR_NODE1_METRICS TWINSTAR_NODE2_METRICS
compose() { "$podman_compose" -p "$project" -f deploy/compose.yaml "$@"; }
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
    compose down -t 0 > /dev/null 2>&1 || true
    [ -z "${KEEP_WORK:-}" ] || { echo "check-compose: logs kept in $work" >&2; return; }
    rm -rf "$work"
}
trap cleanup EXIT
compose down -t 0 > /dev/null 2>&1 || true
compose up -d > "$work/up.log" 2>&1 || { tail -10 "$work/up.log" >&2; fail "podman-compose up failed"; }

proxy="127.0.0.1:$TWINSTAR_HTTP_PORT"
status() { curl -s -o /dev/null -w '%{http_code}' "http://$proxy$1"; }
for _ in $(seq 150); do [ "$(status /readyz)" = 200 ] && break; sleep 0.2; done
[ "$(status /readyz)" = 200 ] || { compose logs > "$work/logs" 2>&1; tail -20 "$work/logs" >&2; fail "HAProxy did not answer /readyz within 30 s"; }
for _ in $(seq 50); do ss -lnu | grep -q ":$TWINSTAR_TURN_PORT " && break; sleep 0.2; done
ss -lnu | grep -q ":$TWINSTAR_TURN_PORT " || fail "coturn does not listen on UDP $TWINSTAR_TURN_PORT"
# The credential a node mints works on coturn: a real TURN Allocate with it
# (and a forged one is refused), so the two share the secret.
ice=$(curl -s "http://$proxy/ice")
read -r turn_user turn_pass < <(python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(d["username"], d["credential"])' "$ice") ||
    fail "/ice through HAProxy gave no TURN REST credential: $ice"
[[ "$ice" == *"turn:127.0.0.1:$TWINSTAR_TURN_PORT"* ]] || fail "/ice does not name coturn's port: $ice"
allocated=$(python3 scripts/lib/turn_allocate.py 127.0.0.1 "$TWINSTAR_TURN_PORT" "$turn_user" "$turn_pass" || true)
[ "$allocated" = allocated ] || fail "coturn did not take the credential a node minted: $allocated"
forged=$(python3 scripts/lib/turn_allocate.py 127.0.0.1 "$TWINSTAR_TURN_PORT" "$turn_user" "not-the-password" || true)
[[ "$forged" == refused* ]] || fail "coturn took a forged credential: $forged"

node_rooms() {
    local port
    [ "$1" = 1 ] && port=$TWINSTAR_NODE1_METRICS || port=$TWINSTAR_NODE2_METRICS
    curl -s "http://127.0.0.1:$port/metrics" | sed -n 's/^twinstar_public_rooms \([0-9]*\).*/\1/p'
}
# "ok" and the codes /rooms lists through HAProxy (nothing when a request
# fails: a stopped node answers nothing until HAProxy's checks take it out).
listed() {
    curl -s -m 3 "http://$proxy/rooms" | python3 -c '
import json, sys
try:
    print("ok", " ".join(r["code"].replace("-", "") for r in json.load(sys.stdin)["rooms"]))
except ValueError:
    pass' || true
}
# A waiting public host in room $1 (frames: the match it plays if joined).
host() {
    (cd "$work" && exec timeout -k 3 120 "$bin" host --room "$1" --public --name "Host $1" \
        --server "ws://$proxy" --headless --bot --frames 1200 --json --timeout 90 --no-record \
        > "host-$1.out" 2> "host-$1.err") &
    pids+=($!)
    eval "host_pid_$1=$!"
}

# Public rooms until each node holds one: which node a code lands on is
# HAProxy's consistent hash, the same every run.
declare -A room_on=()
for code in CMP2A2 CMP3B3 CMP4C4 CMP5D5 CMP6E6 CMP7F7 CMP8G8 CMP9H9 CMPAJ2 CMPBK3 CMPCM4 CMPDN5; do
    before=("$(node_rooms 1)" "$(node_rooms 2)")
    host "$code"
    for _ in $(seq 50); do
        now=("$(node_rooms 1)" "$(node_rooms 2)")
        [ "${now[*]}" != "${before[*]}" ] && break
        sleep 0.2
    done
    if [ "${now[0]:-0}" -gt "${before[0]:-0}" ]; then node=1; elif [ "${now[1]:-0}" -gt "${before[1]:-0}" ]; then node=2; else
        fail "room $code through HAProxy showed up on neither node (public rooms per node: ${now[*]})"
    fi
    [ -n "${room_on[$node]:-}" ] || room_on[$node]=$code
    if [ -n "${room_on[1]:-}" ] && [ -n "${room_on[2]:-}" ]; then break; fi
done
[ -n "${room_on[1]:-}" ] && [ -n "${room_on[2]:-}" ] || fail "every room landed on one node: ${!room_on[*]}"
a=${room_on[1]} b=${room_on[2]}
for _ in $(seq 30); do
    rooms=" $(listed) "
    [[ "$rooms" == *" $a "* && "$rooms" == *" $b "* ]] && break
    sleep 0.2
done
[[ "$rooms" == *" $a "* && "$rooms" == *" $b "* ]] || fail "/rooms through HAProxy does not list both nodes' rooms $a and $b:$rooms"

# A match in node 2's room, then node 1 stopped under it.
(cd "$work" && exec timeout -k 3 120 "$bin" join "$b" --server "ws://$proxy" --headless --bot \
    --frames 1200 --json --timeout 30 --no-record > "join-$b.out" 2> "join-$b.err") &
join_pid=$!
pids+=($join_pid)
# Connected and playing (a connect takes well under a second here).
sleep 3
stopped=$(date +%s)
compose stop -t 30 node1 > /dev/null 2>&1 || fail "podman-compose stop node1 failed"
stop_took=$(($(date +%s) - stopped))
gone=""
for _ in $(seq 60); do
    rooms=" $(listed) "
    # An answer without node 1's room (not a failed request).
    [[ "$rooms" == " ok "* && "$rooms" != *" $a "* ]] && { gone=$(($(date +%s) - stopped)); break; }
    sleep 0.25
done
[ -n "$gone" ] || fail "node 1's room $a is still in /rooms 15 s after it was stopped:$rooms"
host_pid_var="host_pid_$b"
wait "${!host_pid_var}" || { tail -3 "$work/host-$b.err" >&2; fail "the host of $b (node 2) failed after node 1 stopped"; }
wait "$join_pid" || { tail -3 "$work/join-$b.err" >&2; fail "the joiner of $b (node 2) failed after node 1 stopped"; }
summary() { python3 -c 'import json, sys; d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); print(d["frames"], d["checksum"])' "$1"; }
hs=$(summary "$work/host-$b.out") && js=$(summary "$work/join-$b.out") || fail "a player of $b printed no summary"
[ "$hs" = "$js" ] || fail "the players of $b disagree: $hs and $js"
[ "${hs%% *}" = 1200 ] || fail "the match in $b ended at frame ${hs%% *}, not 1200"

echo "check-compose: deploy/compose.yaml up (2 nodes, HAProxy, Redis, coturn with TURN REST); rooms $a on node 1 and $b on node 2 both in /rooms through HAProxy; node 1 stopped (SIGTERM; the stop took ${stop_took} s): $a left /rooms ${gone} s after the stop began while the match in $b played all 1200 frames in agreement (${hs#* }) ($(($(date +%s) - started)) s)" >&2
