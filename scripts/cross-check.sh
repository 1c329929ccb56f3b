#!/usr/bin/env bash
# Every platform computes the same bits: the Windows build (under Wine) and
# the aarch64 Linux build (under qemu's user mode) run the golden synctests
# and must give the checksums of the x86_64 build, which
# tests/it/determinism.rs pins (and tests/it/browser.rs checks the wasm32
# build against); then the aarch64 build plays an online match against the
# x86_64 build through a loopback `twinstar serve`, both ending with equal
# checksums and identical replays.
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
# The Windows build's online play under Wine is checked for what Wine
# allows: Wine 8 refuses getsockopt(IPV6_V6ONLY) on IPv4 sockets, which the
# WebRTC stack asks while making a peer connection (real Windows answers;
# docs/release.md), so there the check is that the game reports it in one
# line and exits 1, with no panic report. tests/fixtures/wine/ has the
# probe that shows the refusal is Wine's, and the ProcessPrng shim Rust
# programs need under Wine 8 (a fixture, never shipped).
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
t0=$(date +%s)
if [ -z "$native" ] && [ "$build_only" = 0 ]; then
    cargo build --locked --profile "$profile" --bin twinstar >&2
    native=$target_dir/$profile_dir/twinstar
fi
t1=$(date +%s)
cross_build "$windows" --profile "$profile" --bin twinstar >&2
t2=$(date +%s)
cross_build "$arm" --profile "$profile" --bin twinstar >&2
t3=$(date +%s)
exe=$target_dir/$windows/$profile_dir/twinstar.exe
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
run_windows() { (cd "$work/win" && timeout 300 "$wine_bin" twinstar.exe "$@"); }
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
peer=(--server "$server" --headless --bot --frames 1200 --json --stun none)
mkdir -p "$work/arm" "$work/x86"
online_started=$(date +%s)
# (errexit is inherited: the exit status is caught, not fatal, in there.)
(cd "$work/arm" && { rc=0; run_arm host --room ARM-2XM "${peer[@]}" --record host.tsr > out 2> err || rc=$?; echo $rc > rc; }) &
armhost=$!
pids+=($armhost)
sleep 1
(cd "$work/x86" && { rc=0; run_native join ARM-2XM "${peer[@]}" --record join.tsr > out 2> err || rc=$?; echo $rc > rc; }) &
x86join=$!
pids+=($x86join)
wait "$armhost" "$x86join" 2> /dev/null || true
for side in arm x86; do
    [ "$(cat "$work/$side/rc" 2> /dev/null)" = 0 ] || {
        tail -5 "$work/$side/err" >&2
        fail "online: the $side peer exited with $(cat "$work/$side/rc" 2> /dev/null || echo nothing)"
    }
done
h=$(tail -n 1 "$work/arm/out")
j=$(tail -n 1 "$work/x86/out")
[ "$(jq -r .checksum <<< "$h")" = "$(jq -r .checksum <<< "$j")" ] ||
    fail "online: aarch64 host $(jq -c '{checksum, checksum_frame}' <<< "$h"), x86_64 joiner $(jq -c '{checksum, checksum_frame}' <<< "$j")"
cmp -s "$work/arm/host.tsr" "$work/x86/join.tsr" ||
    run_native replay-diff "$work/arm/host.tsr" "$work/x86/join.tsr" > /dev/null ||
    fail "online: the two replays differ"
online_s=$(($(date +%s) - online_started))
say "online: aarch64 (qemu) hosted and x86_64 joined, 1200 frames, checksum $(jq -r .checksum <<< "$h") on both, replays agree ($online_s s; the emulated host's rollback frames: $(jq -r .rollback_frames <<< "$h"))"

# --- online: the Windows build under Wine ------------------------------------
# Whether this Wine answers the socket question the WebRTC stack asks
# (tests/fixtures/wine/v6only_probe.c): if it does, the Windows build must
# play a whole match; if it refuses (Wine 8: error 10045), the build must
# say so in one line and exit 1, with no panic report.
x86_64-w64-mingw32-gcc -O2 -o "$work/win/v6only_probe.exe" tests/fixtures/wine/v6only_probe.c -lws2_32
probe=$(cd "$work/win" && timeout 60 "$wine_bin" v6only_probe.exe | tr -d '\r')
say "Wine and IPV6_V6ONLY on an IPv4 socket: $probe"
mkdir -p "$work/winjoin" "$work/winhost"
(cd "$work/winhost" && run_native host --room WNE-2XM --server "$server" --headless --bot --frames 300 --json \
    --stun none --no-record > out 2> err) &
winhost=$!
pids+=($winhost)
sleep 1
set +e
(cd "$work/win" && timeout 90 "$wine_bin" twinstar.exe join WNE-2XM --server "$server" --headless --bot \
    --frames 300 --json --stun none --timeout 20 > "$work/winjoin/out" 2> "$work/winjoin/err")
wrc=$?
set -e
werr=$(tr -d '\r' < "$work/winjoin/err" | grep -v '^[0-9-]*T[0-9:.]*Z ' | tail -n 2)
if [ "$probe" = "v6only: answered" ]; then
    wait "$winhost" || true
    [ "$wrc" = 0 ] || fail "online under Wine: Wine answers the socket question, yet the Windows build exited $wrc: $werr"
    wsum=$(tail -n 1 "$work/winjoin/out" | tr -d '\r' | jq -r .checksum)
    hsum=$(tail -n 1 "$work/winhost/out" | jq -r .checksum)
    [ "$wsum" = "$hsum" ] || fail "online under Wine: Windows $wsum, x86_64 $hsum"
    say "online under Wine: the Windows build joined an x86_64 host, checksum $wsum on both"
    windows_online="played"
elif [ "$wrc" = 1 ] && grep -q "WebRTC connection failed" <<< "$werr" && ! grep -q "panicked at" "$work/winjoin/err"; then
    kill "$winhost" 2> /dev/null || true
    say "online under Wine: refused in one line, as Wine refuses the socket option ($(tail -n 1 <<< "$werr"))"
    windows_online="wine-refuses-IPV6_V6ONLY-on-IPv4"
else
    say "online under Wine: exit $wrc; stderr ends: $werr"
    fail "the Windows build under Wine neither played nor ended with the one-line WebRTC error"
fi

jq -cn --argjson synctest "$results" --arg fps "$arm_fps" --arg online "$online_s" \
    --arg win "$windows_online" --arg b0 "$((t1 - t0))" --arg bw "$((t2 - t1))" --arg ba "$((t3 - t2))" \
    --arg shot "${ww}x$wh" \
    '{synctest: $synctest, qemu_synctest_fps: ($fps | tonumber), online_aarch64_vs_x86_64_s: ($online | tonumber),
      windows_menu_screenshot: $shot,
      windows_online_under_wine: $win, build_s: {native: ($b0 | tonumber), windows: ($bw | tonumber), aarch64: ($ba | tonumber)}}'
