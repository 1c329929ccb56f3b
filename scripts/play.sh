#!/usr/bin/env bash
# Run the game (README): installs what building and running it needs on a
# fresh Debian/Ubuntu machine (with sudo or as root), builds it optimised,
# and starts it. Arguments go to twinstar: no arguments opens the main menu;
# e.g. `scripts/play.sh local`, `scripts/play.sh join K7Q-2XM`.
set -euo pipefail
cd "$(dirname "$0")/.."

need_pkgs=()
command -v cc >/dev/null || need_pkgs+=(gcc)
if command -v dpkg >/dev/null; then
    for pkg in libasound2-dev libgl1 libx11-6 libxi6 libxcursor1; do
        dpkg -s "$pkg" >/dev/null 2>&1 || need_pkgs+=("$pkg")
    done
fi
if [ ${#need_pkgs[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    echo "play.sh: installing ${need_pkgs[*]}" >&2
    $sudo apt-get update -qq && $sudo apt-get install -y -qq "${need_pkgs[@]}"
fi
if ! command -v cargo >/dev/null; then
    echo "play.sh: Rust is not installed; get it from https://rustup.rs and run this again" >&2
    exit 1
fi
exec cargo run --release --locked --bin twinstar -- "$@"
