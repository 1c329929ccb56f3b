#!/usr/bin/env bash
# Screenshots of the real binary in a real (virtual) window: the main menu,
# the host screen with its room code, a local match mid-wave (and the same
# with the colour-blind palette, a 150 % interface, reduced motion), a solo
# match's boss fight, the result panel at a game over, the network
# overlay (synctest, and an online match over a simulated 80 ms link: the
# felt latency), a match held by a network cut, and the replay viewer.
#
#   scripts/screenshots.sh [OUTDIR]     (default: docs/screenshots)
#
# Uses $DISPLAY when set; otherwise starts Xvfb (installed with Mesa's
# software OpenGL when missing and running as root). TWINSTAR_BIN picks the
# binary (default: a debug build made here); TWINSTAR_SHOTS_REPLAYS=DIR keeps
# the colour-blind match's replay there. Prints one line per file.
#
# The page's three (the touch controls on a phone, upright and sideways,
# and the menu with a gamepad) come last, from scripts/web-screenshots.sh,
# when the web client is built (bash scripts/build-web.sh) and
# TWINSTAR_SHOTS_WEB is not `off`; otherwise a line says they were not
# taken.
set -euo pipefail
# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs.
export TWINSTAR_LAN_DISCOVERY=off
cd "$(dirname "$0")/.."
out="${1:-docs/screenshots}"
mkdir -p "$out"

# The window's libraries and Xvfb with Mesa (scripts/lib/debian-packages.sh).
# shellcheck source=lib/debian-packages.sh
source scripts/lib/debian-packages.sh
if ! command -v Xvfb >/dev/null; then
    debian_install screenshots.sh "${DEBIAN_RUN[@]}" xvfb libgl1-mesa-dri >&2
fi

work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

if [ -z "${DISPLAY:-}" ]; then
    command -v Xvfb >/dev/null || { echo "screenshots.sh: Xvfb is not installed (apt-get install xvfb libgl1-mesa-dri)" >&2; exit 1; }
    # A display number nobody uses.
    for n in $(seq 90 140); do
        [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || { display=":$n"; break; }
    done
    Xvfb "$display" -screen 0 1280x720x24 -nolisten tcp >/dev/null 2>&1 &
    pids+=($!)
    export DISPLAY="$display"
    for _ in $(seq 50); do
        [ -e "/tmp/.X11-unix/X${display#:}" ] && break
        sleep 0.1
    done
fi

if [ -z "${TWINSTAR_BIN:-}" ]; then
    cargo build --locked --bin twinstar >&2
    TWINSTAR_BIN="${CARGO_TARGET_DIR:-target}/debug/twinstar"
fi
bin="$TWINSTAR_BIN"
# Default settings and no records, whatever this machine's player saved
# (and nothing kept in theirs).
export TWINSTAR_CONFIG="$work/settings.toml"
export TWINSTAR_DATA_DIR="$work/data"
run() { timeout 120 "$bin" "$@" >"$work/last.log" 2>&1 || { cat "$work/last.log" >&2; exit 1; }; }
# Matches and the menu are silent here; the replay viewer plays no sound.
play() { run "$@" --volume 0; }

play menu --screenshot "$out/menu.png"
echo "$out/menu.png"
# The items the binary drew, beside the picture: tests/it/readme_images.rs
# holds them to the menu the code has now, so a changed menu with an old
# picture fails the test command.
sed -n 's/.*main menu: //p' "$work/last.log" | head -n 1 > "$out/menu.items"
[ -s "$out/menu.items" ] || { echo "screenshots.sh: the menu logged no items" >&2; exit 1; }
echo "$out/menu.items"

# The host screen needs a signaling server; a private one on a free port.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" serve --bind "127.0.0.1:$port" >/dev/null 2>&1 &
pids+=($!)
# Until it listens (a loaded machine can take a second to start it).
for _ in $(seq 100); do
    python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2)' "$port" 2>/dev/null && break
    sleep 0.1
done
play host --room K7Q-2XM --server "ws://127.0.0.1:$port" --stun none --frames 30 --screenshot "$out/host.png"
echo "$out/host.png"

play local --bots --seed 5 --frames 1500 --record "$work/match.tsr" --screenshot "$out/local.png"
echo "$out/local.png"

# The same match for a player who sees colours differently (issue 49): the
# colour-blind palette and shapes, the interface at 150 %, reduced motion.
# tests/it/screenshots.rs simulates deuteranopia and protanopia on it.
printf 'colour_blind = true\nui_scale = 150\nreduced_motion = true\n' > "$work/look.toml"
# Frame 2900 of the human-like pair on seed 5 (wave 2, shooters out):
# both ships, both kinds of bullet and a hit on screen. Its replay goes to
# $TWINSTAR_SHOTS_REPLAYS when set: the test reads the world back from it
# to know where each thing was drawn.
replays=${TWINSTAR_SHOTS_REPLAYS:-$work}
mkdir -p "$replays"
TWINSTAR_CONFIG="$work/look.toml" play local --bots --bot-style human --seed 5 --frames 2900 \
    --record "$replays/local-colour-blind.tsr" --screenshot "$out/local-colour-blind.png"
