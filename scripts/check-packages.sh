#!/usr/bin/env bash
# scripts/check-packages.sh: every crate of the workspace packaged as
# `cargo publish` would upload it, and each built from its package alone
# (cargo's verification: the .crate unpacked and compiled, its workspace
# dependencies taken from the other packages, never from a path).
#
# Catches what only a stranger would meet: a path dependency without a
# version, a file included from outside the crate (the netcode's crate page
# includes Pong through crates/netcode/doc/pong.rs, a symlink cargo packages
# as a file), metadata crates.io asks for, a [patch] a dependent would not
# get. The .crate files land in $CARGO_TARGET_DIR/package (default
# target/package), where scripts/out-of-tree-game.sh builds a game from
# them.
#
# Pong is packaged and verified too, though it is `publish = false`: what
# cargo package checks holds for it as well; the game itself is packaged
# without a build of its own (below).
set -euo pipefail
cd "$(dirname "$0")/.."

# crates.io refuses a package without these (and asks for the rest).
missing=$(cargo metadata --no-deps --format-version 1 --locked | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["publish"] == []:
        continue
    need = ["description", "license", "repository", "readme", "documentation", "keywords", "categories"]
    gaps = [k for k in need if not p.get(k)]
    if gaps:
        print(f"{p['"'"'name'"'"']}: no {'"'"', '"'"'.join(gaps)}")
')
if [ -n "$missing" ]; then
    echo "check-packages: crates.io metadata missing:" >&2
    echo "$missing" >&2
    exit 1
fi
if grep -n '^\[patch' Cargo.toml crates/*/Cargo.toml; then
    echo "check-packages: a [patch] section above: a dependent of our crates would not get it" >&2
    exit 1
fi

# cargo unpacks the packages it verifies against (a registry it makes in
# target/package/tmp-registry) into $CARGO_HOME/registry/{cache,src}/
# under a name made from that path, and reuses what is there by name and
# version: a second run verified Pong against the first run's netcode,
# without the methods Pong now calls (miden-vm met the same: their PR
# #2530). So ours go first (a local registry's directories start with
# "-"; crates.io's are left alone).
cargo_home=${CARGO_HOME:-$HOME/.cargo}
rm -rf "$cargo_home"/registry/src/-*/twinstar-* "$cargo_home"/registry/src/-*/pong-* \
    "$cargo_home"/registry/cache/-*/twinstar-* "$cargo_home"/registry/cache/-*/pong-*
# Nor does cargo rebuild a registry crate it has built before under that
# name and version: a target dir kept from an earlier run would link the
# old netcode. Our crates' builds go too (a target dir shared with the
# workspace rebuilds them next time, a few minutes with the cache).
target=${CARGO_TARGET_DIR:-target}
for profile in "$target"/debug "$target"/release; do
    rm -rf "$profile"/.fingerprint/twinstar-* "$profile"/.fingerprint/pong-* \
        "$profile"/build/twinstar-* "$profile"/deps/libtwinstar_* "$profile"/deps/twinstar_* \
        "$profile"/deps/twinstar-* "$profile"/deps/libpong-* "$profile"/deps/pong-* \
        "$profile"/deps/libmatchbox_socket-* "$profile"/deps/matchbox_socket-*
done

# Every crate packaged (the game's package needs the others': cargo
# resolves it against them, so it cannot be packaged alone), then the
# libraries and Pong each built from its package. The game is not built
# from its package here: that compiled the whole game a second time, half
# of this script's 10 minutes in a fresh target dir, for a package nobody
# downloads (publish = false; the tests' build is the same sources under
# the same manifest). `cargo package --workspace --locked` builds it too,
# and passed by hand.
cargo package --workspace --locked --no-verify
cargo package --workspace --locked --exclude twinstar
echo "check-packages: $(ls "${CARGO_TARGET_DIR:-target}"/package/*.crate | wc -l) packages; all but the game built from their packages" >&2
