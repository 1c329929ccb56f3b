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

MACHETE_VERSION=0.9.2
installed() { cargo machete --version 2> /dev/null | grep -q "$MACHETE_VERSION"; }
[ "${1:-}" != --is-installed ] || { installed; exit; }
if ! installed; then
    echo "check-unused-deps: installing cargo-machete $MACHETE_VERSION" >&2
    cargo install --locked --quiet cargo-machete --version "$MACHETE_VERSION"
fi
[ "${1:-}" != --install-only ] || exit 0

# Every manifest under the root: ours, the fuzz workspace's, the copy of
# matchbox_socket.
if ! cargo machete --skip-target-dir . >&2; then
    echo "check-unused-deps: a crate declares a dependency it does not use (above); remove it, or list it with why under [package.metadata.cargo-machete] ignored" >&2
    exit 1
fi
echo "check-unused-deps: every crate of ours uses what it declares" >&2
