# shellcheck shell=bash
# Helpers for scripts/nat-testbed.sh and scripts/record-link-traces.sh (sourced, not run).

# peer_summary LOGDIR NAME: one JSON object about a finished peer run:
# {"rc":int|null, "elapsed_ms":int|null, "json":object|null, "error":string|null}
# `json` is the peer's last stdout line if it is a JSON object; `error` is its
# "error" field, or else (after a non-zero exit) the last stderr line that is
# not a log line.
peer_summary() {
    local dir="$1" name="$2" rc=null elapsed=null json=null last err=""
    if [ -s "$dir/$name.rc" ]; then
        read -r rc elapsed <"$dir/$name.rc" || true
    fi
    [[ "$rc" =~ ^[0-9]+$ ]] || rc=null
    [[ "$elapsed" =~ ^[0-9]+$ ]] || elapsed=null
    if [ -s "$dir/$name.out" ]; then
        last="$(grep -v '^[[:space:]]*$' "$dir/$name.out" | tail -n 1 || true)"
        if [ -n "$last" ] && jq -e 'type == "object"' <<<"$last" >/dev/null 2>&1; then
            json="$(jq -c . <<<"$last")"
        fi
    fi
    if [ "$json" != null ]; then
        err="$(jq -r '.error // empty | tostring' <<<"$json")"
    fi
    if [ -z "$err" ] && [ "$rc" != 0 ] && [ -s "$dir/$name.err" ]; then
        # The last line that is not a tracing log line (those start with a
        # timestamp) nor blank; else the last line at all. ANSI colours off.
        local clean
        clean="$(sed 's/\x1b\[[0-9;]*m//g' "$dir/$name.err" | tr -d '\000' | grep -av '^[[:space:]]*$' || true)"
        err="$(grep -avE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T' <<<"$clean" | tail -n 1 | cut -c1-300 || true)"
        [ -n "$err" ] || err="$(tail -n 1 <<<"$clean" | cut -c1-300)"
    fi
    jq -cn --argjson rc "$rc" --argjson elapsed "$elapsed" --argjson json "$json" --arg err "$err" \
        '{rc:$rc, elapsed_ms:$elapsed, json:$json, error:(if $err == "" then null else $err end)}'
}

