# shellcheck shell=bash
# Helpers for scripts/nat-testbed.sh (sourced, not run).

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
