#!/usr/bin/env bash
# Every crate of ours declares only dependencies it uses (issue 46: the root
# kept about 11 after the move to crates). cargo-machete reads each crate's
# sources for the names its manifest declares; a dependency used only
# through a feature or a macro's expansion is listed, with why, under
# [package.metadata.cargo-machete] ignored in that crate's manifest.
# Installs cargo-machete (a pinned version) when it is missing.
#
#   bash scripts/check-unused-deps.sh [--install-only | --is-installed]
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=lib/cargo-tool.sh
source scripts/lib/cargo-tool.sh
cargo_tool check-unused-deps machete cargo-machete 0.9.2 "${1:-}"

# Every manifest under the root: ours, the fuzz workspace's, the copy of
# matchbox_socket.
if ! cargo machete --skip-target-dir . >&2; then
    echo "check-unused-deps: a crate declares a dependency it does not use (above); remove it, or list it with why under [package.metadata.cargo-machete] ignored" >&2
    exit 1
fi
echo "check-unused-deps: every crate of ours uses what it declares" >&2
