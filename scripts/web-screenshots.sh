#!/usr/bin/env bash
# Screenshots of the web client in headless Chromium (tests/web/drive.mjs):
# the touch controls on a phone in portrait (390x844 CSS pixels) and
# landscape (844x390) at a device pixel ratio of 3, as an iPhone 15 shows
# them (1170x2532 device pixels), each mid-match against a native host's bot with a thumb on
# the stick and a finger on fire, and the main menu with a (scripted,
# standard-mapping) gamepad connected.
#
#   scripts/web-screenshots.sh [OUTDIR]     (default: docs/screenshots)
#
# Needs the web client (bash scripts/build-web.sh) and the driver (npm ci
# in tests/web). TWINSTAR_BIN picks the native binary (default: a debug
# build made here). Prints one line per file.
set -euo pipefail
# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs.
export TWINSTAR_LAN_DISCOVERY=off
cd "$(dirname "$0")/.."
out="${1:-docs/screenshots}"
mkdir -p "$out"
target="${CARGO_TARGET_DIR:-target}"
[ -f "$target/web/twinstar_bg.wasm" ] || { echo "web-screenshots.sh: run bash scripts/build-web.sh first" >&2; exit 1; }
if [ -z "${TWINSTAR_BIN:-}" ]; then
    cargo build --locked --bin twinstar >&2
    TWINSTAR_BIN="$target/debug/twinstar"
fi
bin="$TWINSTAR_BIN"

work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
export TWINSTAR_CONFIG="$work/settings.toml"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" serve --bind "127.0.0.1:$port" --web "$target/web" >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do
    python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2)' "$port" 2>/dev/null && break
    sleep 0.1
done
page="http://127.0.0.1:$port/"
# shot PNG DRIVE_ARGS...: the page runs until its --timeout (after the
# --screenshot-at capture); the PNG must exist then.
shot() {
    local png="$1"
    shift
    rm -f "$png"
    timeout 90 node tests/web/drive.mjs "$@" --screenshot "$png" >"$work/page.log" 2>&1 || true
    cp "$work/page.log" "/tmp/web-shot-$(basename "$png" .png).log" 2>/dev/null || true
    [ -s "$png" ] || { tail -30 "$work/page.log" >&2; echo "web-screenshots.sh: no $png" >&2; exit 1; }
    echo "$png"
}

# touch_shot NAME W H CODE: a phone page joins room CODE and plays by touch.
touch_shot() {
    local name="$1" w="$2" h="$3" code="$4"
    "$bin" host --room "$code" --server "ws://127.0.0.1:$port" --stun none --headless --bot \
        --frames 900 --no-record >/dev/null 2>&1 &
    local host=$!
    pids+=($host)
    # A thumb low on the left, pushed up-right; a finger on fire (where
    # the page drew it: the driver reads window.twinstarTouchLayout).
    local sx=$((w / 6)) sy=$((h * 4 / 5))
    local touch
    touch="[{\"at\": 4000, \"type\": \"touchStart\", \"points\": [[$sx, $sy, 1]]},
        {\"at\": 4100, \"type\": \"touchMove\", \"points\": [[$((sx + 30)), $((sy - 30)), 1]]},
        {\"at\": 4200, \"type\": \"touchStart\", \"points\": [[$((sx + 30)), $((sy - 30)), 1], [\"fire\", 2]]}]"
    shot "$out/$name.png" "$page#${code,,}" --phone --dpr 3 --size "${w}x${h}" --touch "$touch" \
        --screenshot-at 6500 --timeout 8
    kill "$host" 2>/dev/null || true
}

touch_shot touch-portrait 390 844 PRT-2XM
touch_shot touch-landscape 844 390 WDE-2XM
shot "$out/menu-gamepad.png" "$page" --gamepad '{"steps": []}' --screenshot-at 3000 --timeout 5
