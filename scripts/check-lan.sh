#!/usr/bin/env bash
# LAN discovery (issue 49), in network namespaces: two namespaces on one
# bridge (in a third), multicast between them and no route anywhere else.
# A host in one announces its game by multicast DNS; in the other,
# python-zeroconf (Debian's python3-zeroconf: a client nobody here wrote)
# reads the announcement, then `twinstar join --lan` finds and joins the
# game without being given any address, and both end with one checksum.
# Each `join --lan` must print the list it heard, one line a game: host,
# room code or "private", version.
# Rounds: a public room (its code in the announcement, `join
# --lan`), a private one (no code announced, `join CODE --lan`), a plain
# quick match (`join`) that takes the public LAN game first, and two hosts
# at once, one public and one private in a third namespace: both listed
# (the private one without its code), `join --lan` takes the public one
# and `join CODE --lan` the private one. Then `join --lan` on a terminal
# (a pty) asks which game, and its answer (a private game's number, then
# its code) joins that one. Last, the native Join screen in a window (Xvfb
# in the joiner's namespace) lists the host's game and Enter joins it.
#
#   scripts/check-lan.sh [--bin PATH] [--out DIR]
#       root; the game is $TWINSTAR_BIN, else target/debug/twinstar; the
#       Join screen's screenshot goes to DIR/join-screen.png (default
#       target/check-lan)
#
# Multicast stays in the namespaces: the games announce and browse only
# there (TWINSTAR_LAN_DISCOVERY=on for them, off for everything else).
# Prints one summary line; exit 0 when every check held.
set -euo pipefail
# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs, outside the
# namespaces below.
export TWINSTAR_LAN_DISCOVERY=off
cd "$(dirname "$0")/.."
# shellcheck source=lib/debian-packages.sh
source scripts/lib/debian-packages.sh

bin=${TWINSTAR_BIN:-target/debug/twinstar}
out=target/check-lan
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin=${2:?--bin needs a path}; shift 2 ;;
        --out) out=${2:?--out needs a directory}; shift 2 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "check-lan: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
fail() {
    echo "check-lan: FAILED: $*" >&2
    exit 1
}
[ "$(id -u)" = 0 ] || fail "needs root (network namespaces)"
[ -x "$bin" ] || fail "no game binary at $bin (cargo build, or --bin)"
bin=$(realpath "$bin")
mkdir -p "$out" || fail "cannot make $out"
out=$(realpath "$out")
debian_install check-lan "${DEBIAN_LAN[@]}" "${DEBIAN_RUN[@]}" xvfb libgl1-mesa-dri libxtst6 jq
/usr/bin/python3 -c 'import zeroconf' 2> /dev/null || fail "no python3-zeroconf (apt-get install python3-zeroconf)"

