#!/usr/bin/env bash
# The project's one test command (README): formatting, lints, every test.
# Installs what the tests need on a fresh Debian machine when run as root.
set -euo pipefail
# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs.
export TWINSTAR_LAN_DISCOVERY=off
cd "$(dirname "$0")/.."

# Each step's wall time, so a CI run that grows shows where (CI's budget
# for this whole command: 50 minutes on a fresh clone with an empty compiler
# cache, 25 with a warm one; docs/testing.md has the last figures).
started=$(date +%s)
timed() {
    local name=$1 t=$SECONDS
    shift
    "$@"
    echo "test.sh: [$(($(date +%s) - started)) s] $name took $((SECONDS - t)) s" >&2
}

# The Debian packages (scripts/lib/debian-packages.sh: one list for this,
# the play command and the release build): building and running the game,
# and the tests' own (Xvfb and Mesa for the window tests, Chromium for the
# browser tests, ...). Node.js and npm for the browser tests' driver come
# from Debian when missing.
# shellcheck source=lib/debian-packages.sh
source scripts/lib/debian-packages.sh
extra=()
command -v node >/dev/null || extra+=(nodejs)
command -v npm >/dev/null || extra+=(npm)
debian_install test.sh "${DEBIAN_BUILD[@]}" "${DEBIAN_RUN[@]}" "${DEBIAN_TEST[@]}" "${extra[@]}"

target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
mkdir -p "$target_dir"

# The compiler cache (scripts/lib/sccache.sh): every cargo command below,
# and the tools it installs, compile through one sccache server whose cache
# directory outlives the clone, so a fresh clone on a machine that ran this
# before compiles no dependency again (docs/testing.md: the figures). Its
# hit rate is the run's last line. Without sccache everything still builds.
# shellcheck source=lib/sccache.sh
source scripts/lib/sccache.sh
sccache_setup test.sh
# Tests and root checks that passed only on their one retry (nextest's
# JUnit report; $flaky_steps for the root checks): printed at the end of
# every run, passed or failed, as `FLAKY: NAME (first failure: REASON)`;
# docs/testing.md's ledger keeps them.
flaky_steps="$target_dir/flaky-steps.txt"
rm -f "$flaky_steps" "$target_dir/nextest/default/junit.xml"
on_exit() {
    # Nothing here may change the run's verdict (set -e would make a
    # failed clean-up step the exit status: a run without a retried root
    # check once ended 1 for want of $flaky_steps).
    set +e
    declare -F kill_background > /dev/null && kill_background
    kill $(jobs -p) 2> /dev/null
    {
        python3 scripts/lib/flaky_report.py "$target_dir/nextest/default/junit.xml"
        [ ! -e "$flaky_steps" ] || cat "$flaky_steps"
    } | tee "$target_dir/flaky.txt" >&2
    sccache_report test.sh
}
trap on_exit EXIT