echo "$out/local-colour-blind.png"

# A solo match's boss fight (issue 58): the human-like pair started at
# wave 5, the first boss's (--start-wave), 720 frames in (12 s): the Warden
# firing, its health bar and phase. Its replay goes beside the colour-blind
# one: tests/it/screenshots.rs checks a boss is alive at that frame.
play solo --bots --bot-style human --start-wave 5 --seed 5 --frames 720 \
    --record "$replays/boss.tsr" --screenshot "$out/boss.png"
echo "$out/boss.png"

# The result panel at a solo game over: a pair started at wave 44
# (seed 7) falls in 22 s; --until-game-over takes the picture at the game
# over instead of letting the bots start again. Played in $work, so the
# panel names a replay path as a player's would (replays/...).
bin_abs="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
out_abs="$(cd "$out" && pwd)"
(cd "$work" && timeout 120 "$bin_abs" solo --bots --bot-style human --start-wave 44 \
    --seed 7 --until-game-over --frames 6000 --volume 0 \
    --screenshot "$out_abs/result.png" >"$work/last.log" 2>&1) \
    || { cat "$work/last.log" >&2; exit 1; }
grep -q "game over: team score" "$work/last.log" \
    || { echo "screenshots.sh: result.png shows no game over (raise --frames)" >&2; exit 1; }
echo "$out/result.png"

play synctest --seed 5 --frames 600 --no-record --screenshot "$out/overlay.png"
echo "$out/overlay.png"

# Online, the overlay's third line is what a player feels: the input
# delay, the part of the trip rollback hides, rollback frames a second.
# Both bots on an 80 ms round trip with some jitter; the window joins.
"$bin" host --room F3T-9RK --server "ws://127.0.0.1:$port" --stun none --headless --bot \
    --frames 600 --no-record --sim-latency 40 --sim-jitter 4 >/dev/null 2>&1 &
pids+=($!)
play join F3T-9RK --server "ws://127.0.0.1:$port" --stun none --bot --frames 600 --no-record \
    --sim-latency 40 --sim-jitter 4 --overlay --screenshot "$out/online.png"
echo "$out/online.png"

run replay "$work/match.tsr" --frames 1200 --screenshot "$out/replay.png"
echo "$out/replay.png"

# A match held by a network cut: both peers lose every packet for 12 s,
# 3 s into the match, and the window says so while it waits. No frame
# count can take that picture (frames stop during the cut), so the display
# itself is grabbed 6 s after the peers synchronized (ffmpeg's x11grab; the
# window sits at the display's corner on our Xvfb).
command -v ffmpeg >/dev/null || debian_install screenshots.sh ffmpeg >&2
"$bin" host --room C5T-7WQ --server "ws://127.0.0.1:$port" --stun none --headless --bot \
    --frames 900 --no-record --sim-outage 3:12 >/dev/null 2>&1 &
pids+=($!)
timeout 120 "$bin" join C5T-7WQ --server "ws://127.0.0.1:$port" --stun none --bot --frames 900 \
    --no-record --sim-outage 3:12 --volume 0 >"$work/cut.log" 2>&1 &
joiner=$!
pids+=($joiner)
for _ in $(seq 300); do
    grep -q "synchronized with the peer" "$work/cut.log" && break
    kill -0 "$joiner" 2>/dev/null || { cat "$work/cut.log" >&2; exit 1; }
    sleep 0.1
done
grep -q "synchronized with the peer" "$work/cut.log" \
    || { echo "screenshots.sh: the cut match never started" >&2; cat "$work/cut.log" >&2; exit 1; }
sleep 6
ffmpeg -loglevel error -y -f x11grab -video_size 1280x720 -i "$DISPLAY" -frames:v 1 -pix_fmt rgba "$out/interrupted.png"
kill "$joiner" 2>/dev/null || true
echo "$out/interrupted.png"

# The page's pictures (headless Chromium), when there is a page to take.
web_dir="${CARGO_TARGET_DIR:-target}/web"
if [ "${TWINSTAR_SHOTS_WEB:-on}" = off ]; then
    echo "screenshots.sh: the page's pictures not taken (TWINSTAR_SHOTS_WEB=off)" >&2
elif [ ! -f "$web_dir/twinstar_bg.wasm" ]; then
    echo "screenshots.sh: the page's pictures not taken: no web client in $web_dir (bash scripts/build-web.sh)" >&2
else
    TWINSTAR_BIN="$bin" bash scripts/web-screenshots.sh "$out"
fi