# print_log_tails LOGDIR: the last lines of every log, for a failed run.
print_log_tails() {
    local f
    for f in "$1"/*.out "$1"/*.err "$1"/coturn.log; do
        [ -s "$f" ] || continue
        echo "----- tail $f"
        sed 's/\x1b\[[0-9;]*m//g' "$f" | tail -n 15
    done
}

# log_times FILE TEXT: the epoch ns of every log line of FILE that contains
# TEXT (a fixed string), one per line; tracing lines start with an RFC 3339
# UTC timestamp. Lines without one are skipped.
log_times() {
    local line
    [ -s "$1" ] || return 0
    sed 's/\x1b\[[0-9;]*m//g' "$1" | tr -d '\000' | grep -aF -- "$2" |
        while IFS= read -r line; do line_time "$line"; done
}

# line_time LINE: the epoch ns of a log line's leading timestamp; nothing
# when it has none.
line_time() {
    local ts="${1%%[[:space:]]*}"
    [[ "$ts" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$ ]] || return 0
    date -d "$ts" +%s%N 2>/dev/null || true
}

# cut_peer_facts LOGDIR NAME CUT_START_NS CUT_END_NS: one JSON object about
# what a peer logged around a network cut (times in ms, relative to the cut):
# {"interruptions": n, "interrupted_after_ms": first "interrupted" line after
#  the cut began, "resumptions": n, "resumed_after_ms": M of the first
#  "resumed after M ms" or reconnect line ("reconnected ... after M ms")
#  after the cut began, "restored_to_resumed_ms":
#  that line's time minus the link's restoration, "stopped_responding": bool,
#  "ended_after_cut_ms": the peer's exit minus the cut's start}
# Fields are null when the line (or the cut) is missing.
cut_peer_facts() {
    local dir="$1" name="$2" start="$3" end="$4" err="$1/$2.err"
    local n_int=0 n_res=0 int_ms=null res_m=null res_lag=null stopped=false ended=null t line m
    if [ "$start" != null ]; then
        while read -r t; do
            [ -n "$t" ] || continue
            n_int=$((n_int + 1))
            if [ "$int_ms" = null ] && [ "$t" -ge "$start" ]; then int_ms=$(((t - start) / 1000000)); fi
        done < <(log_times "$err" "interrupted; waiting up to")
        # The resumed lines, with their M, in order.
        while IFS= read -r line; do
            t="$(line_time "$line")"
            m="$(grep -oE '(resumed|reconnected[^;]*) after [0-9]+ ms' <<<"$line" | grep -oE '[0-9]+ ms' | grep -oE '[0-9]+' || true)"
            if [ -z "$t" ] || [ -z "$m" ]; then continue; fi
            n_res=$((n_res + 1))
            if [ "$res_m" = null ] && [ "$t" -ge "$start" ]; then
                res_m=$m
                [ "$end" = null ] || res_lag=$(((t - end) / 1000000))
            fi
        done < <(sed 's/\x1b\[[0-9;]*m//g' "$err" 2>/dev/null | tr -d '\000' | grep -aE "connection resumed after|reconnected to player|player [12] reconnected" || true)
        if [ -s "$dir/$name.end" ]; then
            read -r t <"$dir/$name.end" || true
            [[ "$t" =~ ^[0-9]+$ ]] && ended=$(((t - start) / 1000000))
        fi
    fi
    # The window ran out: GGRS gave up, player 2's fresh connections did
    # not get through, or player 1 paused for them in vain.
    if grep -aqE "stopped responding|could not reconnect within|did not rejoin within" "$err" "$dir/$name.out" 2>/dev/null; then stopped=true; fi
    jq -cn --argjson ni "$n_int" --argjson ims "$int_ms" --argjson nr "$n_res" --argjson rm "$res_m" \
        --argjson lag "$res_lag" --argjson stopped "$stopped" --argjson ended "$ended" \
        '{interruptions:$ni, interrupted_after_ms:$ims, resumptions:$nr, resumed_after_ms:$rm,
          restored_to_resumed_ms:$lag, stopped_responding:$stopped, ended_after_cut_ms:$ended}'
}

# replay_checks BIN LOGDIR: replays a.tsr and b.tsr of a cut run:
# {"a_verify_rc","b_verify_rc","diff_rc"} (null when a file is missing);
# outputs in LOGDIR/{a,b}.verify.out and replay-diff.out.
replay_checks() {
    local bin="$1" dir="$2" p rc va=null vb=null d=null
    for p in a b; do
        [ -s "$dir/$p.tsr" ] || continue
        rc=0
        timeout 120 "$bin" replay "$dir/$p.tsr" --headless --verify --json >"$dir/$p.verify.out" 2>&1 || rc=$?
        if [ "$p" = a ]; then va=$rc; else vb=$rc; fi
    done
    if [ -s "$dir/a.tsr" ] && [ -s "$dir/b.tsr" ]; then
        d=0
        timeout 120 "$bin" replay-diff "$dir/a.tsr" "$dir/b.tsr" --json >"$dir/replay-diff.out" 2>&1 || d=$?
    fi
    jq -cn --argjson va "$va" --argjson vb "$vb" --argjson d "$d" '{a_verify_rc:$va, b_verify_rc:$vb, diff_rc:$d}'
}

# ------------------------------------------------------------------ topology
# The testbed's network (drawn in scripts/nat-testbed.sh's header), also
# used by scripts/record-link-traces.sh:
#
#   host A 10.0.1.2 -- 10.0.1.1 NAT A 198.51.100.2 --+
#                                                     public 198.51.100.1
#   host B 10.0.2.2 -- 10.0.2.1 NAT B 203.0.113.2  --+       203.0.113.1
#                                                       default route -> sink
#
# A failing step returns 1 with NTB_ERROR saying why (one line) where it can
# tell; an `ip` or `iptables` command that fails ends a `set -e` caller.

# ntb_namespaces PREFIX: creates the six namespaces PREFIX-{a,nata,pub,natb,
# b,sink}, named in NS_A NS_NA NS_PUB NS_NB NS_B NS_SINK, loopback up. Each
# one made is appended to CREATED_NS at once, so that a caller's cleanup
# (ntb_teardown) removes a half-made set too. Returns 1 if one exists.
ntb_namespaces() {
    local prefix="$1" ns
    NS_A="$prefix-a"
    NS_NA="$prefix-nata"
    NS_PUB="$prefix-pub"
    NS_NB="$prefix-natb"
    NS_B="$prefix-b"
    NS_SINK="$prefix-sink"
    for ns in "$NS_A" "$NS_NA" "$NS_PUB" "$NS_NB" "$NS_B" "$NS_SINK"; do
        if ip netns list | awk '{print $1}' | grep -qxF -- "$ns"; then
            # shellcheck disable=SC2034 # for the caller
            NTB_ERROR="namespace $ns already exists"
            return 1
        fi
        ip netns add "$ns"
        CREATED_NS+=("$ns")
        ip -n "$ns" link set lo up
    done
}

# ntb_link NS1 IF1 NS2 IF2: a veth pair made directly inside its two
# namespaces (no interface ever exists in the root namespace, so names
# cannot collide with anything), both ends up.
ntb_link() {
    ip -n "$1" link add "$2" type veth peer name "$4" netns "$3"
    ip -n "$1" link set "$2" up
    ip -n "$3" link set "$4" up
}

# ntb_topology [PUBLIC_DEFAULT]: the veths, addresses and routes between the
# namespaces of ntb_namespaces, forwarding on in the NATs and the public
# namespace. PUBLIC_DEFAULT (sink, unreachable or none; default sink) is the
# public namespace's default route: see below. No NAT rules yet
# (ntb_nat_rules).
ntb_topology() {
    ntb_link "$NS_A" eth0 "$NS_NA" lan
    ntb_link "$NS_NA" wan "$NS_PUB" to-a
    ntb_link "$NS_PUB" to-b "$NS_NB" wan
    ntb_link "$NS_NB" lan "$NS_B" eth0

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
    # The public namespace routes like the internet: its default route leads
    # to a sink namespace that forwards nothing, so a packet to a 10.x address
    # (coturn relaying to a peer's private host candidate) is sent fine and
    # vanishes upstream, as it would from a real server. Without such a route
    # sendto() fails (ENETUNREACH/EHOSTUNREACH) and coturn closes the whole
    # allocation, which made TURN look broken (see docs/nat-testbed.md).
    # unreachable|none reproduces that, together with
    # NAT_TESTBED_COTURN_DENY_PRIVATE=0 (coturn's hardening hides it otherwise).
    case "${1:-sink}" in
        sink)
            ntb_link "$NS_PUB" upstream "$NS_SINK" in
            ip -n "$NS_PUB" addr add 192.0.2.1/24 dev upstream
            ip -n "$NS_SINK" addr add 192.0.2.254/24 dev in
            ip -n "$NS_PUB" route add default via 192.0.2.254
            # New namespaces may inherit forwarding from the root namespace.
            ip netns exec "$NS_SINK" sysctl -qw net.ipv4.ip_forward=0
            ;;
        unreachable) ip -n "$NS_PUB" route add unreachable default ;;
        none) ;; # coturn only runs here, and it needs no mDNS
        *)
            # shellcheck disable=SC2034 # for the caller
            NTB_ERROR="the public namespace's default route (NAT_TESTBED_PUBLIC_DEFAULT) must be sink, unreachable or none, got '$1'"
            return 1
            ;;
    esac
    local ns
    for ns in "$NS_NA" "$NS_PUB" "$NS_NB"; do
        ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1
    done
}

# ntb_ipt NS ARGS...: iptables inside NS (waiting up to 5 s for its lock).
ntb_ipt() { ip netns exec "$1" iptables -w 5 "${@:2}"; }

# ntb_nat_rules SCENARIO: both NATs behave as SCENARIO says: routed (no NAT:
# the public namespace routes both LANs), full-cone, port-restricted
# (masquerade; new inbound flows dropped) or symmetric (the same with a
# random port per flow). Returns 1 on another name.
ntb_nat_rules() {
    local ns inner
    case "$1" in
        routed)
            ip -n "$NS_PUB" route add 10.0.1.0/24 via 198.51.100.2
            ip -n "$NS_PUB" route add 10.0.2.0/24 via 203.0.113.2
            return 0
            ;;
        full-cone | port-restricted | symmetric) ;;
        *)
            # shellcheck disable=SC2034 # for the caller
            NTB_ERROR="unknown NAT scenario '$1' (routed, full-cone, port-restricted, symmetric)"
            return 1
            ;;
    esac
    for ns in "$NS_NA" "$NS_NB"; do
        if [ "$ns" = "$NS_NA" ]; then inner=10.0.1.2; else inner=10.0.2.2; fi
        case "$1" in
            full-cone)
                ntb_ipt "$ns" -t nat -A POSTROUTING -o wan -j MASQUERADE
                ntb_ipt "$ns" -t nat -A PREROUTING -i wan -p udp -j DNAT --to-destination "$inner"
                ;;
            port-restricted)
                ntb_ipt "$ns" -t nat -A POSTROUTING -o wan -j MASQUERADE
                ntb_ipt "$ns" -t mangle -A PREROUTING -i wan -m conntrack --ctstate NEW -j DROP
                ;;
            symmetric)
                ntb_ipt "$ns" -t nat -A POSTROUTING -o wan -j MASQUERADE --random-fully
                ntb_ipt "$ns" -t mangle -A PREROUTING -i wan -m conntrack --ctstate NEW -j DROP
                ;;
        esac
    done
}

# ntb_wait_listening NS PROTO(t|u) PORT WHAT: waits up to 10 s for a
# listener on PORT inside NS; returns 1 with NTB_ERROR set if none came.
ntb_wait_listening() {
    local _
    for _ in $(seq 100); do
        if [ -n "$(ip netns exec "$1" ss -Hn"$2"l "sport = :$3" 2>/dev/null)" ]; then
            return 0
        fi
        sleep 0.1
    done
    # shellcheck disable=SC2034 # for the caller
    NTB_ERROR="$4 did not start listening on port $3 within 10 s"
    return 1
}

# ntb_teardown: ends every process running in a namespace of CREATED_NS
# (TERM, then KILL after 2 s), then deletes the namespaces (which also
# removes their veths). Every process a testbed starts runs inside one of
# them, so this ends exactly those. Never fails.
ntb_teardown() {
    local ns pid pids=() alive
    for ns in "${CREATED_NS[@]}"; do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do pids+=("$pid"); done
    done
    if [ ${#pids[@]} -gt 0 ]; then
        kill -TERM "${pids[@]}" 2>/dev/null || true
        for _ in $(seq 20); do
            alive=0
            for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
            [ "$alive" = 0 ] && break
            sleep 0.1
        done
        kill -KILL "${pids[@]}" 2>/dev/null || true
    fi
    for ns in "${CREATED_NS[@]}"; do
        ip netns del "$ns" 2>/dev/null || true
    done
}
