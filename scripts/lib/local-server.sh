# shellcheck shell=bash
# A signaling server of a script's own: `twinstar serve` on a port the
# system picks (port 0: picking a free port first would race with anything
# else binding meanwhile), its address read back from its stderr. Sourced
# by scripts/soak.sh, scripts/check-prometheus.sh and
# scripts/record-link-traces.sh.
#
#   local_server_start BIN DIR [SERVE_FLAGS...]
#
# Starts `BIN serve --bind ADDR SERVE_FLAGS...` in the background in DIR
# (stdout to DIR/server.out, stderr to DIR/server.err) and waits up to 10 s
# for the address it says it listens on. Settings, from the environment:
#   LOCAL_SERVER_BIND    ADDR (default 127.0.0.1:0; an IP with port 0 for
#                        another interface)
#   LOCAL_SERVER_NETNS   a network namespace to run it in (ip netns exec)
#   LOCAL_SERVER_LIMIT   seconds it may run at most (timeout -k 3)
#   LOCAL_SERVER_LOG     its RUST_LOG (default: warn)
# Sets LOCAL_SERVER_PID, LOCAL_SERVER_URL (ws://IP:PORT) and, when the flags
# hold --metrics-bind, LOCAL_SERVER_METRICS (IP:PORT of the metrics
# listener). On failure it stops the server and returns 1, with
# LOCAL_SERVER_ERROR saying why in one line (with the server's last words).
#
#   local_server_stop
#
# Ends that server (TERM to its pid, KILL if it still runs 3 s later) and
# reaps it. Does nothing when none runs, so a caller's cleanup trap can
# always call it.

# shellcheck disable=SC2034 # set here, read by the caller
LOCAL_SERVER_PID=""
LOCAL_SERVER_URL=""
LOCAL_SERVER_METRICS=""
LOCAL_SERVER_ERROR=""

local_server_start() {
    local bin="$1" dir="$2" bind="${LOCAL_SERVER_BIND:-127.0.0.1:0}" metrics=false flag _
    shift 2
    for flag in "$@"; do [ "$flag" != --metrics-bind ] || metrics=true; done
    local cmd=(env RUST_LOG="${LOCAL_SERVER_LOG:-warn}")
    [ -z "${LOCAL_SERVER_LIMIT:-}" ] || cmd+=(timeout -k 3 "$LOCAL_SERVER_LIMIT")
    cmd+=("$bin" serve --bind "$bind" "$@")
    [ -z "${LOCAL_SERVER_NETNS:-}" ] || cmd=(ip netns exec "$LOCAL_SERVER_NETNS" "${cmd[@]}")
    LOCAL_SERVER_URL="" LOCAL_SERVER_METRICS="" LOCAL_SERVER_ERROR=""
    (cd "$dir" && exec "${cmd[@]}" >server.out 2>server.err) &
    LOCAL_SERVER_PID=$!
    # The address it bound (the IP as given: 127.0.0.1, or another).
    local ip="${bind%:*}" pattern
    pattern="ws://${ip//./\\.}:[0-9]*"
    for _ in $(seq 100); do
        LOCAL_SERVER_URL="$(grep -o "$pattern" "$dir/server.err" 2>/dev/null | head -n 1 || true)"
        if $metrics; then
            LOCAL_SERVER_METRICS="$(grep -o 'metrics on http://[0-9.]*:[0-9]*' "$dir/server.err" 2>/dev/null |
                head -n 1 | sed 's|.*http://||' || true)"
        fi
        if [ -n "$LOCAL_SERVER_URL" ] && { ! $metrics || [ -n "$LOCAL_SERVER_METRICS" ]; }; then
            return 0
        fi
        kill -0 "$LOCAL_SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    local said
    said="$(tail -n 2 "$dir/server.err" 2>/dev/null | tr '\n' ' ' | cut -c1-300 || true)"
    if kill -0 "$LOCAL_SERVER_PID" 2>/dev/null; then
        LOCAL_SERVER_ERROR="twinstar serve reported no address$($metrics && echo " and metrics listener") within 10 s${said:+: $said}"
    else
        LOCAL_SERVER_ERROR="twinstar serve ended at once${said:+: $said}"
    fi
    local_server_stop
    return 1
}

local_server_stop() {
    [ -n "$LOCAL_SERVER_PID" ] || return 0
    local _
    # SIGTERM drains (players still connected are told); a second one, or
    # KILL after 3 s, ends it at once.
    kill -TERM "$LOCAL_SERVER_PID" 2>/dev/null || true
    for _ in $(seq 30); do
        kill -0 "$LOCAL_SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$LOCAL_SERVER_PID" 2>/dev/null || true
    wait "$LOCAL_SERVER_PID" 2>/dev/null || true
    LOCAL_SERVER_PID=""
}