# As root (CI), the slow CPU-bound jobs that only the root section needs
# run in the background at the lowest priority (idle), so they take only
# the cycles the other steps leave idle. Each is collected (waited for,
# its log shown if it failed) where its result is needed. What they need
# from apt is installed first, here: two apt-gets at once would fight over
# dpkg's lock.
background=()
if [ "$(id -u)" = 0 ]; then
    # shellcheck source=lib/cross.sh
    source scripts/lib/cross.sh
    # The musl targets are the server images' (scripts/server-image.sh):
    # musl C compilers for x86_64 and aarch64, the Rust targets.
    CROSS_RUN=1 cross_setup test.sh x86_64-pc-windows-gnu aarch64-unknown-linux-gnu \
        x86_64-unknown-linux-musl aarch64-unknown-linux-musl
    command -v jq > /dev/null || debian_install test.sh jq
    # The server images' podman.
    debian_install test.sh "${DEBIAN_IMAGE[@]}"
    # Prometheus and promtool (scripts/check-prometheus.sh).
    debian_install test.sh "${DEBIAN_MONITORING[@]}"
    # python-zeroconf (scripts/check-lan.sh).
    debian_install test.sh "${DEBIAN_LAN[@]}"
    # The web build's target too, before anything compiles at once.
    [ -d "$(rustc --print sysroot)/lib/rustlib/wasm32-unknown-unknown" ] ||
        rustup target add wasm32-unknown-unknown > /dev/null
    # start NAME CMD...: CMD in the background in a process group of its
    # own (setsid: killed whole if a step fails), logged to
    # $target_dir/bg-NAME.log; `collect NAME` waits for it. At the lowest
    # priority there is: the idle scheduling class (it runs only on a core
    # nothing else wants; with the jobs at nice 19 alone, a run's browser
    # pages drew 7 frames a second with stalls of seconds), idle I/O,
    # nice 19.
    start() {
        local name=$1
        shift
        rm -f "$target_dir/bg-$name".{pgid,status}
        (
            t=$SECONDS rc=0
            ionice -c 3 chrt --idle 0 nice -n 19 setsid env "${bg_env[@]}" "$@" > "$target_dir/bg-$name.log" 2>&1 &
            echo $! > "$target_dir/bg-$name.pgid"
            wait $! || rc=$?
            echo "$rc $((SECONDS - t))" > "$target_dir/bg-$name.status"
            exit $rc
        ) &
        eval "bg_pid_${name//-/_}=$!"
        background+=("$name")
        # The group's id once the job has written it.
        while [ ! -s "$target_dir/bg-$name.pgid" ]; do sleep 0.1; done
    }
    # kill_background: every running job's whole process group (one that
    # has ended has written its status).
    kill_background() {
        local name
        for name in "${background[@]}"; do
            [ -e "$target_dir/bg-$name.status" ] ||
                kill -KILL -- "-$(cat "$target_dir/bg-$name.pgid")" 2> /dev/null || true
        done
    }
    # Once the tests have run, beside the benchmark's smoke run and the
    # network checks, which mostly wait on real-time matches: the Windows
    # and aarch64 builds for cross-check (~4.5 minutes of compiling; their
    # own target directory, so cargo's lock on ours never makes a step
    # wait for them), fuzzing's short pass (~6 minutes with its build), the
    # .deb's packager and the README's play command in a fresh Debian root
    # (~2.5 minutes of its own build on an idle machine, and apt-get).
    # Started with the packages, at idle priority, they still cost every
    # step beside them about as much as they ran: a run that began the
    # cross builds with the builds took 983 s for the web build (359-417
    # before; another compile beside it for minutes too) and 920 s for the
    # tests' (703-765; the cross builds ran through its first 4 minutes
    # only); and two runs in a row, with the jobs compiling through the
    # tests, each lost two timing-sensitive tests.
    start_background_jobs() {
        # Their compiles go through a cache server of their own, started at
        # their priority: the run's server would compile them at its own.
        bg_env=()
        if [ -n "${SCCACHE_BIN:-}" ]; then
            sccache_start background ionice -c 3 chrt --idle 0 nice -n 19
            bg_env+=(SCCACHE_SERVER_PORT="$(sccache_port background)")
        fi
        CARGO_TARGET_DIR="$target_dir/cross" start cross-builds \
            bash scripts/cross-check.sh --build-only --profile cross-check
        start fuzz env FUZZ_NICE=19 bash scripts/fuzz.sh --ci
        # cargo-deb at opt-level 1: it packages one .deb here, and its
        # release settings cost minutes of compiling.
        command -v cargo-deb > /dev/null || start cargo-deb env CARGO_PROFILE_RELEASE_OPT_LEVEL=1 \
            CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_LTO=false \
            CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 cargo install --locked cargo-deb
        start fresh-root timeout 3600 bash scripts/check-system-deps.sh --fresh-root
        # Every crate packaged as crates.io would take it and built from its
        # package, then Pong copied out of the workspace and built from
        # those packages alone (issue 46); it plays last (below).
        CARGO_TARGET_DIR="$target_dir/packages" start packages \
            bash -c 'bash scripts/check-packages.sh && bash scripts/out-of-tree-game.sh --build-only'
        # The server's container images (issue 47): the static binary built
        # and the image made FROM scratch, saved as an OCI archive, for
        # amd64 and then arm64 (cross-compiled; the two share the build
        # scripts' and proc macros' host build); they are run below.
        CARGO_TARGET_DIR="$target_dir/server-image" start server-image \
            bash -c 'bash scripts/check-server-image.sh --build-only &&
                bash scripts/check-server-image.sh --arch arm64 --build-only'
        bash scripts/check-supply-chain.sh --is-installed ||
            start cargo-deny bash scripts/check-supply-chain.sh --install-only
        bash scripts/check-unused-deps.sh --is-installed ||
            start cargo-machete bash scripts/check-unused-deps.sh --install-only
    }
