#!/usr/bin/env bash
# The invariants the crate boundaries stand for (ARCHITECTURE.md), checked
# on the dependency graph, so a dependency added in the wrong crate fails
# the test command instead of slipping in:
#
# - the signaling server library (twinstar-signaling) never depends on a
#   game: not twinstar, its simulation (twinstar-sim), its replay format
#   or verifier (a game's verifier comes in through its ReplayVerifier
#   trait); nor on a desktop library: no macroquad, gilrs, ALSA, udev; nor
#   on the WebRTC stack (it only relays signals);
# - the server binary (twinstar-server) and the verifier (twinstar-verify)
#   rank replays by re-simulating them without the netcode: no
#   twinstar-netcode, WebRTC stack or desktop library; the simulation
#   (twinstar-sim) and the replay format (twinstar-replay-format) neither,
#   and no server either;
# - the netcode (twinstar-netcode) depends on no game and no renderer: no
#   twinstar, macroquad, gilrs, ALSA or udev (a game brings its own); and
#   on no server: not twinstar-signaling, axum, hyper, redis,
#   prometheus-client, clap or tracing-subscriber (a game that hosts a
#   server depends on twinstar-signaling itself);
# - Pong (crates/pong), the second game, has no networking code of its
#   own: its source names no ggrs, matchbox or webrtc item;
# - what clients and server share (twinstar-signaling-protocol) and the
#   file reader (twinstar-files) depend on nothing of ours but each other;
# - the inspector's analysis (twinstar-inspect) and the page's inspector
#   (twinstar-inspect-web) never depend on the game or a desktop library.
#
# The server binary's ldd is checked by tests/it/server_binary.rs.
# Exit 0 when all hold, 1 with the offending paths otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

failed=0
# forbid CRATE PATTERN WHY: CRATE's normal dependencies (transitively, for
# this machine's target) name no package matching PATTERN.
forbid() {
    local crate=$1 pattern=$2 why=$3 tree found
    tree=$(cargo tree --locked -p "$crate" -e normal --prefix none) || {
        echo "check-crate-boundaries: cargo tree -p $crate failed" >&2
        failed=1
        return
    }
    # The first line is the crate itself.
    found=$(echo "$tree" | tail -n +2 | awk '{print $1}' | sort -u | grep -Ex "$pattern" || true)
    if [ -n "$found" ]; then
        echo "check-crate-boundaries: $crate depends on $(echo "$found" | paste -sd, -): $why" >&2
        failed=1
    fi
}

desktop='macroquad|miniquad|quad-snd|quad-alsa-sys|alsa-sys|gilrs|gilrs-core|libudev-sys|libudev'
forbid twinstar-signaling "twinstar|twinstar-sim|twinstar-verify|twinstar-replay-format|twinstar-netcode|$desktop|ggrs|matchbox_socket|webrtc.*|rtc.*" \
    "the server library never depends on a game: it builds and runs on a headless machine, a game's verifier comes in through ReplayVerifier"
forbid twinstar-server "twinstar|twinstar-netcode|$desktop|ggrs|matchbox_socket|twinstar-matchbox-socket|webrtc.*|rtc.*" \
    "the operators' server re-simulates replays without the netcode, the WebRTC stack or the game's window"
forbid twinstar-verify "twinstar|twinstar-netcode|$desktop|ggrs|matchbox_socket|twinstar-matchbox-socket|webrtc.*|rtc.*" \
    "the verifier re-simulates with the simulation and the replay format, not the netcode"
forbid twinstar-sim "twinstar|twinstar-netcode|twinstar-signaling|$desktop|ggrs|matchbox.*|twinstar-matchbox-socket|webrtc.*|rtc.*|axum.*|tokio" \
    "the simulation is pure: no renderer, no netcode, no server"
forbid twinstar-replay-format "twinstar|twinstar-netcode|twinstar-signaling|$desktop|ggrs|matchbox.*|twinstar-matchbox-socket|webrtc.*|rtc.*|axum.*|tokio" \
    "the replay format has no networking: a server links it without the netcode"
forbid twinstar-netcode "twinstar|$desktop" \
    "the netcode is a library for any game: the game brings its window, sound and input"
forbid twinstar-netcode "twinstar-signaling|axum.*|hyper|hyper-util|redis|prometheus-client|clap|tracing-subscriber" \
    "a game that uses the netcode compiles no server: one that hosts a server depends on twinstar-signaling itself"
forbid twinstar-signaling-protocol "twinstar|twinstar-signaling|twinstar-files|$desktop|axum.*|tokio|matchbox.*" \
    "the protocol crate is shared by the browser build and the server: no I/O, no game"
forbid twinstar-files "twinstar.*|macroquad|$desktop" "the file reader sits below everything"
forbid twinstar-inspect "twinstar|twinstar-signaling|$desktop|axum.*|tokio-tungstenite" \
    "the inspector's analysis is bytes in, reports out: the page's own small wasm links it without the game's window (whose wasm exports would come along)"
forbid twinstar-inspect-web "twinstar|twinstar-signaling|$desktop" \
    "the page's inspector is its own small wasm, not the game's"

# Pong's own code: checked on its source, as the netcode brings those
# crates into its dependency tree.
if found=$(grep -rnE '\b(ggrs|matchbox_[a-z]+|webrtc[a-z_]*)::' crates/pong/src); then
    echo "check-crate-boundaries: Pong imports networking crates itself (the netcode's job):" >&2
    echo "$found" >&2
    failed=1
fi

if [ "$failed" = 0 ]; then
    echo "check-crate-boundaries: the netcode depends on no game, desktop library or server; the server library, the protocol and the file reader on no game, desktop library or WebRTC stack; the server binary, the verifier, the simulation and the replay format on no netcode; the inspector's crates on no game or desktop library; Pong names no networking crate" >&2
fi
exit "$failed"