id=$$
br=tslan-br-$id a=tslan-a-$id b=tslan-b-$id c=tslan-c-$id
work=$(mktemp -d /tmp/twinstar-lan.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
    wait 2> /dev/null || true
    for ns in "$a" "$b" "$c" "$br"; do ip netns del "$ns" 2> /dev/null || true; done
    if [ "${keep:-0}" = 1 ]; then echo "check-lan: logs in $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# The LAN: a bridge in its own namespace, a veth to each player's
# (10.77.0.1 in a, .2 in b, .3 in c).
ip netns add "$br"
ip netns add "$a"
ip netns add "$b"
ip netns add "$c"
ip -n "$br" link add br0 type bridge
ip -n "$br" link set br0 up
n=1
for ns in "$a" "$b" "$c"; do
    ip link add e0 netns "$ns" type veth peer name "p$n" netns "$br"
    ip -n "$br" link set "p$n" master br0 up
    ip -n "$ns" addr add "10.77.0.$n/24" dev e0
    ip -n "$ns" link set e0 up
    ip -n "$ns" link set lo up
    # Multicast goes out of e0 (no default route: nothing else is reachable).
    ip -n "$ns" route add 224.0.0.0/4 dev e0
    n=$((n + 1))
done

# game NS NAME ARGS...: the game in namespace NS, announcing and browsing,
# its settings and records its own, in the background; logs NAME.{out,err}.
game() {
    local ns=$1 name=$2
    shift 2
    mkdir -p "$work/$name"
    ip netns exec "$ns" env TWINSTAR_LAN_DISCOVERY=on RUST_LOG=twinstar=info \
        TWINSTAR_DATA_DIR="$work/$name" TWINSTAR_CONFIG="$work/$name/settings.toml" \
        "$bin" "$@" < /dev/null > "$work/$name.out" 2> "$work/$name.err" &
    pids+=($!)
}

# wait_line FILE PATTERN SECONDS: the first line of FILE matching PATTERN.
wait_line() {
    local deadline=$((SECONDS + $3)) line
    while [ $SECONDS -lt "$deadline" ]; do
        line=$(grep -m1 -E "$2" "$1" 2> /dev/null || true)
        [ -n "$line" ] && { echo "$line"; return 0; }
        sleep 0.1
    done
    return 1
}

common=(--headless --frames 300 --stun none --no-record --json --timeout 30)
summary=()
version=""

# start_host LABEL NS NAME PUBLIC(0|1): a host in NS; sets host_pid and
# host_code once it has announced its game.
start_host() {
    local label=$1 ns=$2 args=(host --name "$3")
    [ "$4" = 1 ] && args+=(--public)
    game "$ns" "host-$label" "${args[@]}" "${common[@]}"
    host_pid=${pids[-1]}
    host_code=$(wait_line "$work/host-$label.err" 'room code [A-Z0-9-]+' 20 | sed -E 's/.*room code ([A-Z0-9-]+).*/\1/') ||
        { keep=1; fail "$label: the host printed no room code"; }
    wait_line "$work/host-$label.err" 'announced on the LAN' 10 > /dev/null ||
        { keep=1; fail "$label: the host did not announce (its log: $work/host-$label.err)"; }
}

# finish LABEL HOST JOINER HOST_PID JOIN_PID: both exit 0 with one
# checksum; sets checksum.
finish() {
    local label=$1 rc=0
    wait "$5" || rc=$?
    [ "$rc" = 0 ] || { keep=1; fail "$label: the joiner exited $rc ($(tail -n 3 "$work/$3.err" | tr '\n' ' '))"; }
    wait "$4" || rc=$?
    [ "$rc" = 0 ] || { keep=1; fail "$label: the host exited $rc ($(tail -n 3 "$work/$2.err" | tr '\n' ' '))"; }
    local hc jc
    hc=$(tail -n 1 "$work/$2.out" | jq -r .checksum)
    jc=$(tail -n 1 "$work/$3.out" | jq -r .checksum)
    [ -n "$hc" ] && [ "$hc" != null ] && [ "$hc" = "$jc" ] ||
        { keep=1; fail "$label: checksums differ or are missing (host $hc, joiner $jc)"; }
    checksum=$hc
}

# listed LABEL JOINER LINE...: the joiner's list (`LAN game N: ...` on
# stderr, numbers dropped) is exactly these lines, in any order.
listed() {
    local label=$1 joiner=$2
    shift 2
    local got want
    got=$(sed -nE 's/^twinstar: LAN game [0-9]+: //p' "$work/$joiner.err" | sort)
    want=$(printf '%s\n' "$@" | sort)
    [ "$got" = "$want" ] ||
        { keep=1; fail "$label: $joiner listed [$(echo "$got" | paste -sd '|')], not [$(echo "$want" | paste -sd '|')]"; }
}

# round LABEL PUBLIC(0|1) NAME [quick]: one host and one joiner over the
# LAN; with `quick` the joiner is a plain quick match (`twinstar join`, no
# code, no --lan), which takes a public LAN game of its version first.
round() {
    local label=$1 public=$2 name=$3 quick=${4:-} announced found_ms join_args found_line
    start_host "$label" "$a" "$name" "$public"
    local code=$host_code
    # The announcement as another implementation reads it.
    announced=$(ip netns exec "$b" /usr/bin/python3 scripts/lib/zeroconf_browse.py 10) ||
        { keep=1; fail "$label: python-zeroconf saw no announcement"; }
    echo "$announced" > "$work/zeroconf-$label.json"
    jq -e --arg name "$name" --arg code "$code" --argjson public "$public" '
        .txt.name == $name and (.txt.version | length > 0) and .port == 3536
        and (.addresses | index("10.77.0.1"))
        and (if $public == 1 then .txt.public == "1" and .txt.room == $code
             else .txt.public == "0" and (.txt | has("room") | not) end)' \
        <<< "$announced" > /dev/null ||
        { keep=1; fail "$label: the announcement is not what the host is: $announced"; }
    version=$(jq -r .txt.version <<< "$announced")
    # The joiner: no address given; a private room's code only.
    join_args=(join --lan --name Cy)
    [ "$public" = 1 ] || join_args=(join "$code" --lan --name Cy)
    found_line="found a LAN game: room $code on ws://10.77.0.1:3536"
    if [ "$quick" = quick ]; then
        join_args=(join --name Cy)
        found_line="quick match found a LAN game: room $code on ws://10.77.0.1:3536"
    fi
    local start_ms
    start_ms=$(date +%s%3N)
    game "$b" "join-$label" "${join_args[@]}" "${common[@]}"
    local join_pid=${pids[-1]}
    found_ms=$(( $(wait_line "$work/join-$label.err" 'found a LAN game' 10 > /dev/null && date +%s%3N || echo "$start_ms") - start_ms ))
    finish "$label" "host-$label" "join-$label" "$host_pid" "$join_pid"
    grep -q "$found_line" "$work/join-$label.err" ||
        { keep=1; fail "$label: the joiner did not say: $found_line"; }
    if [ "$quick" != quick ]; then
        local room="room $code"
        [ "$public" = 1 ] || room=private
        listed "$label" "join-$label" "$name, $room, version $version"
    fi
    summary+=("$label: room $code found in ${found_ms} ms, 300 frames, checksum $checksum on both")
}

# Two hosts at once: Eve's public game in a, Fay's private one in c. A
# `join --lan` lists both (Fay's without its code) and takes Eve's; a
# `join CODE --lan` with Fay's code takes Fay's.
two_hosts() {
    start_host two-public "$a" Eve 1
    local eve_pid=$host_pid eve_code=$host_code
    start_host two-private "$c" Fay 0
    local fay_pid=$host_pid fay_code=$host_code
    game "$b" join-two-public join --lan --name Gus "${common[@]}"
    local gus_pid=${pids[-1]}
    game "$b" join-two-private join "$fay_code" --lan --name Hal "${common[@]}"
    local hal_pid=${pids[-1]}
    finish two-public host-two-public join-two-public "$eve_pid" "$gus_pid"
    local eve_checksum=$checksum
    finish two-private host-two-private join-two-private "$fay_pid" "$hal_pid"
    listed two join-two-public "Eve, room $eve_code, version $version" "Fay, private, version $version"
    ! grep -qF "$fay_code" "$work/join-two-public.err" ||
        { keep=1; fail "two: the private room's code reached a joiner who was not given it"; }
    grep -q "found a LAN game: room $eve_code on ws://10.77.0.1:3536" "$work/join-two-public.err" ||
        { keep=1; fail "two: join --lan did not take the public game"; }
    grep -q "found a LAN game: room $fay_code on ws://10.77.0.3:3536" "$work/join-two-private.err" ||
        { keep=1; fail "two: join CODE --lan did not take the private game"; }
    summary+=("two hosts: both listed (the private one without its code), Eve's room $eve_code (checksum $eve_checksum) and Fay's $fay_code (checksum $checksum) each in sync")
}

# A joiner on a terminal (a pty from util-linux's `script`): it lists Jo's
# public game and Kim's private one and asks which; the answer is Kim's
# number, then Kim's code (a private game asks for it). A plain `join
# --lan` beside it, not on a terminal, takes Jo's public game.
terminal_round() {
    start_host tty-public "$a" Jo 1
    local jo_pid=$host_pid jo_code=$host_code
    start_host tty-private "$c" Kim 0
    local kim_pid=$host_pid kim_code=$host_code
    mkdir -p "$work/join-tty"
    mkfifo "$work/tty.in"
    ip netns exec "$b" env TWINSTAR_LAN_DISCOVERY=on RUST_LOG=twinstar=info \
        TWINSTAR_DATA_DIR="$work/join-tty" TWINSTAR_CONFIG="$work/join-tty/settings.toml" \
        script -qfec "$(printf '%q ' "$bin" join --lan --name Lu "${common[@]}")" /dev/null \
        < "$work/tty.in" > "$work/join-tty.log" 2>&1 &
    local lu_pid=$!
    pids+=("$lu_pid")
    # Held open until the match ends: the end of its input is a ^D.
    exec 3> "$work/tty.in"
    wait_line "$work/join-tty.log" 'join which LAN game' 15 > /dev/null ||
        { keep=1; fail "terminal: join --lan on a terminal did not ask which game ($(tr -d '\r' < "$work/join-tty.log" | tail -n 3 | paste -sd ' '))"; }
    local number
    number=$(tr -d '\r' < "$work/join-tty.log" | sed -nE 's/^twinstar: LAN game ([0-9]+): Kim, private, .*/\1/p' | head -n 1)
    [ -n "$number" ] || { keep=1; fail "terminal: Kim's private game is not in the list ($(tr -d '\r' < "$work/join-tty.log" | grep 'LAN game' | paste -sd '|'))"; }
    echo "$number" >&3
    wait_line "$work/join-tty.log" "Kim's room code" 5 > /dev/null ||
        { keep=1; fail "terminal: choosing the private game did not ask for its code"; }
    echo "$kim_code" >&3
    game "$b" join-tty-plain join --lan --name Mo "${common[@]}"
    local mo_pid=${pids[-1]}
    finish terminal-public host-tty-public join-tty-plain "$jo_pid" "$mo_pid"
    local jo_checksum=$checksum rc=0
    wait "$lu_pid" || rc=$?
    exec 3>&-
    [ "$rc" = 0 ] || { keep=1; fail "terminal: the joiner on a terminal exited $rc ($(tr -d '\r' < "$work/join-tty.log" | tail -n 3 | paste -sd ' '))"; }
    wait "$kim_pid" || rc=$?
    [ "$rc" = 0 ] || { keep=1; fail "terminal: Kim's host exited $rc"; }
    local kc lc
    kc=$(tail -n 1 "$work/host-tty-private.out" | jq -r .checksum)
    lc=$(tr -d '\r' < "$work/join-tty.log" | grep '^{' | tail -n 1 | jq -r .checksum)
    [ -n "$kc" ] && [ "$kc" != null ] && [ "$kc" = "$lc" ] ||
        { keep=1; fail "terminal: checksums differ or are missing (Kim $kc, the terminal's joiner $lc)"; }
    grep -q "found a LAN game: room $kim_code on ws://10.77.0.3:3536" <(tr -d '\r' < "$work/join-tty.log") ||
        { keep=1; fail "terminal: the answer did not take Kim's game"; }
    grep -q "found a LAN game: room $jo_code on ws://10.77.0.1:3536" "$work/join-tty-plain.err" ||
        { keep=1; fail "terminal: join --lan off a terminal did not take Jo's public game"; }
    summary+=("terminal: asked, answered $number and Kim's code, joined room $kim_code in sync (checksum $kc); off a terminal Jo's $jo_code (checksum $jo_checksum)")
}

# The native Join screen in a window (Xvfb, inside the joiner's namespace):
# Online, then Join, opens it, it must list the host's game (its log
# says "join: 1 LAN games listed"; a screenshot of it is kept in OUT), and
# Enter joins it: the match is agreed, and the host plays its 300 frames
# with no desync against the window's game.
window_round() {
    local display n
    for n in $(seq 150 199); do
        [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || { display=":$n"; break; }
    done
    [ -n "${display:-}" ] || fail "window: no free X display number"
    mkdir -p "$work/fb"
    ip netns exec "$b" Xvfb "$display" -screen 0 1280x720x24 -nolisten tcp -fbdir "$work/fb" > /dev/null 2>&1 &
    pids+=($!)
    for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X${display#:}" ] && break; sleep 0.1; done
    keys() { ip netns exec "$b" python3 tests/it/common/keys.py "$display" "$@"; }
    start_host window "$a" Ivy 1
    local code=$host_code
    mkdir -p "$work/menu"
    ip netns exec "$b" env DISPLAY="$display" TWINSTAR_LAN_DISCOVERY=on RUST_LOG=twinstar=info \
        TWINSTAR_DATA_DIR="$work/menu" TWINSTAR_CONFIG="$work/menu/settings.toml" \
        "$bin" --volume 0 < /dev/null > "$work/menu.out" 2> "$work/menu.err" &
    pids+=($!)
    local menu_pid=$!
    wait_line "$work/menu.err" 'main menu' 30 > /dev/null || { keep=1; fail "window: the menu did not open"; }
    sleep 0.5
    # Join is the second item of Online, the main menu's third.
    keys "<Down>" "@0.1" "<Down>" "@0.3" "<Return>"
    wait_line "$work/menu.err" 'online menu' 15 > /dev/null || { keep=1; fail "window: the Online menu did not open"; }
    keys "@0.3" "<Down>" "@0.3" "<Return>"
    wait_line "$work/menu.err" 'join: 1 LAN games listed' 15 > /dev/null ||
        { keep=1; fail "window: the Join screen did not list the host's game ($(grep 'LAN games listed' "$work/menu.err" | tail -n 1))"; }
    sleep 0.5
    xwdtopnm "$work/fb/Xvfb_screen0" 2> /dev/null > "$work/join-screen.ppm" ||
        { keep=1; fail "window: cannot read Xvfb's screen"; }
    pnmtopng < "$work/join-screen.ppm" > "$out/join-screen.png" 2> /dev/null
    local colours
    colours=$(ppmhist -noheader "$work/join-screen.ppm" | wc -l)
    [ "$colours" -ge 8 ] || { keep=1; fail "window: the Join screen's screenshot has $colours colours (nothing drawn?)"; }
    keys "<Return>"
    wait_line "$work/menu.err" 'agreed: player 2' 30 > /dev/null ||
        { keep=1; fail "window: Enter on the listed game did not join it ($(tail -n 3 "$work/menu.err" | tr '\n' ' '))"; }
    local rc=0
    wait "$host_pid" || rc=$?
    [ "$rc" = 0 ] || { keep=1; fail "window: the host exited $rc ($(tail -n 3 "$work/host-window.err" | tr '\n' ' '))"; }
    jq -e '.frames == 300 and .desyncs == 0 and .mismatches == 0' <(tail -n 1 "$work/host-window.out") > /dev/null ||
        { keep=1; fail "window: the host's match was not 300 frames in sync: $(tail -n 1 "$work/host-window.out")"; }
    kill "$menu_pid" 2> /dev/null || true
    summary+=("window: the Join screen listed room $code (screenshot $out/join-screen.png, $colours colours), Enter joined it, 300 frames with no desync")
}

round public 1 Ana
round private 0 Bo
round quick 1 Di quick
two_hosts
terminal_round
window_round
echo "check-lan: python-zeroconf read every announcement (the private one without its code); every join --lan listed what it heard; $(IFS=';'; echo "${summary[*]}")"