fi
# Every crate that links a system library has its -dev package in the
# build list, and play.sh installs that list on a fresh machine.
timed system-deps bash scripts/check-system-deps.sh
# What each crate may depend on (ARCHITECTURE.md): the server no game.
timed crate-boundaries bash scripts/check-crate-boundaries.sh
# No import cycles between the modules of any crate (issue 35).
timed module-cycles python3 scripts/check-module-cycles.py
# Each crate's rust-version is at least its dependency tree's highest
# (issue 45: fixed 1.31 needs 1.93 while we said 1.88).
timed rust-version python3 scripts/check-rust-version.py

timed fmt cargo fmt --all -- --check

# Clippy's lints, in the builds the tests need: clippy-driver (what `cargo
# clippy` runs as the workspace's compiler) compiles our crates and lints
# them as it goes, for the web client (the browser build's crates) and for
# the tests (every target, as `cargo clippy --all-targets`); dependencies
# compile as usual, once. Separate `cargo clippy` runs checked every
# dependency twice more (about 7 minutes of a fresh run). `linted NAME
# CMD...` fails when one of our crates generated a warning, as `-D
# warnings` would; `with_lints CMD...` is for the cargo commands that
# reuse those builds (the same compiler, or they would build our crates
# again). Nothing else gets it: the other toolchains' builds (fuzzing's
# nightly, the cross builds) must not.
clippy_driver=$(rustup which clippy-driver 2> /dev/null || command -v clippy-driver) ||
    { echo "test.sh: clippy-driver not found (rustup component add clippy)" >&2; exit 1; }
with_lints() { RUSTC_WORKSPACE_WRAPPER=$clippy_driver "$@"; }
linted() {
    local log="$target_dir/lints-$1.log"
    shift
    with_lints "$@" 2>&1 | tee "$log" >&2
    if grep -E '^warning: `(twinstar[a-z-]*|pong)` .*generated [0-9]+ warning' "$log" >&2; then
        echo "test.sh: clippy's lints above fail the run (cargo clippy --all-targets shows them)" >&2
        return 1
    fi
}
# The web client, once, for tests/it/browser.rs (and the browser's driver).
# As shipped: without fat LTO (a profile tried for this) every dependency
# compiled its own machine code, and the step took 455 s instead of 379;
# wasm-bindgen-cli compiling beside the client instead of before it gained
# nothing (394 s).
timed build-web linted web bash scripts/build-web.sh
# The page's first download within its budget (issue 60): the wasm and its
# scripts gzipped, at most 1.0 MB; brotli reported beside it.
timed web-size python3 scripts/check-web-size.py "$target_dir/web"
(cd tests/web && npm ci --no-audit --no-fund --silent)
timed build-tests linted tests cargo test --locked --all-targets --no-run
# The documentation of every library crate under crates/, warning-free
# (issue 59): a broken or private intra-doc link fails it, and a missing
# doc where a crate denies them. One cargo invocation (the dependencies
# are checked once); the netcode's pages are what public-api-listing
# (below) reads.
timed docs env RUSTDOCFLAGS="-D warnings" cargo doc --locked --no-deps \
    -p twinstar-netcode -p twinstar-signaling -p twinstar-signaling-protocol \
    -p twinstar-replay-format -p twinstar-sim -p twinstar-files -p twinstar-verify \
    -p twinstar-inspect -p twinstar-inspect-web -p pong -p twinstar-matchbox-socket
# The tests: with cargo-nextest where it is installed (.config/nextest.toml:
# four at a time, the browser chain first; about 9 minutes instead of 15),
# else cargo test. nextest runs no doc tests: `cargo test --doc` runs them
# (twinstar-netcode's crate page compiles the whole of Pong as its example).
if cargo nextest --version > /dev/null 2>&1; then
    timed cargo-test with_lints cargo nextest run --locked --no-fail-fast --final-status-level slow
    timed doc-tests with_lints cargo test --locked --doc
    # The netcode's public API as committed (crates/netcode/public-api.txt;
    # issue 46): from its documentation (the docs step above, so warning-
    # free, broken or private links included), every public name and
    # signature listed and compared, so a change to the surface shows in
    # review.
    timed public-api-listing python3 scripts/public-api.py twinstar-netcode --check
