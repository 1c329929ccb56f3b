#!/usr/bin/env bash
# Every platform computes the same bits: the Windows build (under Wine) and
# the aarch64 Linux build (under qemu's user mode) run the golden synctests
# and must give the checksums of the x86_64 build, which
# tests/it/determinism.rs pins (and tests/it/browser.rs checks the wasm32
# build against); then each plays online against the x86_64 build through a
# loopback `twinstar serve`: the aarch64 build hosts, and the Windows build
# hosts one match and joins another, every match ending with equal checksums
# and identical replays.
#
#   scripts/cross-check.sh [--profile P] [--native BIN] [--quick] [--build-only]
#
# --profile: the cargo profile of the Windows and aarch64 builds (default
# release; CI uses cross-check, quick to build). --native: the x86_64
# twinstar to compare with (default: built here with the same profile; CI
# passes the release build the test command made already). --quick: one
# golden seed instead of three (CI). --build-only: set up and build the
# Windows and aarch64 games, nothing else (CI builds them in the background
# while the network tests, which mostly wait, run).
#
# The Windows build here is a test build: Wine 8 refuses
# getsockopt(IPV6_V6ONLY) on IPv4 sockets, which quinn-udp (under the WebRTC
# stack) asks of every socket it opens on Windows, so no peer connection
# could start under Wine (real Windows answers; docs/release.md). This
# script builds the Windows game from a copy of the workspace whose
# quinn-udp is tests/fixtures/wine/quinn-udp, patched to ask that only of
# IPv6 sockets (its README.md): a cargo --config [patch] and a copy of
# Cargo.lock that differs in that package's source alone, in a target
# directory of its own (TARGET/wine-online). The repository's Cargo.lock,
# its own builds and the releases (scripts/release.sh) never see the patch.
# tests/fixtures/wine/ also has the probe that shows the refusal is Wine's,
# and the ProcessPrng shim Rust programs need under Wine 8 (fixtures, never
# shipped).
#
# Prints one line per check and, last, a JSON object with the checksums,
# qemu's synctest frame rate and the times. Exit 0 when all agree, 1 when
# any differs, 2 for bad arguments. Needs root on a fresh machine (it
# installs mingw-w64, the aarch64 cross compiler and arm64 libraries, Wine
# and qemu-user-static).
set -euo pipefail
# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs.
export TWINSTAR_LAN_DISCOVERY=off
cd "$(dirname "$0")/.."
repo=$PWD
# shellcheck source=lib/debian-packages.sh
source scripts/lib/debian-packages.sh
# shellcheck source=lib/cross.sh
source scripts/lib/cross.sh
# shellcheck source=lib/golden.sh
source scripts/lib/golden.sh

say() { echo "cross-check: $*" >&2; }
fail() {
    echo "cross-check: FAILED: $*" >&2
    exit 1
}

profile=release
native=""
quick=0
build_only=0
while [ $# -gt 0 ]; do
    case "$1" in
        --profile) profile=${2:?--profile needs a name}; shift 2 ;;
        --native) native=${2:?--native needs a path}; shift 2 ;;
        --quick) quick=1; shift ;;
        --build-only) build_only=1; shift ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "cross-check: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done

windows=x86_64-pc-windows-gnu
arm=aarch64-unknown-linux-gnu
CROSS_RUN=1 cross_setup cross-check "$windows" "$arm"
command -v jq > /dev/null || debian_install cross-check jq
target_dir=$(cargo metadata --format-version 1 --no-deps --locked | jq -r .target_directory)
profile_dir=$profile
[ "$profile" = dev ] && profile_dir=debug

# --- builds ------------------------------------------------------------------
# windows_build CARGO_ARGS...: the Windows game with the test-only quinn-udp
# (the header): the tracked and untracked-but-not-ignored files copied
# (their times kept, so cargo's incremental build holds), the copy's
# Cargo.lock without quinn-udp 0.6.1's registry source and checksum (how a
# path [patch] of the same version is locked; --locked refuses any other
# difference), and a target directory of its own.
wine_dir=$target_dir/wine-online
windows_build() {
    local src=$wine_dir/src
    rm -rf "$src"
    mkdir -p "$src"
    git ls-files -z -co --exclude-standard | tar --null --ignore-failed-read -T - -cf - 2> /dev/null |
        tar -xf - -C "$src"
    awk '/^name = / { q = ($0 == "name = \"quinn-udp\"") }
        /^version = / && q { q = ($0 == "version = \"0.6.1\"") }
        q && /^(source|checksum) = / { next }
        { print }' Cargo.lock > "$src/Cargo.lock"
    [ "$(diff Cargo.lock "$src/Cargo.lock" | grep -c '^<')" = 2 ] ||
        fail "Cargo.lock has no quinn-udp 0.6.1 from crates.io for the Windows test build to patch"
    (cd "$src" && CARGO_TARGET_DIR=$wine_dir/target cross_build "$windows" \
        --config "patch.crates-io.quinn-udp.path=\"$src/tests/fixtures/wine/quinn-udp\"" "$@")
}

