#!/usr/bin/env bash
# Run the game (README): installs what building and running it needs on a
# fresh Debian/Ubuntu machine (with sudo or as root), builds it optimised,
# and starts it. Arguments go to twinstar: no arguments opens the main menu;
# e.g. `scripts/play.sh local`, `scripts/play.sh join K7Q-2XM`.
set -euo pipefail
cd "$(dirname "$0")/.."

# What building and running the game needs (scripts/lib/debian-packages.sh,
# the same list the test command uses); with sudo when not root.
# shellcheck source=lib/debian-packages.sh
source scripts/lib/debian-packages.sh
USE_SUDO=1 debian_install play.sh "${DEBIAN_BUILD[@]}" "${DEBIAN_RUN[@]}"
if ! command -v cargo >/dev/null; then
    echo "play.sh: Rust is not installed; get it from https://rustup.rs and run this again" >&2
    exit 1
fi
exec cargo run --release --locked --bin twinstar -- "$@"