else
    echo "test.sh: cargo-nextest is not installed: cargo test runs the tests two at a time (cargo install cargo-nextest --locked for the quicker run)" >&2
    timed cargo-test with_lints cargo test --locked
fi
# ARCHITECTURE.md's figures (cfg sites, the netcode's public names)
# against the code (issue 59).
timed architecture-figures python3 scripts/check-architecture.py
if [ "$(id -u)" = 0 ]; then
    start_background_jobs
fi
# Benchmark smoke run: every headline figure once, a 2-cell delay grid; it
# writes bench/quick/ (gitignored), never the committed BENCHMARKS.md.
# It and every check below run the binaries `cargo test` built for the
# integration tests (dev profile): a release build of their own was the
# longest compile of a fresh run (~8.5 minutes of both cores), and none of
# them needs release speed (release builds are scripts/release.sh's and
# the full bench.sh's). A plain `cargo build` would build them again, with
# the features the tests' dependencies add unified out.
export TWINSTAR_BIN="$target_dir/debug/twinstar"
timed bench-quick with_lints bash scripts/bench.sh --quick --profile dev

# Fuzzing, briefly (issue 27; docs/fuzzing.md): every fuzz target for a few
# seconds after running once over its committed seeds and regressions, and
# a check that each target in fuzz/Cargo.toml has seeds. Any crash, timeout
# or memory blow-up fails the run. Needs the nightly toolchain; builds the
# fuzz crate (its own workspace and target dir). ~6 minutes from cold, all
# but seconds of it compiling and fuzzing: as root it runs in the
# background from the start (above); otherwise here.
if [ "$(id -u)" != 0 ]; then
    timed fuzz bash scripts/fuzz.sh --ci
    timed supply-chain bash scripts/check-supply-chain.sh
    timed unused-deps bash scripts/check-unused-deps.sh
    timed packages bash scripts/check-packages.sh
    timed out-of-tree-game bash scripts/out-of-tree-game.sh
fi