t0=$(date +%s)
if [ -z "$native" ] && [ "$build_only" = 0 ]; then
    cargo build --locked --profile "$profile" --bin twinstar >&2
    native=$target_dir/$profile_dir/twinstar
fi
t1=$(date +%s)
windows_build --profile "$profile" --bin twinstar >&2
t2=$(date +%s)
cross_build "$arm" --profile "$profile" --bin twinstar >&2
t3=$(date +%s)
exe=$wine_dir/target/$windows/$profile_dir/twinstar.exe
armbin=$target_dir/$arm/$profile_dir/twinstar
say "built: native $((t1 - t0)) s, Windows $((t2 - t1)) s, aarch64 $((t3 - t2)) s"
[ "$build_only" = 1 ] && exit 0
[ -x "$native" ] || fail "no x86_64 twinstar at $native"
native=$(realpath "$native")

# --- running them ------------------------------------------------------------
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
    WINEPREFIX=$work/wine "${wineserver:-wineserver}" -k 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
# Wine: a prefix of our own; the shim DLL beside a copy of the .exe.
export WINEPREFIX=$work/wine WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
mkdir -p "$work/win"
cp "$exe" "$work/win/twinstar.exe"
x86_64-w64-mingw32-gcc -shared -O2 -o "$work/win/bcryptprimitives.dll" \
    tests/fixtures/wine/bcryptprimitives.c -ladvapi32
wine_bin=$(command -v wine64 || command -v wine || echo /usr/lib/wine/wine64)
wineserver=$(command -v wineserver || echo /usr/lib/wine/wineserver)
export TWINSTAR_DATA_DIR=$work/data TWINSTAR_CONFIG=$work/settings.toml
# (The .exe by its Unix path, so a run's files land in the caller's
# directory; Windows looks for the shim DLL beside the .exe first.)
run_windows() { timeout 300 "$wine_bin" "$work/win/twinstar.exe" "$@"; }
# No -L /usr/aarch64-linux-gnu: that sysroot's loader with the multiarch
# libraries (ALSA, udev: /usr/lib/aarch64-linux-gnu, via ld.so.cache) hangs
# the first thread a program starts. The multiarch loader and libc (which
# the arm64 -dev packages bring) are one consistent set.
run_arm() { timeout 300 qemu-aarch64-static "$armbin" "$@"; }
run_native() { timeout 300 "$native" "$@"; }
say "preparing Wine's prefix"
wineboot_started=$(date +%s)
timeout 120 "$wine_bin" wineboot --init > /dev/null 2>&1 || true
say "Wine's prefix ready in $(($(date +%s) - wineboot_started)) s"

# summary_of WHO ARGS...: the --json summary of a run (its last stdout line).
summary_of() {
    local who=$1
    shift
    local out
    out=$("run_$who" "$@" 2> "$work/$who.err") || {
        tail -5 "$work/$who.err" >&2
        fail "$who: twinstar $* exited with an error"
    }
    tail -n 1 <<< "$out" | tr -d '\r'
}

