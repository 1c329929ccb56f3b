# bot_match SERVER_URL WORKDIR ROOM: a headless 300-frame match between two
# twinstar bots ($bin) through the signaling server at SERVER_URL, run in
# WORKDIR (their output and logs land there); prints the checksum both
# peers agreed on, or calls `fail` (the caller's) with what went wrong.
# Sourced by scripts/check-server-image.sh.
# shellcheck shell=bash

bot_match() {
    local url=$1 work=$2 room=$3 host join a b
    local common=(--server "$url" --stun none --headless --bot --frames 300 --json --timeout 15 --no-record)
    (cd "$work" && timeout -k 3 60 "$bin" host --room "$room" "${common[@]}" > host.out 2> host.err) &
    host=$!
    sleep 0.2
    (cd "$work" && timeout -k 3 60 "$bin" join "$room" "${common[@]}" > join.out 2> join.err) &
    join=$!
    wait "$host" || { tail -3 "$work/host.err" >&2; fail "the host's match through $url failed"; }
    wait "$join" || { tail -3 "$work/join.err" >&2; fail "the joiner's match through $url failed"; }
    a=$(bot_checksum "$work/host.out") && b=$(bot_checksum "$work/join.out") || fail "a peer printed no summary"
    [ "$a" = "$b" ] || fail "the peers' checksums differ: $a and $b"
    echo "$a"
}

# bot_checksum FILE: the checksum in the --json summary (its last line).
bot_checksum() {
    python3 -c 'import json, sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])["checksum"])' < "$1"
}