# Real networks: NAT traversal between network namespaces, the
# bad-link soak and signaling under load. One twinstar binary for all of
# them, the tests' (above); the load client is the example `cargo test`
# built. ~5 minutes in all.
export SIGNALING_LOAD_BIN="$target_dir/debug/examples/signaling_load"
if [ "$(id -u)" = 0 ]; then
    failed=()
    # check NAME TIMEOUT CMD...: a root-only check, timed; a failure is
    # collected so the rest still run. Its standard error is kept too
    # ($target_dir/checks/NAME.log): CI shows only the end of a run, so the
    # last lines say why each failed check failed (failure_reasons below).
    mkdir -p "$target_dir/checks"
    check_log() { echo "$target_dir/checks/${1//[^A-Za-z0-9_-]/_}.log"; }
    # A check that fails is run once more the same way (issue 45: one
    # retry, never silent): passing then, it is reported as FLAKY with its
    # first failure's verdict; failing again, it fails the run.
    check() {
        local name=$1 limit=$2 t=$SECONDS rc log attempt first=""
        log=$(check_log "$1")
        shift 2
        for attempt in 1 2; do
            : > "$log"
            rc=0
            timeout "$limit" "$@" 2> >(tee -a "$log" >&2) || rc=$?
            [ $rc != 0 ] || break
            if [ $attempt = 2 ]; then
                failed+=("$name")
                echo "exit $rc after $((SECONDS - t)) s (the second run; the first's log: $log.first)" >> "$log"
                break
            fi
            # Why, else its last line.
            first=$({ verdicts "$log" 1 | grep . || tail -n 1 "$log" | cut -c1-400; } | tr -s ' \t' ' ')
            first+="; exit $rc after $((SECONDS - t)) s"
            echo "exit $rc after $((SECONDS - t)) s" >> "$log"
            echo "test.sh: $name failed ($first): running it once more" >&2
            mv "$log" "$log.first"
        done
        [ $rc != 0 ] || [ -z "$first" ] || echo "FLAKY: $name (first failure: $first)" >> "$flaky_steps"
        echo "test.sh: [$(($(date +%s) - started)) s] $name took $((SECONDS - t)) s" >&2
    }
    # verdicts LOG N: up to N lines that say why a check failed (its own
    # FAILED lines, else panics or errors).
    verdicts() {
        { grep -aE 'FAILED' "$1" || grep -aE 'panicked|[Ee]rror:' "$1" || true; } |
            head -n "$2" | cut -c1-400
    }
    # failure_reasons: each failed check's verdict lines (a script's
    # "FAILED"/"error" lines, a panic) and the last lines of its log.
    failure_reasons() {
        local name log
        for name in "${failed[@]}"; do
            log=$(check_log "$name")
            [ -s "$log" ] || log="$target_dir/bg-$name.log"
            [ -s "$log" ] || continue
            echo "test.sh: why $name failed ($log):" >&2
            verdicts "$log" 4 | sed 's/^/  | /' >&2
            tail -n 4 "$log" | cut -c1-400 | sed 's/^/  $ /' >&2
        done
    }
    # collect NAME: waits for a background job (above); a failure is
    # collected with its log's tail.
    collect() {
        local name=$1 pid_var="bg_pid_${1//-/_}" t=$SECONDS
        if ! wait "${!pid_var}"; then
            tail -n 30 "$target_dir/bg-$name.log" >&2
            failed+=("$name")
        fi
        echo "test.sh: [$(($(date +%s) - started)) s] $name (in the background, $(cut -d' ' -f2 "$target_dir/bg-$name.status" 2>/dev/null || echo '?') s) ended $((SECONDS - t)) s after it was needed" >&2
    }
    # Cuts mid-match (issue 25): NAT A's whole network for 15 s with the
    # default 30 s window (both reconnect through the server, ~25 s), only
    # the path between the NATs for 20 s (~32 s), and 15 s with a 5 s
    # window (both end it, ~11 s); the joiner moving to a new address
    # behind a NAT with a new public address during a 5 s gap, as from
    # Wi-Fi to a hotspot (its old path can never resume; ~17 s); the last
    # kills the joiner behind its
    # symmetric NAT, which rejoins through the TURN relay (~25 s).
    # "symmetric --internet": the players know only wss://server; TLS by a
    # private CA, STUN/TURN and TURN REST credentials from the server,
    # coturn refusing forged and expired ones (~15 s).
    # "symmetric --internet --browser": the same with headless Chromium
    # behind NAT A opening the https room link (~20 s); and that page's
    # network gone for 5 s and back with new addresses, as a phone going
    # from Wi-Fi to 4G (the page reopens its signaling, ~21 s).
    # The bad-link soak (10,000 frames, ~170 s of real time, on loopback)
    # plays beside the NAT scenarios, which run in namespaces of their own:
    # both mostly wait on real-time matches, and the soak checks only what
    # no timing changes (equal checksums, no desync, replays that verify).
    # After them, it added its whole length to the run.
    rm -f "$target_dir/soak.failed"
    (
        check soak 900 scripts/soak.sh --frames 10000
        [[ " ${failed[*]} " != *" soak "* ]] || touch "$target_dir/soak.failed"
    ) &
    soak_pid=$!
    for scenario in routed full-cone port-restricted symmetric "symmetric --turn" "symmetric --internet" \
        "symmetric --internet --browser" "port-restricted --internet --browser --cut 5 --move" \
        "port-restricted --cut 15" "port-restricted --cut 20 --cut-path" \
        "port-restricted --cut 15 --reconnect-window 5" "port-restricted --cut 5 --cut-side b --move" \
        "symmetric --turn --rejoin"; do
        # shellcheck disable=SC2086 # "symmetric --turn" is two arguments
        check "nat-testbed $scenario" 300 scripts/nat-testbed.sh $scenario
    done
    wait "$soak_pid" || true
    [ ! -e "$target_dir/soak.failed" ] || failed+=(soak)
    # The README's play command in a fresh Debian root (debootstrap): its
    # own setup, then the game built and run (issue 38; started above).
    collect fresh-root
    collect fuzz
    # The .deb (cargo-deb, from the test build above and the web client)
    # installed in a fresh Debian root: dependencies pulled in, the golden
    # synctest from /usr/bin, the server with its web client (cargo-deb
    # installed in the background above if it was missing;
    # scripts/release.sh makes both architectures' packages from release
    # builds, reproducibly). What the package is made of and what it pulls
    # in is the same for either profile.
    [[ " ${background[*]} " == *" cargo-deb "* ]] && collect cargo-deb
    if command -v cargo-deb > /dev/null &&
        rm -rf target/deb && cargo deb --no-build --locked --profile dev --output target/deb >&2; then
        check "deb in a fresh root" 600 bash scripts/check-deb.sh target/deb/twinstar_*_amd64.deb
    else
        failed+=("cargo deb")
    fi
    # Every platform computes the same bits (issue 33): the Windows build
    # under Wine and the aarch64 build under qemu against the native
    # build above, the golden synctest, an aarch64-vs-x86_64 match, the Windows
    # window, and the Windows build (its test-only quinn-udp, issue 60)
    # hosting and joining x86_64 (about 1.5 minutes once built, in the
    # background above).
    collect cross-builds
    CARGO_TARGET_DIR="$target_dir/cross" check cross-check 1800 \
        bash scripts/cross-check.sh --quick --profile cross-check --native "$TWINSTAR_BIN"
    # 2,000 clients, three rounds: <= 32 KiB each while idle, no growth
    # of the resident set from round to round.
    check signaling-load 300 scripts/signaling-load.sh --clients 2000 --rounds 3
    # The supply chain (deny.toml): RustSec advisories from the snapshot in
    # ../shared, licences, banned crates, sources (cargo-deny installed in
    # the background above when missing).
    [[ " ${background[*]} " == *" cargo-deny "* ]] && collect cargo-deny
    check supply-chain 300 bash scripts/check-supply-chain.sh
    # Every crate uses what it declares (cargo-machete, installed in the
    # background above when missing).
    [[ " ${background[*]} " == *" cargo-machete "* ]] && collect cargo-machete
    check unused-deps 300 bash scripts/check-unused-deps.sh
    # The server's image (built in the background above) run: as uid
    # 10001, healthy, a match through it, drained by SIGTERM, loaded back
    # from its OCI archive.
    collect server-image
    CARGO_TARGET_DIR="$target_dir/server-image" check server-image 300 \
        bash scripts/check-server-image.sh --no-build
    # The arm64 image: its configuration, and its binary (copied out of
    # it) under qemu's user mode: TLS, its health command, a match
    # through it, SIGTERM exit 0 (~10 s; no arm64 hardware here).
    CARGO_TARGET_DIR="$target_dir/server-image" check server-image-arm64 120 \
        bash scripts/check-server-image.sh --arch arm64 --no-build
    # deploy/compose.yaml up whole (two nodes of that image, HAProxy,
    # Redis, coturn with TURN REST; podman-compose), a match through the
    # proxy, one node stopped: its room leaves /rooms, the other's match
    # plays on. The first run on a machine makes the stand-in image of
    # Debian's HAProxy, Redis and coturn (~2 minutes); podman keeps it.
    check compose 300 bash scripts/check-compose.sh
    # A real Prometheus (Debian's) scrapes a `twinstar serve` two bots
    # played through, with deploy/prometheus/alerts.yml loaded: its API
    # returns build_info, matches by path, connect and pairing times;
    # promtool checks and unit-tests the alert rules; the Grafana
    # dashboard names only exported metrics. ~15 s.
    check prometheus 120 bash scripts/check-prometheus.sh
    # LAN discovery (issue 49): two network namespaces on one bridge; a
    # host announces its game by multicast DNS, python-zeroconf reads the
    # announcement, and a joiner finds and joins it with no address given
    # (a public room, a private one by its code, a quick match, two hosts
    # listed by join --lan, its question on a terminal, the Join screen
    # in a window). 60-68 s.
    check lan 180 bash scripts/check-lan.sh
    # The out-of-tree Pong (built in the background above) plays through
    # `twinstar serve`: a cut, a spectator, equal checksums, and a connect
    # median under 200 ms, measured last, when nothing else runs.
    collect packages
    CARGO_TARGET_DIR="$target_dir/packages" check out-of-tree-game 600 bash scripts/out-of-tree-game.sh
    if [ ${#failed[@]} -gt 0 ]; then
        failure_reasons
        echo "test.sh: FAILED: ${failed[*]}" >&2
        exit 1
    fi
else
    echo "test.sh: skipped the NAT scenarios: scripts/nat-testbed.sh builds network namespaces and iptables NATs, which needs root; skipped with them the soak, the signaling load run and the fresh-root play.sh check (CI runs all as root; by hand: scripts/soak.sh, scripts/signaling-load.sh, scripts/check-system-deps.sh --fresh-root)" >&2
fi