golden=$(golden_checksum) || fail "cannot read the golden checksum"
seeds=(1 4242 7)
[ "$quick" = 1 ] && seeds=(1)
results="[]"
arm_fps=""
for seed in "${seeds[@]}"; do
    args=(synctest --headless --frames 10000 --seed "$seed" --no-record --json)
    n=$(summary_of native "${args[@]}" | jq -r .checksum)
    w=$(summary_of windows "${args[@]}" | jq -r .checksum)
    started=$(date +%s.%N)
    a=$(summary_of arm "${args[@]}" | jq -r .checksum)
    fps=$(echo "$started $(date +%s.%N)" | awk '{ printf "%.0f", 10000 / ($2 - $1) }')
    arm_fps=${arm_fps:-$fps}
    say "seed $seed: x86_64 $n, Windows (Wine) $w, aarch64 (qemu, $fps frames/s) $a"
    [ "$seed" != 1 ] || [ "$n" = "$golden" ] || fail "seed 1: x86_64 gives $n, the pinned golden checksum is $golden"
    [ "$w" = "$n" ] || fail "seed $seed: the Windows build gives $w, x86_64 $n"
    [ "$a" = "$n" ] || fail "seed $seed: the aarch64 build gives $a, x86_64 $n"
    results=$(jq -c --arg s "$seed" --arg n "$n" --arg w "$w" --arg a "$a" \
        '. + [{seed: ($s | tonumber), x86_64: $n, windows: $w, aarch64: $a}]' <<< "$results")
done

# --- the Windows build opens its window (Wine, Xvfb, Mesa) --------------------
command -v Xvfb > /dev/null || debian_install cross-check xvfb libgl1-mesa-dri
display=:$((200 + $$ % 50))
Xvfb "$display" -screen 0 1280x720x24 -nolisten tcp > /dev/null 2>&1 &
xvfb=$!
pids+=($xvfb)
sleep 1
(cd "$work/win" && DISPLAY=$display timeout 120 "$wine_bin" twinstar.exe --screenshot menu.png > /dev/null 2>&1) ||
    fail "the Windows build under Wine did not write its menu's screenshot"
DISPLAY=$display timeout 120 "$native" --screenshot "$work/native-menu.png" > /dev/null 2>&1 ||
    fail "the native build did not write its menu's screenshot"
kill "$xvfb" 2> /dev/null || true
read -r ww wh wc < <(python3 scripts/lib/png_stats.py "$work/win/menu.png")
read -r nw nh nc < <(python3 scripts/lib/png_stats.py "$work/native-menu.png")
# Wine without a window manager keeps room for its own title bar: the
# window may be a little shorter than the native one's, never narrower.
[ "$ww" = "$nw" ] && [ "$wh" -ge $((nh * 95 / 100)) ] && [ "$wh" -le "$nh" ] ||
    fail "the Windows menu is ${ww}x$wh, the native one ${nw}x$nh"
[ "$wc" -ge $((nc / 2)) ] || fail "the Windows menu looks blank: $wc colours sampled, native $nc"
say "window: the Windows build's menu under Wine is ${ww}x$wh with $wc colours sampled (native ${nw}x$nh, $nc)"

# --- online: aarch64 (qemu) hosts, x86_64 joins ------------------------------
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$native" serve --bind "127.0.0.1:$port" > "$work/serve.out" 2> "$work/serve.err" &
pids+=($!)
for _ in $(seq 100); do
    grep -q "signaling server on" "$work/serve.err" 2> /dev/null && break
    sleep 0.1
done
server=ws://127.0.0.1:$port
peer=(--server "$server" --headless --bot --json --stun none)

# online_match ROOM HOST JOIN FRAMES: HOST (native, arm or windows) hosts a
# match of FRAMES frames on the loopback server and JOIN joins it, each in
# a directory of its own, both recording; both must exit 0 with equal
# checksums and the same replay. Sets match_h and match_j (the summaries)
# and match_s (its seconds).
online_match() {
    local room=$1 host=$2 join=$3 frames=$4 dir=$work/match-$1 side started
    local waiting=()
    mkdir -p "$dir/host" "$dir/join"
    started=$(date +%s)
    # (errexit is inherited: the exit status is caught, not fatal, in there.)
    (cd "$dir/host" && { rc=0; "run_$host" host --room "$room" "${peer[@]}" --frames "$frames" \
        --record host.tsr > out 2> err || rc=$?; echo $rc > rc; }) &
    waiting+=($!)
    sleep 1
    (cd "$dir/join" && { rc=0; "run_$join" join "$room" "${peer[@]}" --frames "$frames" \
        --record join.tsr > out 2> err || rc=$?; echo $rc > rc; }) &
    waiting+=($!)
    pids+=("${waiting[@]}")
    wait "${waiting[@]}" 2> /dev/null || true
    for side in host join; do
        [ "$(cat "$dir/$side/rc" 2> /dev/null)" = 0 ] || {
            tr -d '\r' < "$dir/$side/err" | tail -5 >&2
            fail "online $room: the $side ($([ $side = host ] && echo "$host" || echo "$join")) exited with $(cat "$dir/$side/rc" 2> /dev/null || echo nothing)"
        }
    done
    match_h=$(tail -n 1 "$dir/host/out" | tr -d '\r')
    match_j=$(tail -n 1 "$dir/join/out" | tr -d '\r')
    [ "$(jq -r .checksum <<< "$match_h")" = "$(jq -r .checksum <<< "$match_j")" ] ||
        fail "online $room: $host host $(jq -c '{checksum, checksum_frame}' <<< "$match_h"), $join joiner $(jq -c '{checksum, checksum_frame}' <<< "$match_j")"
    cmp -s "$dir/host/host.tsr" "$dir/join/join.tsr" ||
        run_native replay-diff "$dir/host/host.tsr" "$dir/join/join.tsr" > /dev/null ||
        fail "online $room: the two replays differ"
    match_s=$(($(date +%s) - started))
}

