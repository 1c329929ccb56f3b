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