online_match ARM-2XM arm native 1200
online_s=$match_s
say "online: aarch64 (qemu) hosted and x86_64 joined, 1200 frames, checksum $(jq -r .checksum <<< "$match_h") on both, replays agree ($online_s s; the emulated host's rollback frames: $(jq -r .rollback_frames <<< "$match_h"))"

# --- online: the Windows build under Wine ------------------------------------
# Wine refuses the socket question quinn-udp asks (the probe,
# tests/fixtures/wine/v6only_probe.c), which the test build's patched
# quinn-udp no longer asks of IPv4 sockets; the probe's answer is reported
# so a Wine that answers shows. (The unpatched build's one-line report of
# the refusal is not checked here: it would take a second Windows build.)
x86_64-w64-mingw32-gcc -O2 -o "$work/win/v6only_probe.exe" tests/fixtures/wine/v6only_probe.c -lws2_32
probe=$(timeout 60 "$wine_bin" "$work/win/v6only_probe.exe" | tr -d '\r')
say "Wine and IPV6_V6ONLY on an IPv4 socket: $probe"
windows_frames=600
online_match WNH-2XM windows native "$windows_frames"
winhost_s=$match_s
winhost_sum=$(jq -r .checksum <<< "$match_h")
say "online under Wine: the Windows build hosted and x86_64 joined, $windows_frames frames, checksum $winhost_sum on both, replays agree ($winhost_s s; connection $(jq -r .connection <<< "$match_h"), rollback frames $(jq -r .rollback_frames <<< "$match_h") and $(jq -r .rollback_frames <<< "$match_j"))"
online_match WNJ-2XM native windows "$windows_frames"
winjoin_s=$match_s
winjoin_sum=$(jq -r .checksum <<< "$match_j")
say "online under Wine: x86_64 hosted and the Windows build joined, $windows_frames frames, checksum $winjoin_sum on both, replays agree ($winjoin_s s; connection $(jq -r .connection <<< "$match_j"), rollback frames $(jq -r .rollback_frames <<< "$match_h") and $(jq -r .rollback_frames <<< "$match_j"))"

jq -cn --argjson synctest "$results" --arg fps "$arm_fps" --arg online "$online_s" \
    --arg probe "$probe" --arg frames "$windows_frames" \
    --arg whs "$winhost_s" --arg whc "$winhost_sum" --arg wjs "$winjoin_s" --arg wjc "$winjoin_sum" \
    --arg b0 "$((t1 - t0))" --arg bw "$((t2 - t1))" --arg ba "$((t3 - t2))" \
    --arg shot "${ww}x$wh" \
    '{synctest: $synctest, qemu_synctest_fps: ($fps | tonumber), online_aarch64_vs_x86_64_s: ($online | tonumber),
      windows_menu_screenshot: $shot,
      windows_online_under_wine: {quinn_udp: "test-only patch (tests/fixtures/wine/quinn-udp)", wine_v6only_probe: $probe,
        frames: ($frames | tonumber),
        windows_hosts: {checksum: $whc, s: ($whs | tonumber)}, windows_joins: {checksum: $wjc, s: ($wjs | tonumber)}},
      build_s: {native: ($b0 | tonumber), windows: ($bw | tonumber), aarch64: ($ba | tonumber)}}'
